"""The numba-cuda-mlir integration as the shared core sees it (:class:`~cuda_coop._numba._frontend.Frontend`)."""

from __future__ import annotations

from typing import Any

from .._numba._frontend import Frontend
from . import _seams
from ._lowering import coop_call

__all__ = ["FRONTEND"]

cuda: Any = _seams.kernel_module()


def _compile_device_ltoir(pyfunc: Any, signature: Any, symbol: str, arch: str | None) -> tuple[tuple[bytes], Any]:
    # numba-cuda-mlir compiles for this thread's compute capability (see _seams.assumed_compute_capability)
    data, restype = _seams.compile_device_ltoir(pyfunc, signature, symbol)
    return (data,), restype


FRONTEND = Frontend(
    name="numba_mlir",
    display="numba-cuda-mlir 0.5",
    ir=_seams.ir,
    types=_seams.types,
    mk_unique_var=_seams.mk_unique_var,
    build_definitions=_seams.build_definitions,
    cuda=cuda,
    thread_varying=_seams.thread_varying_stubs(),
    pure_modules=("numba_cuda_mlir.cuda.libdevice", "numba_cuda_mlir.cuda.fp16",
                  "numba_cuda_mlir.type_defs.vector_types"),
    half_modules=("numba_cuda_mlir.numba_cuda._internal.cuda_bf16", "numba_cuda_mlir.numba_cuda._internal.cuda_fp16"),
    types_modules=("numba_cuda_mlir.numba_cuda.types.",),
    packages=("numba_cuda_mlir",),
    from_dtype=_seams.from_dtype,
    coop_call=coop_call,
    compile_device_ltoir=_compile_device_ltoir,
    device_jit=cuda.jit(device=True),
    link_item=_seams.LTOIR,
    provider_ltoir=_seams.link_with_short_shared_pointers,
    signed_builtin_min_max=True,
)
