"""``cub::BlockAdjacentDifference``: each item combined with its neighbour in the block's tile.

``subtract_left`` gives ``output[i] = op(x[i], x[i - 1])`` along the tile in blocked order (the tile's
first item has no left neighbour: it is copied, or combined with ``tile_predecessor_item``);
``subtract_right`` gives ``output[i] = op(x[i], x[i + 1])`` (the tile's last item is copied, or combined
with ``tile_successor_item``). CUB names its partial-tile forms ``SubtractLeftPartialTile`` and
``SubtractRightPartialTile``; a method calls one C++ member, so they are methods of their own.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, DTYPE, ITEMS_PER_THREAD, array, count, op, out_array, scalar
from ._model import Method, Overload, Param, PrimitiveSpec, Scope
from ._registry import register_primitive

__all__ = ["BLOCK_ADJACENT_DIFFERENCE"]

_X = array("x", doc="This thread's items in blocked order (a ``cuda.local.array``).")
_OUT = out_array(
    "output", in_place_of="x", doc="Receives the differences (default: ``x``, in place); same dtype and extent."
)
_OP = op(
    doc="The difference operator ``op(item, neighbour)``: a Python function of two values returning a value of "
    "the items' dtype (``lambda a, b: abs(a - b)``...) or a known operator: ``'-'`` (``operator.sub``, "
    "``np.subtract``: libcu++'s ``cuda::std::minus``), ``'+'``, ``'max'``..."
)
_PRED = scalar(
    "tile_predecessor_item",
    doc="The item before the tile (e.g. the previous tile's last item): thread 0's first output is "
    "``op(x[0], tile_predecessor_item)`` instead of ``x[0]``.",
)
_SUCC = scalar(
    "tile_successor_item",
    doc="The item after the tile (e.g. the next tile's first item): the last thread's last output is "
    "``op(x[-1], tile_successor_item)`` instead of ``x[-1]``.",
)
_VALID = count(
    "tile",
    "Only the first ``valid_items`` items of the tile (blocked order) are differenced; the output items at and "
    "past it are copies of the input items. Any value at or above the tile size means the whole tile.",
)


def _overload(name: str, *extra: Param) -> Overload:
    valid = any(p.name == "valid_items" for p in extra)
    return Overload(
        name=name,
        params=(_X, _OUT, _OP, *extra),
        tparams=(ITEMS_PER_THREAD, COUNT_TYPE) if valid else (ITEMS_PER_THREAD,),
    )


BLOCK_ADJACENT_DIFFERENCE = register_primitive(
    PrimitiveSpec(
        name="block_adjacent_difference",
        cub_class="cub::BlockAdjacentDifference",
        header="cub/block/block_adjacent_difference.cuh",
        scope=Scope.BLOCK,
        tparams=(DTYPE, *BLOCK_DIMS),
        methods=(
            Method(
                name="subtract_left",
                overloads=(_overload("array"), _overload("array_predecessor", _PRED)),
                doc="``output[i] = op(x[i], x[i - 1])`` across the tile; the tile's first item is copied unless "
                "``tile_predecessor_item`` is given.",
            ),
            Method(
                name="subtract_left_partial_tile",
                overloads=(_overload("array_valid", _VALID), _overload("array_valid_predecessor", _VALID, _PRED)),
                doc="``subtract_left`` over the first ``valid_items`` items of the tile; later items are copied.",
            ),
            Method(
                name="subtract_right",
                overloads=(_overload("array"), _overload("array_successor", _SUCC)),
                doc="``output[i] = op(x[i], x[i + 1])`` across the tile; the tile's last item is copied unless "
                "``tile_successor_item`` is given.",
            ),
            Method(
                name="subtract_right_partial_tile",
                overloads=(_overload("array_valid", _VALID),),
                doc="``subtract_right`` over the first ``valid_items`` items of the tile: item ``valid_items - 1`` "
                "and later ones are copied.",
            ),
        ),
        doc="Differences (or any binary combination) of adjacent items across the block's tile "
        "(``cub::BlockAdjacentDifference``), with tile neighbours and partial tiles.",
        example="block_adjacent_difference",
    )
)
