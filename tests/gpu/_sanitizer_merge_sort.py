"""Merge sort kernels run under compute-sanitizer by ``test_family_merge_sort.py``.

Run as ``python -m tests.gpu._sanitizer_merge_sort`` from the repository root. Each block loops over three
tiles and, per tile, sorts (int32 keys, float64 values) with BlockMergeSort three ways on the shared storage:
a full stable pair sort by a Python comparator (descending), a partial tile (``valid_items`` = 2/3 of the
tile, no ``oob_default``), and a partial keys-only sort with ``oob_default``; then each logical warp of 8
lanes sorts its segment with WarpMergeSort (full, then partial), and with ``algorithm="bitonic"`` (full keys
only, then a partial stable pair sort: two exchanges back to blocked on the warp's storage). Blocks: 128 threads,
and 8x4x2 = 64 threads. Results are checked against NumPy's stable sort; the script prints ``OK merge_sort
<block>`` for each and ``ALL OK`` at the end, and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

from tests.helpers import seed

IPT, W, TILES, GRID = 4, 8, 3, 2
BLOCKS = ((128, 1, 1), (8, 4, 2))


def greater(a, b):  # type: ignore[no-untyped-def]
    return a > b


def kernel_for(threads: int):  # type: ignore[no-untyped-def]
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    TILE, WT = threads * IPT, W * IPT
    V = (2 * TILE) // 3

    @cuda.jit
    def kernel(x, xv, full, fullv, part, partv, part_oob, warp_full, warp_part, bit_full, bit_part, bit_partv):
        k = cuda.local.array(IPT, np.int32)
        v = cuda.local.array(IPT, np.float64)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        for tile in range(TILES):
            base = (cuda.blockIdx.x * TILES + tile) * TILE
            mine = base + t * IPT
            for i in range(IPT):
                k[i] = x[mine + i]
                v[i] = xv[mine + i]
            coop.block.merge_sort(k, greater, values=v, stable=True)
            for i in range(IPT):
                full[mine + i] = k[i]
                fullv[mine + i] = v[i]
                k[i] = x[mine + i]
                v[i] = xv[mine + i]
            coop.block.merge_sort(k, "<", values=v, valid_items=V, stable=True)
            for i in range(IPT):
                part[mine + i] = k[i]
                partv[mine + i] = v[i]
                k[i] = x[mine + i]
            coop.block.merge_sort(k, "<", valid_items=V, oob_default=np.int32(2**31 - 1))
            for i in range(IPT):
                part_oob[mine + i] = k[i]
                k[i] = x[mine + i]
            coop.warp.merge_sort(k, "<", threads=W)
            for i in range(IPT):
                warp_full[mine + i] = k[i]
                k[i] = x[mine + i]
            coop.warp.merge_sort(k, "<", valid_items=WT - 3, stable=True, threads=W)
            for i in range(IPT):
                warp_part[mine + i] = k[i]
                k[i] = x[mine + i]
            coop.warp.merge_sort(k, "<", threads=W, algorithm="bitonic")
            for i in range(IPT):
                bit_full[mine + i] = k[i]
                k[i] = x[mine + i]
                v[i] = xv[mine + i]
            coop.warp.merge_sort(k, "<", values=v, valid_items=WT - 3, stable=True, threads=W, algorithm="bitonic")
            for i in range(IPT):
                bit_part[mine + i] = k[i]
                bit_partv[mine + i] = v[i]

    return kernel


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for block in BLOCKS:
        threads = int(np.prod(block))
        tile, valid, wt = threads * IPT, (2 * threads * IPT) // 3, W * IPT
        n = GRID * TILES * tile
        x = rng.integers(-50, 50, n, dtype=np.int32)  # many ties
        xv = rng.permutation(n).astype(np.float64)
        dtypes = (np.int32, np.float64, np.int32, np.float64, np.int32, np.int32, np.int32, np.int32, np.int32,
                  np.float64)
        outs = [cuda.to_device(np.full(n, -7, dt)) for dt in dtypes]
        kernel_for(threads)[GRID, block](cuda.to_device(x), cuda.to_device(xv), *outs)
        full, fullv, part, partv, part_oob, warp_full, warp_part, bit_full, bit_part, bit_partv = (
            o.copy_to_host() for o in outs)
        good = True
        for lo in range(0, n, tile):
            kt, vt = x[lo : lo + tile], xv[lo : lo + tile]
            down = tile - 1 - np.argsort(kt[::-1], kind="stable")[::-1]
            good &= np.array_equal(full[lo : lo + tile], kt[down]) and np.array_equal(fullv[lo : lo + tile], vt[down])
            up = np.argsort(kt[:valid], kind="stable")
            good &= np.array_equal(part[lo : lo + valid], kt[:valid][up])
            good &= np.array_equal(partv[lo : lo + valid], vt[:valid][up])
            good &= np.array_equal(part_oob[lo : lo + valid], np.sort(kt[:valid]))
        for lo in range(0, n, wt):
            good &= np.array_equal(warp_full[lo : lo + wt], np.sort(x[lo : lo + wt]))
            good &= np.array_equal(warp_part[lo : lo + wt - 3], np.sort(x[lo : lo + wt - 3]))
            good &= np.array_equal(bit_full[lo : lo + wt], np.sort(x[lo : lo + wt]))
            up = np.argsort(x[lo : lo + wt - 3], kind="stable")
            good &= np.array_equal(bit_part[lo : lo + wt - 3], x[lo : lo + wt - 3][up])
            good &= np.array_equal(bit_partv[lo : lo + wt - 3], xv[lo : lo + wt - 3][up])
        print(f"{'OK' if good else 'WRONG'} merge_sort {'x'.join(map(str, block))}")
        ok &= bool(good)
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
