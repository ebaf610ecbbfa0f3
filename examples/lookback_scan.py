"""A single-pass prefix sum of a large array: one tile per block, chained by decoupled look-back.

Each block scans its tile with ``coop.block.inclusive_sum`` and a ``prefix_op`` callback. CUB calls the
callback in the block's first warp with the tile's total, *before* the tile's scan is finished; the
callback publishes that total for the blocks after it, walks back over the tiles before it until one
has published its inclusive prefix (adding the totals it passes), publishes its own inclusive prefix
and returns the sum of everything before the tile, which CUB adds to every item. This is the
decoupled look-back of Merrill and Garland's single-pass scan (what ``cub::DeviceScan`` does), with a
simple one-lane look-back; a tile's state and value share one 64-bit word, so one atomic exchange
publishes both. The last tile is partial. With a GPU it runs the kernel and prints PASS or
FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 256, 8
TILE = THREADS * ITEMS
# Each tile owns one int64 word of ``status``: (value << 2) | state, so that a single atomic exchange
# publishes a value and its state together (values must fit in 62 bits).
EMPTY, TOTAL, PREFIX = 0, 1, 2   # state: nothing yet, the tile's total, its inclusive prefix


# example-begin decoupled_lookback
@cuda.jit(device=True)
def look_back(status_ptr, tile_total):
    """prefix_op: publish this tile's total, add up the tiles before it, return the tile's prefix."""
    if cuda.threadIdx.x != 0:
        return 0                        # CUB uses lane 0's result; one lane does the look-back
    tile = cuda.blockIdx.x              # tiles run in launch order, as in cub::DeviceScan
    status = cuda.carray(status_ptr, cuda.gridDim.x)
    if tile > 0:
        cuda.atomic.exch(status, tile, (tile_total << 2) | TOTAL)
    prefix = 0
    before = tile - 1
    while before >= 0:
        word = cuda.atomic.add(status, before, 0)   # an atomic read: never a stale cache line
        if word & 3 != EMPTY:
            prefix += word >> 2
            before = -1 if word & 3 == PREFIX else before - 1   # an inclusive prefix ends the walk
    cuda.atomic.exch(status, tile, ((prefix + tile_total) << 2) | PREFIX)
    return prefix


@cuda.jit
def scan(x, y, status, n):
    """y = np.cumsum(x) in one pass: block b scans tile b, seeded by the look-back."""
    items = cuda.local.array(ITEMS, np.int64)
    offset = cuda.blockIdx.x * TILE
    valid = min(TILE, n - offset)       # the last tile is partial
    coop.block.load(x, items, offset=offset, valid_items=valid, oob_default=0)
    coop.block.inclusive_sum(items, prefix_op=look_back, prefix_state=status)
    coop.block.store(y, items, offset=offset, valid_items=valid)
# example-end decoupled_lookback


def run_on_gpu(n: int = 40_000_000 + 1234) -> bool:
    rng = np.random.default_rng()
    x = rng.integers(-(2**31), 2**31, n, dtype=np.int64)   # prefixes pass 2^32 and fit in 62 bits
    tiles = -(-n // TILE)
    y = cuda.to_device(np.full(n, -1, np.int64))
    status = cuda.to_device(np.zeros(tiles, np.int64))   # every tile EMPTY
    scan[tiles, THREADS](cuda.to_device(x), y, status, n)
    got = y.copy_to_host()
    ok = bool(np.array_equal(got, np.cumsum(x)))
    print(f"scan of {n} int64 in {tiles} tiles ({n - (tiles - 1) * TILE} items in the last): "
          f"{'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    i64 = types.int64[::1]
    compiled = compile_kernel(scan, (i64, i64, i64, types.int64), block=THREADS, arch="sm_90")
    print(f"compiled scan for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
