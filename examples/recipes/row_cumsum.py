"""Row cumsum: ``y[r] = np.cumsum(x[r])`` for each row, one block per row.

A row of any length: the block shape comes from ``coop.row_shape(n, dtype)``, whose tile holds the whole row when
it can; a longer row is scanned tile by tile, with the total of the tiles before it (``block_aggregate``, which
every thread receives) carried into the next. The partial last tile is loaded with ``oob_default=0`` and stored
with ``valid_items``. Sums are in the row's type, as ``np.cumsum(x, dtype=x.dtype)``. With a GPU it checks
float32 and int32 rows of several lengths against NumPy and prints PASS or FAIL; without one it compiles the
kernel for sm_90.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin recipe_row_cumsum
@functools.cache
def cumsum_kernel(shape: coop.RowShape, dtype: np.dtype, load: str = "auto"):
    """``kernel[rows, shape.threads](x, y, n)``: ``y`` = the inclusive prefix sums of each row of ``n`` items."""
    ITEMS, TILE, item = shape.items_per_thread, shape.tile, np.dtype(dtype).type

    @cuda.jit
    def row_cumsum(x, y, n):
        start = cuda.blockIdx.x * n
        items = cuda.local.array(ITEMS, item)
        total = cuda.local.array(1, item)                    # the tile's sum, in every thread
        carry = item(0)                                      # the sum of the row's earlier tiles
        for base in range(0, n, TILE):
            if base + TILE <= n:
                coop.block.load(x, items, offset=start + base, algorithm=load)
            else:
                coop.block.load(x, items, offset=start + base, valid_items=n - base, oob_default=0, algorithm=load)
            coop.block.inclusive_sum(items, block_aggregate=total)
            for i in range(ITEMS):
                items[i] += carry
            carry += total[0]
            if base + TILE <= n:
                coop.block.store(y, items, offset=start + base)
            else:
                coop.block.store(y, items, offset=start + base, valid_items=n - base)

    return row_cumsum


def cumsum_rows(x, y, n: int, *, shape: coop.RowShape | None = None, stream=0, load: str = "auto") -> None:
    """``y = np.cumsum(x, axis=1)`` over rows of ``n`` items (1-D device arrays of ``rows * n`` items). ``shape``:
    the block shape, ``coop.row_shape(n, x.dtype)`` when not given."""
    shape = shape or coop.row_shape(n, x.dtype)
    cumsum_kernel(shape, x.dtype, load)[x.size // n, shape.threads, stream](x, y, n)
# example-end recipe_row_cumsum


def run_on_gpu(rows: int = 64) -> bool:
    rng = np.random.default_rng()
    ok = True
    for dtype in (np.float32, np.int32):
        for n in (1000, 1024, 20000):                        # a partial tile, one full tile, three tiles
            x = rng.integers(-100, 100, (rows, n)).astype(dtype)   # small integers: float32 sums are exact
            y = cuda.to_device(np.zeros(rows * n, dtype))
            cumsum_rows(cuda.to_device(x.ravel()), y, n)
            good = np.array_equal(y.copy_to_host().reshape(rows, n), np.cumsum(x, axis=1, dtype=dtype))
            ok &= good
            print(f"row_cumsum {np.dtype(dtype).name} {rows} x {n} ({coop.row_shape(n, dtype)}): "
                  f"{'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    for dtype in (np.float32, np.int32):
        shape = coop.row_shape(1024, dtype)
        t = getattr(types, np.dtype(dtype).name)[::1]
        compiled = compile_kernel(cumsum_kernel(shape, np.dtype(dtype)), (t, t, types.int64), block=shape.threads,
                                  arch="sm_90")
        print(f"compiled row_cumsum {np.dtype(dtype).name} ({shape}) for sm_90: "
              f"{compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
