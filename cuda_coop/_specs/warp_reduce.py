"""``cub::WarpReduce``: reductions within each logical warp; the result is valid in its lane 0."""

from __future__ import annotations

from ._common import DTYPE, ITEMS_PER_THREAD, LOGICAL_WARP_CONSTRAINT, LOGICAL_WARP_THREADS, array, op, scalar
from ._model import Method, Overload, Param, PrimitiveSpec, Scope
from ._registry import register_primitive

__all__ = ["WARP_REDUCE"]

_INPUT = scalar("input", doc="This thread's input item.")
_INPUTS = array("input", doc="This thread's input items.")
_VALID = scalar("valid_items", "int32", doc="Number of lanes with a valid input.")


def _overloads(*ops: Param) -> tuple[Overload, ...]:
    return (
        Overload(name="scalar", params=(_INPUT, *ops)),
        Overload(name="array", params=(_INPUTS, *ops), tparams=(ITEMS_PER_THREAD,)),
        Overload(name="scalar_valid", params=(_INPUT, *ops, _VALID)),
    )


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
        tparams=(DTYPE, LOGICAL_WARP_THREADS),
        methods=(
            Method(
                name="reduce",
                cpp="Reduce",
                returns="dtype",
                overloads=_overloads(op()),
                doc="Reduce the logical warp's items with ``op``; valid in lane 0.",
            ),
            Method(
                name="sum",
                cpp="Sum",
                returns="dtype",
                overloads=_overloads(),
                doc="Sum the logical warp's items; valid in lane 0.",
            ),
            Method(
                name="head_segmented_sum",
                cpp="HeadSegmentedSum",
                returns="dtype",
                overloads=_segmented("head_flag"),
                doc="Segmented sums; segments start where head_flag is set.",
            ),
            Method(
                name="tail_segmented_sum",
                cpp="TailSegmentedSum",
                returns="dtype",
                overloads=_segmented("tail_flag"),
                doc="Segmented sums; segments end where tail_flag is set.",
            ),
            Method(
                name="head_segmented_reduce",
                cpp="HeadSegmentedReduce",
                returns="dtype",
                overloads=_segmented("head_flag", op()),
                doc="Segmented reductions by head flags.",
            ),
            Method(
                name="tail_segmented_reduce",
                cpp="TailSegmentedReduce",
                returns="dtype",
                overloads=_segmented("tail_flag", op()),
                doc="Segmented reductions by tail flags.",
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide reduction (``cub::WarpReduce``) in every logical warp of the block.",
        example="warp_reduce_sum",
    )
)
