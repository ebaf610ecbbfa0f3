"""Neighbours in a tile: delta encoding with an adjacent difference, a 3-point stencil with block shuffles.

``coop.block.subtract_left`` turns each tile of a series into differences of consecutive values (the
previous tile's last value is the ``tile_predecessor_item``, so the tiles join up); the difference is the
known operator ``"-"`` (libcu++'s ``cuda::std::minus``; ``operator.sub`` and ``np.subtract`` are the same).
``coop.block.shuffle_up`` / ``shuffle_down`` hand every item its left and right neighbour within the tile for a
smoothing stencil (the tile's edges keep their own value), and give every thread the tile's first and last item.

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


# example-begin block_adjacent_difference
@cuda.jit
def delta_encode(x, deltas):
    items = cuda.local.array(ITEMS, np.int32)
    base = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=base, algorithm="transpose")
    if base == 0:
        coop.block.subtract_left(items, "-")   # in place; the series' first value is kept
    else:
        coop.block.subtract_left(items, "-", tile_predecessor_item=x[base - 1])
    coop.block.store(deltas, items, offset=base, algorithm="transpose")
# example-end block_adjacent_difference


# example-begin block_shuffle
@cuda.jit
def smooth(x, y, edges):
    items = cuda.local.array(ITEMS, np.float32)
    left = cuda.local.array(ITEMS, np.float32)
    right = cuda.local.array(ITEMS, np.float32)
    first = cuda.local.array(1, np.float32)
    last = cuda.local.array(1, np.float32)
    base = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=base, algorithm="transpose")
    for i in range(ITEMS):   # the tile's edge items have no neighbour: they keep their own value
        left[i] = items[i]
        right[i] = items[i]
    coop.block.shuffle_up(items, output=left, block_suffix=last)     # left[i]: the item before items[i]
    coop.block.shuffle_down(items, output=right, block_prefix=first)  # right[i]: the item after items[i]
    for i in range(ITEMS):
        items[i] = 0.25 * left[i] + 0.5 * items[i] + 0.25 * right[i]
    coop.block.store(y, items, offset=base, algorithm="transpose")
    if cuda.threadIdx.x == 0:
        edges[2 * cuda.blockIdx.x] = first[0]
        edges[2 * cuda.blockIdx.x + 1] = last[0]
# example-end block_shuffle


def run_on_gpu(tiles: int = 64) -> bool:
    rng = np.random.default_rng()
    x = rng.integers(-(2**20), 2**20, tiles * TILE, dtype=np.int32)
    deltas = cuda.to_device(np.zeros_like(x))
    delta_encode[tiles, THREADS](cuda.to_device(x), deltas)
    ok = _report("delta_encode", np.array_equal(deltas.copy_to_host(), np.diff(x, prepend=0)))

    f = rng.standard_normal(tiles * TILE).astype(np.float32)
    y, edges = cuda.to_device(np.zeros_like(f)), cuda.to_device(np.zeros(2 * tiles, np.float32))
    smooth[tiles, THREADS](cuda.to_device(f), y, edges)
    t = f.reshape(tiles, TILE).astype(np.float64)
    padded = np.concatenate([t[:, :1], t, t[:, -1:]], axis=1)   # each tile's edges repeat
    expected = 0.25 * padded[:, :-2] + 0.5 * t + 0.25 * padded[:, 2:]
    ok &= _report("smooth", np.allclose(y.copy_to_host().reshape(tiles, TILE), expected, rtol=1e-6, atol=1e-6)
                  and np.array_equal(edges.copy_to_host().reshape(tiles, 2), f.reshape(tiles, TILE)[:, [0, -1]]))
    print("PASS" if ok else "FAIL")
    return ok


def _report(name: str, ok: bool) -> bool:
    print(f"{name}: {'ok' if ok else 'WRONG'}")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    i32, f32 = types.int32[::1], types.float32[::1]
    for kernel, sig in ((delta_encode, (i32, i32)), (smooth, (f32, f32, f32))):
        compiled = compile_kernel(kernel, sig, block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
