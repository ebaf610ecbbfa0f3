"""Warp-wide exchanges (CUB ``cub::WarpExchange``): rearrange each logical warp's items across its lanes.

Each lane holds N items in a ``cuda.local.array(N, dtype)``. In a logical warp of ``threads`` lanes,
*blocked* order gives lane ``l`` the warp's items ``l*N .. l*N+N-1`` and *striped* order the items
``l, l + threads, ...``. The result goes to ``output`` (default: ``items``, in place).
``algorithm="shuffle"`` transposes in registers and needs ``items_per_thread == threads``.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("warp_exchange", "blocked_to_striped", module="warp")
def blocked_to_striped(
    items: Any, output: Any = None, *, threads: int = 32, algorithm: str = "smem", items_per_thread: int | None = None
) -> None:
    """Turn each logical warp's blocked items into striped ones."""


@primitive("warp_exchange", "striped_to_blocked", module="warp")
def striped_to_blocked(
    items: Any, output: Any = None, *, threads: int = 32, algorithm: str = "smem", items_per_thread: int | None = None
) -> None:
    """Turn each logical warp's striped items into blocked ones."""


@primitive("warp_exchange", "scatter_to_striped", module="warp")
def scatter_to_striped(
    items: Any, ranks: Any, output: Any = None, *, threads: int = 32, algorithm: str = "smem",
    items_per_thread: int | None = None,
) -> None:
    """Move item ``i`` of each lane to position ``ranks[i]`` of its logical warp's striped arrangement.

    ``ranks`` is a ``cuda.local.array(N, <integer type>)``; a logical warp's ranks must be a permutation
    of ``0 .. threads*N - 1``. Needs ``algorithm="smem"``.
    """
