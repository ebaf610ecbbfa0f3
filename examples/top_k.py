"""Top-k per segment of a large array: each block takes the K largest scores of its segment, with their indices.

Each block loads one segment of ``THREADS * ITEMS`` float32 scores, makes each score's index in the whole
array its value, and ``coop.block.top_k`` writes the segment's K largest scores, largest first, and their
indices to ``top_scores[block * K : block * K + K]`` / ``top_index[...]``. Ties keep the earlier index (every
algorithm of ``top_k`` writes the order of a stable sort). With a GPU it runs the kernel against NumPy
(``np.partition`` + sort) and prints PASS or FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS, K = 256, 4, 10
SEGMENT = THREADS * ITEMS


# example-begin block_top_k
@cuda.jit
def top_k_per_segment(scores, top_scores, top_index):
    """top_scores[s*K : s*K+K] = the K largest scores of segment s, largest first; top_index their indices."""
    keys = cuda.local.array(ITEMS, np.float32)
    index = cuda.local.array(ITEMS, np.int32)
    base = cuda.blockIdx.x * SEGMENT
    coop.block.load(scores, keys, offset=base, algorithm="transpose")
    first = base + (cuda.threadIdx.x * ITEMS)
    for i in range(ITEMS):
        index[i] = first + i                      # blocked: thread t holds positions t*ITEMS .. t*ITEMS+ITEMS-1
    coop.block.top_k(keys, top_scores, k=K, values=index, out_values=top_index, offset=cuda.blockIdx.x * K)
# example-end block_top_k


def run_on_gpu(segments: int = 200) -> bool:
    rng = np.random.default_rng()
    scores = rng.standard_normal(segments * SEGMENT).astype(np.float32)
    scores[::5] = scores[3::5][: scores[::5].size]  # ties, to see the earlier index win
    top_scores = cuda.to_device(np.full(segments * K, np.nan, np.float32))
    top_index = cuda.to_device(np.full(segments * K, -1, np.int32))
    top_k_per_segment[segments, THREADS](cuda.to_device(scores), top_scores, top_index)
    seg = scores.reshape(segments, SEGMENT)
    expected = -np.sort(-np.partition(seg, SEGMENT - K, axis=1)[:, SEGMENT - K :], axis=1)
    order = np.argsort(-seg, axis=1, kind="stable")[:, :K]  # stable: among equal scores the earlier index
    expected_index = (order + np.arange(segments)[:, None] * SEGMENT).astype(np.int32)
    ok = np.array_equal(top_scores.copy_to_host().reshape(segments, K), expected)
    ok &= np.array_equal(top_index.copy_to_host().reshape(segments, K), expected_index)
    print(f"top_k_per_segment: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return bool(ok)


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f32, i32 = types.float32[::1], types.int32[::1]
    compiled = compile_kernel(top_k_per_segment, (f32, f32, i32), block=THREADS, arch="sm_90")
    print(f"compiled top_k_per_segment for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
