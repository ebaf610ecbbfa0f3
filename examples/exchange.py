"""Blocked results in registers, written with coalesced striped stores (block and warp exchange).

Each thread computes N consecutive outputs in its registers (a *blocked* arrangement). Writing them
directly makes the threads of a warp store N elements apart; an exchange to a *striped* arrangement
first lets consecutive threads store consecutive elements. With a GPU it runs the kernels and prints
PASS or FAIL; without one it compiles them for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS
WARP = 16


# example-begin block_exchange
@cuda.jit
def running_sums(x, out):
    """Per-thread running sums of N consecutive values, stored coalesced."""
    items = cuda.local.array(ITEMS, np.int32)
    base = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=base, algorithm="vectorize")   # blocked: items t*N .. t*N+N-1
    for i in range(1, ITEMS):
        items[i] += items[i - 1]               # work on the thread's own consecutive items
    coop.block.blocked_to_striped(items)       # in place: now items t, t + THREADS, ...
    for i in range(ITEMS):
        out[base + i * THREADS + cuda.threadIdx.x] = items[i]   # consecutive threads, consecutive addresses
# example-end block_exchange


# example-begin warp_exchange
@cuda.jit
def reverse_segments(x, out):
    """Reverse each logical warp's segment of WARP * N values: scatter by rank, then a striped store."""
    items = cuda.local.array(ITEMS, np.float64)
    ranks = cuda.local.array(ITEMS, np.int32)
    lane = cuda.threadIdx.x % WARP
    segment = (cuda.blockIdx.x * THREADS + cuda.threadIdx.x - lane) * ITEMS
    for i in range(ITEMS):
        items[i] = x[segment + lane * ITEMS + i]          # blocked within the logical warp
        ranks[i] = WARP * ITEMS - 1 - (lane * ITEMS + i)  # where the item goes in the reversed segment
    coop.warp.scatter_to_striped(items, ranks, threads=WARP)
    for i in range(ITEMS):
        out[segment + i * WARP + lane] = items[i]
# example-end warp_exchange


def run_on_gpu(tiles: int = 64) -> bool:
    rng = np.random.default_rng()
    x = rng.integers(-(2**20), 2**20, tiles * TILE, dtype=np.int32)
    out = cuda.to_device(np.full_like(x, -1))
    running_sums[tiles, THREADS](cuda.to_device(x), out)
    expected = np.cumsum(x.reshape(-1, ITEMS), axis=1, dtype=np.int32).ravel()
    ok = _report("running_sums", np.array_equal(out.copy_to_host(), expected))

    y = rng.standard_normal(tiles * TILE)
    out_y = cuda.to_device(np.full_like(y, np.nan))
    reverse_segments[tiles, THREADS](cuda.to_device(y), out_y)
    expected_y = y.reshape(-1, WARP * ITEMS)[:, ::-1].ravel()
    ok &= _report("reverse_segments", np.array_equal(out_y.copy_to_host(), expected_y))
    print("PASS" if ok else "FAIL")
    return ok


def _report(name: str, ok: bool) -> bool:
    print(f"{name}: {'ok' if ok else 'WRONG'}")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    i32, f64 = types.int32[::1], types.float64[::1]
    for kernel, sig in ((running_sums, (i32, i32)), (reverse_segments, (f64, f64))):
        compiled = compile_kernel(kernel, sig, block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
