"""Launching with a new grid and the same block shape reuses the compiled kernel (GPU tier).

The compile tier (tests/compile/test_grid_reuse.py) shows the overload lookup; here the kernel is
launched with three grids: every result is checked against NumPy, and the kernel is compiled once
for the block shape, at its first launch (issue 14, item 4). What a new grid's launch costs is
measured by ``benchmarks/kernel_compile.py`` (``TARGET_NEW_GRID``), not asserted here.
"""

from __future__ import annotations

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


def _launch(tiles: int) -> int:
    """Launch with ``tiles`` blocks, check the sums, and return the kernel's compiles so far."""
    x = np.arange(tiles * TILE, dtype=np.float32) % 7
    d_x, d_partial = cuda.to_device(x), cuda.to_device(np.zeros(tiles, np.float32))
    tile_sums[tiles, THREADS](d_x, d_partial)
    np.testing.assert_allclose(d_partial.copy_to_host(), x.reshape(tiles, TILE).sum(axis=1))
    return sum(tile_sums.launch_config_stats.cache_misses.values())


def test_new_grid_reuses_the_kernel() -> None:
    compiles = [_launch(tiles) for tiles in (4, 64, 1000, 4)]
    assert compiles == [1, 1, 1, 1], f"compiles after each launch (grids 4, 64, 1000, 4): {compiles}"
