"""numba-cuda-mlir 0.5 compiles the builtin max()/min() of unsigned integers as signed comparisons.

- The canary: the SASS of ``max(a, b)`` on uint32 is the int32 kernel's (``VIMNMX``, signed), while the
  comparison ``a if a > b else b`` compiles to an unsigned compare. When numba-cuda-mlir fixes its
  lowering the canary fails: lift cuda-coop's guard and the known-issues entry with it.
- The guard: a user operator of unsigned scalars that calls the builtin max()/min() is refused with a
  UsageError naming it, where it would otherwise give wrong results above the signed maximum.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel


def _compares(kernel, ty) -> list[str]:
    sass = compile_kernel(kernel, (ty[::1], ty[::1], ty[::1]), block=32, arch="sm_90").sass()
    return sorted(set(re.findall(r"\b(?:VIMNMX|IMNMX|ISETP)[.\w]*", sass)))


def test_canary_builtin_max_of_unsigned_is_still_signed() -> None:
    @cuda.jit
    def builtin_max(a, b, out):
        i = cuda.grid(1)
        out[i] = max(a[i], b[i])

    @cuda.jit
    def compared(a, b, out):
        i = cuda.grid(1)
        out[i] = a[i] if a[i] > b[i] else b[i]

    assert _compares(builtin_max, types.uint32) == _compares(builtin_max, types.int32), (
        "numba-cuda-mlir now compiles max() of uint32 differently from int32: if it is unsigned, lift "
        "cuda-coop's refusal (_operators.refuse_unsigned_min_max) and the known-issues entry")
    assert any(".U32" in op for op in _compares(compared, types.uint32))


def umax(a, b):
    return max(a, b)


def umin(a, b):
    return min(a, b)


def larger(a, b):
    return a if a > b else b


def _reduce_kernel(op):
    @cuda.jit
    def kernel(x, out):
        v = coop.block.reduce(x[cuda.threadIdx.x], op)
        w = coop.warp.inclusive_scan(x[cuda.threadIdx.x], op)
        out[cuda.threadIdx.x] = v + w

    return kernel


@pytest.mark.parametrize("op", [umax, umin], ids=lambda f: f.__name__)
@pytest.mark.parametrize("ty", [types.uint8, types.uint32, types.uint64], ids=str)
def test_builtin_min_max_of_unsigned_is_refused(op, ty) -> None:
    with pytest.raises(UsageError) as info:
        compile_kernel(_reduce_kernel(op), (ty[::1], ty[::1]), block=64, arch="sm_90")
    message = str(info.value)
    assert f"op={op.__name__!r}" in message and "unsigned" in message and "a if a > b else b" in message
    assert "test_unsigned_min_max.py" in message  # the call's file:line


@pytest.mark.parametrize(("op", "ty"), [(larger, types.uint32), (umax, types.int32), (umin, types.float32)],
                         ids=["comparison-uint32", "max-int32", "min-float32"])
def test_what_is_right_still_compiles(op, ty) -> None:
    compile_kernel(_reduce_kernel(op), (ty[::1], ty[::1]), block=64, arch="sm_90")
