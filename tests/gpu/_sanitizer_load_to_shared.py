"""``coop.block.load_to_shared`` kernels, run under compute-sanitizer by ``test_block_load_to_shared.py``.

Run as ``python -m tests.gpu._sanitizer_load_to_shared`` from the repository root. Each block copies its tiles into
one shared array three times in a loop (CUB's barrier initialised, used and invalidated each time; a block sum reuses
its storage in between), the last tile of the launch partial and the source array ending with it, so a read past its
valid items is a memcheck error. A block of 128 threads with int32 items and one of 8x4x2 = 64 threads with float16
items (a 2-byte tail copied item by item). Results are checked against NumPy; the script prints
``OK load_to_shared <block>`` for each and ``ALL OK`` at the end, and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

IPT = 4
CASES = (((128, 1, 1), "int32"), ((8, 4, 2), "float16"))
GRID, REPS = 3, 3


def _kernel(block: tuple[int, int, int], dtype: str):  # type: ignore[no-untyped-def]
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T = getattr(np, dtype)
    bx, by, bz = block
    THREADS = bx * by * bz
    TILE = THREADS * IPT

    @cuda.jit
    def kernel(src, out, n):
        shared = cuda.shared.array(TILE, T, alignment=16)
        t = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        base = cuda.blockIdx.x * TILE
        for rep in range(REPS):
            coop.block.load_to_shared(src, shared, offset=base, valid_items=n - base, items_per_thread=IPT)
            for i in range(t, min(TILE, n - base), THREADS):
                out[(rep * cuda.gridDim.x) * TILE + base + i] = shared[i]
            one = coop.block.sum(np.int32(1))
            if t == 0 and one != THREADS:
                out[0] = shared[0] + shared[0]  # a wrong block sum spoils the result
            cuda.syncthreads()

    return kernel


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    for block, dtype in CASES:
        threads = int(np.prod(block))
        n = GRID * threads * IPT - 5  # the last tile is partial; the source ends with it
        x = (np.arange(1, n + 1) % 1000).astype(dtype)
        out = cuda.to_device(np.zeros(REPS * GRID * threads * IPT, dtype))
        _kernel(block, dtype)[GRID, block](cuda.to_device(x), out, n)
        got = out.copy_to_host().reshape(REPS, -1)[:, :n]
        good = bool(np.array_equal(got, np.broadcast_to(x, got.shape)))
        print(f"{'OK' if good else 'WRONG'} load_to_shared {'x'.join(map(str, block))}")
        ok &= good
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
