"""Ranking kernels run under compute-sanitizer by ``test_warp_argsort_top_k.py``.

Run as ``python -m tests.gpu._sanitizer_ranking`` from the repository root. Each block loops over three tiles
and, per tile, ranks its int32 keys with ``coop.block.radix_rank`` by the digit of bits [3, 7) (``radix_bits=5``
cut by ``end_bit``; bits at run time), descending, with ``digit_prefix`` (``"memoize"`` on the 1-D block, then
also ``"match"`` ascending without ``digit_prefix``; ``"basic"`` on the 3-D one); then each logical warp of 8
lanes takes the ``coop.warp.top_k`` of its float32 keys (the 5 largest, with their int32 positions) and
``coop.warp.argsort`` s the same keys (int32 indices, ``base`` = the warp tile's offset), then argsorts them
again, descending, with ``algorithm="bitonic"`` (keys and positions exchanged back to blocked), all on the
kernel's shared temporary storage. Blocks: 128 threads, and 8x3x2 = 48 threads (a partial hardware warp). Inputs have
many ties; outputs start poisoned; results are checked against NumPy (the rank definition of
``test_family_block_radix_sort.py``, ``np.argsort(kind="stable")``, ``np.partition`` + sort). The script prints
``OK ranking <block>`` for each and ``ALL OK`` at the end, and exits nonzero on a wrong result.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from tests.helpers import seed

IPT, W, K, TILES, GRID = 4, 8, 5, 3, 2
RADIX_BITS, BEGIN_BIT, END_BIT = 5, 3, 7
BLOCKS = ((128, 1, 1), (8, 3, 2))


def tracked(threads: int) -> int:
    """Digits of ``digit_prefix`` a thread tracks: max(1, ceil(2**radix_bits / threads))."""
    return max(1, -(-(1 << RADIX_BITS) // threads))


def kernel_for(block: tuple[int, int, int]):  # type: ignore[no-untyped-def]
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T = math.prod(block)
    TILE, WT, B, PER_TILE = T * IPT, W * IPT, tracked(T), T // W
    MATCH = block[1:] == (1, 1)
    ALGO = "memoize" if MATCH else "basic"

    @cuda.jit
    def kernel(x, xf, bits, ranks_out, prefix_out, mranks_out, top_keys, top_vals, keys_out, idx_out, bit_keys_out,
               bit_idx_out):
        keys = cuda.local.array(IPT, np.int32)
        ranks = cuda.local.array(IPT, np.int32)
        mranks = cuda.local.array(IPT, np.int32)
        prefix = cuda.local.array(B, np.int32)
        wkeys = cuda.local.array(IPT, np.float32)
        wvals = cuda.local.array(IPT, np.int32)
        idx = cuda.local.array(IPT, np.int32)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        for tile in range(TILES):
            n = cuda.blockIdx.x * TILES + tile
            mine = n * TILE + t * IPT
            for i in range(IPT):
                keys[i] = x[mine + i]
                wkeys[i] = xf[mine + i]
                wvals[i] = mine + i
            for j in range(B):
                prefix[j] = -5  # entries past the digits stay as they are
            coop.block.radix_rank(keys, ranks, digit_prefix=prefix, radix_bits=RADIX_BITS, begin_bit=bits[0],
                                  end_bit=bits[1], descending=True, algorithm=ALGO)
            if MATCH:
                coop.block.radix_rank(keys, mranks, radix_bits=RADIX_BITS, begin_bit=bits[0], end_bit=bits[1],
                                      algorithm="match")
            for i in range(IPT):
                ranks_out[mine + i] = ranks[i]
            if MATCH:
                for i in range(IPT):
                    mranks_out[mine + i] = mranks[i]
            for j in range(B):
                prefix_out[(n * T + t) * B + j] = prefix[j]
            w = coop.uniform(n * PER_TILE + t // W)  # the logical warp, the same in its 8 lanes
            coop.warp.top_k(wkeys, top_keys, k=K, values=wvals, out_values=top_vals, offset=w * K, threads=W)
            coop.warp.argsort(wkeys, idx, base=w * WT, threads=W)  # top_k left wkeys as they were
            for i in range(IPT):
                keys_out[mine + i] = wkeys[i]
                idx_out[mine + i] = idx[i]
                wkeys[i] = xf[mine + i]
            coop.warp.argsort(wkeys, idx, base=w * WT, descending=True, threads=W, algorithm="bitonic")
            for i in range(IPT):
                bit_keys_out[mine + i] = wkeys[i]
                bit_idx_out[mine + i] = idx[i]

    return kernel


def expected_ranks(tile: np.ndarray, threads: int, descending: bool, match: bool) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each key of ``tile`` in blocked order, digit prefix of each thread's tracked digits; -5 past
    the digits), as ``test_family_block_radix_sort.expected_ranks``."""
    width = min(RADIX_BITS, END_BIT - BEGIN_BIT)
    u = tile.view(np.uint32) ^ np.uint32(1 << 31)  # CUB's bit-ordered int32
    digit = ((u >> np.uint32(BEGIN_BIT)) & np.uint32((1 << width) - 1)).astype(np.int64)
    radix = 1 << RADIX_BITS
    key = radix - 1 - digit if descending else digit
    p = np.arange(tile.size)
    t, i = p // IPT, p % IPT
    # ties: warp-striped order (warp, item, lane) for "match", blocked order for "basic"/"memoize"
    order = np.lexsort((t % 32, i, t // 32, key)) if match else np.lexsort((p, key))
    ranks = np.empty(tile.size, np.int64)
    ranks[order] = np.arange(tile.size)
    counts = np.bincount(digit, minlength=radix)
    prefix = np.full(threads * tracked(threads), -5, np.int64)
    for d in range(radix):
        prefix[d] = counts[d + 1 :].sum() if descending else counts[:d].sum()
    return ranks, prefix


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for block in BLOCKS:
        threads = math.prod(block)
        tile, wt, b, match = threads * IPT, W * IPT, tracked(threads), block[1:] == (1, 1)
        tiles = GRID * TILES
        n = tiles * tile
        warps = n // wt
        x = rng.integers(-50, 50, n, dtype=np.int32)  # 16 digits of bits [3, 7), many ties
        xf = (rng.integers(-12, 12, n) / 4).astype(np.float32)  # 24 distinct keys a warp tile of 32: ties
        outs = [np.full(n, -7, np.int32), np.full(tiles * threads * b, -7, np.int32), np.full(n, -7, np.int32),
                np.full(warps * K, 7.0e3, np.float32), np.full(warps * K, -7, np.int32), np.full(n, 7.0e3, np.float32),
                np.full(n, -7, np.int32), np.full(n, 7.0e3, np.float32), np.full(n, -7, np.int32)]
        d_outs = [cuda.to_device(o) for o in outs]
        kernel_for(block)[GRID, block](cuda.to_device(x), cuda.to_device(xf),
                                       cuda.to_device(np.array([BEGIN_BIT, END_BIT], np.int32)), *d_outs)
        ranks, prefix, mranks, top_keys, top_vals, keys_out, idx_out, bit_keys, bit_idx = (
            d.copy_to_host() for d in d_outs)
        good = True
        for j in range(tiles):
            sl = slice(j * tile, (j + 1) * tile)
            want, want_prefix = expected_ranks(x[sl], threads, True, False)
            good &= np.array_equal(ranks[sl], want)
            good &= np.array_equal(prefix[j * threads * b : (j + 1) * threads * b], want_prefix)
            if match:
                good &= np.array_equal(mranks[sl], expected_ranks(x[sl], threads, False, True)[0])
            else:
                good &= bool((mranks[sl] == -7).all())
        for w in range(warps):
            sl = slice(w * wt, (w + 1) * wt)
            kt = xf[sl]
            good &= np.array_equal(keys_out[sl], np.sort(kt))
            good &= np.array_equal(idx_out[sl], np.argsort(kt, kind="stable") + w * wt)
            down = np.argsort(-kt, kind="stable")  # descending, ties in input order (no -0.0: keys are k/4)
            good &= np.array_equal(bit_keys[sl], kt[down]) and np.array_equal(bit_idx[sl], down + w * wt)
            top = -np.sort(-np.partition(kt, wt - K)[wt - K :])  # the K largest, largest first
            good &= np.array_equal(top_keys[w * K : (w + 1) * K], top)
            # ties: the earlier positions first (stable descending order)
            good &= np.array_equal(top_vals[w * K : (w + 1) * K], np.argsort(-kt, kind="stable")[:K] + w * wt)
        print(f"{'OK' if good else 'WRONG'} ranking {'x'.join(map(str, block))}")
        ok &= bool(good)
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
