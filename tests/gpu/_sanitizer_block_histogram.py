"""One block-histogram kernel, run under compute-sanitizer by ``test_family_block_histogram.py``.

Run as ``python -m tests.gpu._sanitizer_block_histogram`` from the repository root. Each block zeroes shared
counters, then adds four tiles to them with ``histogram_composite`` (``"sort"`` reuses its temporary storage
at every call; ``"atomic"`` adds to a second set of counters), and once more with ``histogram`` into a third
set, on a block of 128 threads and on one of 11x3 = 33 threads (a partial hardware warp). Results are
checked against NumPy; the script prints ``OK block_histogram <block>`` for each and ``ALL OK`` at the end,
and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

from tests.helpers import seed

IPT, BINS, TILES_PER_BLOCK, GRID = 4, 200, 4, 3
BLOCKS = ((128, 1, 1), (11, 3, 1))


def kernel_for(threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T, TILE = threads, threads * IPT

    @cuda.jit
    def kernel(x, out):
        samples = cuda.local.array(IPT, np.uint16)
        by_sort = cuda.shared.array(BINS, np.uint32)
        by_atomic = cuda.shared.array(BINS, np.uint32)
        fresh = cuda.shared.array(BINS, np.uint32)
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        for b in range(tid, BINS, T):
            by_sort[b] = 0
            by_atomic[b] = 0
        cuda.syncthreads()
        for t in range(TILES_PER_BLOCK):
            base = (cuda.blockIdx.x * TILES_PER_BLOCK + t) * TILE + tid * IPT
            for i in range(IPT):
                samples[i] = x[base + i]
            coop.block.histogram_composite(samples, by_sort, bins=BINS)
            coop.block.histogram_composite(samples, by_atomic, bins=BINS, algorithm="atomic")
        coop.block.histogram(samples, fresh, bins=BINS)
        cuda.syncthreads()
        row = cuda.blockIdx.x * 3 * BINS
        for b in range(tid, BINS, T):
            out[row + b] = by_sort[b]
            out[row + BINS + b] = by_atomic[b]
            out[row + 2 * BINS + b] = fresh[b]

    return kernel


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for block in BLOCKS:
        threads = int(np.prod(block))
        tile = threads * IPT
        x = rng.integers(0, BINS, GRID * TILES_PER_BLOCK * tile).astype(np.uint16)
        out = cuda.to_device(np.full(GRID * 3 * BINS, 99, np.uint32))
        kernel_for(threads)[GRID, block](cuda.to_device(x), out)
        tiles = x.reshape(GRID, TILES_PER_BLOCK, tile)
        got = out.copy_to_host().reshape(GRID, 3, BINS)
        good = True
        for g in range(GRID):
            all_tiles = np.bincount(tiles[g].reshape(-1), minlength=BINS)
            last = np.bincount(tiles[g, -1], minlength=BINS)
            good &= bool(np.array_equal(got[g, 0], all_tiles) and np.array_equal(got[g, 1], all_tiles)
                         and np.array_equal(got[g, 2], last))
        print(f"{'OK' if good else 'WRONG'} block_histogram {'x'.join(map(str, block))}")
        ok &= good
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
