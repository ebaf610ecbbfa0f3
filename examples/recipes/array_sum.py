"""Whole-array sum: ``total = x.sum()``, in two launches, deterministic.

The first kernel gives each block a grid-stride share of the array's tiles, of the shape ``coop.row_shape(n,
dtype)`` picks; each thread adds up its items of every tile, ``coop.block.sum`` adds up the block's threads, and
thread 0 writes the block's sum to ``partial``. The second kernel, one block, adds up ``partial`` the same way. The
grid is as many blocks as the GPU keeps resident at once, and the order of the additions depends only on it and
the block shape: the same input gives the same bits every time. Sums are in the array's type. The partial last
tile is loaded with ``oob_default=0``. With a GPU it checks arrays of several lengths against NumPy and prints
PASS or FAIL; without one it compiles the kernels for sm_90.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin recipe_array_sum
@functools.cache
def sum_kernel(shape: coop.RowShape, dtype: np.dtype, load: str = "auto"):
    """``kernel[blocks, shape.threads](x, n, sums)``: ``sums[b]`` = the sum of block b's grid-stride share of the
    tiles of ``x[:n]``."""
    ITEMS, TILE, item = shape.items_per_thread, shape.tile, np.dtype(dtype).type

    @cuda.jit
    def block_sums(x, n, sums):
        items = cuda.local.array(ITEMS, item)
        acc = item(0)
        for base in range(cuda.blockIdx.x * TILE, n, cuda.gridDim.x * TILE):
            if base + TILE <= n:
                coop.block.load(x, items, offset=base, algorithm=load)
            else:
                coop.block.load(x, items, offset=base, valid_items=n - base, oob_default=0, algorithm=load)
            for i in range(ITEMS):
                acc += items[i]
        total = coop.block.sum(acc)                          # valid in thread 0
        if cuda.threadIdx.x == 0:
            sums[cuda.blockIdx.x] = total

    return block_sums


def resident_blocks(shape: coop.RowShape, n: int) -> int:
    """As many blocks as the GPU runs at once (at most one per tile)."""
    device = cuda.get_current_device()
    per_sm = device.MAX_THREADS_PER_MULTIPROCESSOR // shape.threads
    return max(1, min(shape.tiles(n), device.MULTIPROCESSOR_COUNT * per_sm))


def array_sum(x, total, partial=None, *, shape: coop.RowShape | None = None, stream=0, load: str = "auto") -> None:
    """``total[0]`` = the sum of the 1-D device array ``x``; ``partial``: a device array of ``x``'s type and at
    least ``resident_blocks(shape, n)`` items, allocated when not given. ``shape``: the block shape,
    ``coop.row_shape(n, x.dtype)`` when not given."""
    n = x.size
    shape = shape or coop.row_shape(n, x.dtype)
    blocks = resident_blocks(shape, n)
    if partial is None:
        partial = cuda.device_array(blocks, x.dtype, stream=stream)
    sum_kernel(shape, x.dtype, load)[blocks, shape.threads, stream](x, n, partial)
    last = coop.row_shape(blocks, x.dtype)                   # one block adds up the blocks' sums
    sum_kernel(last, x.dtype, load)[1, last.threads, stream](partial, blocks, total)
# example-end recipe_array_sum


def run_on_gpu() -> bool:
    rng = np.random.default_rng()
    ok = True
    for n in (1000, 1 << 20, (1 << 26) + 12345):            # one partial tile; whole tiles; a partial last one
        x = rng.standard_normal(n).astype(np.float32)
        total = cuda.to_device(np.full(1, np.nan, np.float32))
        array_sum(cuda.to_device(x), total)
        got, want = float(total.copy_to_host()[0]), float(x.sum(dtype=np.float64))
        bound = 1e-6 * float(np.abs(x).sum(dtype=np.float64)) * np.log2(n)   # float32 rounding of a tree of sums
        good = abs(got - want) <= bound
        ok &= good
        print(f"array_sum of {n} float32 ({coop.row_shape(n, np.float32)}): error {abs(got - want):.1e}, "
              f"bound {bound:.1e} {'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    shape = coop.row_shape(1 << 28, np.float32)
    f32 = types.float32[::1]
    compiled = compile_kernel(sum_kernel(shape, np.dtype(np.float32)), (f32, types.int64, f32), block=shape.threads,
                              arch="sm_90")
    print(f"compiled array_sum ({shape}) for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
