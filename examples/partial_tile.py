"""Reductions and sorts of an array whose length is not a multiple of the tile: the last tile is partial.

Three ways to keep the missing items out of the result, all with ``valid_items``:

- ``tile_sums``: load the tile with ``valid_items`` and ``oob_default=0`` (the identity of ``+``), then
  reduce all of ``items``: the padding adds nothing.
- ``tile_extremes``: one value per thread and ``coop.block.reduce(v, op, valid_items=...)``: CUB reduces
  only the first ``valid_items`` threads' values, so the operator needs no identity (here: the value
  of largest magnitude, ties to the positive one).
- ``sort_tiles``: ``coop.block.radix_sort(keys, valid_items=...)`` sorts the tile's first ``valid_items`` keys
  into its first ``valid_items`` positions whatever the other items hold (cuda-coop gives them the key that
  sorts last before CUB runs), and the store writes those back.

With a GPU it runs the kernels and prints PASS or FAIL; without one it compiles them for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


# example-begin partial_tile_sum
@cuda.jit
def tile_sums(x, sums, n):
    """sums[b] = x[b*TILE : b*TILE + TILE].sum(), the last tile shorter."""
    items = cuda.local.array(ITEMS, np.int64)
    offset = cuda.blockIdx.x * TILE
    valid = min(TILE, n - offset)                      # the same in every thread of the block
    coop.block.load(x, items, offset=offset, valid_items=valid, oob_default=0)
    total = coop.block.sum(items)                      # padding is 0: it adds nothing
    if cuda.threadIdx.x == 0:
        sums[cuda.blockIdx.x] = total
# example-end partial_tile_sum


# example-begin partial_tile_reduce
def larger_magnitude(a, b):
    """The operand of larger magnitude; of a and -a, the positive one (commutative and associative)."""
    if abs(a) != abs(b):
        return a if abs(a) > abs(b) else b
    return max(a, b)


@cuda.jit
def tile_extremes(x, extremes, n):
    """extremes[b] = the value of largest magnitude in x[b*THREADS : b*THREADS + THREADS]."""
    i = cuda.grid(1)
    v = x[i] if i < n else x[0]                        # any value: threads past n are not reduced
    offset = cuda.blockIdx.x * THREADS
    e = coop.block.reduce(v, larger_magnitude, valid_items=min(THREADS, n - offset))
    if cuda.threadIdx.x == 0:
        extremes[cuda.blockIdx.x] = e
# example-end partial_tile_reduce


# example-begin partial_tile_sort
@cuda.jit
def sort_tiles(x, y, n):
    """y[b*TILE : b*TILE + TILE] = np.sort(x[b*TILE : b*TILE + TILE]), the last tile shorter."""
    keys = cuda.local.array(ITEMS, np.float32)
    offset = cuda.blockIdx.x * TILE
    valid = min(TILE, n - offset)                      # the same in every thread of the block
    coop.block.load(x, keys, offset=offset, valid_items=valid, algorithm="transpose")  # the rest: left as they are
    coop.block.radix_sort(keys, valid_items=valid)     # the first `valid` positions: the valid keys, sorted
    coop.block.store(y, keys, offset=offset, valid_items=valid, algorithm="transpose")
# example-end partial_tile_sort


def run_on_gpu(n: int = 1_000_003) -> bool:
    rng = np.random.default_rng()
    x = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    tiles = -(-n // TILE)
    sums = cuda.to_device(np.zeros(tiles, np.int64))
    tile_sums[tiles, THREADS](cuda.to_device(x), sums, n)
    expected = np.add.reduceat(x, np.arange(0, n, TILE))
    ok_sums = bool(np.array_equal(sums.copy_to_host(), expected))
    print(f"tile_sums, {tiles} tiles, {n - (tiles - 1) * TILE} items in the last: {'ok' if ok_sums else 'WRONG'}")

    y = rng.integers(-50, 51, n).astype(np.float32)    # few magnitudes: many ties between a and -a
    blocks = -(-n // THREADS)
    extremes = cuda.to_device(np.full(blocks, np.nan, np.float32))
    tile_extremes[blocks, THREADS](cuda.to_device(y), extremes, n)
    padded = np.concatenate([y, np.zeros(blocks * THREADS - n, np.float32)]).reshape(blocks, THREADS)
    key = np.abs(padded) * 2 + (padded > 0)            # magnitude first, then the positive one
    key[-1, n - (blocks - 1) * THREADS:] = -1          # the padding is never chosen
    expected_e = padded[np.arange(blocks), key.argmax(axis=1)]
    ok_ext = bool(np.array_equal(extremes.copy_to_host(), expected_e))
    print(f"tile_extremes, {blocks} blocks, {n - (blocks - 1) * THREADS} values in the last: "
          f"{'ok' if ok_ext else 'WRONG'}")
    z = rng.standard_normal(n).astype(np.float32)
    sorted_z = cuda.to_device(np.full(n, np.nan, np.float32))
    sort_tiles[tiles, THREADS](cuda.to_device(z), sorted_z, n)
    expected_z = np.concatenate([np.sort(z[i : i + TILE]) for i in range(0, n, TILE)])
    ok_sort = bool(np.array_equal(sorted_z.copy_to_host(), expected_z))
    print(f"sort_tiles, {tiles} tiles, {n - (tiles - 1) * TILE} keys in the last: {'ok' if ok_sort else 'WRONG'}")
    ok = ok_sums and ok_ext and ok_sort
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    for kernel, dt in ((tile_sums, types.int64), (tile_extremes, types.float32), (sort_tiles, types.float32)):
        compiled = compile_kernel(kernel, (dt[::1], dt[::1], types.int64), block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
