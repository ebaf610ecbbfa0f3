"""The intrinsic every planned call becomes, ``coop_call(<site id>, *runtime arguments)``, in numba-cuda-mlir.

Typing is the shared core's (``_numba._typing``); lowering, at the first call site of a kernel, makes the
kernel's provider (every typed site at once) and emits each call as a C-ABI call of its wrapper
(``_numba._call``, ``_seams.lower_extern_call``).
"""

from __future__ import annotations

from typing import Any

from .._numba._call import wrapper_call
from .._numba._stubs import type_site
from .._numba._typing import ELEMENT_TYPES, SUPPORTED
from . import _seams
from ._seams import types

__all__ = ["ELEMENT_TYPES", "SUPPORTED", "coop_call"]


def _lower(lower: Any, target: Any, args: list[Any], site_id: int) -> None:
    call = wrapper_call(site_id, args[1:], lambda: _seams.target_chip(lower))
    _seams.lower_extern_call(lower, target, call.symbol, params=call.params, returns=call.returns, link=call.link)


@_seams.intrinsic  # type: ignore[untyped-decorator]
def coop_call(typingctx: Any, site_lit: Any, *argtys: Any) -> Any:
    """The rewritten form of every cuda-coop call (see ``_numba._planner``)."""
    if not isinstance(site_lit, types.IntegerLiteral):
        return None  # numba retries with the literal site id
    site_id = site_lit.literal_value
    typed = type_site(site_id, tuple(argtys))
    signature = typed.returns(site_lit, *argtys)

    def codegen(lower: Any, target: Any, args: list[Any], kws: Any) -> None:
        _lower(lower, target, list(args), site_id)

    return signature, codegen
