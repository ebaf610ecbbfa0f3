"""Row top-k: the k largest items of each row, largest first, and their positions, one block per row.

A row of any length: the block shape comes from ``coop.row_shape(n, dtype)``, whose tile holds the whole row when
it can (up to 8192 items; two-byte items are held 8192 at a time too, so that the positions sorted with them fit
in shared memory). A longer row is read tile by tile: the best k so far take the first k places of the next tile,
the next ``tile - k`` items of the row the others, so that ``coop.block.top_k`` of the last tile is the row's. The
best k wait in shared memory between tiles. Ties keep the earlier position, as a stable sort would; ``k`` is at
most the row's length and less than the tile. With a GPU it checks rows of several lengths against NumPy and
prints PASS or FAIL; without one it compiles the kernel for sm_90.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin recipe_row_top_k
@functools.cache
def top_k_kernel(shape: coop.RowShape, dtype: np.dtype, k: int, load: str = "auto"):
    """``kernel[rows, shape.threads](x, values, indices, n)``: ``values[r*k : r*k+k]`` = the ``k`` largest items
    of row ``r`` of ``n`` items, largest first, ``indices`` (int32) their positions in the row."""
    ITEMS, TILE, THREADS, item = shape.items_per_thread, shape.tile, shape.threads, np.dtype(dtype).type
    STEP = TILE - k                                          # new items a later tile brings
    PAD = item(np.iinfo(dtype).min) if np.dtype(dtype).kind in "iu" else np.float32(-np.inf)   # any float type

    @cuda.jit
    def row_top_k(x, values, indices, n):
        start = cuda.blockIdx.x * n
        first = cuda.threadIdx.x * ITEMS                     # this thread's first place in the tile (blocked)
        keys = cuda.local.array(ITEMS, item)
        where = cuda.local.array(ITEMS, np.int32)
        best = cuda.shared.array(k, item)                    # the best k so far, and their positions
        best_where = cuda.shared.array(k, np.int32)
        # tile j holds the row's items j*STEP .. j*STEP + TILE - 1; from the second tile on, its first k places
        # (items the tile before saw) hold the best k so far instead
        for base in range(0, max(n - k, 1), STEP):
            if base + TILE <= n:
                coop.block.load(x, keys, offset=start + base, algorithm=load)
            else:
                coop.block.load(x, keys, offset=start + base, valid_items=n - base, oob_default=PAD, algorithm=load)
            cuda.syncthreads()                               # the last tile's top_k has written best
            for i in range(ITEMS):
                if base > 0 and first + i < k:
                    keys[i] = best[first + i]
                    where[i] = best_where[first + i]
                else:
                    where[i] = base + first + i
            cuda.syncthreads()                               # every thread has read best before it is rewritten
            coop.block.top_k(keys, best, k=k, values=where, out_values=best_where, valid_items=n - base)
        cuda.syncthreads()
        for j in range(cuda.threadIdx.x, k, THREADS):
            values[cuda.blockIdx.x * k + j] = best[j]
            indices[cuda.blockIdx.x * k + j] = best_where[j]

    return row_top_k


def top_k_shape(n: int, dtype) -> coop.RowShape:
    """The block shape for rows of ``n`` items: at most 8192 items a tile (the positions' shared memory)."""
    return coop.row_shape(n, dtype, max_threads=min(1024, 8192 // coop.row_shape(1, dtype).items_per_thread))


def top_k_rows(x, values, indices, n: int, k: int, *, shape: coop.RowShape | None = None, stream=0,
               load: str = "auto") -> None:
    """The ``k`` largest items of each row of ``n`` items of ``x`` into ``values``, their positions into
    ``indices`` (int32), ``k`` per row. ``shape``: the block shape, :func:`top_k_shape` when not given."""
    shape = shape or top_k_shape(n, x.dtype)
    if not 1 <= k <= n or k >= shape.tile:
        raise ValueError(f"k={k} must be from 1 to the row's length ({n}) and below the tile ({shape.tile})")
    top_k_kernel(shape, x.dtype, k, load)[x.size // n, shape.threads, stream](x, values, indices, n)
# example-end recipe_row_top_k


def top_k_reference(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """NumPy's k largest of each row, largest first, and their positions (the earlier position on ties)."""
    order = np.argsort(-x, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(x, order, axis=1), order.astype(np.int32)


def run_on_gpu(rows: int = 64) -> bool:
    rng = np.random.default_rng()
    ok = True
    for n, k in ((1000, 8), (4096, 32), (20000, 64)):        # a partial tile, one full tile, three tiles
        x = np.round(rng.standard_normal((rows, n)) * 50).astype(np.float32)   # ties: the earlier position wins
        values = cuda.to_device(np.zeros(rows * k, np.float32))
        indices = cuda.to_device(np.full(rows * k, -1, np.int32))
        top_k_rows(cuda.to_device(x.ravel()), values, indices, n, k)
        want_values, want_indices = top_k_reference(x, k)
        good = np.array_equal(values.copy_to_host().reshape(rows, k), want_values)
        good &= np.array_equal(indices.copy_to_host().reshape(rows, k), want_indices)
        ok &= good
        print(f"row_top_k {rows} x {n}, k={k} ({top_k_shape(n, np.float32)}): {'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    shape = top_k_shape(1024, np.float32)
    f32 = types.float32[::1]
    compiled = compile_kernel(top_k_kernel(shape, np.dtype(np.float32), 8), (f32, f32, types.int32[::1], types.int64),
                              block=shape.threads, arch="sm_90")
    print(f"compiled row_top_k ({shape}, k=8) for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
