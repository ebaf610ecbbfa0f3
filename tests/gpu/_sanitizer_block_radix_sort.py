"""Radix-sort kernels run under compute-sanitizer by ``test_family_block_radix_sort.py``.

Run as ``python -m tests.gpu._sanitizer_block_radix_sort`` from the repository root. Each block loops over
three tiles and, per tile, calls ``radix_sort`` on (int32 key, float32 value) pairs (descending, striped,
bits [0, 20) at run time), ``argsort`` (uint32 keys into int64 indices) and ``top_k`` (the 5 smallest float64
keys with int32 values), all three sharing the kernel's temporary storage. Blocks: 128 threads, and
16x3 = 48 threads (a partial hardware warp). Results are checked against NumPy; the script prints
``OK block_radix_sort <block>`` for each and ``ALL OK`` at the end, and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

from tests.helpers import seed

IPT, TILES, GRID, K, END_BIT = 4, 3, 3, 5, 20
BLOCKS = ((128, 1, 1), (16, 3, 1))


def kernel_for(threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T, TILE = threads, threads * IPT

    @cuda.jit
    def kernel(ki, vf, ku, kd, end_bit, keys_out, vals_out, idx_out, top_keys, top_vals):
        keys = cuda.local.array(IPT, np.int32)
        vals = cuda.local.array(IPT, np.float32)
        ukeys = cuda.local.array(IPT, np.uint32)
        idx = cuda.local.array(IPT, np.int64)
        dkeys = cuda.local.array(IPT, np.float64)
        dvals = cuda.local.array(IPT, np.int32)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        for tile in range(TILES):
            n = cuda.blockIdx.x * TILES + tile
            base = n * TILE
            for i in range(IPT):
                keys[i] = ki[base + t * IPT + i]
                vals[i] = vf[base + t * IPT + i]
                ukeys[i] = ku[base + t * IPT + i]
                dkeys[i] = kd[base + t * IPT + i]
                dvals[i] = base + t * IPT + i
            coop.block.radix_sort(keys, values=vals, descending=True, output="striped", end_bit=end_bit[0])
            for i in range(IPT):
                keys_out[base + i * T + t] = keys[i]
                vals_out[base + i * T + t] = vals[i]
            coop.block.argsort(ukeys, idx, base=base)
            for i in range(IPT):
                idx_out[base + t * IPT + i] = idx[i]
            coop.block.top_k(dkeys, top_keys, k=K, values=dvals, out_values=top_vals, largest=False, offset=n * K)

    return kernel


def _sort_order(ordered: np.ndarray, descending: bool) -> np.ndarray:
    return np.argsort(-ordered if descending else ordered, kind="stable")


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for block in BLOCKS:
        threads = int(np.prod(block))
        tile = threads * IPT
        tiles = GRID * TILES
        n = tiles * tile
        ki = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)
        vf = np.arange(n, dtype=np.float32)
        ku = rng.integers(0, 50, n, dtype=np.uint32)
        kd = rng.standard_normal(n)
        outs = [np.full(n, -7, np.int32), np.full(n, -7, np.float32), np.full(n, -7, np.int64),
                np.full(tiles * K, -7, np.float64), np.full(tiles * K, -7, np.int32)]
        d_outs = [cuda.to_device(o) for o in outs]
        kernel_for(threads)[GRID, block](cuda.to_device(ki), cuda.to_device(vf), cuda.to_device(ku),
                                         cuda.to_device(kd), cuda.to_device(np.array([END_BIT], np.int32)), *d_outs)
        keys_out, vals_out, idx_out, top_keys, top_vals = (d.copy_to_host() for d in d_outs)
        good = True
        for j in range(tiles):
            sl = slice(j * tile, (j + 1) * tile)
            low = (ki[sl].view(np.uint32) ^ np.uint32(1 << 31)) & np.uint32((1 << END_BIT) - 1)
            o = _sort_order(low.astype(np.int64), True)
            good &= np.array_equal(keys_out[sl], ki[sl][o]) and np.array_equal(vals_out[sl], vf[sl][o])
            good &= np.array_equal(idx_out[sl], np.argsort(ku[sl], kind="stable") + j * tile)
            small = np.argsort(kd[sl], kind="stable")[:K]
            good &= np.array_equal(top_keys[j * K : (j + 1) * K], kd[sl][small])
            good &= np.array_equal(top_vals[j * K : (j + 1) * K], small + j * tile)
        print(f"{'OK' if good else 'WRONG'} block_radix_sort {'x'.join(map(str, block))}")
        ok &= bool(good)
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
