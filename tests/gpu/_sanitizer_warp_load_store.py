"""One warp load/store kernel, run under compute-sanitizer by ``test_family_warp_load_store.py``.

Run as ``python -m tests.gpu._sanitizer_warp_load_store`` from the repository root. The kernel reuses each
logical warp's shared exchange buffer (the transposing algorithms) four times in a row, full and partial tiles,
on a block of 128 threads with logical warps of 8 and on one of 16x3 = 48 threads with logical warps of 16 (a
partial last hardware warp). Results are checked against NumPy; the script prints ``OK warp_load_store <block>``
for each and ``ALL OK`` at the end, and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

IPT = 4
CASES = (((128, 1, 1), 8), ((16, 3, 1), 16))
GRID = 3


def _kernel(threads: int, width: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T, W = threads, width

    @cuda.jit
    def kernel(x, y, z, n):
        items = cuda.local.array(IPT, np.int32)
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = cuda.blockIdx.x * T * IPT + (tid // W) * W * IPT
        coop.warp.load(x, items, offset=base, algorithm="transpose", threads=W)
        coop.warp.store(y, items, offset=base, algorithm="transpose", threads=W)
        coop.warp.load(x, items, offset=base, valid_items=n - base, oob_default=-5, algorithm="transpose", threads=W)
        coop.warp.store(z, items, offset=base, valid_items=n - base, algorithm="transpose", threads=W)

    return kernel


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    for block, width in CASES:
        threads = int(np.prod(block))
        total = GRID * threads * IPT
        n = total - width * IPT - 3
        x = np.arange(1, total + 1, dtype=np.int32)
        y, z = cuda.to_device(np.zeros(total, np.int32)), cuda.to_device(np.full(total, -1, np.int32))
        _kernel(threads, width)[GRID, block](cuda.to_device(x), y, z, n)
        good = np.array_equal(y.copy_to_host(), x) and np.array_equal(
            z.copy_to_host(), np.where(np.arange(total) < n, x, -1)
        )
        print(f"{'OK' if good else 'WRONG'} warp_load_store {'x'.join(map(str, block))}")
        ok &= bool(good)
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
