"""Sort fixed-size segments of a large array, keys with their values (block radix sort); argsort and rank them.

Each block loads one tile of ``THREADS * ITEMS`` keys and their values, sorts the pairs with
``coop.block.radix_sort`` and stores them back: every tile of the output is sorted, and each value
still travels with its key. A second kernel argsorts each tile of float keys with ``coop.block.argsort``:
it writes, for every sorted position, the key's index in the whole array. A third kernel does one pass of a
hand-made radix sort with ``coop.block.radix_rank``. With a GPU it runs the kernels against NumPy's stable sort
and prints PASS or FAIL; without one it compiles them for sm_90.
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
    coop.block.radix_sort(keys, values=values)           # blocked: thread t holds sorted positions t*N .. t*N+N-1
    coop.block.store(keys_out, keys, offset=base, algorithm="transpose")
    coop.block.store(values_out, values, offset=base, algorithm="transpose")
# example-end block_radix_sort


# example-begin block_argsort
@cuda.jit
def argsort_tiles(keys_in, order_out):
    """order_out[tile] = the array indices of the tile's float32 keys, largest key first (stable)."""
    keys = cuda.local.array(ITEMS, np.float32)
    order = cuda.local.array(ITEMS, np.int64)
    base = cuda.blockIdx.x * TILE
    coop.block.load(keys_in, keys, offset=base, algorithm="transpose")
    coop.block.argsort(keys, order, descending=True, base=base, output="striped")
    coop.block.store(order_out, order, offset=base, algorithm="striped")  # striped: coalesced, no exchange
# example-end block_argsort


# example-begin block_radix_rank
@cuda.jit
def partition_by_low_digit(keys_in, keys_out, digit_starts):
    """One pass of a hand-made radix sort: each tile stably partitioned by its keys' low 4 bits, and where
    each of the 16 digits starts in the partitioned tile."""
    keys = cuda.local.array(ITEMS, np.uint32)
    ranks = cuda.local.array(ITEMS, np.int32)
    start = cuda.local.array(1, np.int32)        # max(1, 16 digits / 128 threads) = 1 digit a thread
    base = cuda.blockIdx.x * TILE
    coop.block.load(keys_in, keys, offset=base, algorithm="direct")  # blocked: ties keep the tile order
    coop.block.radix_rank(keys, ranks, digit_prefix=start, radix_bits=4, end_bit=4)
    for i in range(ITEMS):
        keys_out[base + ranks[i]] = keys[i]      # scatter to the rank: the stable partition
    if cuda.threadIdx.x < 16:
        digit_starts[cuda.blockIdx.x * 16 + cuda.threadIdx.x] = start[0]
# example-end block_radix_rank


def _expected(keys: np.ndarray, tiles: int, descending: bool = False) -> np.ndarray:
    k = keys.reshape(tiles, TILE)
    return np.argsort(-k if descending else k, axis=1, kind="stable")


def run_on_gpu(tiles: int = 64) -> bool:
    rng = np.random.default_rng()
    keys = rng.integers(0, 2**32, tiles * TILE, dtype=np.uint64).astype(np.uint32)
    keys[::7] = keys[1::7][: keys[::7].size]  # ties, to see stability
    values = np.arange(keys.size, dtype=np.int32)
    keys_out = cuda.to_device(np.zeros_like(keys))
    values_out = cuda.to_device(np.full_like(values, -1))
    sort_tiles[tiles, THREADS](cuda.to_device(keys), cuda.to_device(values), keys_out, values_out)
    order = _expected(keys, tiles)
    expected_keys = np.take_along_axis(keys.reshape(tiles, TILE), order, axis=1).ravel()
    expected_values = np.take_along_axis(values.reshape(tiles, TILE), order, axis=1).ravel()
    ok = np.array_equal(keys_out.copy_to_host(), expected_keys)
    ok &= np.array_equal(values_out.copy_to_host(), expected_values)
    print(f"sort_tiles: {'ok' if ok else 'WRONG'}")

    floats = rng.integers(-50, 50, tiles * TILE).astype(np.float32)  # many ties; no NaN or -0.0 here
    order_out = cuda.to_device(np.full(floats.size, -1, np.int64))
    argsort_tiles[tiles, THREADS](cuda.to_device(floats), order_out)
    expected_order = (_expected(floats, tiles, descending=True) + np.arange(tiles)[:, None] * TILE).ravel()
    good = np.array_equal(order_out.copy_to_host(), expected_order)
    print(f"argsort_tiles: {'ok' if good else 'WRONG'}")
    ok &= good

    partitioned = cuda.to_device(np.zeros_like(keys))
    starts = cuda.to_device(np.full(tiles * 16, -1, np.int32))
    partition_by_low_digit[tiles, THREADS](cuda.to_device(keys), partitioned, starts)
    low = (keys & 15).reshape(tiles, TILE)
    by_digit = np.take_along_axis(keys.reshape(tiles, TILE), np.argsort(low, axis=1, kind="stable"), axis=1)
    counts = np.stack([np.bincount(row, minlength=16) for row in low])
    expected_starts = (np.cumsum(counts, axis=1) - counts).astype(np.int32).ravel()
    good = np.array_equal(partitioned.copy_to_host(), by_digit.ravel())
    good &= np.array_equal(starts.copy_to_host(), expected_starts)
    print(f"partition_by_low_digit: {'ok' if good else 'WRONG'}")
    ok &= good
    print("PASS" if ok else "FAIL")
    return bool(ok)


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    u32, i32 = types.uint32[::1], types.int32[::1]
    compiled = compile_kernel(sort_tiles, (u32, i32, u32, i32), block=THREADS, arch="sm_90")
    print(f"compiled sort_tiles for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    compiled = compile_kernel(argsort_tiles, (types.float32[::1], types.int64[::1]), block=THREADS, arch="sm_90")
    print(f"compiled argsort_tiles for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    compiled = compile_kernel(partition_by_low_digit, (u32, u32, i32), block=THREADS, arch="sm_90")
    print(f"compiled partition_by_low_digit for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
