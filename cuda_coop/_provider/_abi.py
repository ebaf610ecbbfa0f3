"""The C ABI between a kernel and its provider: wrapper signatures and the user functions expected.

:func:`plan` validates a kernel's requests (``_specs.bind``) and derives, without rendering any C++,
what the DSL needs to emit calls: for each call site the ``extern "C"`` wrapper symbol and its C
signature, and the user operators/callbacks the provider declares and the DSL must supply as LTO-IR.
Pure: no I/O, no environment.

ABI rules (see ``_specs._model`` for argument kinds and ``_specs._types`` for value ABIs):

- Wrapper parameters follow the overload's order (constructor arguments first); operators take no slot.
- A CUB result (``Binding.returns``) of a value-ABI type is the wrapper's return value; of a pointer-ABI type it is
  written through a trailing ``T* result``.
- A ``void`` method with exactly one scalar OUTPUT of a value-ABI type returns it; every other output
  and aggregate is an out-pointer.
- A user operator ``R op(A0, A1)`` is declared ``extern "C" __device__``; pointer-ABI operands become
  ``const A*`` and a pointer-ABI result a leading ``R* out``. A user callback takes ``void* state``
  first (the pointer the kernel passes in the callback's slot), then the same.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .._specs import ArgKind, Binding, Param, Request, UserCallback, UserOp, ValueType, bind

__all__ = ["CParam", "ExternFunction", "Plan", "WrapperSignature", "plan"]

Role = Literal["in", "out", "inout", "state"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CParam:
    """One C parameter of a wrapper or of a user function."""

    name: str
    """The spec parameter it carries (``"input"``), ``"result"`` or ``"out"``."""
    ctype: str
    """C++ spelling of the parameter's type, e.g. ``"float*"``."""
    kind: ArgKind | None
    """The spec's argument kind; None for ``result``/``out``/``state`` slots of the ABI itself."""
    value_type: ValueType | None
    """Element/value type; None for ``void* state``."""
    pointer: bool
    """Passed as a pointer."""
    extent: int | None = None
    """Items behind the pointer for per-thread arrays."""
    role: Role = "in"


@dataclass(frozen=True, kw_only=True, slots=True)
class WrapperSignature:
    """One call site's wrapper: what the DSL declares and calls."""

    symbol: str
    returns: ValueType | None
    """Return type; None for ``void``."""
    params: tuple[CParam, ...]
    binding: Binding
    returned_output: str | None = None
    """Name of the OUTPUT parameter returned by value, if any (it has no C parameter)."""

    @property
    def declaration(self) -> str:
        """``extern "C" __device__ R symbol(...)``."""
        ret = self.returns.cpp if self.returns else "void"
        args = ", ".join(f"{p.ctype} {p.name}" for p in self.params) or "void"
        return f'extern "C" __device__ {ret} {self.symbol}({args})'


@dataclass(frozen=True, kw_only=True, slots=True)
class ExternFunction:
    """A user function the provider calls and the DSL supplies (as LTO-IR) under ``symbol``."""

    symbol: str
    purpose: Literal["operator", "callback"]
    returns: ValueType | None
    params: tuple[CParam, ...]

    @property
    def declaration(self) -> str:
        ret = self.returns.cpp if self.returns else "void"
        args = ", ".join(f"{p.ctype} {p.name}" for p in self.params) or "void"
        return f'extern "C" __device__ {ret} {self.symbol}({args})'


@dataclass(frozen=True, kw_only=True, slots=True)
class Plan:
    """A kernel's validated call sites and their ABI, in request order."""

    prefix: str
    """12 hex digits naming this provider's symbols; a digest of block_dim and the bindings."""
    block_dim: tuple[int, int, int]
    signatures: tuple[WrapperSignature, ...]
    externs: tuple[ExternFunction, ...]
    """User functions, sorted by symbol."""

    @property
    def bindings(self) -> tuple[Binding, ...]:
        return tuple(s.binding for s in self.signatures)


def _value_param(name: str, vt: ValueType, kind: ArgKind | None, role: Role = "in") -> CParam:
    if vt.abi == "value":
        return CParam(name=name, ctype=vt.cpp, kind=kind, value_type=vt, pointer=False, role=role)
    return CParam(name=name, ctype=f"const {vt.cpp}*", kind=kind, value_type=vt, pointer=True, role=role)


def _wrapper_param(b: Binding, p: Param) -> CParam | None:
    if p.kind is ArgKind.OPERATOR or b.omitted(p):
        return None
    if p.kind is ArgKind.CALLBACK:
        return CParam(name=p.name, ctype="void*", kind=p.kind, value_type=None, pointer=True, role="state")
    vt = b.type_of(p.type or "")
    if p.kind is ArgKind.SCALAR:
        return _value_param(p.name, vt, p.kind)
    if p.kind is ArgKind.POINTER:
        ctype = f"const {vt.cpp}*" if p.const else f"{vt.cpp}*"
        return CParam(
            name=p.name, ctype=ctype, kind=p.kind, value_type=vt, pointer=True, role="in" if p.const else "inout"
        )
    role: Role = "out" if p.kind in (ArgKind.OUTPUT, ArgKind.AGGREGATE) else "inout" if p.inout else "in"
    return CParam(
        name=p.name, ctype=f"{vt.cpp}*", kind=p.kind, value_type=vt, pointer=True, extent=b.extent_of(p), role=role
    )


def _returned_output(b: Binding) -> str | None:
    if b.returns is not None:
        return None
    scalars = [p for p in b.overload.params if p.kind is ArgKind.OUTPUT and p.extent is None]
    if len(scalars) == 1 and b.type_of(scalars[0].type or "").abi == "value":
        return scalars[0].name
    return None


def _signature(symbol: str, b: Binding) -> WrapperSignature:
    returned = _returned_output(b)
    params = [c for p in b.overload.all_params if p.name != returned and (c := _wrapper_param(b, p))]
    returns: ValueType | None = None
    if b.returns is not None:
        rt = b.type_of(b.returns)
        if rt.abi == "value":
            returns = rt
        else:
            params.append(CParam(name="result", ctype=f"{rt.cpp}*", kind=None, value_type=rt, pointer=True, role="out"))
    elif returned is not None:
        returns = b.type_of(next(p.type for p in b.overload.params if p.name == returned) or "")
    return WrapperSignature(symbol=symbol, returns=returns, params=tuple(params), binding=b, returned_output=returned)


def _extern(b: Binding, p: Param) -> ExternFunction:
    fn = b.values[p.name]
    callback = isinstance(fn, UserCallback)
    params: list[CParam] = []
    if callback:
        params.append(CParam(name="state", ctype="void*", kind=None, value_type=None, pointer=True, role="state"))
    rt = b.type_of(p.returns or "")
    returns: ValueType | None = rt
    if rt.abi == "pointer":
        params.append(CParam(name="out", ctype=f"{rt.cpp}*", kind=None, value_type=rt, pointer=True, role="out"))
        returns = None
    params += [_value_param(f"a{k}", b.type_of(ref), None) for k, ref in enumerate(p.args)]
    return ExternFunction(
        symbol=fn.symbol, purpose="callback" if callback else "operator", returns=returns, params=tuple(params)
    )


def plan(requests: Sequence[Request], block_dim: tuple[int, ...], *, arch: str | None = None) -> Plan:
    """Validate a kernel's requests and derive its wrappers' C ABI.

    Parameters
    ----------
    requests:
        One :class:`~cuda_coop._specs.Request` per call site, in the order the DSL will refer to them.
    block_dim:
        The launch's block shape, 1 to 3 integers.
    arch:
        The target (``"sm_90"``) for which ``algorithm="auto"`` is resolved (see ``_specs._auto``).

    Raises
    ------
    ValueError
        An invalid request (see ``_specs.bind``), no requests, or one user function symbol declared
        with two different signatures.
    """
    if not requests:
        raise ValueError("a provider needs at least one request")
    bindings = [bind(r, block_dim, arch=arch) for r in requests]
    dims = bindings[0].block_dim
    digest = hashlib.sha256(repr(dims).encode())
    for b in bindings:
        digest.update(b"\n" + b.canonical().encode())
    prefix = digest.hexdigest()[:12]
    signatures = tuple(
        _signature(f"cuda_coop_{prefix}_{i}_{b.spec.name}_{b.method.name}", b) for i, b in enumerate(bindings)
    )
    externs: dict[str, ExternFunction] = {}
    for b in bindings:
        for p in b.overload.all_params:
            if isinstance(b.values.get(p.name), UserOp | UserCallback):
                ext = _extern(b, p)
                seen = externs.setdefault(ext.symbol, ext)
                if seen.declaration != ext.declaration:
                    raise ValueError(
                        f"user function {ext.symbol!r} is used with two signatures: {seen.declaration} and "
                        f"{ext.declaration}; compile one device function per signature"
                    )
    return Plan(
        prefix=prefix, block_dim=dims, signatures=signatures, externs=tuple(externs[k] for k in sorted(externs))
    )
