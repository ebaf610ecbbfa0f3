"""The intrinsic every planned call becomes, ``coop_call(<site id>, *runtime arguments)``, in numba-cuda.

Typing is the shared core's (``_numba._typing``); lowering, at the first call site of a kernel, makes the
kernel's provider (every typed site at once), bounds the kernel to the launch's block size, attaches the
provider's link items to the kernel's code library, and emits each call as a C-ABI call of its wrapper
(``_numba._call``, ``_emit``).
"""

from __future__ import annotations

from typing import Any

from .._numba._call import wrapper_call
from .._numba._sites import site
from .._numba._stubs import type_site
from . import _seams
from ._emit import emit_call
from ._seams import types

__all__ = ["coop_call"]


def _lower(context: Any, builder: Any, sig: Any, args: Any, site_id: int) -> Any:
    cs, kernel = site(site_id)
    if kernel.provider is None and kernel.launch_bounds is not None:
        _seams.set_launch_bounds(builder.function, kernel.launch_bounds)  # once per kernel: its first call
    names = [f"arg{k}" for k in range(len(cs.runtime))]
    packed = sig.args[1]  # numba-cuda passes the star arguments as one tuple
    runtime = [(ty, builder.extract_value(args[1], k)) for k, ty in enumerate(packed)]
    values = dict(zip(names, runtime, strict=True))
    call = wrapper_call(site_id, names, lambda: kernel.arch or "sm_90")  # the planner knows the arch
    library = context.active_code_library
    for item in call.link:
        library.add_linking_file(item)
    return emit_call(context, builder, call, values, result=sig.return_type)


@_seams.intrinsic  # type: ignore[untyped-decorator]
def coop_call(typingctx: Any, site_lit: Any, *argtys: Any) -> Any:
    """The rewritten form of every cuda-coop call (see ``_numba._planner``)."""
    if not isinstance(site_lit, types.IntegerLiteral):
        return None  # numba retries with the literal site id
    site_id = site_lit.literal_value
    typed = type_site(site_id, tuple(argtys))
    signature = typed.returns(site_lit, types.StarArgTuple.from_types(argtys))

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _lower(context, builder, sig, args, site_id)

    return signature, codegen
