"""Typing and lowering of the rewritten calls: ``coop_call(<site id>, *runtime arguments)``.

Typing turns a call site (``_planner.CallSite``) and the numba types of its runtime arguments into a
specialisation request (``_specs.Request``) and the call's result type. Lowering, at the first call
site of a kernel, plans every typed site of that kernel at once (``_provider.plan``: symbols and
C signatures) and attaches one lazily compiled provider; each call then becomes a C-ABI call of its
wrapper, per-thread and global arrays passed as data pointers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .._dsl._primitive import SPEC_NAMES
from .._specs import ArgKind, Request, UserCallback, UserOp, bind, coerce_operator, get_primitive
from . import _seams
from ._planner import CallSite, KernelPlan, site
from ._seams import types

SUPPORTED = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")


@dataclass(frozen=True)
class TypedCall:
    """A call site after typing."""

    request: Request
    returns: Any
    """numba type of the call's result (``types.none`` for none)."""
    sources: dict[str, int]
    """Spec parameter -> index of the runtime argument carrying it."""
    user_ops: tuple[tuple[str, Any, Any], ...] = ()
    """(symbol, Python function, numba signature) of user operators and callbacks to compile to LTO-IR."""
    argtys: tuple[Any, ...] = ()
    """numba types of the runtime arguments."""


def _dtype_name(ty: Any) -> str | None:
    name = str(ty.dtype if isinstance(ty, types.Array) else ty)
    return name if name in SUPPORTED else None


def _user_function(cs: CallSite, param: str, fn: Any, signature: Any) -> tuple[str, Any, Any]:
    """(symbol, Python function, C signature) of a user function the provider calls."""
    pyfunc = getattr(fn, "py_func", fn)
    if not callable(pyfunc):
        raise cs.error(f"{param}={fn!r} is neither a known operator nor a Python function")
    # Stable across processes (the symbol is part of the provider's source, hence its cache key), and
    # distinct for closures of one function that capture different values.
    code = getattr(pyfunc, "__code__", None)
    body = (code.co_code, code.co_consts) if code is not None else None
    captured = tuple(repr(cell.cell_contents) for cell in getattr(pyfunc, "__closure__", None) or ())
    identity = repr((pyfunc.__module__, pyfunc.__qualname__, body, captured, str(signature)))
    return f"cuda_coop_{param}_{hashlib.sha256(identity.encode()).hexdigest()[:16]}", pyfunc, signature


def _data_type(cs: CallSite, given: dict[str, Any]) -> str:
    data_ty = given.get(cs.primitive.data)
    dtype = _dtype_name(data_ty) if data_ty is not None else None
    if dtype is None:
        raise cs.error(
            f"{cs.primitive.data!r} has type {data_ty}; expected a value or a cuda.local.array of one of "
            f"{', '.join(SUPPORTED)}"
        )
    return dtype


def _extent(cs: CallSite, given: dict[str, Any]) -> int | None:
    """The per-thread extent: recovered from the arrays' definitions, or items_per_thread=."""
    explicit = cs.static.get("items_per_thread")
    extent: int | None = None
    for name in sorted(cs.primitive.per_thread):
        ty = given.get(name)
        if ty is None or (not isinstance(ty, types.Array) and name == cs.primitive.data):
            continue
        if not isinstance(ty, types.Array):
            raise cs.error(f"{name!r} must be a cuda.local.array, got {ty}")
        n = cs.extents.get(name, explicit)
        if n is None:
            raise cs.error(
                f"cannot tell the extent of {name!r} ({ty}): pass a cuda.local.array defined in this kernel "
                "with a constant size, or give items_per_thread="
            )
        if explicit is not None and n != explicit:
            raise cs.error(f"items_per_thread={explicit} but {name!r} has extent {n}")
        if extent is not None and n != extent:
            raise cs.error(f"{name!r} has extent {n} but another per-thread array has {extent}; they must match")
        extent = n
    return extent


def _check_arrays(cs: CallSite, given: dict[str, Any], dtype: str) -> None:
    """Every array holds the data type; arrays are 1-D and contiguous."""
    for name, ty in given.items():
        if isinstance(ty, types.Array) and name != "prefix_state":  # the callback's state is the user's
            if str(ty.dtype) != dtype:
                raise cs.error(f"{name!r} holds {ty.dtype} but {cs.primitive.data!r} is {dtype}; use one dtype")
            if ty.ndim != 1 or ty.layout not in ("C", "A"):
                raise cs.error(f"{name!r} must be a 1-D contiguous array, got {ty}")


def _arguments(cs: CallSite, argtys: tuple[Any, ...], outputs: set[str]) -> tuple[dict[str, bool], dict[str, int]]:
    """Spec arguments present at the call (name -> is a per-thread array) and where each comes from."""
    present: dict[str, bool] = {}
    sources: dict[str, int] = {}
    for index, name in enumerate(cs.runtime):
        spec_name = SPEC_NAMES.get(name, name)
        sources[spec_name] = index
        if spec_name not in outputs:
            present[spec_name] = isinstance(argtys[index], types.Array) and name in cs.primitive.per_thread
    for out, source in cs.primitive.in_place:
        if out not in cs.runtime and source in cs.runtime:
            sources[SPEC_NAMES.get(out, out)] = cs.runtime.index(source)
    return present, sources


def type_call(cs: CallSite, argtys: tuple[Any, ...]) -> TypedCall:
    """Validate a call site's argument types and build its specialisation request."""
    prim = cs.primitive
    given = dict(zip(cs.runtime, argtys, strict=True))
    dtype = _data_type(cs, given)
    numba_dtype = getattr(types, dtype)
    spec = get_primitive(prim.target[0])
    method = spec.method(prim.target[1])
    extent = _extent(cs, given)
    _check_arrays(cs, given, dtype)
    outputs = {p.name for ov in method.overloads for p in ov.all_params if p.kind is ArgKind.OUTPUT}
    present, sources = _arguments(cs, argtys, outputs)

    params: dict[str, Any] = {"dtype": dtype}
    user_ops: list[tuple[str, Any, Any]] = []
    for name, value in cs.static.items():
        if name == "items_per_thread" or value is None:
            continue
        spec_name = SPEC_NAMES.get(name, name)
        params[spec_name] = value
        if name == "op":
            present[spec_name] = False
            op = coerce_operator(value)
            if op is None:
                user = _user_function(cs, name, value, numba_dtype(numba_dtype, numba_dtype))
                user_ops.append(user)
                op = UserOp(user[0])
            params[spec_name] = op
        elif name == "prefix_op":
            state = given.get("prefix_state")
            if not isinstance(state, types.Array):
                raise cs.error(f"prefix_op needs prefix_state=, an array its first argument points to (got {state})")
            user = _user_function(cs, name, value, numba_dtype(types.CPointer(state.dtype), numba_dtype))
            user_ops.append(user)
            params[spec_name] = UserCallback(user[0])
    if "prefix_state" in given and "prefix_callback" not in params:
        raise cs.error("prefix_state= is only used with prefix_op=")
    if extent is not None and any(tp.name == "items_per_thread" for ov in method.overloads
                                  for tp in (*spec.tparams, *ov.tparams)):
        params["items_per_thread"] = extent
    try:
        overload = method.match(present)
    except ValueError:
        arrays = ", ".join(k for k, v in present.items() if v) or "none"
        raise cs.error(f"no form of {spec.cub_class}::{method.cpp} takes ({', '.join(sorted(present))}) "
                       f"with these per-thread arrays: {arrays}") from None
    if not any(tp.name == "items_per_thread" for tp in (*spec.tparams, *overload.tparams)):
        params.pop("items_per_thread", None)
    request = Request(spec.name, method.name, overload.name, **params)
    bind(request, cs.block)  # validate now: errors name the call site
    returns = numba_dtype if method.returns is not None or _returns_output(overload) else types.none
    return TypedCall(request=request, returns=returns, sources=sources, user_ops=tuple(user_ops), argtys=argtys)


def _returns_output(overload: Any) -> bool:
    outs = [p for p in overload.params if p.kind is ArgKind.OUTPUT and p.extent is None]
    return len(outs) == 1


def _numba_type(cparam: Any, argty: Any) -> Any:
    if cparam.value_type is None:  # void* state: a pointer to whatever the caller passed
        return types.CPointer(argty.dtype if isinstance(argty, types.Array) else argty)
    vt = getattr(types, cparam.value_type.name)
    return types.CPointer(vt) if cparam.pointer else vt


def _lower(lower: Any, target: Any, args: list[Any], site_id: int) -> None:
    cs, kernel = site(site_id)
    provider = _kernel_provider(lower, kernel)
    sig = provider.signature(site_id)
    typed: TypedCall = kernel.typed[site_id]
    runtime = args[1:]
    c_args, c_types = [], []
    for cparam in sig.params:
        index = typed.sources.get(cparam.name)
        if index is None:
            raise cs.error(f"internal: no argument for the wrapper parameter {cparam.name!r} of {sig.symbol}")
        c_args.append(runtime[index])
        c_types.append(_numba_type(cparam, typed.argtys[index]))
    returns = getattr(types, sig.returns.name) if sig.returns is not None else types.none
    c_sig = returns(*c_types)
    _seams.lower_extern_call(lower, target, sig.symbol, signature=c_sig, link=provider.link_items, args=c_args)


def _kernel_provider(lower: Any, kernel: KernelPlan) -> Any:
    if kernel.provider is None:
        from ._provider_link import KernelProvider

        kernel.provider = KernelProvider(kernel, _seams.target_chip(lower))
    return kernel.provider


@_seams.intrinsic  # type: ignore[untyped-decorator]
def coop_call(typingctx: Any, site_lit: Any, *argtys: Any) -> Any:
    """The rewritten form of every cuda-coop call (see ``_planner``)."""
    if not isinstance(site_lit, types.IntegerLiteral):
        return None  # numba retries with the literal site id
    site_id = site_lit.literal_value
    cs, kernel = site(site_id)
    try:
        typed = type_call(cs, tuple(argtys))
    except ValueError as exc:  # a request the spec rejects (constraint, operator, algorithm)
        raise cs.error(str(exc)) from None
    kernel.typed[site_id] = typed
    signature = typed.returns(site_lit, *argtys)

    def codegen(lower: Any, target: Any, args: list[Any], kws: Any) -> None:
        _lower(lower, target, list(args), site_id)

    return signature, codegen


__all__ = ["TypedCall", "coop_call", "type_call"]
