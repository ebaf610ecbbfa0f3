"""Row argmax and argmin: the largest (smallest) item of each row and its first position, one block per row.

A row of any length: the block shape comes from ``coop.row_shape(n, dtype)``, whose tile holds the whole row when
it can; a longer row is read tile by tile. Each thread keeps the best of its own items over every tile (a strictly
better item replaces it, so the earlier position wins a tie), and one ``coop.block.argmax`` of one value per
thread, with each thread's position as ``index=``, picks the row's (the lowest position on ties). NaN counts as
the largest item and as the smallest, as in ``np.argmax`` and ``np.argmin``. With a GPU it checks rows of several
lengths, with ties and NaNs, against NumPy and prints PASS or FAIL; without one it compiles the kernels for sm_90.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin recipe_row_argmax
@functools.cache
def arg_kernel(shape: coop.RowShape, dtype: np.dtype, largest: bool = True, load: str = "auto"):
    """``kernel[rows, shape.threads](x, best, where, n)``: ``best[r]``, ``where[r]`` = the largest (``largest``)
    or smallest item of row ``r`` of ``n`` items of ``x`` and its first position (``where`` is int64)."""
    ITEMS, TILE, item = shape.items_per_thread, shape.tile, np.dtype(dtype).type
    if np.dtype(dtype).kind in "iu":
        key = item
        PAD = item(np.iinfo(dtype).min if largest else np.iinfo(dtype).max)
    else:                                                    # floats (ml_dtypes.bfloat16's kind is "V")
        key = np.float32 if np.dtype(dtype).itemsize < 4 else item   # compare 2-byte floats as float32
        PAD = key(-np.inf if largest else np.inf)

    @cuda.jit(device=True)
    def better(v, best):
        """Whether v replaces best: strictly larger (smaller), or a NaN where best is not. ``not (v <= best)`` is
        ``v > best`` or v NaN; ``best == best``: best is no NaN (the first NaN stays). Two compares, and no ``!=``:
        Numba-CUDA-MLIR 0.5 compiles ``v != v`` to false (docs/known_issues.rst)."""
        return (not (v <= best) if largest else not (v >= best)) and best == best  # noqa: PLR0124 (NaN test)

    @cuda.jit
    def row_arg(x, best_out, where_out, n):
        start = cuda.blockIdx.x * n
        first = np.int64(cuda.threadIdx.x * ITEMS)           # this thread's first position in a tile (blocked)
        items = cuda.local.array(ITEMS, item)
        best, where = PAD, first                             # padding: never better than an item of the row
        for base in range(0, n, TILE):
            if base + TILE <= n:
                coop.block.load(x, items, offset=start + base, algorithm=load)
            else:
                coop.block.load(x, items, offset=start + base, valid_items=n - base, oob_default=PAD, algorithm=load)
            for i in range(ITEMS):
                v = key(items[i])
                if better(v, best):
                    best, where = v, base + first + i
        if largest:
            value, position = coop.block.argmax(best, index=where)
        else:
            value, position = coop.block.argmin(best, index=where)
        if cuda.threadIdx.x == 0:
            best_out[cuda.blockIdx.x] = value
            where_out[cuda.blockIdx.x] = position

    return row_arg


def arg_rows(x, best, where, n: int, *, largest: bool = True, shape: coop.RowShape | None = None, stream=0,
             load: str = "auto") -> None:
    """``best[r], where[r]`` = the largest (``largest``) or smallest item of each row of ``n`` items of ``x`` and
    its first position (1-D device arrays; ``where`` int64). ``shape``: ``coop.row_shape(n, x.dtype)`` if not given."""
    shape = shape or coop.row_shape(n, x.dtype)
    arg_kernel(shape, x.dtype, largest, load)[x.size // n, shape.threads, stream](x, best, where, n)
# example-end recipe_row_argmax


def run_on_gpu(rows: int = 64) -> bool:
    rng = np.random.default_rng()
    ok = True
    for n in (1000, 1024, 20000):                            # a partial tile, one full tile, three tiles
        x = np.round(rng.standard_normal((rows, n)) * 2).astype(np.float32)   # few values: ties everywhere
        x[1, [7, n - 1]] = np.nan                            # NaN wins both, the first one
        for largest, reference in ((True, np.argmax), (False, np.argmin)):
            best = cuda.to_device(np.zeros(rows, np.float32))
            where = cuda.to_device(np.full(rows, -1, np.int64))
            arg_rows(cuda.to_device(x.ravel()), best, where, n, largest=largest)
            want = reference(x, axis=1)
            good = np.array_equal(where.copy_to_host(), want)
            good &= np.array_equal(best.copy_to_host(), x[np.arange(rows), want], equal_nan=True)
            ok &= good
            print(f"row_{reference.__name__} {rows} x {n} ({coop.row_shape(n, np.float32)}): "
                  f"{'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    shape = coop.row_shape(1024, np.float32)
    f32 = types.float32[::1]
    for largest in (True, False):
        compiled = compile_kernel(arg_kernel(shape, np.dtype(np.float32), largest),
                                  (f32, f32, types.int64[::1], types.int64), block=shape.threads, arch="sm_90")
        print(f"compiled row_arg{'max' if largest else 'min'} ({shape}) for sm_90: "
              f"{compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
