"""``cub::BlockDiscontinuity``: flag the items of the block's tile that start or end a run.

A head flag is 1 where ``op(previous item, item)`` is true (the tile's first item is always a head
unless ``tile_predecessor_item`` is given); a tail flag is 1 where ``op(item, next item)`` is true (the
tile's last item is always a tail unless ``tile_successor_item`` is given).

Flag dtype rule: the flags are the caller's ``cuda.local.array`` and its dtype is CUB's ``FlagT``
(bound from the array, like ``valid_items``' integer type): any integer type or ``bool``. Flags are
usually counted next (a scan numbers the segments, a sum counts them), so they take the dtype the
caller will count in, with no conversion in between; floating-point flags are refused.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, DTYPE, ITEMS_PER_THREAD, array, op, out_array, scalar
from ._model import Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive

__all__ = ["BLOCK_DISCONTINUITY", "FLAG_TYPE"]

FLAG_TYPE = TemplateParam(
    name="flag_type",
    cpp="FlagT",
    kind=TParamKind.TYPE,
    optional=True,
    default="int32",
    kinds=("int", "uint", "bool"),
    doc="Type of the flags: the dtype of the flag arrays the kernel passes (an integer type or bool); kernels "
    "always bind it from their arrays (the default serves requests built by hand).",
)

_X = array("x", doc="This thread's items in blocked order (a ``cuda.local.array``).")
_HEADS = out_array(
    "head_flags",
    "flag_type",
    doc="A ``cuda.local.array(N, <integer or bool dtype>)`` that receives 1 at each head item, else 0.",
)
_TAILS = out_array(
    "tail_flags",
    "flag_type",
    doc="A ``cuda.local.array(N, <integer or bool dtype>)`` that receives 1 at each tail item, else 0.",
)
_OP = op(
    returns="bool",
    doc="The discontinuity predicate ``op(a, b)`` for adjacent items ``a`` then ``b``: true where they belong to "
    "different runs. A comparison (``'!='``, ``'<'``, ``'>'``, ``'=='`` or the ``operator`` functions) or a "
    "Python function of two items returning a bool.",
)
_PRED = scalar(
    "tile_predecessor_item",
    doc="The item before the tile (e.g. the previous tile's last item): the tile's first head flag is "
    "``op(tile_predecessor_item, x[0])`` instead of 1.",
)
_SUCC = scalar(
    "tile_successor_item",
    doc="The item after the tile (e.g. the next tile's first item): the tile's last tail flag is "
    "``op(x[-1], tile_successor_item)`` instead of 1.",
)
_TPARAMS = (ITEMS_PER_THREAD, FLAG_TYPE)


def _overload(name: str, *params: Param) -> Overload:
    return Overload(name=name, params=params, tparams=_TPARAMS)


BLOCK_DISCONTINUITY = register_primitive(
    PrimitiveSpec(
        name="block_discontinuity",
        cub_class="cub::BlockDiscontinuity",
        header="cub/block/block_discontinuity.cuh",
        scope=Scope.BLOCK,
        tparams=(DTYPE, *BLOCK_DIMS),
        methods=(
            Method(
                name="flag_heads",
                overloads=(
                    _overload("array", _HEADS, _X, _OP),
                    _overload("array_predecessor", _HEADS, _X, _OP, _PRED),
                ),
                doc="Flag the first item of each run.",
            ),
            Method(
                name="flag_tails",
                overloads=(
                    _overload("array", _TAILS, _X, _OP),
                    _overload("array_successor", _TAILS, _X, _OP, _SUCC),
                ),
                doc="Flag the last item of each run.",
            ),
            Method(
                name="flag_heads_and_tails",
                # CUB's argument order: the predecessor follows head_flags, the successor follows tail_flags.
                overloads=(
                    _overload("array", _HEADS, _TAILS, _X, _OP),
                    _overload("array_successor", _HEADS, _TAILS, _SUCC, _X, _OP),
                    _overload("array_predecessor", _HEADS, _PRED, _TAILS, _X, _OP),
                    _overload("array_predecessor_successor", _HEADS, _PRED, _TAILS, _SUCC, _X, _OP),
                ),
                doc="Flag the first and the last item of each run in one exchange.",
            ),
        ),
        doc="Head and tail flags of runs in the block's tile (``cub::BlockDiscontinuity``), with tile "
        "neighbours and a user predicate.",
        example="block_discontinuity",
    )
)
