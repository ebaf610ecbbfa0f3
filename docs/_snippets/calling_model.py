"""The code docs/calling-model.rst shows: each snippet is cut from here (``# example-begin <id>``).

tests/compile/test_docs_snippets.py compiles every kernel in ``KERNELS`` for sm_90 without a GPU, with the
block shape given there. Optional arguments are passed by keyword, as the page recommends.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

# example-begin forms
ITEMS = 4


@cuda.jit
def scalar_and_array(x, sums, prefixes):
    i = cuda.grid(1)
    # Scalar form: one item per thread; the result is returned.
    total = coop.block.sum(x[i])             # valid in thread 0
    prefix = coop.block.exclusive_sum(x[i])  # this thread's prefix
    prefixes[i] = prefix

    # Array form: a cuda.local.array of ITEMS items per thread, in blocked order.
    items = cuda.local.array(ITEMS, np.int32)
    scanned = cuda.local.array(ITEMS, np.int32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * cuda.blockDim.x * ITEMS)
    tile_total = coop.block.sum(items)       # one value: the whole tile's sum
    # the scan goes to output=; without it, to items (in place)
    coop.block.exclusive_sum(items, output=scanned)
    if cuda.threadIdx.x == 0:
        sums[cuda.blockIdx.x] = total + tile_total
# example-end forms


# example-begin extent
@cuda.jit
def explicit_extent(x, y):
    items = cuda.local.array(ITEMS, np.float32)  # ITEMS: a module-level constant
    base = cuda.blockIdx.x * cuda.blockDim.x * ITEMS
    coop.block.load(x, items, offset=base)       # items_per_thread: 4, from above
    # items_per_thread= may restate it; another value is refused
    coop.block.store(y, items, offset=base, items_per_thread=ITEMS)
# example-end extent


# example-begin block_2d
@cuda.jit
def ranks_2d(ranks):
    # A (16, 8) block: CUB ranks its threads x fastest, then y, then z.
    rank = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
    one = np.int32(1)
    before = coop.block.exclusive_sum(one)  # the threads ranked before this one
    ranks[cuda.blockIdx.x * 128 + rank] = before  # == rank
# example-end block_2d


# example-begin aggregate
@cuda.jit
def aggregate(x, y, totals):
    items = cuda.local.array(ITEMS, np.int64)
    total = cuda.local.array(1, np.int64)  # a one-value output: one item
    base = cuda.blockIdx.x * cuda.blockDim.x * ITEMS
    coop.block.load(x, items, offset=base)
    coop.block.inclusive_sum(items, block_aggregate=total)
    coop.block.store(y, items, offset=base)
    if cuda.threadIdx.x == 0:
        totals[cuda.blockIdx.x] = total[0]  # the block's total (in every thread)
# example-end aggregate


# example-begin barriers
BINS = 256


@cuda.jit
def histogram_tiles(samples, counts, tiles):
    counters = cuda.shared.array(BINS, np.int32)
    items = cuda.local.array(ITEMS, np.uint8)
    coop.block.histogram_init(counters, bins=BINS)  # zeroes them; no barrier after
    cuda.syncthreads()  # yours: before the block adds to the counters
    for t in range(tiles):
        base = (cuda.blockIdx.x * tiles + t) * cuda.blockDim.x * ITEMS
        coop.block.load(samples, items, offset=base)
        # cuda-coop separates the calls' uses of its temporary storage
        coop.block.histogram_composite(items, counters, bins=BINS)
    cuda.syncthreads()  # yours: before threads read the counters
    for b in range(cuda.threadIdx.x, BINS, cuda.blockDim.x):
        cuda.atomic.add(counts, b, counters[b])
# example-end barriers


# example-begin batched
BATCHES = 40


@cuda.jit
def column_maxima(a, maxima):
    row = cuda.grid(1)
    x = cuda.local.array(BATCHES, np.float32)     # 40 batches: this lane's item of each
    m = cuda.local.array(3, np.float32)           # ceil(40 / 16) = 3 results per lane
    for b in range(BATCHES):
        x[b] = a[row * BATCHES + b]
    coop.warp.reduce_batched(x, "max", output=m, threads=16)  # lane l: batches 3l, 3l+1, 3l+2
    for i in range(3):
        maxima[row * 3 + i] = m[i]                # slots past batch 39 belong to no batch
# example-end batched


def _arrays(dtype: Any) -> Any:
    return dtype[::1]


KERNELS: dict[str, tuple[Any, tuple[Any, ...], tuple[int, ...]]] = {
    "forms": (scalar_and_array, (_arrays(types.int32), _arrays(types.int32), _arrays(types.int32)), (128,)),
    "extent": (explicit_extent, (_arrays(types.float32), _arrays(types.float32)), (128,)),
    "block_2d": (ranks_2d, (_arrays(types.int32),), (16, 8)),
    "aggregate": (aggregate, (_arrays(types.int64), _arrays(types.int64), _arrays(types.int64)), (128,)),
    "barriers": (histogram_tiles, (_arrays(types.uint8), _arrays(types.int32), types.int64), (128,)),
    "batched": (column_maxima, (_arrays(types.float32), _arrays(types.float32)), (64,)),
}
"""snippet -> (kernel, argument types, block shape)."""
