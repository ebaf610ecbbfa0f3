"""argmax/argmin compile for sm_90 (every GPU-tier kernel), and misuse names the dtype and the primitive."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import test_arg_reduce as gpu
from tests.helpers.tiers import uncompiled


def test_every_gpu_tier_kernel_is_compiled_here() -> None:
    assert not uncompiled(gpu, sys.modules[__name__])
    assert {c.items for c in gpu.CASES} == {1, 4, 16}


@pytest.mark.parametrize("case", gpu.CASES, ids=lambda c: c.id)
def test_gpu_kernel_compiles(case: gpu.ArgCase) -> None:
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block, grid=gpu.TILES)
    assert compiled.resource_usage().get("local", 0) == 0


@pytest.mark.parametrize("primitive", [coop.block.argmax, coop.warp.argmin])
def test_complex_is_refused(primitive) -> None:
    @cuda.jit
    def kernel(x, out, where):
        v, p = primitive(x[cuda.threadIdx.x])
        out[0] = v
        where[0] = p

    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, (types.complex64[::1], types.complex64[::1], types.int64[::1]), block=64)
    message = str(info.value)
    assert "complex64" in message and "argm" in message and "floating-point" in message, message


def test_lossy_index_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, where):
        v, p = coop.block.argmax(x[cuda.threadIdx.x], index=x[0])
        out[0] = v
        where[0] = p

    with pytest.raises(UsageError, match="index="):
        compile_kernel(kernel, (types.float32[::1], types.float32[::1], types.int64[::1]), block=64)


def test_every_form_compiles_for_float16_on_a_3d_block() -> None:
    import numpy as np

    @cuda.jit
    def kernel(x, v, p):
        tid = cuda.threadIdx.x
        items = cuda.local.array(3, np.float16)
        for i in range(3):
            items[i] = x[tid * 3 + i]
        a = coop.block.argmax(x[tid])
        b = coop.block.argmax(x[tid], index=np.int64(5))
        c = coop.warp.argmax(items, threads=8)
        d = coop.warp.argmin(items)
        e = coop.warp.argmin(x[tid], index=np.int64(tid))
        f = coop.block.argmin(x[tid])
        v[tid] = a[0] + b[0] + c[0] + d[0] + e[0] + f[0]
        p[tid] = a[1] + b[1] + c[1] + d[1] + e[1] + f[1]

    compiled = compile_kernel(kernel, (types.float16[::1], types.float16[::1], types.int64[::1]), block=(8, 4, 2))
    assert compiled.resource_usage().get("local", 0) == 0
