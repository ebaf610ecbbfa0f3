"""``coop.warp.load`` and ``coop.warp.store``: each logical warp moves its own tile (``cub::WarpLoad``,
``cub::WarpStore``).

Which tile: ``src[offset:]`` / ``dst[offset:]`` is the tile of the *calling* logical warp. CUB ranks
lanes within the logical warp only, so warps given the same ``offset`` move the same tile; a kernel
gives each warp its own, e.g. ``offset = base + (tid // threads) * threads * items_per_thread``.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("warp_load", "load", module="warp")
def load(
    src: Any, items: Any, *, offset: Any = 0, valid_items: Any = None, oob_default: Any = None,
    algorithm: str = "auto", threads: int = 32, items_per_thread: int | None = None,
) -> None:
    """Load the calling logical warp's tile of ``threads * N`` items from ``src[offset:]`` into each
    lane's ``items``.

    ``offset`` is per logical warp: every warp given the same ``offset`` loads the same tile. To give
    each warp its own tile, compute it from the warp's index, e.g.
    ``warp = linear_tid // threads`` and ``offset = block_base + warp * threads * N``.

    Every algorithm but ``"striped"`` leaves the tile in *blocked* order (lane ``l`` gets items
    ``l*N .. l*N+N-1``); ``"striped"`` leaves it striped (lane ``l`` gets items ``l, l + threads, ...``).
    With ``valid_items`` (counted from the warp's ``offset``) the items past it get ``oob_default`` if
    given, else are left unchanged. ``"vectorize"`` is fastest when ``src[offset]`` is 16-byte aligned.
    """


@primitive("warp_store", "store", module="warp")
def store(
    dst: Any, items: Any, *, offset: Any = 0, valid_items: Any = None,
    algorithm: str = "auto", threads: int = 32, items_per_thread: int | None = None,
) -> None:
    """Store each lane's ``items`` to the calling logical warp's tile at ``dst[offset:]``; ``items`` is
    not modified.

    ``offset`` is per logical warp, as for :func:`load`. ``items`` is read in blocked order, or striped
    for ``algorithm="striped"``; with ``valid_items`` only the tile's first that many items are written.
    """
