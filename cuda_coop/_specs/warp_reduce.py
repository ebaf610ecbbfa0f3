"""``cub::WarpReduce``: reductions within each logical warp; the result is valid in its lane 0."""

from __future__ import annotations

from ._common import DTYPE, LOGICAL_WARP_CONSTRAINT, THREADS, op, reduce_overloads, scalar
from ._model import Method, Overload, Param, PrimitiveSpec, Scope
from ._registry import register_primitive

__all__ = ["WARP_REDUCE"]

_INPUT = scalar("x", doc="This thread's input item.")
_VALID_DOC = "Reduce only the first ``valid_items`` lanes; any value at or above ``threads`` means every lane."


def _segmented(flag: str, *ops: Param) -> tuple[Overload, ...]:
    return (
        Overload(name="scalar", params=(_INPUT, scalar(flag, "int32", doc="Nonzero starts/ends a segment."), *ops)),
    )


WARP_REDUCE = register_primitive(
    PrimitiveSpec(
        name="warp_reduce",
        cub_class="cub::WarpReduce",
        header="cub/warp/warp_reduce.cuh",
        scope=Scope.WARP,
        tparams=(DTYPE, THREADS),
        methods=(
            Method(
                name="reduce",
                returns="dtype",
                overloads=reduce_overloads(op(associative=True), limit="warp", valid_doc=_VALID_DOC),
                doc="Reduce the logical warp's items with ``op``; valid in lane 0.",
            ),
            Method(
                name="sum",
                returns="dtype",
                overloads=reduce_overloads(limit="warp", valid_doc=_VALID_DOC),
                doc="Sum the logical warp's items; valid in lane 0.",
            ),
            Method(
                name="head_segmented_sum",
                returns="dtype",
                overloads=_segmented("head_flag"),
                doc="Segmented sums; segments start where head_flag is set.",
            ),
            Method(
                name="tail_segmented_sum",
                returns="dtype",
                overloads=_segmented("tail_flag"),
                doc="Segmented sums; segments end where tail_flag is set.",
            ),
            Method(
                name="head_segmented_reduce",
                returns="dtype",
                overloads=_segmented("head_flag", op(associative=True)),
                doc="Segmented reductions by head flags.",
            ),
            Method(
                name="tail_segmented_reduce",
                returns="dtype",
                overloads=_segmented("tail_flag", op(associative=True)),
                doc="Segmented reductions by tail flags.",
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide reduction (``cub::WarpReduce``) in every logical warp of the block.",
        example="warp_reduce_sum",
    )
)
