"""Matrix transpose with a 2-D block: coalesced loads, one block exchange, coalesced stores.

A (32, 8) block moves a 32 x 32 tile. Thread (x, y) reads rows y, y + 8, y + 16, y + 24 of the tile at
column x: consecutive threads read consecutive addresses. ``coop.block.scatter_to_striped`` then sends
every element to the thread and register that writes it in the transposed tile, so the stores are
consecutive too. The matrix is not a multiple of the tile, so edge tiles guard their loads and stores
(the exchange is still called by every thread). With a GPU it runs the kernel and prints PASS or FAIL;
without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

TILE, ROWS = 32, 8            # block (TILE, ROWS): each thread moves TILE // ROWS elements
ITEMS = TILE // ROWS


# example-begin block_transpose
@cuda.jit
def transpose(a, out):
    """out = a.T for a 2-D float32 array, one 32 x 32 tile per (32, 8) block."""
    items = cuda.local.array(ITEMS, np.float32)
    ranks = cuda.local.array(ITEMS, np.int32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row0, col0 = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    for i in range(ITEMS):
        r = ty + i * ROWS                        # this thread reads tile element (r, tx) ...
        if row0 + r < a.shape[0] and col0 + tx < a.shape[1]:
            items[i] = a[row0 + r, col0 + tx]
        ranks[i] = tx * TILE + r                 # ... which is element (tx, r) of the transposed tile
    # Rank k goes to thread k % 256, register k // 256: thread (x, y) gets transposed rows y, y + 8, ...
    coop.block.scatter_to_striped(items, ranks)
    for i in range(ITEMS):
        r = ty + i * ROWS
        if col0 + r < out.shape[0] and row0 + tx < out.shape[1]:
            out[col0 + r, row0 + tx] = items[i]
# example-end block_transpose


def run_on_gpu(shape: tuple[int, int] = (1000, 777)) -> bool:
    rng = np.random.default_rng()
    a = rng.standard_normal(shape).astype(np.float32)
    out = cuda.to_device(np.full(shape[::-1], np.nan, np.float32))
    grid = (-(-shape[1] // TILE), -(-shape[0] // TILE))
    transpose[grid, (TILE, ROWS)](cuda.to_device(a), out)
    ok = bool(np.array_equal(out.copy_to_host(), a.T))
    print(f"transpose {shape[0]} x {shape[1]} with {grid[0]} x {grid[1]} blocks of ({TILE}, {ROWS}): "
          f"{'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f32 = types.float32[:, ::1]
    compiled = compile_kernel(transpose, (f32, f32), block=(TILE, ROWS), arch="sm_90")
    print(f"compiled transpose for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
