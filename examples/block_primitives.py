"""Block-wide load/store, reduction and scan, one tile per block, checked against NumPy.

With a GPU it runs every kernel and prints PASS or FAIL; without one it compiles them for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


# example-begin block_load_store
@cuda.jit
def copy_tiles(src, dst, n):
    """Copy ``src[:n]`` to ``dst`` tile by tile; the last tile is partial."""
    items = cuda.local.array(ITEMS, np.int64)
    base = cuda.blockIdx.x * TILE
    coop.block.load(src, items, offset=base, valid_items=n - base, algorithm="transpose")
    coop.block.store(dst, items, offset=base, valid_items=n - base, algorithm="transpose")
# example-end block_load_store


# example-begin block_reduce_sum
@cuda.jit
def tile_sum_and_max(x, sums, maxes):
    items = cuda.local.array(ITEMS, np.int64)
    coop.block.load(x, items, offset=cuda.blockIdx.x * TILE, algorithm="vectorize")
    total = coop.block.sum(items)            # valid in thread 0
    biggest = coop.block.reduce(items, "max")
    if cuda.threadIdx.x == 0:
        sums[cuda.blockIdx.x] = total
        maxes[cuda.blockIdx.x] = biggest
# example-end block_reduce_sum


# example-begin block_scan_exclusive_sum
@cuda.jit
def tile_exclusive_sums(x, out, totals):
    items = cuda.local.array(ITEMS, np.int32)
    total = cuda.local.array(1, np.int32)
    base = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=base, algorithm="transpose")
    coop.block.exclusive_sum(items, block_aggregate=total)   # in place, blocked order
    coop.block.store(out, items, offset=base, algorithm="transpose")
    if cuda.threadIdx.x == 0:
        totals[cuda.blockIdx.x] = total[0]
# example-end block_scan_exclusive_sum


def run_on_gpu(tiles: int = 64) -> bool:
    rng = np.random.default_rng()
    ok = True
    n = tiles * TILE - 77
    src = rng.integers(-(2**62), 2**62, n, dtype=np.int64)
    dst = cuda.to_device(np.full(tiles * TILE, -1, np.int64))
    copy_tiles[tiles, THREADS](cuda.to_device(src), dst, n)
    got = dst.copy_to_host()
    ok &= _report("copy_tiles", np.array_equal(got[:n], src) and bool((got[n:] == -1).all()))

    x = rng.integers(-(2**40), 2**40, tiles * TILE, dtype=np.int64)
    sums, maxes = cuda.to_device(np.zeros(tiles, np.int64)), cuda.to_device(np.zeros(tiles, np.int64))
    tile_sum_and_max[tiles, THREADS](cuda.to_device(x), sums, maxes)
    tiles_x = x.reshape(tiles, TILE)
    ok &= _report("tile_sum_and_max", np.array_equal(sums.copy_to_host(), tiles_x.sum(axis=1))
                  and np.array_equal(maxes.copy_to_host(), tiles_x.max(axis=1)))

    y = rng.integers(-1000, 1000, tiles * TILE, dtype=np.int32)
    out, totals = cuda.to_device(np.zeros_like(y)), cuda.to_device(np.zeros(tiles, np.int32))
    tile_exclusive_sums[tiles, THREADS](cuda.to_device(y), out, totals)
    tiles_y = y.reshape(tiles, TILE)
    expected = np.cumsum(tiles_y, axis=1, dtype=np.int32) - tiles_y
    ok &= _report("tile_exclusive_sums", np.array_equal(out.copy_to_host().reshape(tiles, TILE), expected)
                  and np.array_equal(totals.copy_to_host(), tiles_y.sum(axis=1, dtype=np.int32)))
    print("PASS" if ok else "FAIL")
    return ok


def _report(name: str, ok: bool) -> bool:
    print(f"{name}: {'ok' if ok else 'WRONG'}")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    i64, i32 = types.int64[::1], types.int32[::1]
    for kernel, sig in ((copy_tiles, (i64, i64, types.int64)), (tile_sum_and_max, (i64, i64, i64)),
                        (tile_exclusive_sums, (i32, i32, i32))):
        compiled = compile_kernel(kernel, sig, block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
