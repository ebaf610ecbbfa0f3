"""Block-wide discontinuity flags (CUB ``cub::BlockDiscontinuity``): heads and tails of runs.

Each thread holds N items of the block's tile in blocked order. ``op(a, b)`` says whether the adjacent
items ``a`` (earlier) and ``b`` (later) belong to different runs: a comparison such as ``"!="`` or a
Python function returning a bool. The flags are ``cuda.local.array(N, dtype)`` arrays of an integer
type or bool (their dtype is the flags' type: pick the one the flags are counted in next, e.g. with
:func:`cuda.coop.block.exclusive_sum` to number the segments); each flag is 1 or 0.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("block_discontinuity", "flag_heads", module="block")
def flag_heads(
    x: Any, head_flags: Any, op: Any, *, tile_predecessor_item: Any = None, items_per_thread: int | None = None
) -> None:
    """``head_flags[i] = op(previous item, x[i])``: 1 at the first item of each run.

    The tile's first item is always a head, unless ``tile_predecessor_item`` (the item before the tile)
    is given: then its flag is ``op(tile_predecessor_item, x[0])``.
    """


@primitive("block_discontinuity", "flag_tails", module="block")
def flag_tails(
    x: Any, tail_flags: Any, op: Any, *, tile_successor_item: Any = None, items_per_thread: int | None = None
) -> None:
    """``tail_flags[i] = op(x[i], next item)``: 1 at the last item of each run.

    The tile's last item is always a tail, unless ``tile_successor_item`` (the item after the tile) is
    given: then its flag is ``op(x[N-1], tile_successor_item)``.
    """


@primitive("block_discontinuity", "flag_heads_and_tails", module="block")
def flag_heads_and_tails(
    x: Any,
    head_flags: Any,
    tail_flags: Any,
    op: Any,
    *,
    tile_predecessor_item: Any = None,
    tile_successor_item: Any = None,
    items_per_thread: int | None = None,
) -> None:
    """:func:`flag_heads` and :func:`flag_tails` in one exchange through shared memory."""
