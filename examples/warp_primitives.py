"""Warp-wide reduction and scan in logical warps of 16 threads, checked against NumPy.

With a GPU it runs the kernels and prints PASS or FAIL; without one it compiles them for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, WARP = 96, 16


# example-begin warp_reduce_sum
@cuda.jit
def segment_sums(x, sums):
    """Each logical warp of 16 threads sums its 16 values; lane 0 writes the sum."""
    i = cuda.grid(1)
    total = coop.warp.sum(x[i], threads=WARP)   # valid in lane 0 of each logical warp
    if cuda.threadIdx.x % WARP == 0:
        sums[i // WARP] = total
# example-end warp_reduce_sum


# example-begin warp_scan_exclusive_sum
@cuda.jit
def segment_offsets(counts, offsets):
    """Exclusive prefix sums of per-thread counts within each logical warp (e.g. output offsets)."""
    i = cuda.grid(1)
    offsets[i] = coop.warp.exclusive_sum(counts[i], threads=WARP)
# example-end warp_scan_exclusive_sum


def run_on_gpu(blocks: int = 40) -> bool:
    rng = np.random.default_rng()
    n = blocks * THREADS
    x = rng.uniform(-1.0, 1.0, n)
    sums = cuda.to_device(np.full(n // WARP, np.nan))
    segment_sums[blocks, THREADS](cuda.to_device(x), sums)
    ok_sum = np.allclose(sums.copy_to_host(), x.reshape(-1, WARP).sum(axis=1), rtol=1e-12, atol=1e-12)
    print(f"segment_sums: {'ok' if ok_sum else 'WRONG'}")

    counts = rng.integers(0, 2**20, n, dtype=np.uint32)
    offsets = cuda.to_device(np.zeros(n, np.uint32))
    segment_offsets[blocks, THREADS](cuda.to_device(counts), offsets)
    seg = counts.reshape(-1, WARP)
    expected = (np.cumsum(seg, axis=1, dtype=np.uint32) - seg).ravel()
    ok_scan = np.array_equal(offsets.copy_to_host(), expected)
    print(f"segment_offsets: {'ok' if ok_scan else 'WRONG'}")
    ok = bool(ok_sum and ok_scan)
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f64, u32 = types.float64[::1], types.uint32[::1]
    for kernel, sig in ((segment_sums, (f64, f64)), (segment_offsets, (u32, u32))):
        compile_kernel(kernel, sig, block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
