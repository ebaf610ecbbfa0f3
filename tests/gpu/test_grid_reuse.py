"""Launching with a new grid and the same block shape reuses the compiled kernel (GPU tier).

The compile tier (tests/compile/test_grid_reuse.py) shows the overload lookup; here the kernel is
launched with three grids: every result is checked against NumPy, the kernel is compiled once
for the block shape, and the first launch with a new grid costs at most 20 ms (issue 14, item 4).
"""

from __future__ import annotations

import time

import numpy as np
from numba_cuda_mlir import cuda

import cuda.coop as coop

THREADS = 128
ITEMS = 4
TILE = THREADS * ITEMS


@cuda.jit
def tile_sums(x, partial):
    items = cuda.local.array(ITEMS, np.float32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * TILE, algorithm="transpose")
    total = coop.block.sum(items)
    if cuda.threadIdx.x == 0:
        partial[cuda.blockIdx.x] = total


def _launch(tiles: int) -> float:
    """Launch with ``tiles`` blocks, check the sums, and return the launch's wall time (s)."""
    x = np.arange(tiles * TILE, dtype=np.float32) % 7
    d_x, d_partial = cuda.to_device(x), cuda.to_device(np.zeros(tiles, np.float32))
    cuda.synchronize()
    start = time.perf_counter()
    tile_sums[tiles, THREADS](d_x, d_partial)
    cuda.synchronize()
    seconds = time.perf_counter() - start
    np.testing.assert_allclose(d_partial.copy_to_host(), x.reshape(tiles, TILE).sum(axis=1))
    return seconds


def test_new_grid_reuses_the_kernel() -> None:
    first = _launch(4)
    second = _launch(64)
    third = _launch(1000)
    again = _launch(4)
    compiles = sum(tile_sums.launch_config_stats.cache_misses.values())
    print(f"first launch {first * 1000:.1f} ms; new grids {second * 1000:.1f} and {third * 1000:.1f} ms; "
          f"grid seen before {again * 1000:.2f} ms; compiles {compiles}")
    assert compiles == 1, f"{compiles} compiles for one block shape and three grids"
    assert max(second, third) <= 0.020, f"a new grid took {max(second, third) * 1000:.1f} ms"
