"""Sort tiles with a comparator: by absolute value per block, descending per logical warp (merge sort).

``coop.block.merge_sort`` sorts each block's tile of float32 keys by absolute value with a Python
comparator, stably (keys of equal magnitude such as -2.0 and 2.0 keep their input order), carrying each
key's index along as its value; the array's last tile is partial (``valid_items``).
``coop.warp.merge_sort`` sorts each logical warp's tile of 16 lanes x 4 int32 keys from the largest to
the smallest (``">"``). With a GPU it runs both kernels against NumPy's stable sort and prints PASS or
FAIL; without one it compiles them for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 4             # merge sort needs a power-of-two block
TILE = THREADS * ITEMS
WARP, WARP_ITEMS = 16, 4
WARP_TILE = WARP * WARP_ITEMS


# example-begin block_merge_sort
def by_magnitude(a, b):
    return abs(a) < abs(b)


@cuda.jit
def sort_by_magnitude(src, order, dst, n):
    """Sort each tile of ``src[:n]`` by absolute value into ``dst``; ``order`` gets each key's index."""
    keys = cuda.local.array(ITEMS, np.float32)
    index = cuda.local.array(ITEMS, np.int32)
    base = cuda.blockIdx.x * TILE
    valid = n - base                                   # at or above TILE: a full tile
    coop.block.load(src, keys, offset=base, valid_items=valid, oob_default=0.0)
    for k in range(ITEMS):
        index[k] = base + cuda.threadIdx.x * ITEMS + k  # blocked: thread t holds items t*N .. t*N+N-1
    coop.block.merge_sort(keys, by_magnitude, values=index, valid_items=valid, stable=True)
    coop.block.store(dst, keys, offset=base, valid_items=valid)
    coop.block.store(order, index, offset=base, valid_items=valid)
# example-end block_merge_sort


# example-begin warp_merge_sort
@cuda.jit
def sort_warp_tiles_descending(data):
    """Sort each logical warp's tile of 16 lanes x 4 keys in place, largest first."""
    keys = cuda.local.array(WARP_ITEMS, np.int32)
    base = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP * WARP_TILE
    coop.warp.load(data, keys, offset=base, threads=WARP)
    coop.warp.merge_sort(keys, ">", threads=WARP)
    coop.warp.store(data, keys, offset=base, threads=WARP)
# example-end warp_merge_sort


def run_on_gpu(tiles: int = 40) -> bool:
    rng = np.random.default_rng()
    n = tiles * TILE - 77
    src = rng.integers(-50, 51, n).astype(np.float32)  # many equal magnitudes: stability shows
    dst = cuda.to_device(np.full(n, np.nan, np.float32))
    order = cuda.to_device(np.full(n, -1, np.int32))
    sort_by_magnitude[tiles, THREADS](cuda.to_device(src), order, dst, n)
    expected = np.concatenate([np.argsort(np.abs(src[s : s + TILE]), kind="stable") + s for s in range(0, n, TILE)])
    ok = np.array_equal(order.copy_to_host(), expected) and np.array_equal(dst.copy_to_host(), src[expected])
    print(f"sort_by_magnitude: {'ok' if ok else 'WRONG'}")

    data = rng.integers(-1000, 1000, tiles * THREADS * WARP_ITEMS).astype(np.int32)
    d_data = cuda.to_device(data)
    sort_warp_tiles_descending[tiles, THREADS](d_data)
    want = -np.sort(-data.reshape(-1, WARP_TILE), axis=1).ravel()
    warp_ok = np.array_equal(d_data.copy_to_host(), want)
    print(f"sort_warp_tiles_descending: {'ok' if warp_ok else 'WRONG'}")
    ok = bool(ok and warp_ok)
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f32, i32 = types.float32[::1], types.int32[::1]
    compile_kernel(sort_by_magnitude, (f32, i32, f32, types.int64), block=THREADS, arch="sm_90")
    compile_kernel(sort_warp_tiles_descending, (i32,), block=THREADS, arch="sm_90")
    print("compiled sort_by_magnitude and sort_warp_tiles_descending for sm_90")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
