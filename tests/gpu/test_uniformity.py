"""Kernels whose primitives sit under uniform conditions run and give the right answer.

The compile tier (tests/compile/test_uniformity.py) checks what is refused; here the accepted
forms run: a branch on ``blockIdx``, a call after a thread-dependent ``if`` that rejoins, and
conditions asserted with ``coop.uniform`` (block- and warp-uniform).
"""

from __future__ import annotations

import numpy as np

T = 128  # threads per block (1-D)
BLOCKS = 6


def test_block_index_branch_and_rejoining_guard(rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    @cuda.jit
    def kernel(x, out, n):
        i = cuda.grid(1)
        v = np.int64(0)
        if i < n:  # thread-dependent, rejoins before the calls
            v = x[i]
        even = cuda.blockIdx.x % 2 == 0  # the same in every thread of a block
        r = coop.block.sum(v) if even else coop.block.reduce(v, "max")
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = r

    n = BLOCKS * T - 37  # the last block is partial: the guard above matters
    x = rng.integers(-(2**40), 2**40, size=BLOCKS * T, dtype=np.int64)
    out = cuda.to_device(np.full(BLOCKS, -1, np.int64))
    kernel[BLOCKS, T](cuda.to_device(x), out, n)
    padded = np.where(np.arange(BLOCKS * T) < n, x, 0).reshape(BLOCKS, T)
    expected = np.where(np.arange(BLOCKS) % 2 == 0, padded.sum(axis=1), padded.max(axis=1))
    np.testing.assert_array_equal(out.copy_to_host(), expected)


def test_asserted_uniform_conditions(rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    @cuda.jit
    def kernel(x, flags, block_out, warp_out):
        i = cuda.grid(1)
        v = x[i]
        # flags[i // T] is the same element for every thread of a block: uniform, asserted.
        if coop.uniform(flags[i // T] != 0):
            total = coop.block.sum(v)
            if cuda.threadIdx.x == 0:
                block_out[cuda.blockIdx.x] = total
        warp = cuda.threadIdx.x // 32  # the same in the 32 lanes of a warp: warp-uniform, asserted
        if coop.uniform(warp % 2 == 0):
            w = coop.warp.sum(v)
            if cuda.laneid == 0:
                warp_out[i // 32] = w

    x = rng.integers(-(2**20), 2**20, size=BLOCKS * T, dtype=np.int32)
    flags = np.array([1, 0, 1, 1, 0, 1], np.int32)
    block_out = cuda.to_device(np.full(BLOCKS, -7, np.int32))
    warp_out = cuda.to_device(np.full(BLOCKS * T // 32, -7, np.int32))
    kernel[BLOCKS, T](cuda.to_device(x), cuda.to_device(flags), block_out, warp_out)
    sums = x.reshape(BLOCKS, T).sum(axis=1, dtype=np.int64).astype(np.int32)
    np.testing.assert_array_equal(block_out.copy_to_host(), np.where(flags != 0, sums, -7))
    warp_sums = x.reshape(-1, 32).sum(axis=1, dtype=np.int64).astype(np.int32)
    even_warp = (np.arange(BLOCKS * T // 32) % (T // 32)) % 2 == 0
    np.testing.assert_array_equal(warp_out.copy_to_host(), np.where(even_warp, warp_sums, -7))
