"""Warp-wide load and store: every logical warp of 16 threads moves its own tile, checked against NumPy.

``offset=`` is the tile of the *calling* logical warp: CUB ranks lanes within a logical warp only, so
each warp passes the offset of its own tile, computed from its index in the block.

With a GPU it runs the kernel and prints PASS or FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, WARP, ITEMS = 128, 16, 4
WARP_TILE = WARP * ITEMS            # 64 items per logical warp
BLOCK_TILE = THREADS * ITEMS        # 8 logical warps per block


# example-begin warp_load_store
@cuda.jit
def scale_tiles(src, dst, n):
    """Double ``src[:n]`` into ``dst``, one tile per logical warp; the last tiles are partial."""
    items = cuda.local.array(ITEMS, np.float32)
    warp = cuda.threadIdx.x // WARP                           # this lane's logical warp in the block
    base = cuda.blockIdx.x * BLOCK_TILE + warp * WARP_TILE    # the warp's own tile
    coop.warp.load(src, items, offset=base, valid_items=n - base, oob_default=0.0,
                   algorithm="transpose", threads=WARP)       # blocked: lane l holds items 4l..4l+3
    for k in range(ITEMS):
        items[k] *= 2
    coop.warp.store(dst, items, offset=base, valid_items=n - base, algorithm="transpose", threads=WARP)
# example-end warp_load_store


def run_on_gpu(blocks: int = 40) -> bool:
    rng = np.random.default_rng()
    n = blocks * BLOCK_TILE - 37  # the last block's last warps have a partial tile, or none
    src = rng.uniform(-1.0, 1.0, blocks * BLOCK_TILE).astype(np.float32)
    dst = cuda.to_device(np.full(blocks * BLOCK_TILE, np.nan, np.float32))
    scale_tiles[blocks, THREADS](cuda.to_device(src), dst, n)
    got = dst.copy_to_host()
    ok = bool(np.array_equal(got[:n], 2 * src[:n]) and np.isnan(got[n:]).all())
    print(f"scale_tiles: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f32 = types.float32[::1]
    compile_kernel(scale_tiles, (f32, f32, types.int64), block=THREADS, arch="sm_90")
    print(f"compiled {scale_tiles.py_func.__name__} for sm_90")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
