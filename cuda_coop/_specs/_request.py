"""Specialisation requests: one call site's primitive, method, overload and template arguments.

A :class:`Request` is what the DSL builds for a call site; :func:`bind` checks it against the spec
and the launch's block shape and returns a :class:`Binding`, the validated input of the renderer.
Every error names the primitive, the parameter, the value received, what is allowed and the fix.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from typing import Any

from ..errors import SpecError
from ._auto import resolve
from ._model import AUTO, DEFAULT, ArgKind, Binding, Overload, Param, TemplateParam, TParamKind, suggest
from ._operators import STRICT_WEAK_ORDERS, KnownOp, UserCallback, coerce_operator
from ._registry import get_primitive
from ._types import value_type

__all__ = ["Binding", "Request", "bind"]


@dataclass(frozen=True, slots=True, init=False)
class Request:
    """One call site's specialisation, before validation.

    Parameters
    ----------
    primitive:
        Registry name, e.g. ``"block_reduce"``.
    method:
        Method name, Python (``"sum"``) or CUB (``"Sum"``) spelling.
    overload:
        Overload name (see the spec; ``Method.match`` finds it from the call's arguments).
    **params:
        Template arguments (``dtype``, ``items_per_thread``, ``algorithm``...) and operators or
        callbacks by parameter name (``reduction_op="+"``, ``block_prefix_callback_op=UserCallback(...)``).
    """

    primitive: str
    method: str
    overload: str
    params: tuple[tuple[str, Any], ...]

    def __init__(self, primitive: str, method: str, overload: str, **params: Any) -> None:
        object.__setattr__(self, "primitive", primitive)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "overload", overload)
        object.__setattr__(self, "params", tuple(sorted(params.items())))

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params)
        return f"Request({self.primitive!r}, {self.method!r}, {self.overload!r}{args})"


def at(where: str, text: str) -> SpecError:
    """A SpecError saying ``text`` of ``where`` (``"block_reduce.sum"``); its ``detail`` is ``text`` alone."""
    return SpecError(f"{where}: {text}", detail=text)


def _coerce_tparam(where: str, tp: TemplateParam, value: object) -> Any:
    if tp.kind is TParamKind.TYPE:
        try:
            vt = value_type(value)
        except ValueError as exc:
            raise at(where, f"{tp.name}: {exc}") from None
        if tp.kinds and vt.kind not in tp.kinds:
            raise at(where, f"{tp.name} must be of kind {' or '.join(tp.kinds)}, got {vt.name}")
        return vt
    if tp.kind is TParamKind.ENUM:
        assert tp.enum is not None  # checked by TemplateParam
        try:
            return tp.enum.coerce(value)
        except SpecError as exc:
            also = f" (or {AUTO!r}, cuda-coop's measured choice)" if tp.auto is not None else ""
            raise at(where, f"{tp.name}={value!r}: {exc}{also}") from None
    if tp.kind is TParamKind.BOOL:
        if type(value).__name__ not in ("bool", "bool_"):  # Python's or NumPy's (np.True_), without importing it
            raise at(where, f"{tp.name} must be True or False, got {value!r}")
        return bool(value)
    if isinstance(value, bool) or type(value).__name__ == "bool_" or not isinstance(value, numbers.Integral):
        raise at(
            where, f"{tp.name} must be a compile-time integer, got {value!r}; "
            "extents are never truncated or inferred from runtime values"
        )
    low, high = tp.bounds
    if not low <= int(value) <= high:
        raise at(where, f"{tp.name}={int(value)} is out of range; it must be between {low} and {high}")
    return int(value)


def _coerce_operator(where: str, binding_types: Binding, param: Param, value: object) -> Any:
    if param.kind is ArgKind.CALLBACK:
        if not isinstance(value, UserCallback):
            raise at(
                where, f"{param.name} must be a UserCallback (a user function the DSL compiles), got {value!r}"
            )
        return value
    op = coerce_operator(value)
    if op is None:
        raise at(
            where, f"{param.name}={value!r} is not an operator; pass a known operator "
            f"({', '.join(repr(o.aliases[0]) for o in KnownOp)}) or a UserOp naming a compiled device function"
        )
    if isinstance(op, KnownOp):
        if op.is_comparison != (param.returns == "bool"):
            wanted = "a comparison" if param.returns == "bool" else "a binary operator returning a value"
            raise at(where, f"{param.name}={op.aliases[0]!r} is not {wanted}; {param.doc}")
        if param.order == "strict_weak" and op not in STRICT_WEAK_ORDERS:
            raise at(
                where, f"{param.name}={op.aliases[0]!r} is not a strict weak order: it is true for two equal keys, "
                "so equal keys would not keep their order. Pass '<' (ascending), '>' (descending), or a function "
                "that is false for equal keys"
            )
        if param.associative and not op.associative:
            raise at(
                where, f"{param.name}={op.aliases[0]!r} is not associative: (a {op.aliases[0]} b) {op.aliases[0]} c "
                f"differs from a {op.aliases[0]} (b {op.aliases[0]} c), and the threads combine their items in an "
                "order CUB chooses, so the result would depend on it. Pass an associative operator ('+', '*', 'min', "
                "'max', '&', '|', '^') or a function that is one (e.g. negate the items first and sum them)"
            )
        if param.commutative and not op.commutative:
            raise at(
                where, f"{param.name}={op.aliases[0]!r} is not commutative: a {op.aliases[0]} b differs from "
                f"b {op.aliases[0]} a, and the lanes combine their values in an order that differs from lane to lane. "
                "Pass a commutative operator ('+', '*', 'min', 'max', '&', '|', '^') or a function that is one"
            )
        for ref in param.args:
            vt = binding_types.type_of(ref)
            if not op.supports(vt):
                raise at(
                    where, f"{param.name}={op.aliases[0]!r} is not defined for {vt.name}; "
                    "pass a user operator (a device function) instead"
                )
    return op


def _check_names(
    where: str,
    overload: Overload,
    given: dict[str, Any],
    tparams: dict[str, TemplateParam],
    operators: dict[str, Param],
) -> None:
    for name in given:
        tp = tparams.get(name)
        if tp is not None and tp.inferred:
            raise at(where, f"{name} comes from the launch configuration and cannot be given")
        if tp is None and name not in operators:
            allowed = sorted([n for n, t in tparams.items() if not t.inferred] + list(operators))
            raise SpecError(
                f"{where} ({overload.name}) has no parameter {name!r}; it takes "
                f"{', '.join(allowed)}{suggest(name, allowed)}"
            )


def _omitted_scalars(where: str, overload: Overload, given: dict[str, Any]) -> dict[str, Any]:
    """Remove and return the scalars a call omits (``DEFAULT``): the wrapper passes their default."""
    omitted = {}
    for p in overload.all_params:
        if p.default is not None and p.name in given:
            if given[p.name] is not DEFAULT:
                raise at(where, f"{p.name} is a runtime argument; a request may only give it as DEFAULT")
            omitted[p.name] = given.pop(p.name)
    return omitted


def _is_auto(tp: TemplateParam, given: dict[str, Any]) -> bool:
    """Whether ``tp`` is to be chosen by ``_auto``: given as ``"auto"`` or omitted, where auto applies."""
    if tp.auto is None:
        return False
    value = given.get(tp.name, AUTO)
    return isinstance(value, str) and value.strip().lower() == AUTO


def _resolve_autos(binding: Binding, autos: list[TemplateParam]) -> Binding:
    """``binding`` with each of ``autos`` (bound to a stand-in) resolved by ``_auto``, in order."""
    values: dict[str, Any] = dict(binding.values)
    chosen: dict[str, str] = {}
    for tp in autos:
        values[tp.name], chosen[tp.name] = resolve(replace(binding, values=values, auto=chosen), tp)
    return replace(binding, values=values, auto=chosen)


def bind(request: Request, block_dim: tuple[int, ...], *, arch: str | None = None, public: str = "") -> Binding:
    """Validate ``request`` against its spec for a launch with ``block_dim`` threads per block.

    ``arch`` (``"sm_90"``) is the target that ``algorithm="auto"`` choices are made for (see ``_auto``);
    without it they are made for the highest architecture the table measured. ``public``: the function the
    call is of (``"coop.block.sum"``), for messages (``Binding.public``).

    Raises
    ------
    SpecError
        Unknown primitive, method, overload or parameter (with suggestions), a missing or invalid
        value, or a configuration CUB would reject or silently change (the spec's constraints).
    """
    dims = tuple(block_dim) + (1,) * (3 - len(block_dim))
    if len(dims) != 3 or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dims):
        raise SpecError(f"block_dim must be 1 to 3 positive integers, got {block_dim!r}")
    if dims[0] * dims[1] * dims[2] > 1024:
        raise SpecError(f"block_dim {dims} has {dims[0] * dims[1] * dims[2]} threads; CUDA allows at most 1024")
    spec = get_primitive(request.primitive)
    method = spec.method(request.method)
    overload = method.overload(request.overload)
    where = f"{spec.name}.{method.name}"
    tparams = {tp.name: tp for tp in (*spec.tparams, *overload.tparams)}
    operators = {p.name: p for p in overload.all_params if p.kind in (ArgKind.OPERATOR, ArgKind.CALLBACK)}
    given = dict(request.params)
    defaulted = _omitted_scalars(where, overload, given)
    _check_names(where, overload, given, tparams, operators)

    values: dict[str, Any] = {}
    autos = [tp for tp in tparams.values() if _is_auto(tp, given)]
    for tp in tparams.values():
        if tp in autos:
            values[tp.name] = tp.default  # a stand-in while the other parameters are bound
        elif tp.inferred:
            values[tp.name] = dims[("block_dim_x", "block_dim_y", "block_dim_z").index(tp.inferred)]
        elif tp.name in given:
            values[tp.name] = _coerce_tparam(where, tp, given[tp.name])
        elif tp.optional:
            values[tp.name] = _coerce_tparam(where, tp, tp.default)
        else:
            raise at(where, f"missing template parameter {tp.name} ({tp.cpp}): {tp.doc}")
    values.update(defaulted)
    partial = Binding(spec=spec, method=method, overload=overload, block_dim=dims, values=values, public=public)
    for name, param in operators.items():
        if name not in given:
            raise SpecError(f"{where} ({overload.name}): missing {param.kind.value} {name}")
        values[name] = _coerce_operator(where, partial, param, given[name])
    binding = _resolve_autos(
        Binding(spec=spec, method=method, overload=overload, block_dim=dims, values=values, arch=arch, public=public),
        autos,
    )
    for constraint in spec.constraints:
        if not constraint.check(binding):
            raise at(where, constraint.message.format(**binding.describe()))
    return binding
