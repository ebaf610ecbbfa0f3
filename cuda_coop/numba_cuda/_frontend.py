"""The numba-cuda integration as the shared core sees it (:class:`~cuda_coop._numba._frontend.Frontend`)."""

from __future__ import annotations

from .._numba._frontend import Frontend
from .._numba._link import register_provider
from . import _seams
from ._lowering import coop_call

__all__ = ["FRONTEND"]

FRONTEND = Frontend(
    name="numba_cuda",
    display="numba-cuda",
    ir=_seams.ir,
    types=_seams.types,
    mk_unique_var=_seams.mk_unique_var,
    build_definitions=_seams.build_definitions,
    cuda=_seams.cuda,
    thread_varying=_seams.thread_varying_stubs(),
    pure_modules=("numba.cuda.libdevice",),
    half_modules=("numba.cuda._internal.cuda_bf16", "numba.cuda._internal.cuda_fp16"),
    types_modules=("numba.core.types.", "numba.cuda.types."),
    packages=("numba.cuda", "numba_cuda"),
    from_dtype=_seams.from_dtype,
    coop_call=coop_call,
    compile_device_ltoir=_seams.compile_device_ltoir,
    device_jit=_seams.inlined_device_function,
    link_item=_seams.LTOIR,
    provider_ltoir=register_provider,
    array_align=_seams.natural_array_align,
    record_local_arrays=True,
)
