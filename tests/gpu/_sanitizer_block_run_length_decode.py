"""One run-length-decode kernel, run under compute-sanitizer by ``test_family_block_run_length_decode.py``.

Run as ``python -m tests.gpu._sanitizer_block_run_length_decode`` from the repository root. Each block decodes
its runs window by window (every call restages the runs in the shared storage the previous call read), on a
block of 128 threads and on one of 11x3 = 33 threads (a partial hardware warp). Results are checked against
NumPy; the script prints ``OK block_run_length_decode <block>`` for each and ``ALL OK`` at the end, and exits
nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

from tests.helpers import seed

RUNS, DECODED, GRID, MAX_LENGTH = 2, 3, 3, 7
BLOCKS = ((128, 1, 1), (11, 3, 1))


def kernel_for(threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T, REGION = threads, threads * RUNS * MAX_LENGTH

    @cuda.jit
    def kernel(values, lengths, out, rel_out):
        v = cuda.local.array(RUNS, np.int32)
        n = cuda.local.array(RUNS, np.uint16)
        decoded = cuda.local.array(DECODED, np.int32)
        rel = cuda.local.array(DECODED, np.int32)
        total = cuda.local.array(1, np.int64)
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        for i in range(RUNS):
            v[i] = values[(cuda.blockIdx.x * T + tid) * RUNS + i]
            n[i] = lengths[(cuda.blockIdx.x * T + tid) * RUNS + i]
        total[0] = 1
        window = 0
        while window < total[0]:
            coop.block.run_length_decode(v, decoded, run_lengths=n, total_decoded_size=total, window_offset=window,
                                         relative_offsets=rel)
            for i in range(DECODED):
                if window + tid * DECODED + i < total[0]:
                    out[cuda.blockIdx.x * REGION + window + tid * DECODED + i] = decoded[i]
                    rel_out[cuda.blockIdx.x * REGION + window + tid * DECODED + i] = rel[i]
            window += T * DECODED

    return kernel


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for block in BLOCKS:
        threads = int(np.prod(block))
        runs, region = threads * RUNS, threads * RUNS * MAX_LENGTH
        values = rng.integers(-1000, 1000, GRID * runs).astype(np.int32)
        lengths = rng.integers(1, MAX_LENGTH + 1, GRID * runs).astype(np.uint16)
        out = cuda.to_device(np.full(GRID * region, -1, np.int32))
        rel = cuda.to_device(np.full(GRID * region, -1, np.int32))
        kernel_for(threads)[GRID, block](cuda.to_device(values), cuda.to_device(lengths), out, rel)
        got, got_rel = out.copy_to_host().reshape(GRID, region), rel.copy_to_host().reshape(GRID, region)
        good = True
        for g in range(GRID):
            vals, lens = values[g * runs : (g + 1) * runs], lengths[g * runs : (g + 1) * runs].astype(np.int64)
            expected = np.full(region, -1, np.int32)
            expected_rel = np.full(region, -1, np.int32)
            size = int(lens.sum())
            expected[:size] = np.repeat(vals, lens)
            expected_rel[:size] = np.concatenate([np.arange(k) for k in lens])
            good &= bool(np.array_equal(got[g], expected) and np.array_equal(got_rel[g], expected_rel))
        print(f"{'OK' if good else 'WRONG'} block_run_length_decode {'x'.join(map(str, block))}")
        ok &= good
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
