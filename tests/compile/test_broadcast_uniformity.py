"""A block reduction with ``broadcast=True`` gives every thread the same value, so it may decide whether
the block calls another primitive; without it (valid in thread 0 only), or from a warp (the same value in
one logical warp only), it may not (compile tier)."""

from __future__ import annotations

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel

SIG = (types.float32[::1], types.float32[::1])


def test_block_broadcast_result_may_guard_a_block_call() -> None:
    @cuda.jit
    def kernel(x, y):
        tid = cuda.threadIdx.x
        while coop.block.sum(x[tid], broadcast=True) > 0:
            x[tid] -= coop.block.reduce(x[tid], "max", broadcast=True)
        y[tid] = x[tid]

    assert compile_kernel(kernel, SIG, block=128).cubin


def test_plain_block_result_may_not() -> None:
    @cuda.jit
    def kernel(x, y):
        tid = cuda.threadIdx.x
        if coop.block.sum(x[tid]) > 0:
            y[tid] = coop.block.sum(x[tid])

    with pytest.raises(UsageError, match="reached by only some threads"):
        compile_kernel(kernel, SIG, block=128)


def test_warp_broadcast_result_may_not_guard_a_block_call() -> None:
    @cuda.jit
    def kernel(x, y):
        tid = cuda.threadIdx.x
        if coop.warp.sum(x[tid], broadcast=True) > 0:
            y[tid] = coop.block.sum(x[tid])

    with pytest.raises(UsageError, match="reached by only some threads"):
        compile_kernel(kernel, SIG, block=128)
