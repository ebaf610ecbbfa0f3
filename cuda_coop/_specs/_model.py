"""The declarative spec format for CUB collectives.

One frozen :class:`PrimitiveSpec` per CUB class, registered through
``_registry.register_primitive``. A spec says everything the renderer, the DSL typing layer and the
docs need: CUB class and header, template parameters (with ``optional``/``inferred`` tags), methods
and their overloads, the kind of every argument, the algorithm enum, the temporary-storage scope,
and the constraints under which CUB would reject or silently change a configuration.

Argument kinds (:class:`ArgKind`) and how each crosses the wrapper's C ABI:

========== ====================================== ============================================
kind       CUB parameter                          wrapper parameter
========== ====================================== ============================================
SCALAR     ``T x``, ``int valid_items``           ``T x`` (``const T* x`` for pointer-ABI types)
ARRAY      ``T (&items)[N]`` (read, or in-place)  ``T* items``: a thread-local array of N items;
                                                  CUB gets a copy unless ``inout``
POINTER    an iterator into global/shared memory  ``T* p`` / ``const T* p``
OPERATOR   a functor (``ReductionOp``...)         none: a known functor or a user function
OUTPUT     ``T& out`` / ``T (&out)[N]``           returned (see below), else ``T* out``
AGGREGATE  ``T& block_aggregate``                 ``T* block_aggregate``
CALLBACK   a stateful functor (prefix callback)   ``void* state``, handed to the user function
========== ====================================== ============================================

A CUB method that returns ``void`` and has exactly one scalar OUTPUT of a value-ABI type returns it
from the wrapper; a method that returns ``T`` returns it (through a trailing ``T* result`` for
pointer-ABI types). Everything else is an out-pointer.
"""

from __future__ import annotations

import difflib
import enum
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import SpecError
from . import _extent
from ._operators import KnownOp, UserCallback, UserOp
from ._pad import Pad
from ._types import BUILTIN_TYPES, ValueType

__all__ = [
    "AUTO",
    "DEFAULT",
    "INT_MAX",
    "MAX_BLOCK_THREADS",
    "MAX_ITEMS_PER_THREAD",
    "ArgKind",
    "Auto",
    "Binding",
    "Constraint",
    "CubEnum",
    "Direction",
    "Method",
    "Overload",
    "Pad",
    "Param",
    "PrimitiveSpec",
    "Scope",
    "Space",
    "TParamKind",
    "TemplateParam",
]

_SNAKE = re.compile(r"[a-z][a-z0-9_]*\Z")
_BITS = re.compile(r"bits\(([a-z][a-z0-9_]*)\)")
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class _Default:
    """The value of an omitted SCALAR that has a ``Param.default``: the wrapper passes the default itself."""

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()
"""Request value of an omitted defaulted scalar (``end_bit=DEFAULT``): rendered as a C++ constant."""

AUTO = "auto"
"""The value of an ENUM parameter with ``TemplateParam.auto`` that asks cuda-coop to choose (``algorithm="auto"``,
the public default): ``bind`` resolves it to a member (see ``_auto``), never renders it."""


def suggest(name: str, allowed: list[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``allowed``, or an empty string."""
    close = difflib.get_close_matches(name, allowed, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


class CubEnum(enum.Enum):
    """Base of the algorithm enums: members carry CUB's enumerator names and their docs.

    ``str(member)`` is the C++ spelling (``cub::BLOCK_REDUCE_RAKING``). Each member's docstring has
    an "Overview" and a "Performance considerations" section.
    """

    def __new__(cls, overview: str, performance: str) -> CubEnum:
        obj = object.__new__(cls)
        obj._value_ = len(cls.__members__) + 1
        obj.__doc__ = (
            f"Overview\n--------\n{overview}\n\nPerformance considerations\n--------------------------\n{performance}"
        )
        return obj

    def __str__(self) -> str:
        return f"{self._cpp_scope()}{self.name}"

    @classmethod
    def _cpp_scope(cls) -> str:
        """Qualifier of the C++ enumerators; override for enums outside ``cub::``."""
        return "cub::"

    @property
    def generic_lambdas(self) -> bool:
        """Whether the CUB code this member selects has a generic lambda in device code
        (``PrimitiveSpec.generic_lambdas`` for one algorithm of a family); override where a member's does."""
        return False

    @property
    def short_name(self) -> str:
        """The Python-facing name: the member name without the family prefix, lower case."""
        prefix = _common_prefix([m.name for m in type(self)])
        return self.name[len(prefix) :].lower()

    @classmethod
    def coerce(cls, value: object) -> CubEnum:
        """A member from itself, its CUB name or its short name (``"raking"``); SpecError otherwise."""
        if isinstance(value, cls):
            return value
        hint = ""
        if isinstance(value, str):
            key = value.strip()
            for member in cls:
                if key in (member.name, str(member)) or key.lower() == member.short_name:
                    return member
            hint = suggest(key.lower(), [m.short_name for m in cls])
        allowed = ", ".join(repr(m.short_name) for m in cls)
        raise SpecError(f"{value!r} is not one of the algorithms {allowed}{hint}")


def _common_prefix(names: list[str]) -> str:
    if len(names) == 1:
        return names[0].rsplit("_", 1)[0] + "_" if "_" in names[0] else ""
    prefix = names[0]
    for name in names[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    return prefix[: prefix.rfind("_") + 1]


class Scope(enum.Enum):
    """Who cooperates, and so how temporary storage is laid out and synchronised."""

    BLOCK = "block"
    """The whole thread block; one TempStorage shared by the block; barrier ``__syncthreads()``."""
    WARP = "warp"
    """Each logical warp independently; one TempStorage per logical warp; barrier ``__syncwarp(mask)``."""


class TParamKind(enum.Enum):
    """What a template parameter is bound to."""

    TYPE = "type"
    INT = "int"
    BOOL = "bool"
    ENUM = "enum"


class ArgKind(enum.Enum):
    """How a method argument is passed (see the module docstring for the C ABI of each)."""

    SCALAR = "scalar"
    ARRAY = "array"
    POINTER = "pointer"
    OPERATOR = "operator"
    OUTPUT = "output"
    AGGREGATE = "aggregate"
    CALLBACK = "callback"


Inferred = Literal["block_dim_x", "block_dim_y", "block_dim_z"]
Direction = Literal["in", "out", "inout"]
"""What a call does with an argument's memory: reads it, writes it, or both (updates it in place)."""
Space = Literal["global", "shared", "local"]
"""Where an array lives: global memory (a kernel argument), the block's ``cuda.shared.array``, or this thread's
``cuda.local.array``."""
Order = Literal["strict_weak"]
"""What a comparison operator must be: a strict weak order (``<``, ``>``: never true for equal items)."""

INT_MAX = 2**31 - 1
"""The largest value of a C++ ``int``: the bound of every INT template parameter (CUB's are ``int``)."""
MAX_ITEMS_PER_THREAD = 2**19
"""The largest extent of a per-thread array (``items_per_thread`` and the like): CUDA gives a thread at most 512 KiB of
local memory, so no thread can hold more items of any type. It keeps a tile (up to 1024 threads of them) within
:data:`INT_MAX`, the ``int`` CUB counts tile positions in."""
MAX_BLOCK_THREADS = 1024
"""The most threads a CUDA block has: no logical warp or other group of threads is larger."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Auto:
    """What ``"auto"`` may choose for an ENUM parameter (``_auto.resolve`` reads the measured table).

    Auto never changes what the caller sees: the members it must not pick are listed here, and a member the
    spec's constraints refuse for the call is never picked.
    """

    table: str
    """The primitive's key in ``auto_table.json`` (usually the spec's name)."""
    never: tuple[CubEnum, ...] = ()
    """Members auto never picks: they change the result's arrangement (striped), are not deterministic, or cost what
    depends on a runtime value the table does not measure (top-k's ``"air"``, with k)."""
    commutative: tuple[CubEnum, ...] = ()
    """Members auto picks only when every operator of the call is known to be commutative for the item type
    (a method without an operator, a sum, counts as commutative; a user function never does)."""
    staged: tuple[CubEnum, ...] = ()
    """Members that stage the whole tile in shared memory: auto picks them only when the tile (with CUB's
    padding) takes at most half the 48 KiB of static shared memory a block may have (``_auto.MAX_STAGED_BYTES``),
    so a kernel that compiles with an explicit non-staging algorithm is not pushed past the limit by auto."""
    unstable: tuple[CubEnum, ...] = ()
    """Members that may give items the comparator does not order (equal keys, -0.0 and +0.0) another order than the
    default member does (an unstable sort): auto picks them only for a call :attr:`ties_unseen` accepts."""
    ties_unseen: Callable[[Binding], bool] | None = None
    """For :attr:`unstable`: whether a call cannot tell the unstable member's result from the default's (keys only,
    keys whose order ties only equal bits...); None: every call can."""

    def __post_init__(self) -> None:
        if bool(self.unstable) != (self.ties_unseen is not None):
            raise ValueError(f"auto table {self.table!r}: unstable= and ties_unseen= go together")


@dataclass(frozen=True, kw_only=True, slots=True)
class TemplateParam:
    """A template parameter of a CUB class, or of a method overload (e.g. an array extent)."""

    name: str
    """Python (snake_case) name, used as the keyword in requests: ``items_per_thread``."""
    cpp: str
    """CUB's name, for docs: ``ItemsPerThread``."""
    kind: TParamKind
    doc: str
    enum: type[CubEnum] | None = None
    """The enum of an ENUM parameter."""
    default: Any = None
    """Value used when an optional parameter is not given (a dtype name, int, bool or enum member)."""
    optional: bool = False
    """[optional]: has a default."""
    inferred: Inferred | None = None
    """[inferred]: bound by the provider from the launch (the block dimensions), never by a request."""
    kinds: tuple[str, ...] = ()
    """For TYPE parameters: the value-type kinds allowed (``("int", "uint")``); empty for any."""
    public: bool = True
    """Whether a kernel's call may give it; an optional parameter that is not public is always its default
    (``SMemConfig``: no effect on the architectures cuda-coop targets)."""
    auto: Auto | None = None
    """For an optional ENUM parameter: the value ``"auto"`` is accepted and is the public default; ``bind``
    resolves it from the measured table (``default`` stays CUB's default, the fallback)."""
    bounds: tuple[int, int] = (1, INT_MAX)
    """For an INT parameter: the closed range of its values. ``bind`` checks every value against it (a SpecError
    naming the parameter) before anything derived from the values is computed: auto choices, constraints, storage
    estimates, extents, the render. So those computations only ever see values in this range, and a spec declares
    a range in which they are all defined (``1 << radix_bits`` is not, for ``radix_bits`` up to INT_MAX):
    ``tests/unit/test_spec_bounds.py`` walks every registered spec with both ends and with values outside. CUB's
    template parameters are ``int``, so never above :data:`INT_MAX`; per-thread extents stop at
    :data:`MAX_ITEMS_PER_THREAD`."""

    def __post_init__(self) -> None:
        if not _SNAKE.match(self.name):
            raise ValueError(f"template parameter name {self.name!r} is not snake_case")
        if not 1 <= self.bounds[0] <= self.bounds[1] <= INT_MAX:
            raise ValueError(f"template parameter {self.name!r}: bounds {self.bounds} are not within [1, INT_MAX]")
        if self.kinds and self.kind is not TParamKind.TYPE:
            raise ValueError(f"template parameter {self.name!r}: kinds= is for TYPE parameters only")
        if (self.kind is TParamKind.ENUM) != (self.enum is not None):
            raise ValueError(f"template parameter {self.name!r}: enum= is required for ENUM parameters only")
        if self.optional and self.default is None:
            raise ValueError(f"optional template parameter {self.name!r} needs a default")
        if not self.public and not self.optional:
            raise ValueError(f"template parameter {self.name!r} is not public, so it needs a default")
        if self.auto is not None and (self.kind is not TParamKind.ENUM or not self.optional or not self.public):
            raise ValueError(f"template parameter {self.name!r}: auto= is for optional public ENUM parameters only")

    @property
    def public_default(self) -> Any:
        """The default a call sees: ``"auto"`` where auto applies, else the default (an enum by its short name)."""
        if self.auto is not None:
            return AUTO
        return getattr(self.default, "short_name", self.default)


_ARRAY_KINDS = frozenset({ArgKind.ARRAY, ArgKind.POINTER, ArgKind.OUTPUT, ArgKind.AGGREGATE})


@dataclass(frozen=True, kw_only=True, slots=True)
class Param:
    """An argument of a CUB method (or constructor)."""

    name: str
    """Python (snake_case) name: the DSL matches call arguments to it."""
    kind: ArgKind
    type: str | None = None
    """Value type: the name of a TYPE template parameter (``"dtype"``) or a dtype (``"int32"``)."""
    extent: str | None = None
    """For ARRAY and array OUTPUT: the INT template parameter giving the number of items."""
    const: bool = False
    """For POINTER: read-only memory."""
    inout: bool = False
    """For ARRAY: CUB updates the items in place and the caller sees the result (BlockRadixSort's keys).
    Otherwise the wrapper hands CUB a copy, so a caller's input never changes (BlockStore's transposing
    algorithms rearrange the array they are given); after inlining the copy is register renaming."""
    returns: str | None = None
    """For OPERATOR/CALLBACK: the function's result type (a type reference as for ``type``)."""
    args: tuple[str, ...] = ()
    """For OPERATOR/CALLBACK: the function's argument types (type references)."""
    offset: str | None = None
    """For POINTER: the public keyword whose value advances the pointer (``"offset"``: ``src[offset:]``)."""
    in_place_of: str | None = None
    """For an array OUTPUT: the ARRAY input it is when the caller omits it (the scan runs in place)."""
    state: str | None = None
    """For CALLBACK: the public argument carrying the state pointer the function receives first."""
    count_limit: Literal["tile", "block", "warp", "warp_tile"] | None = None
    """For a SCALAR count (``valid_items``): the count is clamped to [0, limit] before CUB sees it, so any
    value at or above the tile (block_threads * items_per_thread), the block, the logical warp (threads)
    or the warp's tile (threads * items_per_thread) means all of it."""
    default: int | str | None = None
    """For a SCALAR: the value a call that omits it passes (CUB's default argument): an int, or
    ``"bits(<type ref>)"``, the width in bits of a type (BlockRadixSort's ``end_bit``). The public
    default is the int, or None for a width."""
    bounds: tuple[int | str, int | str] | None = None
    """For a SCALAR: the closed range a compile-time constant argument must lie in (ints or
    ``"bits(<type ref>)"``); a constant outside it is refused (:meth:`refusal`) before it is used."""
    at_least: str | None = None
    """For a SCALAR: another scalar of the method it may not be below (``end_bit`` >= ``begin_bit``),
    checked when both values are known at compile time (constants, or an omitted int default)."""
    direction: Direction | None = None
    """What the call does with the argument's memory; omitted, it follows from the kind (:attr:`access`)."""
    spaces: tuple[Space, ...] = ()
    """For arrays: the memory spaces the argument may live in; omitted, they follow from the kind
    (:attr:`memory`). An argument in another space is refused at compile time."""
    min_extent: str | None = None
    """For a POINTER (required): how many items, from its offset on, the call may read or write, as an expression of the
    call's compile-time values (:mod:`._contracts`: template parameters such as ``bins``, the derived ``tile``
    and ``warp_tile``, and scalar arguments given as constants, such as ``k``). A constant-size array (a
    ``cuda.shared.array`` or ``cuda.local.array``) with fewer items than that, past a constant offset, is refused;
    otherwise it is the caller's documented precondition."""
    empty: str | None = None
    """For a count (``count_limit``) of a method with a result: the result when the count is 0 (no item) is the
    identity of the operator parameter named here, or of the known operator given (``"+"``): 0 for a sum, 1 for a
    product, -inf (the lowest value) for a maximum... (``KnownOp.identity``). A user operator has none: a constant
    0 is refused, a runtime 0 is the caller's precondition (the result is unspecified)."""
    order: Order | None = None
    """For a comparison OPERATOR: what it must be (``"strict_weak"``: a known operator that is not one is refused;
    a user function is the caller's documented precondition)."""
    associative: bool = False
    """For an OPERATOR combining values: CUB applies it in any grouping (reductions, scans), so it must be
    associative: a known operator that is not (``"-"``) is refused; a user function is the caller's documented
    precondition."""
    commutative: bool = False
    """For an OPERATOR combining values: CUB combines two lanes' values in an order that differs from lane to lane
    (``cub::WarpReduceBatched``), so it must be commutative too: a known operator that is not is refused; a user
    function is the caller's documented precondition."""
    pad: Pad | None = None
    """For a count (``count_limit``) the CUB class does not take: the wrapper honours it by padding the tile
    (:class:`~._pad.Pad`) and does not pass it to CUB."""
    align: int = 0
    """For a POINTER: the alignment in bytes its first item (``p[offset]``) must have, a power of two (0: the item
    type's own). A ``cuda.shared.array`` (``cuda.local.array``) must be a whole one declared with ``alignment=`` at
    least this: a slice of one, or one declared with less, is refused. For a global array a constant offset that
    breaks it is refused; otherwise it is the caller's documented precondition."""
    uniform: bool = False
    """For a SCALAR or POINTER: CUB reads the argument as one value for all the threads that call together
    (``valid_items``, ``begin_bit``, a tile's ``offset``), so it must be the same in every thread of the
    block (block scope) or every lane of the logical warp (warp scope); for a POINTER, the array and its
    ``offset`` keyword. A thread-dependent argument is refused at compile time (``_numba/_uniformity``),
    and the generated docs of the parameter say so."""
    doc: str = ""

    def __post_init__(self) -> None:
        if not _SNAKE.match(self.name):
            raise ValueError(f"parameter name {self.name!r} is not snake_case")
        if self.offset is not None and self.kind is not ArgKind.POINTER:
            raise ValueError(f"parameter {self.name!r}: only POINTER parameters take an offset")
        if self.in_place_of is not None and (self.kind is not ArgKind.OUTPUT or self.extent is None):
            raise ValueError(f"parameter {self.name!r}: only array OUTPUT parameters can default to an input")
        if (self.state is not None) != (self.kind is ArgKind.CALLBACK):
            raise ValueError(f"parameter {self.name!r}: state= is required for CALLBACK parameters only")
        if self.uniform and self.kind not in (ArgKind.SCALAR, ArgKind.POINTER):
            raise ValueError(f"parameter {self.name!r}: only SCALAR and POINTER parameters are uniform")
        if self.count_limit is not None and self.kind is not ArgKind.SCALAR:
            raise ValueError(f"parameter {self.name!r}: only SCALAR parameters are counts")
        callable_kind = self.kind in (ArgKind.OPERATOR, ArgKind.CALLBACK)
        if callable_kind != (self.returns is not None):
            raise ValueError(f"parameter {self.name!r}: returns= is required for operators and callbacks only")
        if not callable_kind and self.type is None:
            raise ValueError(f"parameter {self.name!r} of kind {self.kind.name} needs a type")
        if self.kind is ArgKind.ARRAY and self.extent is None:
            raise ValueError(f"array parameter {self.name!r} needs an extent")
        if self.inout and self.kind is not ArgKind.ARRAY:
            raise ValueError(f"parameter {self.name!r}: only ARRAY parameters are in-place (inout=True)")
        if self.extent is not None and self.kind not in (ArgKind.ARRAY, ArgKind.OUTPUT):
            raise ValueError(f"parameter {self.name!r}: only ARRAY and OUTPUT parameters have an extent")
        self._check_contract()
        self._check_default()

    def _check_contract(self) -> None:
        if (self.min_extent is not None) != (self.kind is ArgKind.POINTER):
            raise ValueError(f"parameter {self.name!r}: POINTER parameters, and only they, declare a min_extent")
        if self.min_extent is not None:
            _extent.check(self.min_extent)
        if self.spaces and self.kind not in _ARRAY_KINDS:
            raise ValueError(f"parameter {self.name!r}: only array parameters have memory spaces")
        if self.order is not None and (self.kind is not ArgKind.OPERATOR or self.returns != "bool"):
            raise ValueError(f"parameter {self.name!r}: only comparison operators have an order")
        if self.empty is not None and self.count_limit is None:
            raise ValueError(f"parameter {self.name!r}: only counts have a result for an empty count")
        if (self.associative or self.commutative) and (self.kind is not ArgKind.OPERATOR or self.returns == "bool"):
            raise ValueError(f"parameter {self.name!r}: only operators combining values are associative or commutative")
        if self.pad is not None and self.count_limit is None:
            raise ValueError(f"parameter {self.name!r}: only counts pad a tile")
        if self.align and (self.kind is not ArgKind.POINTER or self.align & (self.align - 1)):
            raise ValueError(f"parameter {self.name!r}: only POINTER parameters have an alignment, a power of two")

    def _check_default(self) -> None:
        limited = self.default is not None or self.bounds is not None or self.at_least is not None
        if limited and self.kind is not ArgKind.SCALAR:
            raise ValueError(f"parameter {self.name!r}: only SCALAR parameters have a default, bounds or at_least")
        for value in (self.default, *(self.bounds or ())):
            if isinstance(value, str) and not _BITS.fullmatch(value):
                raise ValueError(f"parameter {self.name!r}: {value!r} is neither an int nor 'bits(<type ref>)'")

    @property
    def public_default(self) -> int | None:
        """The default a public stub shows: an int default, else None."""
        return self.default if isinstance(self.default, int) else None

    def refusal(self, value: int, bits: Callable[[str], int]) -> str | None:
        """Why a compile-time constant ``value`` of this SCALAR is refused by :attr:`bounds` (None: it is not);
        ``bits(ref)`` is the width in bits of a type reference, for the ``"bits(<type ref>)"`` ends."""
        if self.bounds is None:
            return None
        low, high = (b if isinstance(b, int) else bits(_ref_of_bits(b)) for b in self.bounds)
        if low <= value <= high:
            return None
        return f"{self.name}={value!r} is out of range; it must be between {low} and {high}"

    @property
    def access(self) -> Direction:
        """:attr:`direction`, or the kind's: an ARRAY is read (``inout``: updated in place), an OUTPUT or
        AGGREGATE written, a POINTER read when ``const`` and written otherwise, anything else read."""
        if self.direction is not None:
            return self.direction
        if self.kind is ArgKind.ARRAY:
            return "inout" if self.inout else "in"
        if self.kind in (ArgKind.OUTPUT, ArgKind.AGGREGATE):
            return "out"
        if self.kind is ArgKind.POINTER:
            return "in" if self.const else "out"
        return "in"

    @property
    def memory(self) -> tuple[Space, ...]:
        """:attr:`spaces`, or the kind's: a POINTER is memory the block (warp) shares, global or shared; the
        per-thread kinds (ARRAY, array OUTPUT, AGGREGATE) are this thread's own local array; () for the others (a
        scalar OUTPUT is the call's result)."""
        if self.spaces:
            return self.spaces
        if self.kind is ArgKind.POINTER:
            return ("global", "shared")
        if self.kind is ArgKind.OUTPUT and self.extent is None:
            return ()  # the call's result, not an argument
        return ("local",) if self.kind in _ARRAY_KINDS else ()


@dataclass(frozen=True, kw_only=True, slots=True)
class Overload:
    """One C++ overload of a method, named so that a request can select it."""

    name: str
    params: tuple[Param, ...]
    tparams: tuple[TemplateParam, ...] = ()
    """Method-level template parameters the request binds (e.g. ``items_per_thread`` of BlockReduce)."""
    ctor_params: tuple[Param, ...] = ()
    """Constructor arguments after the TempStorage (e.g. BlockRunLengthDecode's runs)."""
    cpp: str = ""
    """The CUB member function of this form where it is not the method's (``Method.cpp``): WarpReduceBatched's
    one-result ``Reduce`` beside ``ReduceTo{arrangement}``. Empty: the method's."""
    returns: str | None = None
    """The result type reference of this form where the method returns nothing (``Method.returns``): the form that
    calls a member function returning one value beside forms that write an output array. None: the method's."""
    doc: str = ""

    def __post_init__(self) -> None:
        if self.cpp and _PLACEHOLDER.search(self.cpp):
            raise ValueError(f"overload {self.name!r}: its own cpp {self.cpp!r} names one member function")
        params = {p.name: p for p in self.all_params}
        for p in self.all_params:
            pad = p.pad
            if pad is None:
                continue
            target = params.get(pad.array)
            if target is None or target.kind is not ArgKind.ARRAY:
                raise ValueError(f"overload {self.name!r}: {p.name} pads {pad.array!r}, which is not an array of it")
            if any(params.get(n) is None or params[n].count_limit is None for n in pad.limits):
                raise ValueError(f"overload {self.name!r}: {p.name} limits {pad.limits}, which are not all counts")

    @property
    def all_params(self) -> tuple[Param, ...]:
        """Constructor parameters, then method parameters: the wrapper's argument order."""
        return self.ctor_params + self.params


@dataclass(frozen=True, kw_only=True, slots=True)
class Method:
    """A CUB member function and its overloads."""

    name: str
    """Python name: ``exclusive_sum``."""
    overloads: tuple[Overload, ...]
    cpp: str = ""
    """CUB name; by default the Python name in CamelCase (``exclusive_sum`` -> ``ExclusiveSum``). It may
    hold ``{param}`` placeholders, each a BOOL or ENUM template parameter of every overload that picks
    among CUB's member functions (``"Sort{descending}{output}"``); ``choices`` spells each value."""
    choices: Mapping[str, Mapping[Any, str]] = field(default_factory=dict)
    """For each placeholder of ``cpp``: the text of each value (``{False: "", True: "Descending"}``; an
    ENUM parameter's values are its members)."""
    returns: str | None = None
    """Result type reference, or None for ``void``."""
    doc: str = ""

    def __post_init__(self) -> None:
        if not _SNAKE.match(self.name):
            raise ValueError(f"method name {self.name!r} is not snake_case")
        if not self.cpp:
            object.__setattr__(self, "cpp", "".join(w.capitalize() for w in self.name.split("_")))
        placeholders = _PLACEHOLDER.findall(self.cpp)
        if sorted(placeholders) != sorted(self.choices):
            raise ValueError(f"method {self.name!r}: placeholders {placeholders} of {self.cpp!r} need choices")
        for ov in self.overloads:
            if ov.returns is not None and self.returns is not None:
                raise ValueError(f"method {self.name!r}: overload {ov.name!r} returns where the method does already")
        for name in placeholders:
            for ov in (ov for ov in self.overloads if not ov.cpp):
                tp = next((t for t in ov.tparams if t.name == name), None)
                if tp is None or tp.kind not in (TParamKind.BOOL, TParamKind.ENUM):
                    raise ValueError(f"method {self.name!r}: overload {ov.name!r} needs a BOOL/ENUM parameter {name!r}")
                domain = [False, True] if tp.kind is TParamKind.BOOL else list(tp.enum or ())
                if sorted(map(str, domain)) != sorted(map(str, self.choices[name])):
                    raise ValueError(f"method {self.name!r}: choices of {name!r} must spell each of {domain}")

    def cpp_for(self, values: Mapping[str, Any]) -> str:
        """The CUB member function for bound values (``Sort{descending}`` -> ``SortDescending``)."""
        return _PLACEHOLDER.sub(lambda m: self.choices[m[1]][values[m[1]]], self.cpp)

    def cpp_names(self) -> tuple[str, ...]:
        """Every CUB member function the method can call (its forms' own, ``Overload.cpp``, first)."""
        names = [self.cpp]
        for name, spelled in self.choices.items():
            names = [n.replace("{" + name + "}", text) for n in names for text in spelled.values()]
        return tuple(dict.fromkeys([*(ov.cpp for ov in self.overloads if ov.cpp), *names]))

    def overload(self, name: str) -> Overload:
        """The overload called ``name``; SpecError listing the others otherwise."""
        for ov in self.overloads:
            if ov.name == name:
                return ov
        raise SpecError(f"{self.name} has no overload {name!r}; use one of {', '.join(o.name for o in self.overloads)}")

    def match(self, given: Mapping[str, bool], order: Sequence[str] = ()) -> Overload:
        """The overload taking exactly the arguments ``given`` (name -> passed as an array).

        Outputs are implied and not given; aggregates are given when the caller asks for one.
        SpecError when no overload matches; it lists the forms with their arguments in ``order`` (the public
        signature's), else in the spec's.
        """
        for ov in self.overloads:
            sig = {p.name: p for p in ov.all_params if p.kind is not ArgKind.OUTPUT}
            if sig.keys() == given.keys() and all(
                given[n] == (p.kind is ArgKind.ARRAY)
                for n, p in sig.items()
                if p.kind in (ArgKind.SCALAR, ArgKind.ARRAY)
            ):
                return ov
        rank = {n: i for i, n in enumerate(order)}

        def ordered(names: Iterable[str]) -> list[str]:
            return sorted(names, key=lambda n: rank.get(n, len(rank)))

        shapes = "; ".join(
            "("
            + ", ".join(
                p.name + ("[]" if p.kind is ArgKind.ARRAY else "")
                for p in sorted((p for p in ov.all_params if p.kind is not ArgKind.OUTPUT),
                                key=lambda p: rank.get(p.name, len(rank)))
            )
            + ")"
            for ov in self.overloads
        )
        got = ", ".join(n + ("[]" if given[n] else "") for n in ordered(given))
        raise SpecError(
            f"{self.name} takes no arguments ({got}); it takes one of {shapes}",
            detail=f"no form takes the arguments ({got}); the forms are {shapes}",
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class Constraint:
    """A configuration CUB would reject or silently change; ``check`` returns True when allowed."""

    check: Callable[[Binding], bool]
    message: str
    """Names the parameter, the constraint and the fix, in public names (``algorithm="raking"``,
    ``threads=``); formatted with ``binding.describe()``, where enum values are their short names."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PrimitiveSpec:
    """One CUB collective."""

    name: str
    """Registry and Python name: ``block_reduce``."""
    cub_class: str
    """Qualified C++ class template: ``cub::BlockReduce``."""
    header: str
    """Header to include: ``cub/block/block_reduce.cuh``; for cuda-coop's own compositions of CUB classes
    (``cuda_coop::BlockTopK``...) its header under the package's ``include/`` (``cuda_coop/block_top_k.cuh``, see
    ``cuda_coop._own_headers``), which includes the CUB headers it needs."""
    scope: Scope
    tparams: tuple[TemplateParam, ...]
    """Class template parameters in CUB's order; all are rendered (defaults filled in)."""
    methods: tuple[Method, ...]
    algorithm: type[CubEnum] | None = None
    constraints: tuple[Constraint, ...] = ()
    min_cc: int = 0
    """Lowest compute capability (e.g. 70), 0 for any the toolkit supports."""
    preamble: bool = True
    """Whether ``header`` is in the fixed include preamble of every provider (and so in its precompiled header).
    False for a header that older CCCLs lack (``cub/warp/warp_reduce_batched.cuh``, new in 3.4): a provider that uses
    the spec includes it after the CCCL version check, so a CCCL of the wrong version first on the include path still
    fails with that check's message rather than with a missing file."""
    generic_lambdas: bool = False
    """Whether the CUB code every call instantiates has a generic lambda (``[&](auto i) {...}``) in device code,
    which NVRTC before 13.2 compiles only with ``-default-device`` (``_provider._key.lambda_options``); an algorithm
    that has one where the others do not says so itself (``CubEnum.generic_lambdas``)."""
    doc: str = ""
    example: str | None = None
    """Id of the executed example (``# example-begin <id>``) that documents it."""

    def __post_init__(self) -> None:
        if not _SNAKE.match(self.name):
            raise ValueError(f"primitive name {self.name!r} is not snake_case")
        names = [t.name for t in self.tparams]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: duplicate template parameter names")
        if self.scope is Scope.WARP and "threads" not in names:
            raise ValueError(f"{self.name}: warp-scope primitives need a 'threads' template parameter")
        for method in self.methods:
            for ov in method.overloads:
                kinds = {t.name: t.kind for t in (*self.tparams, *ov.tparams)}
                for p in ov.all_params:
                    if p.pad and p.pad.descending and kinds.get(p.pad.descending) is not TParamKind.BOOL:
                        raise ValueError(f"{self.name}.{method.name}: {p.name} pads by {p.pad.descending!r}, "
                                         "which is not a BOOL template parameter")

    def method(self, name: str) -> Method:
        """The method called ``name`` (Python or CUB spelling); SpecError listing the others otherwise."""
        for m in self.methods:
            if name == m.name or name in m.cpp_names():
                return m
        raise SpecError(
            f"{self.cub_class} has no method {name!r}; use one of {', '.join(m.name for m in self.methods)}"
        )


BlockDim = tuple[int, int, int]


def _ref_of_bits(value: str) -> str:
    """The type reference of ``"bits(<type ref>)"``."""
    match = _BITS.fullmatch(value)
    assert match is not None  # checked by Param
    return match[1]


def _canonical(value: object) -> str:
    if isinstance(value, ValueType | KnownOp):
        return value.name
    if isinstance(value, UserOp):
        return f"user_op:{value.symbol}"
    if isinstance(value, UserCallback):
        return f"user_callback:{value.symbol}"
    return repr(value) if value is DEFAULT else str(value)


@dataclass(frozen=True, kw_only=True, slots=True)
class Binding:
    """A validated request (see ``_request.bind``): everything the renderer needs for one call site."""

    spec: PrimitiveSpec
    method: Method
    overload: Overload
    block_dim: BlockDim
    values: Mapping[str, Any]
    """Every template parameter (class and overload level, defaults and inferred filled in) and every
    operator/callback parameter, by Python name: ValueType, int, bool, CubEnum, KnownOp, UserOp or
    UserCallback. An ``"auto"`` parameter holds the member auto chose."""
    arch: str | None = None
    """The target (``"sm_90"``) auto choices were made for; None when bound without one."""
    auto: Mapping[str, str] = field(default_factory=dict)
    """Parameters given (or defaulted) as ``"auto"``, each with how the member was chosen (``_auto``)."""
    public: str = ""
    """The public function of the call (``"coop.block.radix_sort"``) that messages name; empty for a bare request
    (they name the spec and method then)."""

    @property
    def block_threads(self) -> int:
        x, y, z = self.block_dim
        return x * y * z

    def type_of(self, ref: str) -> ValueType:
        """Resolve a type reference: a bound TYPE parameter or a dtype name."""
        bound = self.values.get(ref)
        return bound if isinstance(bound, ValueType) else BUILTIN_TYPES[ref]

    def extent_of(self, param: Param) -> int | None:
        """Number of items of an ARRAY/array-OUTPUT parameter; None for scalars."""
        return None if param.extent is None else int(self.values[param.extent])

    @property
    def generic_lambdas(self) -> bool:
        """Whether the CUB code of this call has a generic lambda in device code: its spec's, or its algorithm's."""
        return self.spec.generic_lambdas or any(
            isinstance(v, CubEnum) and v.generic_lambdas for v in self.values.values()
        )

    @property
    def cpp_method(self) -> str:
        """The CUB member function this binding calls: its form's own (``Overload.cpp``), else the method's."""
        return self.overload.cpp or self.method.cpp_for(self.values)

    @property
    def returns(self) -> str | None:
        """The result type reference of the call: the method's, else its form's (``Overload.returns``); None: void."""
        return self.method.returns or self.overload.returns

    def omitted(self, param: Param) -> bool:
        """Whether the call omits ``param`` and the wrapper passes its ``Param.default`` itself."""
        return self.values.get(param.name) is DEFAULT

    def scalar_value(self, value: int | str) -> int:
        """An int, or ``"bits(<type ref>)"`` evaluated for the bound types (see ``Param.default``)."""
        if isinstance(value, int):
            return value
        return 8 * self.type_of(_ref_of_bits(value)).size

    def count_limit(self, param: Param) -> int | None:
        """The clamp of a count parameter (see ``Param.count_limit``); None for other parameters."""
        if param.count_limit == "tile":
            return self.block_threads * int(self.values["items_per_thread"])
        if param.count_limit == "block":
            return self.block_threads
        if param.count_limit == "warp":
            return int(self.values["threads"])
        if param.count_limit == "warp_tile":
            return int(self.values["threads"]) * int(self.values["items_per_thread"])
        return None

    def canonical(self) -> str:
        """A stable text form of the binding (for naming and hashing); independent of argument order."""
        vals = ",".join(f"{k}={_canonical(self.values[k])}" for k in sorted(self.values))
        return f"{self.spec.name}.{self.method.name}.{self.overload.name}[{vals}]"

    def describe(self) -> dict[str, Any]:
        """Values for constraint messages, in public spelling: every bound value (enums by their short
        name, quoted: ``'raking'``) plus block_dim and block_threads."""
        public = {k: repr(v.short_name) if isinstance(v, CubEnum) else v for k, v in self.values.items()}
        for name in self.auto:  # a constraint on a chosen member says who chose it
            public[name] = f"'auto' (which chose {public[name]})"
        return {
            **public,
            "block_dim": self.block_dim,
            "block_threads": self.block_threads,
            "primitive": self.public or self.spec.name,
            "method": self.public or self.method.name,
        }
