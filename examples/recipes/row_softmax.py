"""Row softmax: ``y[r] = exp(x[r] - max(x[r])) / sum(exp(x[r] - max(x[r])))``, one block per row.

A row of any length: the block shape comes from ``coop.row_shape(n, dtype)``, whose tile holds the whole row when
it can (up to 8192 float32 items); a longer row is read tile by tile. The first pass keeps each thread's running
maximum and its sum of exponentials, rescaled when the maximum grows (the "online softmax"), and two block-wide
reductions combine the threads'; the second pass writes the tiles, reading the earlier ones again and taking the
last from registers, so that a row of one tile is read once. The math is float32 for float16 and bfloat16 rows.
With a GPU it checks rows of several lengths against NumPy and prints PASS or FAIL; without one it compiles the
kernel for sm_90.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin recipe_row_softmax
@functools.cache
def softmax_kernel(shape: coop.RowShape, dtype: np.dtype, load: str = "auto"):
    """``kernel[rows, shape.threads](x, y, n)``: ``y`` = the softmax of each row of ``n`` items of ``x``."""
    ITEMS, TILE, item = shape.items_per_thread, shape.tile, np.dtype(dtype).type
    LOWEST, ZERO = np.float32(-np.inf), np.float32(0)

    @cuda.jit
    def row_softmax(x, y, n):  # noqa: PLR0912 (full and partial tiles, two passes)
        start = cuda.blockIdx.x * n                          # the row's first item
        items = cuda.local.array(ITEMS, item)
        work = cuda.local.array(ITEMS, item)
        # pass 1: this thread's maximum m and sum s of exp(v - m) over its items of every tile
        m, s = LOWEST, ZERO
        for base in range(0, n, TILE):
            if base + TILE <= n:                             # a full tile
                coop.block.load(x, items, offset=start + base, algorithm=load)
            else:                                            # the partial last tile: -inf adds exp(-inf) = 0
                coop.block.load(x, items, offset=start + base, valid_items=n - base, oob_default=LOWEST,
                                algorithm=load)
            top = m
            for i in range(ITEMS):
                top = max(top, np.float32(items[i]))
            if top > LOWEST:                                 # else every item so far is -inf: nothing to add
                s *= math.exp(m - top)
                for i in range(ITEMS):
                    s += math.exp(np.float32(items[i]) - top)
                m = top
        row_max = coop.block.reduce(m, "max", broadcast=True)
        total = coop.block.sum(s * math.exp(m - row_max), broadcast=True)
        scale = np.float32(1) / total
        # pass 2: write each tile; the last one is still in `items`
        for base in range(0, n, TILE):
            if base + TILE < n:
                coop.block.load(x, work, offset=start + base, algorithm=load)
            else:
                for i in range(ITEMS):
                    work[i] = items[i]
            for i in range(ITEMS):
                work[i] = math.exp(np.float32(work[i]) - row_max) * scale
            if base + TILE <= n:
                coop.block.store(y, work, offset=start + base)
            else:
                coop.block.store(y, work, offset=start + base, valid_items=n - base)

    return row_softmax


def softmax_rows(x, y, n: int, *, shape: coop.RowShape | None = None, stream=0, load: str = "auto") -> None:
    """``y = softmax(x)`` over rows of ``n`` items: ``x`` and ``y`` are 1-D device arrays of ``rows * n`` items.
    ``shape``: the block shape, ``coop.row_shape(n, x.dtype)`` when not given."""
    shape = shape or coop.row_shape(n, x.dtype)
    softmax_kernel(shape, x.dtype, load)[x.size // n, shape.threads, stream](x, y, n)
# example-end recipe_row_softmax


def softmax_reference(x: np.ndarray) -> np.ndarray:
    """NumPy's softmax of each row, in float64."""
    z = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def run_on_gpu(rows: int = 64) -> bool:
    rng = np.random.default_rng()
    ok = True
    for n in (1000, 4096, 20000):                            # a partial tile, one full tile, three tiles
        x = (rng.standard_normal((rows, n)) * 4).astype(np.float32)
        y = cuda.to_device(np.full(rows * n, np.nan, np.float32))
        softmax_rows(cuda.to_device(x.ravel()), y, n)
        err = float(np.abs(y.copy_to_host().reshape(rows, n) - softmax_reference(x)).max())
        good = err < 1e-6
        ok &= good
        print(f"row_softmax {rows} x {n} ({coop.row_shape(n, np.float32)}): max error {err:.1e} "
              f"{'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    shape = coop.row_shape(4096, np.float32)
    f32 = types.float32[::1]
    compiled = compile_kernel(softmax_kernel(shape, np.dtype(np.float32)), (f32, f32, types.int64),
                              block=shape.threads, arch="sm_90")
    print(f"compiled row_softmax ({shape}) for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
