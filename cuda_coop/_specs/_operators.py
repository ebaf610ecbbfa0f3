"""Operators a primitive can be given: known operators (CUB/libcu++ functors) and user functions.

A known operator renders as a functor object, ``::cuda::std::plus<>{}``, and costs no extra
compile. A user operator is a device function the DSL compiles and supplies as LTO-IR under the
``extern "C"`` name :attr:`UserOp.symbol`; the provider declares it and wraps it in a functor. Its
C signature follows the operator parameter's spec (see ``_model.Param``) and the ABI of the value
types involved (``_types``): value-ABI types by value, pointer-ABI types as ``T* out, const T* a, ...``.
"""

from __future__ import annotations

import enum
import operator
import re
from dataclasses import dataclass

from ._types import ValueType

__all__ = ["KnownOp", "Operator", "UserCallback", "UserOp", "coerce_operator"]

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class KnownOp(enum.Enum):
    """An operator with a CUB/libcu++ functor; ``str()`` is the functor's C++ type."""

    PLUS = ("::cuda::std::plus<>", ("+", "add", "sum", "plus"), "arith")
    MULTIPLIES = ("::cuda::std::multiplies<>", ("*", "mul", "multiply", "multiplies", "prod"), "arith")
    MINUS = ("::cuda::std::minus<>", ("-", "sub", "subtract", "minus"), "arith")
    """``a - b``: not associative, so refused where the operator must be (``Param.associative``)."""
    MINIMUM = ("::cuda_coop_detail::minimum", ("min", "minimum"), "ordered")
    """NumPy's ``minimum``: a NaN operand gives NaN (``_render``'s ``numpy_extremum``)."""
    MAXIMUM = ("::cuda_coop_detail::maximum", ("max", "maximum"), "ordered")
    """NumPy's ``maximum``: a NaN operand gives NaN."""
    FMIN = ("::cuda::minimum<>", ("fmin",), "ordered")
    """NumPy's ``fmin`` (libcu++'s ``cuda::minimum``): a NaN operand is dropped, the other one is the result."""
    FMAX = ("::cuda::maximum<>", ("fmax",), "ordered")
    """NumPy's ``fmax`` (libcu++'s ``cuda::maximum``)."""
    BIT_AND = ("::cuda::std::bit_and<>", ("&", "and_", "bitwise_and", "bit_and"), "integral")
    BIT_OR = ("::cuda::std::bit_or<>", ("|", "or_", "bitwise_or", "bit_or"), "integral")
    BIT_XOR = ("::cuda::std::bit_xor<>", ("^", "xor", "bitwise_xor", "bit_xor"), "integral")
    LESS = ("::cuda::std::less<>", ("<", "lt", "less"), "ordered")
    GREATER = ("::cuda::std::greater<>", (">", "gt", "greater"), "ordered")
    LESS_EQUAL = ("::cuda::std::less_equal<>", ("<=", "le", "less_equal"), "ordered")
    GREATER_EQUAL = ("::cuda::std::greater_equal<>", (">=", "ge", "greater_equal"), "ordered")
    EQUAL_TO = ("::cuda::std::equal_to<>", ("==", "eq", "equal", "equal_to"), "any")
    NOT_EQUAL_TO = ("::cuda::std::not_equal_to<>", ("!=", "ne", "not_equal", "not_equal_to"), "any")

    def __init__(self, cpp: str, aliases: tuple[str, ...], domain: str) -> None:
        self.cpp = cpp
        self.aliases = aliases
        self.domain = domain

    def __str__(self) -> str:
        return self.cpp

    @property
    def identity(self) -> str | None:
        """The C++ expression of the operator's identity for items of C++ type ``{T}`` (the result of an empty
        reduction: ``Param.empty``); None for comparisons."""
        return _IDENTITIES.get(self)

    @property
    def associative(self) -> bool:
        """Whether ``op(op(a, b), c) == op(a, op(b, c))`` (up to floating-point rounding): every known operator but
        ``"-"``; a comparison's result is a bool, never combined again (see :attr:`is_comparison`)."""
        return self is not KnownOp.MINUS and not self.is_comparison

    @property
    def commutative(self) -> bool:
        """Whether ``op(a, b) == op(b, a)``: every known operator combining values but ``"-"`` (for floating-point
        min/max up to which of two equal values, -0.0 and +0.0 or two NaNs, is the result)."""
        return self is not KnownOp.MINUS and not self.is_comparison

    @property
    def is_comparison(self) -> bool:
        """A predicate (``<``, ``==``...): its result is a bool, never a value to reduce or scan."""
        return self in _COMPARISONS

    def supports(self, vt: ValueType) -> bool:
        """Whether the functor is defined for values of ``vt``."""
        if vt.is_user:
            return False
        if self.domain == "integral":
            return vt.kind in ("int", "uint", "bool")
        if self.domain == "ordered":
            return vt.kind != "complex"
        return True


@dataclass(frozen=True, slots=True)
class UserOp:
    """A user operator, supplied by the DSL as an ``extern "C"`` device function in LTO-IR."""

    symbol: str

    def __post_init__(self) -> None:
        if not _C_IDENTIFIER.match(self.symbol):
            raise ValueError(f"user operator symbol {self.symbol!r} is not a C identifier")


@dataclass(frozen=True, slots=True)
class UserCallback:
    """A stateful user callback (e.g. a block prefix callback) supplied as an ``extern "C"`` function.

    Its first C parameter is ``void* state``, the pointer the caller passes to the wrapper in the
    callback's argument slot; the remaining parameters follow the callback parameter's spec.
    """

    symbol: str

    def __post_init__(self) -> None:
        if not _C_IDENTIFIER.match(self.symbol):
            raise ValueError(f"user callback symbol {self.symbol!r} is not a C identifier")


Operator = KnownOp | UserOp

_COMPARISONS = frozenset(
    {KnownOp.LESS, KnownOp.GREATER, KnownOp.LESS_EQUAL, KnownOp.GREATER_EQUAL, KnownOp.EQUAL_TO, KnownOp.NOT_EQUAL_TO}
)
STRICT_WEAK_ORDERS = frozenset({KnownOp.LESS, KnownOp.GREATER})
_IDENTITIES = {
    KnownOp.PLUS: "cuda_coop_detail::zero<{T}>()",
    KnownOp.MULTIPLIES: "static_cast<{T}>(1)",
    KnownOp.BIT_AND: "static_cast<{T}>(~cuda_coop_detail::zero<{T}>())",
    KnownOp.BIT_OR: "cuda_coop_detail::zero<{T}>()",
    KnownOp.BIT_XOR: "cuda_coop_detail::zero<{T}>()",
    KnownOp.MAXIMUM: "cuda_coop_detail::lowest_value<{T}>()",
    KnownOp.FMAX: "cuda_coop_detail::lowest_value<{T}>()",
    KnownOp.MINIMUM: "cuda_coop_detail::highest_value<{T}>()",
    KnownOp.FMIN: "cuda_coop_detail::highest_value<{T}>()",
}
"""The known comparisons that are strict weak orders (``Param.order``): false for two equal items."""

_BY_ALIAS = {alias: op for op in KnownOp for alias in (op.name.lower(), *op.aliases)}
_BY_CALLABLE: dict[object, KnownOp] = {
    operator.add: KnownOp.PLUS,
    operator.mul: KnownOp.MULTIPLIES,
    operator.sub: KnownOp.MINUS,
    min: KnownOp.MINIMUM,
    max: KnownOp.MAXIMUM,
    operator.and_: KnownOp.BIT_AND,
    operator.or_: KnownOp.BIT_OR,
    operator.xor: KnownOp.BIT_XOR,
    operator.lt: KnownOp.LESS,
    operator.gt: KnownOp.GREATER,
    operator.le: KnownOp.LESS_EQUAL,
    operator.ge: KnownOp.GREATER_EQUAL,
    operator.eq: KnownOp.EQUAL_TO,
    operator.ne: KnownOp.NOT_EQUAL_TO,
}


def coerce_operator(op: object) -> KnownOp | UserOp | None:
    """Map ``op`` to a :class:`KnownOp` or :class:`UserOp`; None when it is neither.

    Accepts a member, a :class:`UserOp`, an alias (``"+"``, ``"min"``, ``"bitwise_xor"``), an
    :mod:`operator` function, builtin ``min``/``max``, or a NumPy ufunc (matched by name, without
    importing NumPy). Python functions are not operators here: the DSL compiles them and passes a
    :class:`UserOp`.
    """
    if isinstance(op, KnownOp | UserOp):
        return op
    if isinstance(op, str):
        return _BY_ALIAS.get(op.strip().lower())
    try:
        if op in _BY_CALLABLE:
            return _BY_CALLABLE[op]
    except TypeError:  # unhashable
        return None
    if type(op).__name__ == "ufunc":
        return _BY_ALIAS.get(str(getattr(op, "__name__", "")))
    return None
