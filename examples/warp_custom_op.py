"""Warp reductions and scans with a custom operator: counts that saturate at 255 in uint8.

Eight-lane logical warps in a 72-thread block (nine of them; the block need not be a multiple of 32).
``saturating_add`` is an ordinary Python function of two values; cuda-coop compiles it as a device
function and CUB's warp reduction and scan call it. Saturating addition of non-negative counts is
associative and commutative, as CUB requires of an operator. With a GPU it runs the kernel and prints
PASS or FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, LANES = 72, 8
CAP = 255


# example-begin warp_custom_op
def saturating_add(a, b):
    """a + b, or CAP when the sum would pass it (uint8 counters that stick at 255)."""
    s = np.int32(a) + np.int32(b)
    return np.uint8(s if s < CAP else CAP)


@cuda.jit
def saturated_counts(counts, totals, running):
    """totals[w]: the saturated sum of logical warp w's counts; running: each lane's saturated prefix."""
    i = cuda.grid(1)
    c = counts[i]
    total = coop.warp.reduce(c, saturating_add, threads=LANES)          # valid in lane 0
    running[i] = coop.warp.inclusive_scan(c, saturating_add, threads=LANES)
    if cuda.threadIdx.x % LANES == 0:
        totals[i // LANES] = total
# example-end warp_custom_op


def run_on_gpu(blocks: int = 500) -> bool:
    rng = np.random.default_rng()
    n = blocks * THREADS
    counts = rng.integers(0, 80, n, dtype=np.uint8)        # 8 lanes of up to 79: about half the warps saturate
    totals = cuda.to_device(np.zeros(n // LANES, np.uint8))
    running = cuda.to_device(np.zeros(n, np.uint8))
    saturated_counts[blocks, THREADS](cuda.to_device(counts), totals, running)
    sums = np.cumsum(counts.reshape(-1, LANES).astype(np.int64), axis=1)   # non-negative: saturate at the end
    ok = bool(np.array_equal(totals.copy_to_host(), np.minimum(sums[:, -1], CAP)))
    ok &= bool(np.array_equal(running.copy_to_host(), np.minimum(sums, CAP).ravel()))
    print(f"saturated_counts, {n // LANES} logical warps of {LANES}: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    u8 = types.uint8[::1]
    compiled = compile_kernel(saturated_counts, (u8, u8, u8), block=THREADS, arch="sm_90")
    print(f"compiled saturated_counts for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
