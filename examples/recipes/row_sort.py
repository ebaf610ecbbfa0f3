"""Row sort: each row's keys in ascending order, alone or with a value each (pairs), one block per row.

The block shape comes from ``coop.row_shape(n, dtype)``; a block sorts its tile in registers and shared memory with
``coop.block.radix_sort``, so a row must fit one tile: up to 8192 four-byte keys (1024 threads of 8), 16384 two-byte
keys. A row shorter than the tile is loaded with ``valid_items`` and sorted with ``valid_items``, which puts its
keys first whatever the rest of the tile holds; the store writes those back. A longer row needs a device-wide
segmented sort (``cub::DeviceSegmentedSort``), not a block's. The sort is stable; floats sort as CUB's radix order
(-0.0 and +0.0 tie; a NaN by its sign bit). With a GPU it checks rows of several lengths against NumPy and prints
PASS or FAIL; without one it compiles the kernels for sm_90.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin recipe_row_sort
@functools.cache
def sort_kernel(shape: coop.RowShape, key_dtype: np.dtype, value_dtype: np.dtype | None = None, load: str = "auto"):
    """``kernel[rows, shape.threads](keys_in, keys_out, n)``, or with ``value_dtype``
    ``kernel[...](keys_in, values_in, keys_out, values_out, n)``: each row of ``n <= shape.tile`` keys sorted."""
    ITEMS, TILE, key = shape.items_per_thread, shape.tile, np.dtype(key_dtype).type

    if value_dtype is None:
        @cuda.jit
        def row_sort(keys_in, keys_out, n):
            start = cuda.blockIdx.x * n
            keys = cuda.local.array(ITEMS, key)
            if n == TILE:
                coop.block.load(keys_in, keys, offset=start, algorithm=load)
            else:
                coop.block.load(keys_in, keys, offset=start, valid_items=n, algorithm=load)
            coop.block.radix_sort(keys, valid_items=n)       # the row's n keys, sorted, in the first n positions
            if n == TILE:
                coop.block.store(keys_out, keys, offset=start)
            else:
                coop.block.store(keys_out, keys, offset=start, valid_items=n)

        return row_sort

    value = np.dtype(value_dtype).type

    @cuda.jit
    def row_sort_pairs(keys_in, values_in, keys_out, values_out, n):
        start = cuda.blockIdx.x * n
        keys = cuda.local.array(ITEMS, key)
        values = cuda.local.array(ITEMS, value)
        if n == TILE:
            coop.block.load(keys_in, keys, offset=start, algorithm=load)
            coop.block.load(values_in, values, offset=start, algorithm=load)
        else:
            coop.block.load(keys_in, keys, offset=start, valid_items=n, algorithm=load)
            coop.block.load(values_in, values, offset=start, valid_items=n, algorithm=load)
        coop.block.radix_sort(keys, values=values, valid_items=n)
        if n == TILE:
            coop.block.store(keys_out, keys, offset=start)
            coop.block.store(values_out, values, offset=start)
        else:
            coop.block.store(keys_out, keys, offset=start, valid_items=n)
            coop.block.store(values_out, values, offset=start, valid_items=n)

    return row_sort_pairs


def sort_shape(n: int, key_dtype) -> coop.RowShape:
    """The block shape for rows of ``n`` keys; ValueError when a row does not fit one block's tile."""
    shape = coop.row_shape(n, key_dtype)
    if shape.tiles(n) > 1:
        raise ValueError(f"rows of {n} {np.dtype(key_dtype).name} keys do not fit one block's tile (at most "
                         f"{shape.tile}); sort them with a device-wide segmented sort")
    return shape


def sort_rows(keys_in, keys_out, n: int, *, values_in=None, values_out=None, shape: coop.RowShape | None = None,
              stream=0, load: str = "auto") -> None:
    """Sort each row of ``n`` keys of ``keys_in`` into ``keys_out`` (with ``values_in`` into ``values_out``).
    ``shape``: the block shape (its tile at least ``n``), :func:`sort_shape` when not given."""
    shape = shape or sort_shape(n, keys_in.dtype)
    rows = keys_in.size // n
    if values_in is None:
        sort_kernel(shape, keys_in.dtype, None, load)[rows, shape.threads, stream](keys_in, keys_out, n)
    else:
        kernel = sort_kernel(shape, keys_in.dtype, values_in.dtype, load)
        kernel[rows, shape.threads, stream](keys_in, values_in, keys_out, values_out, n)
# example-end recipe_row_sort


def run_on_gpu(rows: int = 64) -> bool:
    rng = np.random.default_rng()
    ok = True
    for n in (1000, 1024, 8192):                             # partial tiles and full ones
        keys = np.round(rng.standard_normal((rows, n)) * 100).astype(np.float32)   # ties: stability shows
        values = rng.integers(-(2**31), 2**31, (rows, n), dtype=np.int32)
        keys_out = cuda.to_device(np.zeros(rows * n, np.float32))
        values_out = cuda.to_device(np.zeros(rows * n, np.int32))
        sort_rows(cuda.to_device(keys.ravel()), keys_out, n)
        good = np.array_equal(keys_out.copy_to_host().reshape(rows, n), np.sort(keys, axis=1))
        keys_out = cuda.to_device(np.zeros(rows * n, np.float32))
        sort_rows(cuda.to_device(keys.ravel()), keys_out, n, values_in=cuda.to_device(values.ravel()),
                  values_out=values_out)
        order = np.argsort(keys, axis=1, kind="stable")
        good &= np.array_equal(keys_out.copy_to_host().reshape(rows, n), np.take_along_axis(keys, order, axis=1))
        good &= np.array_equal(values_out.copy_to_host().reshape(rows, n), np.take_along_axis(values, order, axis=1))
        ok &= good
        print(f"row_sort keys and pairs {rows} x {n} ({coop.row_shape(n, np.float32)}): {'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    shape = sort_shape(1024, np.float32)
    f32, i32 = types.float32[::1], types.int32[::1]
    keys = compile_kernel(sort_kernel(shape, np.dtype(np.float32)), (f32, f32, types.int64), block=shape.threads,
                          arch="sm_90")
    pairs = compile_kernel(sort_kernel(shape, np.dtype(np.float32), np.dtype(np.int32)),
                           (f32, i32, f32, i32, types.int64), block=shape.threads, arch="sm_90")
    print(f"compiled row_sort ({shape}) for sm_90: {keys.resource_usage().get('reg', 0)} registers, pairs "
          f"{pairs.resource_usage().get('reg', 0)}")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
