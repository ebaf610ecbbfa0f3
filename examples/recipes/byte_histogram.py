"""A 256-bin histogram of a byte array: ``hist = np.bincount(data, minlength=256)``, in two launches.

The first kernel gives each block a grid-stride share of the array's tiles, of the shape ``coop.row_shape(n,
np.uint8)`` picks; the block counts them into shared counters with ``coop.block.histogram_composite`` and writes
its 256 counts to its own row of ``partial``, so no atomics reach global memory and nothing has to be zeroed before
the launch. The second kernel adds the blocks' rows, one thread per bin. The grid is as many blocks as the GPU
keeps resident at once. The partial last tile is loaded with ``oob_default=0`` and its padding taken out of bin 0.
With a GPU it checks arrays of several lengths against ``np.bincount`` and prints PASS or FAIL; without one it
compiles the kernels for sm_90.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

BINS = 256


# example-begin recipe_byte_histogram
@functools.cache
def histogram_kernels(shape: coop.RowShape, load: str = "auto"):
    """``(count, add)``: ``count[blocks, shape.threads](data, n, partial)`` writes block b's counts of its tiles to
    ``partial[b*256 : b*256 + 256]``; ``add[1, 256](partial, blocks, hist)`` sums them into ``hist`` (int64)."""
    ITEMS, TILE, THREADS = shape.items_per_thread, shape.tile, shape.threads

    @cuda.jit
    def count(data, n, partial):
        samples = cuda.local.array(ITEMS, np.uint8)
        counts = cuda.shared.array(BINS, np.uint32)
        coop.block.histogram_init(counts, bins=BINS)
        cuda.syncthreads()                                   # zeroed before anyone adds
        padding = 0
        for base in range(cuda.blockIdx.x * TILE, n, cuda.gridDim.x * TILE):
            if base + TILE <= n:
                coop.block.load(data, samples, offset=base, algorithm=load)
            else:                                            # the partial last tile: its padding counts as 0 ...
                coop.block.load(data, samples, offset=base, valid_items=n - base, oob_default=0, algorithm=load)
                padding = base + TILE - n
            coop.block.histogram_composite(samples, counts, bins=BINS)
        cuda.syncthreads()                                   # every thread's counts are in
        for b in range(cuda.threadIdx.x, BINS, THREADS):
            c = counts[b]
            if b == 0:
                c -= padding                                 # ... and is taken out here
            partial[cuda.blockIdx.x * BINS + b] = c

    @cuda.jit
    def add(partial, blocks, hist):
        b = cuda.threadIdx.x
        total = np.int64(0)
        for block in range(blocks):
            total += partial[block * BINS + b]
        hist[b] = total

    return count, add


def resident_blocks(shape: coop.RowShape, n: int) -> int:
    """As many blocks as the GPU runs at once (at most one per tile)."""
    device = cuda.get_current_device()
    per_sm = device.MAX_THREADS_PER_MULTIPROCESSOR // shape.threads
    return max(1, min(shape.tiles(n), device.MULTIPROCESSOR_COUNT * per_sm))


def byte_histogram(data, hist, partial=None, *, shape: coop.RowShape | None = None, stream=0,
                   load: str = "auto") -> None:
    """``hist`` (256 int64) = the count of each byte value in ``data`` (a 1-D uint8 device array); ``partial``:
    a uint32 device array of at least ``resident_blocks(shape, n) * 256`` items, allocated when not given.
    ``shape``: the block shape, ``coop.row_shape(n, np.uint8)`` when not given."""
    n = data.size
    shape = shape or coop.row_shape(n, np.uint8)
    blocks = resident_blocks(shape, n)
    if partial is None:
        partial = cuda.device_array(blocks * BINS, np.uint32, stream=stream)
    count, add = histogram_kernels(shape, load)
    count[blocks, shape.threads, stream](data, n, partial)
    add[1, BINS, stream](partial, blocks, hist)
# example-end recipe_byte_histogram


def run_on_gpu() -> bool:
    rng = np.random.default_rng()
    ok = True
    for n in (1000, 1 << 20, (1 << 24) + 12345):            # one partial tile; whole tiles; a partial last one
        data = rng.integers(0, 256, n).astype(np.uint8)
        data[: n // 8] = 7                                   # one crowded bin
        hist = cuda.to_device(np.full(BINS, -1, np.int64))
        byte_histogram(cuda.to_device(data), hist)
        good = np.array_equal(hist.copy_to_host(), np.bincount(data, minlength=BINS))
        ok &= good
        print(f"byte_histogram of {n} bytes ({coop.row_shape(n, np.uint8)}): {'ok' if good else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    shape = coop.row_shape(1 << 24, np.uint8)
    count, add = histogram_kernels(shape)
    c = compile_kernel(count, (types.uint8[::1], types.int64, types.uint32[::1]), block=shape.threads, arch="sm_90")
    a = compile_kernel(add, (types.uint32[::1], types.int64, types.int64[::1]), block=BINS, arch="sm_90")
    print(f"compiled byte_histogram ({shape}) for sm_90: {c.resource_usage().get('reg', 0)} registers, the sum of "
          f"the blocks' counts {a.resource_usage().get('reg', 0)}")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
