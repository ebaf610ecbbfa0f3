"""The support table, primitive x dtype, derived from the specs (never written by hand).

A dtype is supported by a public primitive when the TYPE template parameter its data argument binds
(``dtype``, or the spec's own, e.g. BlockRadixSort's keys) allows the dtype's kind (``TemplateParam.kinds``;
none listed means every kind). Operators narrow it further, and the row says how: bitwise operators are for
integers only, and min/max/ordering comparisons need ordered values (not complex).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._model import ArgKind, TParamKind
from ._operators import KnownOp
from ._types import DSL_DTYPES, value_type

__all__ = ["SupportRow", "support_matrix"]

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
