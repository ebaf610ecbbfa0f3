"""Sort fixed-size segments of a large array, keys with their values (block radix sort).

Each block loads one tile of ``THREADS * ITEMS`` keys and their values, sorts the pairs with
``coop.block.radix_sort`` and stores them back: every tile of the output is sorted, and each value
still travels with its key. With a GPU it runs the kernel against NumPy's stable sort and prints
PASS or FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 8
TILE = THREADS * ITEMS


# example-begin block_radix_sort
@cuda.jit
def sort_tiles(keys_in, values_in, keys_out, values_out):
    """Sort each tile of (uint32 key, int32 value) pairs by key, stably."""
    keys = cuda.local.array(ITEMS, np.uint32)
    values = cuda.local.array(ITEMS, np.int32)
    base = cuda.blockIdx.x * TILE
    coop.block.load(keys_in, keys, offset=base, algorithm="transpose")
    coop.block.load(values_in, values, offset=base, algorithm="transpose")
    coop.block.radix_sort(keys, values)           # blocked: thread t holds sorted positions t*N .. t*N+N-1
    coop.block.store(keys_out, keys, offset=base, algorithm="transpose")
    coop.block.store(values_out, values, offset=base, algorithm="transpose")
# example-end block_radix_sort


def run_on_gpu(tiles: int = 64) -> bool:
    rng = np.random.default_rng()
    keys = rng.integers(0, 2**32, tiles * TILE, dtype=np.uint64).astype(np.uint32)
    keys[::7] = keys[1::7][: keys[::7].size]  # ties, to see stability
    values = np.arange(keys.size, dtype=np.int32)
    keys_out = cuda.to_device(np.zeros_like(keys))
    values_out = cuda.to_device(np.full_like(values, -1))
    sort_tiles[tiles, THREADS](cuda.to_device(keys), cuda.to_device(values), keys_out, values_out)
    order = np.argsort(keys.reshape(tiles, TILE), axis=1, kind="stable")
    expected_keys = np.take_along_axis(keys.reshape(tiles, TILE), order, axis=1).ravel()
    expected_values = np.take_along_axis(values.reshape(tiles, TILE), order, axis=1).ravel()
    ok = np.array_equal(keys_out.copy_to_host(), expected_keys)
    ok &= np.array_equal(values_out.copy_to_host(), expected_values)
    print(f"sort_tiles: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return bool(ok)


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    u32, i32 = types.uint32[::1], types.int32[::1]
    compiled = compile_kernel(sort_tiles, (u32, i32, u32, i32), block=THREADS, arch="sm_90")
    print(f"compiled sort_tiles for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
