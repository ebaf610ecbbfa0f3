"""Argmax per tile and argmin per logical warp, with deliberate ties: the lowest position wins.

Each block loads a tile of ``THREADS * ITEMS`` float32 values and ``coop.block.argmax`` returns the tile's
largest value and its position in the tile (blocked order); each logical warp of 16 lanes finds the smallest
of one value per lane with ``coop.warp.argmin``. Values are rounded to a coarse grid so that equal values
occur often: NumPy's ``argmax``/``argmin`` (first occurrence) are the reference. With a GPU it runs the kernel
and prints PASS or FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS, LANES = 128, 4, 16
TILE = THREADS * ITEMS


# example-begin block_arg_reduce
@cuda.jit
def tile_argmax(x, best, where):
    """best[b], where[b] = the largest value of tile b and its first position in the tile."""
    items = cuda.local.array(ITEMS, np.float32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * TILE, algorithm="transpose")
    value, position = coop.block.argmax(items)     # (value, position), valid in thread 0
    if cuda.threadIdx.x == 0:
        best[cuda.blockIdx.x] = value
        where[cuda.blockIdx.x] = position
# example-end block_arg_reduce


# example-begin warp_arg_reduce
@cuda.jit
def warp_argmin(x, low, where):
    """low[w], where[w] = the smallest of the 16 values of logical warp w and the first lane holding it."""
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    value, lane = coop.warp.argmin(x[i], threads=LANES)   # valid in lane 0 of each logical warp
    if cuda.threadIdx.x % LANES == 0:
        low[i // LANES] = value
        where[i // LANES] = lane
# example-end warp_arg_reduce


def run_on_gpu(tiles: int = 64) -> bool:
    rng = np.random.default_rng()
    x = np.round(rng.uniform(-4, 4, tiles * TILE)).astype(np.float32)  # 9 distinct values: many ties
    best, where = cuda.to_device(np.zeros(tiles, np.float32)), cuda.to_device(np.zeros(tiles, np.int64))
    tile_argmax[tiles, THREADS](cuda.to_device(x), best, where)
    t = x.reshape(tiles, TILE)
    ok = np.array_equal(best.copy_to_host(), t.max(axis=1))
    ok &= np.array_equal(where.copy_to_host(), t.argmax(axis=1))
    groups = tiles * TILE // LANES
    low, lanes = cuda.to_device(np.zeros(groups, np.float32)), cuda.to_device(np.zeros(groups, np.int64))
    warp_argmin[tiles * ITEMS, THREADS](cuda.to_device(x), low, lanes)
    g = x.reshape(groups, LANES)
    ok &= np.array_equal(low.copy_to_host(), g.min(axis=1))
    ok &= np.array_equal(lanes.copy_to_host(), g.argmin(axis=1))
    print(f"tile_argmax, warp_argmin: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return bool(ok)


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f32, i64 = types.float32[::1], types.int64[::1]
    for kernel in (tile_argmax, warp_argmin):
        compiled = compile_kernel(kernel, (f32, f32, i64), block=THREADS, arch="sm_90")
        print(f"compiled {kernel.__name__} for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
