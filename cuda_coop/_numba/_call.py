"""What each C parameter of a call site's wrapper receives: the part of lowering both DSLs share.

At the first call site of a kernel the kernel's provider is made (``_kernel_provider``: every typed site
planned at once, compiled lazily in one NVRTC call); :func:`wrapper_call` then says, for one call, which
runtime argument (or stack slot) each parameter of its ``extern "C"`` wrapper takes, by the wrapper's C
signature (``_provider._abi``). Each DSL's lowering emits the call from that (``lower_extern_call``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .._specs import ArgKind
from ._kernel_provider import KernelProvider
from ._sites import site
from ._typing import TypedCall, numba_type, slot_type

__all__ = ["Advanced", "WrapperCall", "wrapper_call"]


@dataclasses.dataclass(frozen=True)
class Advanced:
    """``&array[offset]`` of a 1-D C-contiguous array variable and an integer variable (None: 0), as a C
    parameter; ``argument``: the array is a whole kernel argument (a DSL may know its launch offset is 0)."""

    array: Any
    offset: Any = None
    argument: bool = False


@dataclasses.dataclass(frozen=True)
class WrapperCall:
    """One call of a wrapper, as the DSL's lowering emits it."""

    symbol: str
    params: list[tuple[Any, Any, int | None]]
    """``(value, numba type, align)`` per C parameter, in order: ``align`` None passes the value (a variable, an
    :class:`Advanced`) by value; an integer passes a pointer to a stack slot of that alignment holding the
    variable, or, for the value None, an empty slot the wrapper writes (a result)."""
    returns: Any
    """The numba type the wrapper returns by value (``types.none`` for none)."""
    link: tuple[Any, ...]
    """The kernel's link items (the provider's LTO-IR and the user operators')."""


def _numba_type(users: Any, cparam: Any, argty: Any) -> Any:
    types = users.types
    if cparam.value_type is None:  # void* state: a pointer to whatever the caller passed
        return types.CPointer(argty.dtype if isinstance(argty, types.Array) else argty)
    vt = numba_type(users, cparam.value_type.name)
    return types.CPointer(vt) if cparam.pointer else vt


def _by_slot(cparam: Any) -> bool:
    """A single value of a pointer-ABI type (``__half``, complex...): it crosses as a pointer to a stack slot.
    Arrays (a POINTER, an AGGREGATE's one-value ``cuda.local.array``) cross as their data pointer instead."""
    vt = cparam.value_type
    arrays = (ArgKind.POINTER, ArgKind.AGGREGATE)
    return vt is not None and vt.abi == "pointer" and cparam.extent is None and cparam.kind not in arrays


def _is_result(cparam: Any) -> bool:
    """A single value the wrapper writes for the call's result (``T* result``, a scalar OUTPUT): never an
    argument, even where an array form's output is in place of an input."""
    return (
        cparam.role == "out"
        and cparam.extent is None
        and cparam.value_type is not None
        and cparam.kind in (None, ArgKind.OUTPUT)
    )


def _whole_kernel_argument(origin: Any) -> bool:
    """An array that is a kernel argument itself, not a slice of one."""
    return origin is not None and isinstance(origin.root, tuple) and origin.root[0] == "arg" and not origin.sliced


def wrapper_call(site_id: int, runtime: list[Any], chip: Callable[[], str]) -> WrapperCall:
    """The wrapper call of site ``site_id`` with its ``runtime`` arguments (the DSL's values of them).

    ``chip`` gives the compile's target arch (``"sm_90"``) when the kernel's provider is made, at its first
    call site.
    """
    cs, kernel = site(site_id)
    if kernel.provider is None:
        kernel.provider = KernelProvider(kernel, chip())
    provider: KernelProvider = kernel.provider
    users = cs.frontend.users
    sig = provider.signature(site_id)
    typed: TypedCall = kernel.typed[site_id]
    offsets = {pointer: cs.runtime.index(offset) for offset, pointer in cs.primitive.offsets if offset in cs.runtime}
    params: list[tuple[Any, Any, int | None]] = []
    for cparam in sig.params:
        if _is_result(cparam):  # the call's result (with others: a tuple, in the wrapper's order)
            params.append((None, slot_type(users, cparam.value_type.name), cparam.value_type.align))
            continue
        index = typed.sources.get(cparam.name)
        if index is None:
            raise cs.error(f"internal: no argument for the wrapper parameter {cparam.name!r} of {sig.symbol}")
        argument = _whole_kernel_argument(cs.origins.get(cs.runtime[index]))
        if _by_slot(cparam):
            params.append((runtime[index], slot_type(users, cparam.value_type.name), cparam.value_type.align))
        elif cparam.name in offsets or (cparam.kind is ArgKind.POINTER and argument):  # src[offset:] as a pointer
            offset = runtime[offsets[cparam.name]] if cparam.name in offsets else None
            arg = Advanced(runtime[index], offset, argument=argument)
            params.append((arg, _numba_type(users, cparam, typed.argtys[index]), None))
        else:
            params.append((runtime[index], _numba_type(users, cparam, typed.argtys[index]), None))
    returns = numba_type(users, sig.returns.name) if sig.returns is not None else users.types.none
    return WrapperCall(sig.symbol, params, returns, provider.link_items)
