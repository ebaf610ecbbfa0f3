"""Batched warp reductions: column sums and column maxima of row slabs, one call per logical warp, against NumPy.

Each lane holds one row of a matrix (its ``cuda.local.array`` of COLS items, one per column); a logical warp of 16
lanes holds a slab of 16 rows and reduces every column of it at once. With GPU it runs the kernels and prints PASS or
FAIL; without one it compiles them for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, WARP, COLS, WIDE = 128, 16, 16, 40
PER_LANE = -(-WIDE // WARP)  # ceil(40 / 16) = 3 column maxima per lane


# example-begin warp_reduce_batched
@cuda.jit
def slab_column_sums(a, sums):
    """Each logical warp of 16 lanes sums the 16 columns of its 16 rows; lane l gets column l's sum."""
    row = cuda.grid(1)
    x = cuda.local.array(COLS, np.float32)
    for c in range(COLS):
        x[c] = a[row * COLS + c]
    s = coop.warp.sum_batched(x, threads=WARP)   # 16 batches over 16 lanes: one result per lane
    sums[row] = s                                # slab row // 16, column row % 16


@cuda.jit
def slab_column_max(a, maxima):
    """40 columns over 16 lanes: lane l gets the maxima of columns 3l, 3l+1, 3l+2 (blocked), those below 40."""
    row = cuda.grid(1)
    x = cuda.local.array(WIDE, np.float32)
    m = cuda.local.array(PER_LANE, np.float32)
    for c in range(WIDE):
        x[c] = a[row * WIDE + c]
    coop.warp.reduce_batched(x, "max", output=m, threads=WARP)
    slab, lane = row // WARP, row % WARP
    for i in range(PER_LANE):
        if lane * PER_LANE + i < WIDE:
            maxima[slab * WIDE + lane * PER_LANE + i] = m[i]
# example-end warp_reduce_batched


def run_on_gpu(blocks: int = 20) -> bool:
    rng = np.random.default_rng()
    rows = blocks * THREADS
    a = rng.uniform(-1.0, 1.0, (rows, COLS)).astype(np.float32)
    sums = cuda.to_device(np.full(rows, np.nan, np.float32))
    slab_column_sums[blocks, THREADS](cuda.to_device(a.ravel()), sums)
    want = a.reshape(-1, WARP, COLS).sum(axis=1, dtype=np.float64).ravel()
    ok_sum = np.allclose(sums.copy_to_host(), want, rtol=0, atol=1e-5)
    print(f"slab_column_sums: {'ok' if ok_sum else 'WRONG'}")

    b = rng.uniform(-1.0, 1.0, (rows, WIDE)).astype(np.float32)
    maxima = cuda.to_device(np.full(rows // WARP * WIDE, np.nan, np.float32))
    slab_column_max[blocks, THREADS](cuda.to_device(b.ravel()), maxima)
    ok_max = np.array_equal(maxima.copy_to_host(), b.reshape(-1, WARP, WIDE).max(axis=1).ravel())
    print(f"slab_column_max: {'ok' if ok_max else 'WRONG'}")
    ok = bool(ok_sum and ok_max)
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f32 = types.float32[::1]
    for kernel in (slab_column_sums, slab_column_max):
        compile_kernel(kernel, (f32, f32), block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
