"""Block-wide adjacent differences (CUB ``cub::BlockAdjacentDifference``).

Each thread holds N items of the block's tile in blocked order (thread ``t`` holds items
``t*N .. t*N+N-1``). ``subtract_left`` combines every item with the one before it in the tile,
``subtract_right`` with the one after it; the result goes to ``output`` (default: ``x``, in place).
``op(item, neighbour)`` is any binary function: a known operator (``"-"`` for a difference, the same as
``operator.sub`` and ``np.subtract``; ``"+"``, ``"max"``...) or a Python function of two items.
:func:`subtract_right_partial_tile` has no ``tile_successor_item``: CUB's ``SubtractRightPartialTile`` takes none.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("block_adjacent_difference", "subtract_left", module="block", previous=("x", "op", "output"))
def subtract_left(
    x: Any, op: Any, *, output: Any = None, tile_predecessor_item: Any = None, items_per_thread: int | None = None
) -> None:
    """``output[i] = op(x[i], x[i - 1])`` along the tile.

    The tile's first item (thread 0's ``x[0]``) is copied, or becomes ``op(x[0], tile_predecessor_item)``
    when the item before the tile is given.
    """


@primitive(
    "block_adjacent_difference", "subtract_left_partial_tile", module="block",
    previous=("x", "op", "valid_items", "output"),
)
def subtract_left_partial_tile(
    x: Any,
    op: Any,
    *,
    valid_items: Any,
    output: Any = None,
    tile_predecessor_item: Any = None,
    items_per_thread: int | None = None,
) -> None:
    """:func:`subtract_left` over the tile's first ``valid_items`` items; the later items are copied."""


@primitive("block_adjacent_difference", "subtract_right", module="block", previous=("x", "op", "output"))
def subtract_right(
    x: Any, op: Any, *, output: Any = None, tile_successor_item: Any = None, items_per_thread: int | None = None
) -> None:
    """``output[i] = op(x[i], x[i + 1])`` along the tile.

    The tile's last item (the last thread's ``x[N-1]``) is copied, or becomes ``op(x[N-1], tile_successor_item)``
    when the item after the tile is given.
    """


@primitive(
    "block_adjacent_difference", "subtract_right_partial_tile", module="block",
    previous=("x", "op", "valid_items", "output"),
)
def subtract_right_partial_tile(
    x: Any, op: Any, *, valid_items: Any, output: Any = None, items_per_thread: int | None = None
) -> None:
    """:func:`subtract_right` over the tile's first ``valid_items`` items.

    Item ``valid_items - 1`` (the last valid one) and every later item are copied.
    """
