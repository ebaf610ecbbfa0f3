"""Warp-wide exchanges (CUB ``cub::WarpExchange``): rearrange each logical warp's items across its lanes.

Each lane holds N items in a ``cuda.local.array(N, dtype)``. In a logical warp of ``threads`` lanes,
*blocked* order gives lane ``l`` the warp's items ``l*N .. l*N+N-1`` and *striped* order the items
``l, l + threads, ...``. The result goes to ``output`` (default: ``x``, in place).
``algorithm="shuffle"`` transposes in registers and needs ``items_per_thread == threads``. CUB's
``WarpExchange`` has no warp-striped arrangements, no ``ScatterToBlocked`` and no guarded or flagged scatter,
so :mod:`cuda.coop.block`'s exchanges have no warp twin for those; nor does it time-slice
(``warp_time_slicing=``): a logical warp's share of shared memory is its own.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

_RENAMED = {"items": "x"}  # before 1.0 the exchanges called their input items=


@primitive("warp_exchange", "blocked_to_striped", module="warp", previous=("x", "output"), renamed=_RENAMED)
def blocked_to_striped(
    x: Any, *, output: Any = None, threads: int = 32, algorithm: str = "smem", items_per_thread: int | None = None
) -> None:
    """Turn each logical warp's blocked items into striped ones."""


@primitive("warp_exchange", "striped_to_blocked", module="warp", previous=("x", "output"), renamed=_RENAMED)
def striped_to_blocked(
    x: Any, *, output: Any = None, threads: int = 32, algorithm: str = "smem", items_per_thread: int | None = None
) -> None:
    """Turn each logical warp's striped items into blocked ones."""


@primitive("warp_exchange", "scatter_to_striped", module="warp", previous=("x", "ranks", "output"), renamed=_RENAMED)
def scatter_to_striped(
    x: Any, ranks: Any, *, output: Any = None, threads: int = 32, algorithm: str = "smem",
    items_per_thread: int | None = None,
) -> None:
    """Move item ``i`` of each lane to position ``ranks[i]`` of its logical warp's striped arrangement.

    ``ranks`` is a ``cuda.local.array(N, <integer type>)``; a logical warp's ranks must be a permutation
    of ``0 .. threads*N - 1``. Needs ``algorithm="smem"``.
    """
