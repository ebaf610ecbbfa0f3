"""Top-k kernels with CCCL's AIR select run under compute-sanitizer by ``test_block_top_k_algorithms.py``.

Run as ``python -m tests.gpu._sanitizer_block_top_k`` from the repository root. Each block loops over three tiles and,
per tile, calls ``top_k`` with ``algorithm="air"`` (the 40 largest float32 keys of few distinct values, so the k-th
key ties with many, with int32 values) and with ``"air_or_radix_sort"`` (the 7 and the 70 smallest: AIR, then the
radix sort), all sharing the kernel's temporary storage, so every barrier of AIR's select, reduction, scan and
ranking is crossed with another call before and after. Blocks: 128 threads, and 33 (a partial hardware warp).
Results are checked against NumPy; the script prints ``OK block_top_k <block>`` for each and ``ALL OK`` at the end,
and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

IPT, TILES, GRID = 4, 3, 3
K_AIR, K_SMALL, K_LARGE = 40, 7, 70
BLOCKS = ((128, 1, 1), (33, 1, 1))


def kernel_for(threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    TILE = threads * IPT

    @cuda.jit
    def kernel(keys_in, top_air, vals_air, top_small, top_large):
        keys = cuda.local.array(IPT, np.float32)
        vals = cuda.local.array(IPT, np.int32)
        t = cuda.threadIdx.x
        for tile in range(TILES):
            n = cuda.blockIdx.x * TILES + tile
            base = n * TILE
            for i in range(IPT):
                keys[i] = keys_in[base + t * IPT + i]
                vals[i] = base + t * IPT + i
            coop.block.top_k(keys, top_air, k=K_AIR, values=vals, out_values=vals_air, offset=n * K_AIR,
                             algorithm="air")
            coop.block.top_k(keys, top_small, k=K_SMALL, largest=False, offset=n * K_SMALL,
                             algorithm="air_or_radix_sort")
            coop.block.top_k(keys, top_large, k=K_LARGE, largest=False, offset=n * K_LARGE,
                             algorithm="air_or_radix_sort")

    return kernel


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    rng = np.random.default_rng(11)
    for block in BLOCKS:
        tile = block[0] * IPT
        tiles = GRID * TILES
        keys = rng.integers(-3, 4, tiles * tile).astype(np.float32)  # seven distinct keys: ties at every k
        outs = [np.full(tiles * K_AIR, -7, np.float32), np.full(tiles * K_AIR, -7, np.int32),
                np.full(tiles * K_SMALL, -7, np.float32), np.full(tiles * K_LARGE, -7, np.float32)]
        d_outs = [cuda.to_device(o) for o in outs]
        kernel_for(block[0])[GRID, block](cuda.to_device(keys), *d_outs)
        top_air, vals_air, top_small, top_large = (d.copy_to_host() for d in d_outs)
        good = True
        for j in range(tiles):
            sl = keys[j * tile : (j + 1) * tile]
            largest = np.argsort(-sl, kind="stable")[:K_AIR]  # stable: among equal keys the earliest positions
            smallest = np.argsort(sl, kind="stable")
            good &= np.array_equal(top_air[j * K_AIR : (j + 1) * K_AIR], sl[largest])
            good &= np.array_equal(vals_air[j * K_AIR : (j + 1) * K_AIR], largest + j * tile)
            good &= np.array_equal(top_small[j * K_SMALL : (j + 1) * K_SMALL], sl[smallest[:K_SMALL]])
            good &= np.array_equal(top_large[j * K_LARGE : (j + 1) * K_LARGE], sl[smallest[:K_LARGE]])
        print(f"{'OK' if good else 'WRONG'} block_top_k {'x'.join(map(str, block))}")
        ok &= bool(good)
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
