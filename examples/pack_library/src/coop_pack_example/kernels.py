"""Tile sums and tile sorts of int64 arrays, each tile one block of THREADS threads with ITEMS items each.

``cuda_coop_precompile`` lists every kernel with the signature and block it is launched with:
``python -m cuda.coop precompile coop_pack_example.kernels --arch sm_80,sm_90 --out <pack>`` compiles them.
"""

from __future__ import annotations

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS
LARGEST = np.iinfo(np.int64).max  # what a partial tile is padded with before sorting: it sorts last


@cuda.jit
def tile_sums_kernel(x, sums, n):
    """``sums[b]``: the sum of tile ``b`` of ``x[:n]`` (the last tile may be partial)."""
    items = cuda.local.array(ITEMS, np.int64)
    base = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=base, valid_items=min(TILE, n - base), oob_default=0)
    total = coop.block.sum(items)
    if cuda.threadIdx.x == 0:
        sums[cuda.blockIdx.x] = total


@cuda.jit
def sort_tiles_kernel(x, out, n):
    """``out``: ``x[:n]`` with each tile sorted (the last tile may be partial)."""
    items = cuda.local.array(ITEMS, np.int64)
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)
    coop.block.load(x, items, offset=base, valid_items=valid, oob_default=LARGEST)
    coop.block.radix_sort(items)
    coop.block.store(out, items, offset=base, valid_items=valid)


ARRAY = types.int64[::1]
cuda_coop_precompile = [
    (tile_sums_kernel, (ARRAY, ARRAY, types.int64), THREADS),
    (sort_tiles_kernel, (ARRAY, ARRAY, types.int64), THREADS),
]


def tile_sums(x: np.ndarray) -> np.ndarray:
    """The sum of each tile of ``x`` (int64)."""
    tiles = -(-x.size // TILE)
    sums = cuda.to_device(np.zeros(tiles, np.int64))
    tile_sums_kernel[tiles, THREADS](cuda.to_device(x), sums, x.size)
    return sums.copy_to_host()


def sort_tiles(x: np.ndarray) -> np.ndarray:
    """``x`` (int64) with each tile sorted."""
    out = cuda.to_device(np.zeros(x.size, np.int64))
    sort_tiles_kernel[-(-x.size // TILE), THREADS](cuda.to_device(x), out, x.size)
    return out.copy_to_host()
