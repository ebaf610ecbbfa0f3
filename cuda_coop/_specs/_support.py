"""The support table, primitive x dtype, derived from the specs (never written by hand).

A dtype is supported by a public primitive when the TYPE template parameter its data argument binds
(``dtype``, or the spec's own, e.g. BlockRadixSort's keys) allows the dtype's kind (``TemplateParam.kinds``;
none listed means every kind). Operators narrow it further, and the row says how: bitwise operators are for
integers only, and min/max/ordering comparisons need ordered values (not complex).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._model import ArgKind, Overload, TParamKind
from ._operators import KnownOp
from ._types import DSL_DTYPES, value_type

__all__ = ["RECORD_PRIMITIVES", "SupportRow", "record_support", "support_matrix"]

RECORD_PRIMITIVES = (
    "block.reduce",
    "block.inclusive_scan",
    "block.exclusive_scan",
    "warp.reduce",
    "warp.inclusive_scan",
    "warp.exclusive_scan",
)
"""The public primitives that take records (NumPy structured dtypes made with ``align=True``) and tuples of
scalars as items: one value per thread, combined by a Python operator (the Numba-CUDA-MLIR integration
checks calls against this list). Items arrays of records are not taken: numba-cuda-mlir 0.5 cannot make a
``cuda.local.array`` of a record dtype."""

_KIND_WORDS = {"int": "signed integers", "uint": "unsigned integers", "float": "floating-point", "complex": "complex",
               "bool": "bool"}


@dataclass(frozen=True, slots=True)
class SupportRow:
    """One cell of the table."""

    primitive: str
    """Public name, ``"block.sum"``."""
    dtype: str
    """cuda-coop dtype name, ``"bfloat16"``."""
    supported: bool
    note: str
    """Why not (the kinds the primitive takes), or which operators the dtype lacks; empty otherwise."""


_DTYPE_OF = {"int": "int32", "uint": "uint32", "float": "float32", "complex": "complex64"}


def _operator_note(kind: str, returns: set[str]) -> str:
    """Known operators of the primitive's operator parameters (``returns``: their result types) that the
    kind lacks."""
    vt = value_type(_DTYPE_OF[kind])
    comparison = "bool" in returns
    missing = [
        op.aliases[0]
        for op in KnownOp
        if (op.is_comparison if comparison else not op.is_comparison) and not op.supports(vt)
    ]
    if not returns or not missing:
        return ""
    return f"known operators {', '.join(missing)} not defined for {_KIND_WORDS[kind]}; user functions are"


def support_matrix() -> list[SupportRow]:
    """Every public primitive x every DSL dtype (``DSL_DTYPES``), in primitive then dtype order.

    Imports ``cuda.coop`` (the public primitives are declared there); needs no compiler and no
    numba-cuda-mlir.
    """
    from .. import block, warp  # noqa: F401  # declares the public primitives
    from .._dsl._primitive import all_public_primitives

    rows = []
    for prim in all_public_primitives():
        data = prim.param(prim.data)
        ref = (data.type if data is not None else None) or "dtype"
        tparams = (*prim.spec.tparams, *(t for ov in prim.method.overloads for t in ov.tparams))
        tp = next((t for t in tparams if t.name == ref and t.kind is TParamKind.TYPE), None)
        kinds = tp.kinds if tp is not None else ()
        returns = {
            p.returns or "dtype" for ov in prim.method.overloads for p in ov.params if p.kind is ArgKind.OPERATOR
        }
        for dtype in DSL_DTYPES:
            kind = value_type(dtype).kind
            if kinds and kind not in kinds:
                note = f"takes {' or '.join(_KIND_WORDS[k] for k in kinds)}"
                rows.append(SupportRow(prim.name, dtype, False, note))
            else:
                rows.append(SupportRow(prim.name, dtype, True, _operator_note(kind, returns)))
    return rows


def record_support() -> list[SupportRow]:
    """Every public primitive x ``"record/tuple"``: which take records and tuples, and how (or why not)."""
    from .. import block, warp  # noqa: F401  # declares the public primitives
    from .._dsl._primitive import all_public_primitives

    rows = []
    for prim in all_public_primitives():
        if prim.name in RECORD_PRIMITIVES:
            scalar = [ov for ov in prim.method.overloads if _takes_scalar(ov, prim.data)]
            extra = sorted({p.name for ov in scalar for p in ov.params if p.name in ("initial_value", "valid_items")})
            note = "one value per thread with a Python op" + "".join(f", {name}=" for name in extra)
            note += "; no items arrays or aggregate arrays (numba-cuda-mlir has no cuda.local.array of records)"
            rows.append(SupportRow(prim.name, "record/tuple", True, note))
        elif prim.name.endswith("sum"):
            rows.append(SupportRow(prim.name, "record/tuple", False, "sums need '+': use the op form"))
        else:
            rows.append(SupportRow(prim.name, "record/tuple", False, ""))
    return rows


def _takes_scalar(overload: Overload, data: str) -> bool:
    return any(p.name == data and p.kind is ArgKind.SCALAR for p in overload.params)
