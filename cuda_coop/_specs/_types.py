"""Value types as the provider sees them: a C++ spelling and a storage ABI (size, alignment).

A :class:`ValueType` is what a type template parameter (``T``, ``KeyT``, ...) is bound to. Built-in
dtypes have fixed spellings; a user type is known only by its storage ABI and is rendered as an
opaque aligned byte struct, so user types with the same ABI share one C++ struct.

How a value crosses the wrappers' C ABI (``abi``):

- ``"value"``: passed and returned by value (integers, ``float``, ``double``, ``bool``).
- ``"pointer"``: passed as ``const T*`` and returned through a ``T*`` out-parameter. Used for every
  type whose by-value C ABI is a struct (``__half``, ``__nv_bfloat16``, complex, user types), so the
  DSL never has to reproduce NVVM's aggregate calling convention.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from typing import Literal

__all__ = ["BUILTIN_TYPES", "DSL_DTYPES", "NONE_TYPE", "ValueType", "user_type", "value_type"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ValueType:
    """A type a template parameter can be bound to."""

    name: str
    """Python-facing name: a NumPy dtype name (``"float32"``) or ``"user<size>a<align>"``."""
    cpp: str
    """C++ spelling used in the rendered source."""
    size: int
    """``sizeof`` in bytes."""
    align: int
    """``alignof`` in bytes (a power of two)."""
    abi: Literal["value", "pointer"] = "value"
    """How values of this type cross the wrappers' C ABI (see the module docstring)."""
    kind: Literal["int", "uint", "float", "complex", "bool", "user", "none"] = "int"
    """Category, used by operator and algorithm constraints."""
    header: str | None = None
    """A header this type needs beyond the provider preamble (included only by providers that use it)."""

    def __post_init__(self) -> None:
        if self.size <= 0 or self.align <= 0 or self.align & (self.align - 1) or self.size % self.align:
            raise ValueError(
                f"value type {self.name!r}: size {self.size} and alignment {self.align} are not a valid "
                "storage ABI; alignment must be a power of two that divides the size"
            )

    @property
    def is_user(self) -> bool:
        """True for user types (known only by their storage ABI)."""
        return self.kind == "user"

    @property
    def is_arithmetic(self) -> bool:
        """True for integers, floating-point and complex types (not bool or user types)."""
        return self.kind in ("int", "uint", "float", "complex")

    def __str__(self) -> str:
        return self.name


def _t(name: str, cpp: str, size: int, kind: str, *, abi: str = "value", header: str | None = None) -> ValueType:
    return ValueType(name=name, cpp=cpp, size=size, align=size, kind=kind, abi=abi, header=header)  # type: ignore[arg-type]


BUILTIN_TYPES: dict[str, ValueType] = {
    t.name: t
    for t in (
        _t("bool", "bool", 1, "bool"),
        _t("int8", "signed char", 1, "int"),
        _t("int16", "short", 2, "int"),
        _t("int32", "int", 4, "int"),
        _t("int64", "long long", 8, "int"),
        _t("uint8", "unsigned char", 1, "uint"),
        _t("uint16", "unsigned short", 2, "uint"),
        _t("uint32", "unsigned int", 4, "uint"),
        _t("uint64", "unsigned long long", 8, "uint"),
        _t("float16", "__half", 2, "float", abi="pointer"),
        _t("bfloat16", "__nv_bfloat16", 2, "float", abi="pointer"),
        _t("float32", "float", 4, "float"),
        _t("float64", "double", 8, "float"),
        _t("complex64", "::cuda::std::complex<float>", 8, "complex", abi="pointer", header="cuda/std/complex"),
        _t("complex128", "::cuda::std::complex<double>", 16, "complex", abi="pointer", header="cuda/std/complex"),
    )
}
"""The built-in dtypes, by NumPy name."""

DSL_DTYPES = (
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
"""The item dtypes a kernel may pass to a primitive (numba-cuda-mlir's float16, bfloat16 and complex
included), as far as each primitive's spec allows them (its TYPE parameters' ``kinds``)."""

NONE_TYPE = ValueType(name="none", cpp="cub::NullType", size=1, align=1, kind="none")
"""``cub::NullType``: the default of optional type parameters such as BlockRadixSort's ValueT."""

_ALIASES = {
    "int": "int32",
    "float": "float64",
    "half": "float16",
    "double": "float64",
    "single": "float32",
    "uint": "uint64",
    "bool_": "bool",
}


def user_type(size: int, align: int, layout: str | None = None) -> ValueType:
    """The value type of a user (record or tuple) type with this storage ABI.

    Rendered as ``struct alignas(align) cuda_coop_storage_<size>_<align>[_<tag>] { unsigned char bytes[size]; }``;
    its values always cross the C ABI by pointer.

    ``layout`` (the DSL passes the numba type's spelling: field names, types and offsets, or a tuple's member
    types) adds a digest of it to the name and the C++ spelling, so that two user types with the same size
    and alignment but different fields are distinct template arguments, distinct specialisations (the
    request key holds the name) and distinct C++ structs. Without ``layout`` the type is known by its
    storage ABI alone. Sharing one opaque struct would in fact be sound: the struct is the same C++
    definition wherever it appears (no ODR violation), and CUB never looks inside it; it only copies,
    shuffles (word by word) and stores the bytes, and every operation on fields happens in a user operator
    whose symbol digests its own signature, layout included (``_numba._operators.user_function``).
    Distinct names keep each DSL type's numba type recoverable from its name and make a layout mix-up
    impossible even in a future operation that does depend on fields.
    """
    tag = "" if layout is None else "_" + hashlib.sha256(layout.encode()).hexdigest()[:12]
    return ValueType(
        name=f"user{size}a{align}{tag}",
        cpp=f"cuda_coop_storage_{size}_{align}{tag}",
        size=size,
        align=align,
        abi="pointer",
        kind="user",
    )


def value_type(spec: ValueType | str | object) -> ValueType:
    """Coerce a dtype to a :class:`ValueType`.

    Parameters
    ----------
    spec:
        A :class:`ValueType`, a NumPy dtype name (``"float32"``), or anything whose ``str()`` or
        ``.name`` is one (NumPy dtypes and scalar types, numba types).

    Raises
    ------
    ValueError
        If the name is not a supported dtype; the message lists the close matches.
    """
    if isinstance(spec, ValueType):
        return spec
    name = getattr(spec, "name", None) if not isinstance(spec, str) else spec
    if not isinstance(name, str):
        name = getattr(spec, "__name__", None) or str(spec)
    name = _ALIASES.get(name, name)
    try:
        return BUILTIN_TYPES[name]
    except KeyError:
        close = difflib.get_close_matches(name, BUILTIN_TYPES, n=3)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise ValueError(
            f"dtype {spec!r} is not supported; supported dtypes are {', '.join(BUILTIN_TYPES)}, "
            f"and user types through user_type(size, align){hint}"
        ) from None
