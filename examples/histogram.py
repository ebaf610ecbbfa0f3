"""A 256-bin histogram of a byte array: each block counts its tiles into shared memory with a block
histogram, then adds its counts to the global histogram with atomics. Checked against ``np.bincount``.

With a GPU it runs the kernels and prints PASS or FAIL; without one it compiles them for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS, BINS = 256, 8, 256
TILE = THREADS * ITEMS


# example-begin block_histogram
@cuda.jit
def byte_histogram(data, n, hist):
    """``hist[b] += count of b in data[:n]``: every block counts a grid-stride share of the tiles."""
    samples = cuda.local.array(ITEMS, np.uint8)
    counts = cuda.shared.array(BINS, np.uint32)
    tid = cuda.threadIdx.x
    for b in range(tid, BINS, THREADS):  # counters start at zero, visible to the whole block
        counts[b] = 0
    cuda.syncthreads()
    padding = 0
    for base in range(cuda.blockIdx.x * TILE, n, cuda.gridDim.x * TILE):
        valid = n - base  # the last tile may be partial: its missing samples read as 0...
        coop.block.load(data, samples, offset=base, valid_items=valid, oob_default=0, algorithm="transpose")
        coop.block.histogram_composite(samples, counts, bins=BINS)  # add this tile's counts
        if valid < TILE:
            padding += TILE - valid  # ...and are taken out of bin 0 below
    cuda.syncthreads()  # every thread's updates of the counters are done
    for b in range(tid, BINS, THREADS):
        cuda.atomic.add(hist, b, counts[b] - (padding if b == 0 else 0))
# example-end block_histogram


@cuda.jit
def tile_histograms(data, per_tile):
    """``per_tile[i]``: the histogram of tile ``i`` alone (``histogram`` zeroes the counters itself)."""
    samples = cuda.local.array(ITEMS, np.uint8)
    counts = cuda.shared.array(BINS, np.uint32)
    coop.block.load(data, samples, offset=cuda.blockIdx.x * TILE, algorithm="transpose")
    coop.block.histogram(samples, counts, bins=BINS, algorithm="atomic")
    cuda.syncthreads()
    for b in range(cuda.threadIdx.x, BINS, THREADS):
        per_tile[cuda.blockIdx.x, b] = counts[b]


def run_on_gpu(blocks: int = 40) -> bool:
    rng = np.random.default_rng()
    data = rng.integers(0, 256, 1_000_003, dtype=np.uint8)
    data[:5000] = 7  # a long run of one value
    hist = cuda.to_device(np.zeros(BINS, np.uint32))
    byte_histogram[blocks, THREADS](cuda.to_device(data), data.size, hist)
    ok = _report("byte_histogram", np.array_equal(hist.copy_to_host(), np.bincount(data, minlength=BINS)))

    tiles = data.size // TILE
    per_tile = cuda.to_device(np.full((tiles, BINS), 12345, np.uint32))
    tile_histograms[tiles, THREADS](cuda.to_device(data), per_tile)
    expected = np.stack([np.bincount(t, minlength=BINS) for t in data[: tiles * TILE].reshape(tiles, TILE)])
    ok &= _report("tile_histograms", np.array_equal(per_tile.copy_to_host(), expected))
    print("PASS" if ok else "FAIL")
    return ok


def _report(name: str, ok: bool) -> bool:
    print(f"{name}: {'ok' if ok else 'WRONG'}")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    u8, u32 = types.uint8[::1], types.uint32
    for kernel, sig in ((byte_histogram, (u8, types.int64, u32[::1])), (tile_histograms, (u8, u32[:, ::1]))):
        compiled = compile_kernel(kernel, sig, block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
