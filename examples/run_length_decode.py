"""Run-length decoding: each block expands its share of runs (value, length) into the output, one window
of decoded items at a time, with each item's position inside its run. Checked against ``np.repeat``.

With a GPU it runs the kernel and prints PASS or FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, RUNS, DECODED = 128, 2, 4
RUN_TILE = THREADS * RUNS  # runs per block
WINDOW = THREADS * DECODED  # decoded items per call


# example-begin block_run_length_decode
@cuda.jit
def expand(values, lengths, n_runs, starts, out, index_in_run):
    """Block b expands runs ``b*RUN_TILE ...`` into ``out[starts[b]:]``, a window at a time."""
    run_values = cuda.local.array(RUNS, np.int32)
    run_lengths = cuda.local.array(RUNS, np.uint32)
    decoded = cuda.local.array(DECODED, np.int32)
    relative = cuda.local.array(DECODED, np.uint32)
    total = cuda.local.array(1, np.int64)  # the block's decoded size; int64 like the window offset below
    base = cuda.blockIdx.x * RUN_TILE
    coop.block.load(values, run_values, offset=base, valid_items=n_runs - base, oob_default=0)
    coop.block.load(lengths, run_lengths, offset=base, valid_items=n_runs - base, oob_default=0)  # empty runs last
    total[0] = 1  # enter the loop once: the first call sets the real size
    window = 0
    while window < total[0]:
        coop.block.run_length_decode(run_values, decoded, run_lengths=run_lengths, total_decoded_size=total,
                                     window_offset=window, relative_offsets=relative)
        for i in range(DECODED):
            position = window + cuda.threadIdx.x * DECODED + i  # blocked: thread t holds t*DECODED + i
            if position < total[0]:
                out[starts[cuda.blockIdx.x] + position] = decoded[i]
                index_in_run[starts[cuda.blockIdx.x] + position] = relative[i]
        window += WINDOW
# example-end block_run_length_decode


def run_on_gpu() -> bool:
    rng = np.random.default_rng()
    n_runs = 10 * RUN_TILE - 77  # the last block's missing runs are loaded as empty (length 0) runs
    values = rng.integers(-(2**31), 2**31, n_runs, dtype=np.int32)
    lengths = rng.integers(1, 12, n_runs, dtype=np.uint32)
    blocks = -(-n_runs // RUN_TILE)
    per_block = np.add.reduceat(lengths.astype(np.int64), np.arange(0, n_runs, RUN_TILE))
    starts = np.concatenate([[0], np.cumsum(per_block)[:-1]]).astype(np.int64)
    total = int(per_block.sum())
    out, index_in_run = cuda.to_device(np.zeros(total, np.int32)), cuda.to_device(np.zeros(total, np.uint32))
    expand[blocks, THREADS](cuda.to_device(values), cuda.to_device(lengths), n_runs, cuda.to_device(starts), out,
                            index_in_run)
    expected_index = np.concatenate([np.arange(n, dtype=np.uint32) for n in lengths])
    ok = np.array_equal(out.copy_to_host(), np.repeat(values, lengths)) and np.array_equal(
        index_in_run.copy_to_host(), expected_index
    )
    print(f"expand: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    sig = (types.int32[::1], types.uint32[::1], types.int64, types.int64[::1], types.int32[::1], types.uint32[::1])
    compiled = compile_kernel(expand, sig, block=THREADS, arch="sm_90")
    print(f"compiled expand for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
