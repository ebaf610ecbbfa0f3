"""A block copies its tile into shared memory in one call, then every thread reads any item of it: a 3-point moving
average within each tile, against NumPy.

``coop.block.load_to_shared`` copies with the GPU's copy engine where there is one (a bulk copy on sm_90); the last
tile is partial (``valid_items``). With a GPU it runs the kernel and prints PASS or FAIL; without one it compiles it
for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


# example-begin block_load_to_shared
@cuda.jit
def tile_average(x, y, n):
    """y[i] = mean of x[i-1], x[i], x[i+1] within each tile of 512 items (the tile's first and last items keep x)."""
    tile = cuda.shared.array(TILE, np.float32, alignment=16)  # 16-byte aligned, as the copy needs
    base = cuda.blockIdx.x * TILE
    coop.block.load_to_shared(x, tile, offset=base, valid_items=n - base, items_per_thread=ITEMS)
    # every thread sees the whole tile now: no cuda.syncthreads() needed after the call
    count = min(TILE, n - base)
    for i in range(cuda.threadIdx.x, count, THREADS):
        inner = 0 < i < count - 1
        y[base + i] = (tile[i - 1] + tile[i] + tile[i + 1]) / np.float32(3) if inner else tile[i]
# example-end block_load_to_shared


def reference(x: np.ndarray) -> np.ndarray:
    y = x.astype(np.float64)
    for start in range(0, x.size, TILE):
        t = x[start : start + TILE].astype(np.float64)
        y[start + 1 : start + t.size - 1] = (t[:-2] + t[1:-1] + t[2:]) / 3
    return y


def run_on_gpu(blocks: int = 40) -> bool:
    rng = np.random.default_rng()
    n = blocks * TILE - 100  # the last tile is partial
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    y = cuda.to_device(np.full(n, np.nan, np.float32))
    tile_average[blocks, THREADS](cuda.to_device(x), y, n)
    ok = bool(np.allclose(y.copy_to_host(), reference(x), rtol=0, atol=1e-6))
    print(f"tile_average of {n} float32: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    compile_kernel(tile_average, (types.float32[::1], types.float32[::1], types.int64), block=THREADS, arch="sm_90")
    print("compiled tile_average for sm_90")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
