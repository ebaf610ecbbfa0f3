"""The cuda-coop side of docs/migration.rst: each snippet is cut from here (``# example-begin <id>``).

tests/compile/test_docs_snippets.py compiles every kernel in ``KERNELS`` for sm_90 without a GPU;
tests/gpu/test_docs_snippets.py launches them and checks the results against NumPy (``CHECKS``). The old
code each snippet replaces is on the page itself; scripts/check_migration.py checks it against a cuda-cccl wheel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop


# example-begin reduce
def max_op(a, b):
    return a if a > b else b


@cuda.jit
def block_max(x, out):
    # The block shape comes from the launch; the operator is a plain Python function.
    result = coop.block.reduce(x[cuda.grid(1)], max_op)
    if cuda.threadIdx.x == 0:  # valid in thread 0, as in CUB
        out[cuda.blockIdx.x] = result
# example-end reduce


# example-begin load_scan_store
ITEMS = 4


@cuda.jit
def tile_scan(x, y):
    items = cuda.local.array(ITEMS, np.int32)  # items_per_thread is this array's extent
    tile = cuda.blockIdx.x * cuda.blockDim.x * ITEMS
    coop.block.load(x, items, offset=tile, algorithm="warp_transpose")
    coop.block.inclusive_sum(items)  # in place; the scratch memory of all three calls is cuda-coop's
    coop.block.store(y, items, offset=tile, algorithm="warp_transpose")
# example-end load_scan_store


# example-begin prefix_op
def running_total(state, block_aggregate):
    old = state[0]
    state[0] = old + block_aggregate
    return old


@cuda.jit
def scan_tiles(x, y, tiles):
    items = cuda.local.array(ITEMS, np.int64)
    total = cuda.local.array(1, np.int64)  # the callback's state, owned by the kernel
    total[0] = 0
    for t in range(tiles):
        offset = t * cuda.blockDim.x * ITEMS
        coop.block.load(x, items, offset=offset)
        coop.block.exclusive_sum(items, prefix_op=running_total, prefix_state=total)
        coop.block.store(y, items, offset=offset)
# example-end prefix_op


# example-begin merge_sort
def descending(a, b):
    return a > b


@cuda.jit
def sort_tiles(x, y):
    keys = cuda.local.array(ITEMS, np.int32)
    tile = cuda.blockIdx.x * cuda.blockDim.x * ITEMS
    coop.block.load(x, keys, offset=tile)
    coop.block.merge_sort(keys, descending)  # the comparison goes to the call; the sort is in place
    coop.block.store(y, keys, offset=tile)
# example-end merge_sort


# example-begin warp
@cuda.jit
def warp_sums(x, out):
    i = cuda.grid(1)
    total = coop.warp.sum(x[i])  # logical warps of 32 threads (threads=32 is the default)
    if cuda.threadIdx.x % 32 == 0:
        out[i // 32] = total
# example-end warp


THREADS = 128
_i32, _i64 = types.int32[::1], types.int64[::1]
KERNELS: dict[str, tuple[Any, tuple[Any, ...], int]] = {
    "reduce": (block_max, (_i32, _i32), THREADS),
    "load_scan_store": (tile_scan, (_i32, _i32), THREADS),
    "prefix_op": (scan_tiles, (_i64, _i64, types.int32), THREADS),
    "merge_sort": (sort_tiles, (_i32, _i32), THREADS),
    "warp": (warp_sums, (_i32, _i32), THREADS),
}
"""Snippet id -> (kernel, argument types, block size)."""


def _check_reduce(rng: np.random.Generator, blocks: int) -> bool:
    x = rng.integers(-(2**30), 2**30, blocks * THREADS, dtype=np.int32)
    out = cuda.to_device(np.zeros(blocks, np.int32))
    block_max[blocks, THREADS](cuda.to_device(x), out)
    return bool(np.array_equal(out.copy_to_host(), x.reshape(blocks, THREADS).max(axis=1)))


def _check_load_scan_store(rng: np.random.Generator, blocks: int) -> bool:
    x = rng.integers(-1000, 1000, blocks * THREADS * ITEMS, dtype=np.int32)
    y = cuda.to_device(np.zeros_like(x))
    tile_scan[blocks, THREADS](cuda.to_device(x), y)
    expected = np.cumsum(x.reshape(blocks, -1), axis=1, dtype=np.int32).ravel()
    return bool(np.array_equal(y.copy_to_host(), expected))


def _check_prefix_op(rng: np.random.Generator, blocks: int) -> bool:
    tiles = 5 * blocks
    x = rng.integers(-1000, 1000, tiles * THREADS * ITEMS, dtype=np.int64)
    y = cuda.to_device(np.zeros_like(x))
    scan_tiles[1, THREADS](cuda.to_device(x), y, tiles)
    return bool(np.array_equal(y.copy_to_host(), np.cumsum(x) - x))


def _check_merge_sort(rng: np.random.Generator, blocks: int) -> bool:
    x = rng.integers(-1000, 1000, blocks * THREADS * ITEMS, dtype=np.int32)
    y = cuda.to_device(np.zeros_like(x))
    sort_tiles[blocks, THREADS](cuda.to_device(x), y)
    expected = np.sort(x.reshape(blocks, -1), axis=1)[:, ::-1].ravel()
    return bool(np.array_equal(y.copy_to_host(), expected))


def _check_warp(rng: np.random.Generator, blocks: int) -> bool:
    x = rng.integers(-1000, 1000, blocks * THREADS, dtype=np.int32)
    out = cuda.to_device(np.zeros(x.size // 32, np.int32))
    warp_sums[blocks, THREADS](cuda.to_device(x), out)
    return bool(np.array_equal(out.copy_to_host(), x.reshape(-1, 32).sum(axis=1, dtype=np.int32)))


CHECKS: dict[str, Callable[[np.random.Generator, int], bool]] = {
    "reduce": _check_reduce,
    "load_scan_store": _check_load_scan_store,
    "prefix_op": _check_prefix_op,
    "merge_sort": _check_merge_sort,
    "warp": _check_warp,
}
"""Snippet id -> launch it on the GPU and compare with NumPy (True when equal)."""
