"""Typing of the rewritten calls, ``coop_call(<site id>, *runtime arguments)``, for either DSL.

Typing turns a call site (``_sites.CallSite``) and the numba types of its runtime arguments into a
specialisation request (``_specs.Request``) and the call's result type. It dispatches on each
argument's spec kind (``ArgKind``), never on a parameter's name: what the spec says a parameter is
decides what the caller may pass. The numba types are the DSL's own (``CallSite.frontend``). Each DSL's
lowering then calls the wrappers (``_call``).

Values of pointer-ABI types (``_specs._types``: float16, bfloat16, complex64, complex128) cross the
wrapper's C ABI as ``const T*`` to a stack slot the kernel fills (a scalar ``x``, ``initial_value``), and
a result comes back through a trailing ``T* result`` slot (each DSL's ``lower_extern_call``). A by-value
ABI would have to reproduce NVVM's lowering of ``__half``/``__nv_bfloat16``/``complex`` structs in
each DSL's lowering, and a mismatch there would be a silent miscompile at the LTO link; the slots
cost nothing after LTO inlining (SROA turns them into registers: no local memory in any compiled
kernel, and a float16/bfloat16 sum has the instruction classes of its nvcc twin; see
tests/compile/test_dtypes_compile.py). User operators on these types go through a shim with the same
ABI (``_pointer_abi``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._specs import (
    DEFAULT,
    ArgKind,
    KnownOp,
    Param,
    Request,
    TParamKind,
    UserCallback,
    UserOp,
    bind,
    coerce_operator,
    value_type,
)
from .._specs._support import RECORD_PRIMITIVES
from .._specs._types import DSL_DTYPES, ValueType
from ..errors import SpecError
from ._contracts import check_call
from ._pointer_abi import user_function_c_abi
from ._sites import CallSite
from ._user_types import UserTypes

SUPPORTED = DSL_DTYPES
"""Item dtypes (``dtype``) the DSL passes to CUB (as far as each primitive's spec allows them)."""
ELEMENT_TYPES = (*SUPPORTED, "bool")
"""Types any other typed argument may have (flags, ranks, counters, counts), as the spec allows."""

__all__ = ["ELEMENT_TYPES", "SUPPORTED", "TypedCall", "numba_type", "slot_type", "type_call"]


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


def _dtype_name(users: UserTypes, ty: Any) -> str | None:
    name = users.type_name(ty)
    return name if name in SUPPORTED else None


def _user_check(cs: CallSite, name: str, ty: Any) -> ValueType:
    """The user value type of ``name``='s record or tuple, refused (naming dtype and primitive) where
    ``coop.<primitive>`` does not take one."""
    users = cs.frontend.users
    vt, why = users.value_type(ty)
    public = f"coop.{cs.primitive.name}"
    if vt is None:
        raise cs.error(f"{name}= is {users.describe(ty)}, which {public} cannot take: {why}")
    if cs.primitive.name not in RECORD_PRIMITIVES:
        sums = {"block.sum": "block.reduce", "warp.sum": "warp.reduce"}
        for kind in ("exclusive", "inclusive"):
            for scope in ("block", "warp"):
                sums[f"{scope}.{kind}_sum"] = f"{scope}.{kind}_scan"
        if cs.primitive.name in sums:
            raise cs.error(
                f"{name}= is {users.describe(ty)}: {public} adds with '+', which records and tuples do not have; call "
                f"coop.{sums[cs.primitive.name]}({name}, op) with a Python op that combines two of them"
            )
        raise cs.error(
            f"{name}= is {users.describe(ty)}: {public} does not take records or tuples (they are taken, one value "
            f"per thread with a Python op, by {', '.join('coop.' + p for p in RECORD_PRIMITIVES)})"
        )
    return vt


def _converts(users: UserTypes, given: Any, target: Any) -> bool:
    """A tuple ``given`` whose members are ``target``'s (a tuple) or constants that convert to them exactly."""
    types = users.types
    if not isinstance(given, types.BaseTuple) or not isinstance(target, types.BaseTuple) or len(given) != len(target):
        return False
    for g, t in zip(given, target, strict=True):
        if types.unliteral(g) == t:
            continue
        if not isinstance(g, types.Literal) or users.member_name(g) is None:
            return False
        if not _lossless(g.literal_value, users.type_name(t)):
            return False
    return True


def _data_type(cs: CallSite, given: dict[str, Any]) -> str | ValueType:
    users = cs.frontend.users
    types = users.types
    data_ty = given.get(cs.primitive.data)
    if isinstance(data_ty, types.Array) and isinstance(data_ty.dtype, types.Record):
        why = (
            f"{cs.primitive.data}= is an array of {users.describe(data_ty.dtype)}: per-thread items are a "
            f"cuda.local.array, and {cs.frontend.display} cannot make a cuda.local.array of a record dtype"
            if not cs.frontend.record_local_arrays
            else f"{cs.primitive.data}= is an array of {users.describe(data_ty.dtype)}: records are taken one per "
            "thread, not in a cuda.local.array"
        )
        if cs.primitive.name not in RECORD_PRIMITIVES:
            raise cs.error(
                f"{why}, and coop.{cs.primitive.name} takes no records or tuples (one record or tuple per thread is "
                f"taken by {', '.join('coop.' + p for p in RECORD_PRIMITIVES)})"
            )
        raise cs.error(f"{why}; pass one record per thread (coop.{cs.primitive.name}(x[i], op)) or a tuple of its "
                       "fields")
    if data_ty is not None and isinstance(types.unliteral(data_ty), types.Record | types.BaseTuple):
        return _user_check(cs, cs.primitive.data, data_ty)
    dtype = _dtype_name(users, data_ty) if data_ty is not None else None
    if dtype is None:
        raise cs.error(
            f"{cs.primitive.data}= has type {data_ty}; expected a value or an array of one of {', '.join(SUPPORTED)}"
            f" (or, for {', '.join('coop.' + p for p in RECORD_PRIMITIVES)}, one record or tuple per thread)"
        )
    return dtype


# --- one runtime argument, by its spec kind ------------------------------------------------------------


def _check_array(cs: CallSite, name: str, ty: Any, dtype: str, what: str, *, binder: str = "") -> None:
    users = cs.frontend.users
    if not isinstance(ty, users.types.Array):
        raise cs.error(f"{name}= must be {what}; got the scalar {ty}")
    if users.type_name(ty) != dtype:
        why = f" (as {binder}= does)" if binder and binder != name else ""
        raise cs.error(f"{name}= holds {users.type_name(ty)} but must hold {dtype}{why}")
    if ty.ndim != 1 or ty.layout != "C":
        raise cs.error(
            f"{name}= must be a 1-D C-contiguous array, got {ty}: strided or reversed views (x[::2], x[::-1]) "
            "and non-contiguous arguments lose their strides; pass a contiguous array (or copy the data into one)"
        )


def _check_per_thread(
    cs: CallSite, name: str, ty: Any, dtype: str, needed: int | None, *, extent: str = "", binder: str = ""
) -> int:
    """A thread-local array of at least ``needed`` items; returns its extent."""
    _check_array(cs, name, ty, dtype, f"a cuda.local.array of {dtype}", binder=binder)
    origin = cs.origins.get(name)
    if origin is None or not origin.local_array:
        what = origin.what if origin is not None else "not a cuda.local.array defined in this kernel"
        raise cs.error(
            f"{name}= must be this thread's own cuda.local.array(N, np.{dtype}) defined in the kernel; got {what}. "
            "Per-thread items never live in global or shared memory: load them with coop.block.load into a "
            "cuda.local.array"
        )
    assert origin.extent is not None  # local_array
    if extent and needed is not None and origin.extent != needed:
        raise cs.error(f"{name}= has {origin.extent} items but {extent}={needed}; they must match")
    if needed is not None and origin.extent < needed:
        raise cs.error(f"{name}= has {origin.extent} items but it needs at least {needed}")
    return origin.extent


_BFLOAT16_MAX = float.fromhex("0x1.fep127")
_BFLOAT16_SIGNIFICAND_BITS = 8


def _lossless_bfloat16(value: Any) -> bool:
    """bfloat16 (no NumPy dtype): integers with at most 8 significant bits, floats that do not overflow."""
    if isinstance(value, int | np.integer):
        v = abs(int(value))
        while v and not v & 1:
            v >>= 1
        return v.bit_length() <= _BFLOAT16_SIGNIFICAND_BITS and abs(int(value)) <= _BFLOAT16_MAX
    if isinstance(value, float | np.floating):
        return abs(float(value)) <= _BFLOAT16_MAX or not np.isfinite(value)
    return False


def _lossless(value: Any, dtype: str) -> bool:
    """Whether the constant ``value`` converts to ``dtype`` without loss: an integer type takes integers in
    its range, a floating type integers it represents exactly and floats that do not overflow (rounding a
    float constant to float32 is ordinary float semantics); a complex type takes real and complex values
    whose parts its floating type takes."""
    if isinstance(value, bool | np.bool_):
        return True
    if dtype == "bfloat16":
        return _lossless_bfloat16(value)
    dt = np.dtype(dtype)
    if dt.kind == "c":
        part = np.dtype(f"float{dt.itemsize * 4}").name
        if isinstance(value, complex | np.complexfloating):
            return _lossless(float(value.real), part) and _lossless(float(value.imag), part)
        return _lossless(value, part)
    if dt.kind in "iu":
        return isinstance(value, int | np.integer) and int(np.iinfo(dt).min) <= int(value) <= int(np.iinfo(dt).max)
    return _lossless_float(value, dt)


def _lossless_float(value: Any, dt: np.dtype[Any]) -> bool:
    with np.errstate(all="ignore"):
        if isinstance(value, int | np.integer):
            return float(dt.type(value)) == value  # Python compares a float and an int exactly
        if isinstance(value, float | np.floating):
            return bool(np.isfinite(dt.type(value))) or not np.isfinite(value)  # rounding, never overflow
    return False


def _check_scalar(cs: CallSite, name: str, ty: Any, target: Any) -> None:
    """A scalar that converts to the numba type ``target`` without loss (constants by value, else by type)."""
    users = cs.frontend.users
    types, _type_name = users.types, users.type_name
    if isinstance(ty, types.Array):
        raise cs.error(f"{name}= must be a single {target} value; got the array {ty}")
    if not isinstance(ty, types.Number | types.Boolean):
        raise cs.error(f"{name}= must be a number convertible to {target}; got {ty}")
    if name in cs.constants:
        if not _lossless(cs.constants[name], _type_name(target)):
            raise cs.error(
                f"{name}={cs.constants[name]!r} does not convert to {target} exactly; pass a value of {target}"
            )
        return
    base = types.unliteral(ty)
    if base == target or isinstance(base, types.Boolean) or _safe_cast(_type_name(base), _type_name(target)):
        return
    fix = f"np.{target}(value)" if _type_name(target) != "bfloat16" else "float32_to_bfloat16(value)"
    raise cs.error(
        f"{name}= is {_type_name(base)}, which does not convert to {_type_name(target)} without loss; convert it "
        f"explicitly, e.g. {fix}"
    )


def _safe_cast(source: str, target: str) -> bool:
    """NumPy's safe casting, with bfloat16 (8-bit integers widen to it; it widens to float32 and wider)."""
    if source == target:
        return True
    if target == "bfloat16":
        return source in ("int8", "uint8")
    if source == "bfloat16":
        return target in ("float32", "float64", "complex64", "complex128")
    return bool(np.can_cast(np.dtype(source), np.dtype(target), casting="safe"))


def _check_bounds(cs: CallSite, name: str, p: Param, params: dict[str, Any]) -> None:
    """A compile-time constant within the spec's ``bounds`` for the types bound so far (``Param.refusal``)."""
    if (p.bounds is None and p.at_least is None) or name not in cs.constants:
        return
    value = cs.constants[name]
    if (refused := p.refusal(value, lambda ref: 8 * value_type(str(params.get(ref, ref))).size)) is not None:
        raise cs.error(refused)
    other = cs.primitive.param(p.at_least) if p.at_least else None
    if other is None:
        return
    floor = cs.constants.get(other.name) if other.name in cs.runtime else other.public_default
    if floor is not None and value < floor:
        given = "" if other.name in cs.runtime else " (its default)"
        raise cs.error(f"{name}={value!r} is below {other.name}={floor!r}{given}; it must be at least {other.name}")


def _check_count(cs: CallSite, name: str, ty: Any) -> None:
    """An integer count of any width (its type binds the count's type parameter)."""
    types = cs.frontend.types
    base = types.unliteral(ty)
    if isinstance(ty, types.Array) or not isinstance(base, types.Integer):
        raise cs.error(f"{name}= must be an integer; got {ty}")


_KIND_WORDS = {
    "int": "signed integer",
    "uint": "unsigned integer",
    "float": "floating-point",
    "complex": "complex",
    "bool": "bool",
}


def _kind(users: UserTypes, name: str) -> str:
    """The value-type kind of a dtype name (``"int"``, ``"uint"``, ``"float"``, ``"bool"``, ``"user"``)."""
    return "user" if name in users else value_type(name).kind


def numba_type(users: UserTypes, name: str) -> Any:
    """The numba type of a dtype name (``"bool"`` and ``"bfloat16"`` included; a user type's record or tuple)."""
    if name in users:
        return users.numba_type(name)
    types = users.types
    return types.boolean if name == "bool" else getattr(types, name)


def slot_type(users: UserTypes, name: str) -> Any:
    """The numba type of a pointer-ABI value's stack slot: a user type's C layout (a Record), else its type."""
    return users.layout(name) if name in users else numba_type(users, name)


def _ref_type(users: UserTypes, ref: str, params: dict[str, Any]) -> Any:
    """The numba type of a spec type reference (``"dtype"``, ``"bool"``, a bound TYPE parameter)."""
    return numba_type(users, str(params.get(ref, ref)))


@dataclass
class _Typing:
    """The request being built for one call site."""

    cs: CallSite
    argtys: tuple[Any, ...]
    dtype: str
    params: dict[str, Any]
    present: dict[str, bool]
    sources: dict[str, int]
    user_ops: list[tuple[str, Any, Any]]
    type_params: dict[str, Any] = field(default_factory=dict)
    """The spec's TYPE template parameters by name: each is bound from the first argument referencing it."""
    binders: dict[str, str] = field(default_factory=dict)
    """TYPE parameter -> the argument that bound it (named in errors)."""
    extents: dict[str, int] = field(default_factory=dict)
    """Per-thread array extents by the template parameter each binds (``items_per_thread``; BlockRunLengthDecode
    has two: ``runs_per_thread`` and ``decoded_items_per_thread``)."""

    @property
    def users(self) -> UserTypes:
        return self.cs.frontend.users

    def check_kind(self, name: str, ref: str, given: str) -> None:
        """``given`` is a type the TYPE parameter ``ref`` allows (its ``kinds``)."""
        kinds = self.type_params[ref].kinds
        if given in self.users and not kinds:  # records and tuples: _user_check has allowed the primitive
            return
        if given not in ELEMENT_TYPES or (kinds and _kind(self.users, given) not in kinds):
            allowed = " or ".join(_KIND_WORDS.get(k, k) for k in kinds) if kinds else ", ".join(ELEMENT_TYPES)
            raise self.cs.error(f"{name}= holds {given}; it must hold {allowed} values")

    def element_type(self, name: str, p: Param, ty: Any) -> str:
        """The dtype ``name``'s values must have: its spec type, binding a TYPE parameter on first use."""
        ref = p.type or "dtype"
        if ref in self.type_params and ref not in self.params:
            given = self.users.type_name(ty)
            self.check_kind(name, ref, given)
            self.params[ref] = given
            self.binders[ref] = name
        return str(self.params.get(ref, ref))

    def runtime(self, index: int, name: str, p: Param) -> None:
        cs, ty, types = self.cs, self.argtys[index], self.users.types
        self.sources[name] = index
        if isinstance(ty, types.Array):
            p = cs.primitive.param(name, array=True) or p
        explicit = cs.static.get(p.extent) if p.extent else None
        want = self.element_type(name, p, ty) if p.type else self.dtype
        binder = self.binders.get(p.type or "dtype", cs.primitive.data)
        if p.kind is ArgKind.POINTER:
            _check_array(cs, name, ty, want, f"a 1-D C-contiguous array of {want}", binder=binder)
            self.present[name] = False
        elif p.kind is ArgKind.AGGREGATE:
            _check_per_thread(cs, name, ty, want, 1, binder=binder)
            self.present[name] = False
        elif p.kind is ArgKind.OUTPUT or (p.kind is ArgKind.ARRAY) or (
            p.kind is ArgKind.SCALAR and isinstance(ty, types.Array) and name in cs.primitive.per_thread
        ):
            if p.kind is ArgKind.OUTPUT and not isinstance(ty, types.Array):
                raise cs.error(f"{name}= must be a cuda.local.array of {want}; got the scalar {ty}")
            if isinstance(ty, types.Array):
                n = _check_per_thread(cs, name, ty, want, explicit, extent=p.extent or "", binder=binder)
                n = explicit if explicit is not None else n
                key = p.extent or ""
                seen = self.extents.get(key)
                if seen is not None and n != seen:
                    raise cs.error(f"{name}= has {n} items but another per-thread array of {key} has {seen}")
                self.extents[key] = n
            if p.kind is not ArgKind.OUTPUT:
                self.present[name] = isinstance(ty, types.Array)
        elif p.count_limit is not None:
            _check_count(cs, name, ty)
            self.present[name] = False
        else:  # SCALAR of the data type (or another type the spec names)
            if isinstance(ty, types.Array):
                raise cs.error(f"{name}= must be a single {want} value (no form takes an array here); got {ty}")
            if name != cs.primitive.data:
                _check_scalar(cs, name, ty, numba_type(self.users, want))
                _check_bounds(cs, name, p, self.params)
            self.present[name] = False

    def user_argument(self, index: int, name: str, p: Param) -> None:
        """An argument of the record or tuple type the data argument binds (``initial_value``)."""
        cs, data, ty, want = self.cs, self.cs.primitive.data, self.argtys[index], self.dtype
        users = self.users
        self.sources[name] = index
        if isinstance(ty, users.types.Array):
            fe = cs.frontend
            why = (f"{fe.display} cannot make a cuda.local.array of records" if not fe.record_local_arrays
                   else "records are taken one per thread, not in a cuda.local.array")
            raise self.cs.error(
                f"{name}= is an array, but {data}= is {users.describe(numba_type(users, want))}: {why}, so "
                f"coop.{cs.primitive.name} takes records and tuples without {name}="
            )
        if p.kind is not ArgKind.SCALAR or p.count_limit is not None:
            raise cs.error(f"{name}= cannot be given with a record or tuple {data}=")
        given, _ = users.value_type(ty)
        if (given is None or given.name != want) and not _converts(users, ty, numba_type(users, want)):
            raise cs.error(
                f"{name}= is {users.describe(ty)} but must be {users.describe(numba_type(users, want))}, the type of "
                f"{data}=; build it with "
                "the same member types (e.g. (np.float64(v), np.int32(i)) for a tuple; constants convert when exact)"
            )
        self.present[name] = False

    def static(self, name: str, value: Any) -> None:
        cs, users = self.cs, self.users
        p = cs.primitive.param(name)
        if p is None:  # a template parameter (algorithm, threads...); an extent comes from the arrays
            if name not in cs.primitive.extents:
                self.params[name] = value
            return
        self.present[name] = False
        args = tuple(_ref_type(users, ref, self.params) for ref in p.args)
        returns = _ref_type(users, p.returns or "dtype", self.params)
        if p.kind is ArgKind.OPERATOR:
            op = coerce_operator(value)
            if isinstance(op, KnownOp) and self.dtype in users:
                raise cs.error(
                    f"{name}={op.aliases[0]!r} is not defined for {users.describe(numba_type(users, self.dtype))}: "
                    f"coop.{cs.primitive.name} of records and tuples needs a Python {name}= that combines two of them "
                    "(e.g. def op(a, b): return a if a[0] >= b[0] else b)"
                )
            if isinstance(op, KnownOp) and op.domain == "ordered":
                _check_ordered(cs, name, op, (*args, returns))
            if op is None:
                user = user_function_c_abi(cs, name, value, returns, args)
                self.user_ops.append(user)
                op = UserOp(user[0])
            self.params[name] = op
            return
        assert p.kind is ArgKind.CALLBACK and p.state is not None
        index = cs.runtime.index(p.state) if p.state in cs.runtime else None
        state = self.argtys[index] if index is not None else None
        if not isinstance(state, users.types.Array):
            raise cs.error(f"{name}= needs {p.state}=, an array its first argument points to (got {state})")
        self.sources[name] = index  # type: ignore[assignment]
        user = user_function_c_abi(cs, name, value, returns, args, state=users.types.CPointer(state.dtype))
        self.user_ops.append(user)
        self.params[name] = UserCallback(user[0])


def _check_ordered(cs: CallSite, name: str, op: KnownOp, tys: tuple[Any, ...]) -> None:
    """min/max/</> need ordered values: complex numbers have none (refused in public words)."""
    for ty in tys:
        item = cs.frontend.users.type_name(ty)
        if item in ("complex64", "complex128"):
            raise cs.error(
                f"{name}={op.aliases[0]!r} needs ordered values, but the items are {item}: complex numbers "
                f"have no order, so coop.{cs.primitive.name} cannot take their {op.aliases[0]}; pass a user operator "
                "that defines the order you mean (e.g. one comparing abs(a) and abs(b))"
            )


def _type_arguments(t: _Typing) -> None:
    """Check every runtime and compile-time argument by its spec kind, building the request's values."""
    cs, prim, types = t.cs, t.cs.primitive, t.users.types
    offsets = {offset for offset, _ in prim.offsets}
    states = dict(prim.states)
    for index, name in enumerate(cs.runtime):
        p = prim.param(name)
        if name in offsets:
            if not isinstance(types.unliteral(t.argtys[index]), types.Integer):
                raise cs.error(f"{name}= must be an integer index; got {t.argtys[index]}")
        elif name in states:
            if cs.static.get(states[name]) is None:
                raise cs.error(f"{name}= is only used with {states[name]}=")
        elif p is not None:  # a record or tuple's initial_value is checked as one of its type
            user = t.dtype in t.users and name != prim.data and (p.type or "dtype") == "dtype"
            (t.user_argument if user else t.runtime)(index, name, p)
    for name, value in cs.static.items():
        if value is not None:
            t.static(name, value)
    for out, source in prim.in_place:
        if out not in cs.runtime and source in t.sources:
            t.sources[out] = t.sources[source]
    for p in (p for ov in prim.method.overloads for p in ov.all_params):
        if p.default is not None and p.name not in cs.runtime:  # omitted: the wrapper passes the default
            t.present[p.name] = False
            t.params[p.name] = DEFAULT


def type_call(cs: CallSite, argtys: tuple[Any, ...]) -> TypedCall:
    """Validate a call site's argument types and build its specialisation request."""
    prim = cs.primitive
    data_type = _data_type(cs, dict(zip(cs.runtime, argtys, strict=True)))
    dtype = str(data_type)
    type_params = {
        tp.name: tp
        for tp in (*prim.spec.tparams, *(t for ov in prim.method.overloads for t in ov.tparams))
        if tp.kind is TParamKind.TYPE
    }
    t = _Typing(cs, argtys, dtype, {"dtype": data_type}, {}, {}, [], type_params)
    if "dtype" in type_params:
        t.check_kind(prim.data, "dtype", dtype)
    _type_arguments(t)
    t.params.update({k: n for k, n in t.extents.items() if k})
    for extent in prim.extents:
        if extent not in t.extents and cs.static.get(extent) is not None:
            raise cs.error(f"{extent}= is given but {prim.data}= is a scalar; pass a cuda.local.array")
    try:
        overload = prim.method.match(t.present, order=tuple(prim.signature.parameters))
    except SpecError as exc:  # lists the forms, arrays marked []
        raise cs.error(f"{exc.detail}; see help(coop.{prim.name})") from None
    for p in overload.params:  # a scalar output is the call's result, never an argument
        if p.kind is ArgKind.OUTPUT and p.extent is None and p.name in cs.runtime:
            raise cs.error(f"{p.name}= is for the array form only: with a scalar {prim.data} the result is returned")
    bound_names = {tp.name for tp in (*prim.spec.tparams, *overload.tparams)}
    params = {k: v for k, v in t.params.items() if k in bound_names or prim.param(k) is not None}
    request = Request(prim.spec.name, prim.method.name, overload.name, **params)
    check_call(cs, bind(request, cs.block, public=f"coop.{prim.name}"))  # validate now: errors name the call site
    returns = _returns(t.users, prim.method, overload, t.params)
    return TypedCall(request=request, returns=returns, sources=t.sources, user_ops=tuple(t.user_ops), argtys=argtys)


def _returns(users: UserTypes, method: Any, overload: Any, params: dict[str, Any]) -> Any:
    """The call's numba result type: the method's result, else its one scalar output, else none."""
    result = method.returns or overload.returns
    if result is not None:
        return _ref_type(users, result, params)
    scalars = [p for p in overload.params if p.kind is ArgKind.OUTPUT and p.extent is None]
    outs = [_ref_type(users, p.type or "dtype", params) for p in scalars]
    types = users.types
    return outs[0] if len(outs) == 1 else types.Tuple(outs) if outs else types.none
