"""Row layer norm: ``y[r] = (x[r] - mean) / sqrt(var + eps) * weight + bias`` for each row, one block per row.

A row of any length: the block shape comes from ``coop.row_shape(n, dtype)``, whose tile holds the whole row when
it can; a longer row is read tile by tile. Three passes over the row's tiles: the mean (a block-wide sum), the
variance around it (the biased one, as ``torch.nn.functional.layer_norm``), then the normalised row times
``weight`` plus ``bias``. Each pass after the first reads the earlier tiles again and takes the last from
registers, so that a row of one tile is read once. The math is float32 for float16 and bfloat16 rows. With a GPU
it checks rows of several lengths against NumPy and prints PASS or FAIL; without one it compiles the kernel for
sm_90.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin recipe_row_layer_norm
@functools.cache
def layer_norm_kernel(shape: coop.RowShape, dtype: np.dtype, load: str = "auto"):
    """``kernel[rows, shape.threads](x, weight, bias, y, n, eps)``: ``y`` = each row of ``n`` items of ``x``
    normalised, times ``weight`` plus ``bias`` (``n`` items each)."""
    ITEMS, TILE, item = shape.items_per_thread, shape.tile, np.dtype(dtype).type
    ZERO = np.float32(0)

    @cuda.jit
    def row_layer_norm(x, weight, bias, y, n, eps):  # noqa: PLR0912 (full and partial tiles, three passes)
        start = cuda.blockIdx.x * n
        first = cuda.threadIdx.x * ITEMS                     # this thread's first position in a tile (blocked)
        items = cuda.local.array(ITEMS, item)
        work = cuda.local.array(ITEMS, item)
        w = cuda.local.array(ITEMS, item)
        b = cuda.local.array(ITEMS, item)
        # pass 1: the mean (the partial last tile's missing items read as 0)
        s = ZERO
        for base in range(0, n, TILE):
            if base + TILE <= n:
                coop.block.load(x, items, offset=start + base, algorithm=load)
            else:
                coop.block.load(x, items, offset=start + base, valid_items=n - base, oob_default=0, algorithm=load)
            for i in range(ITEMS):
                s += np.float32(items[i])
        mean = coop.block.sum(s, broadcast=True) / np.float32(n)
        # pass 2: the variance; the last tile is still in `items`
        s = ZERO
        for base in range(0, n, TILE):
            if base + TILE < n:
                coop.block.load(x, work, offset=start + base, algorithm=load)
            else:
                for i in range(ITEMS):
                    work[i] = items[i]
            mine = n - base - first                          # how many of this thread's items are in the row
            for i in range(ITEMS):
                d = np.float32(work[i]) - mean
                s += d * d if i < mine else ZERO
        rstd = np.float32(1) / math.sqrt(coop.block.sum(s, broadcast=True) / np.float32(n) + eps)
        # pass 3: normalise, scale and shift
        for base in range(0, n, TILE):
            if base + TILE < n:
                coop.block.load(x, work, offset=start + base, algorithm=load)
            else:
                for i in range(ITEMS):
                    work[i] = items[i]
            if base + TILE <= n:
                coop.block.load(weight, w, offset=base, algorithm=load)
                coop.block.load(bias, b, offset=base, algorithm=load)
            else:
                coop.block.load(weight, w, offset=base, valid_items=n - base, algorithm=load)
                coop.block.load(bias, b, offset=base, valid_items=n - base, algorithm=load)
            for i in range(ITEMS):
                work[i] = (np.float32(work[i]) - mean) * rstd * np.float32(w[i]) + np.float32(b[i])
            if base + TILE <= n:
                coop.block.store(y, work, offset=start + base)
            else:
                coop.block.store(y, work, offset=start + base, valid_items=n - base)

    return row_layer_norm


def layer_norm_rows(x, weight, bias, y, n: int, eps: float = 1e-5, *, shape: coop.RowShape | None = None, stream=0,
                    load: str = "auto") -> None:
    """``y = layer_norm(x) * weight + bias`` over rows of ``n`` items (1-D device arrays; ``weight`` and ``bias``
    of ``n`` items). ``shape``: the block shape, ``coop.row_shape(n, x.dtype)`` when not given."""
    shape = shape or coop.row_shape(n, x.dtype)
    kernel = layer_norm_kernel(shape, x.dtype, load)
    kernel[x.size // n, shape.threads, stream](x, weight, bias, y, n, np.float32(eps))
# example-end recipe_row_layer_norm


def layer_norm_reference(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """NumPy's layer norm of each row, in float64."""
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    return (x64 - mean) / np.sqrt(var + eps) * weight.astype(np.float64) + bias.astype(np.float64)


def run_on_gpu(rows: int = 64) -> bool:
    rng = np.random.default_rng()
    ok = True
    for n in (1000, 4096, 20000):                            # a partial tile, one full tile, three tiles
        x = (rng.standard_normal((rows, n)) * 3 + 5).astype(np.float32)
        weight, bias = rng.standard_normal((2, n)).astype(np.float32)
        y = cuda.to_device(np.full(rows * n, np.nan, np.float32))
        layer_norm_rows(cuda.to_device(x.ravel()), cuda.to_device(weight), cuda.to_device(bias), y, n)
        err = float(np.abs(y.copy_to_host().reshape(rows, n) - layer_norm_reference(x, weight, bias)).max())
        good = err < 1e-4
        ok &= good
        print(f"row_layer_norm {rows} x {n} ({coop.row_shape(n, np.float32)}): max error {err:.1e} "
              f"{'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    shape = coop.row_shape(4096, np.float32)
    f32 = types.float32[::1]
    compiled = compile_kernel(layer_norm_kernel(shape, np.dtype(np.float32)),
                              (f32, f32, f32, f32, types.int64, types.float32), block=shape.threads, arch="sm_90")
    print(f"compiled row_layer_norm ({shape}) for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
