"""Block-wide exchanges (CUB ``cub::BlockExchange``): rearrange the block's tile across threads.

Each thread holds N items in a ``cuda.local.array(N, dtype)``; the tile is the block's
``block_threads * N`` items. *Blocked* order gives thread ``t`` the tile's items ``t*N .. t*N+N-1``,
*striped* order the items ``t, t + block_threads, ...``, *warp-striped* order stripes each warp's
``32*N`` items across its lanes. The result goes to ``output`` (default: ``x``, in place); the
input is never modified otherwise. ``warp_time_slicing=True`` needs one warp's share of shared memory
instead of the whole tile's, at the price of one barrier round per warp.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

_TRANSPOSE = ("x", "output")
_SCATTER = ("x", "ranks", "output")
_RENAMED = {"items": "x"}  # before 1.0 the exchanges called their input items=


@primitive("block_exchange", "striped_to_blocked", module="block", previous=_TRANSPOSE, renamed=_RENAMED)
def striped_to_blocked(
    x: Any, *, output: Any = None, warp_time_slicing: bool = False, items_per_thread: int | None = None
) -> None:
    """Turn a striped tile (e.g. from a coalesced striped load) into a blocked one."""


@primitive("block_exchange", "blocked_to_striped", module="block", previous=_TRANSPOSE, renamed=_RENAMED)
def blocked_to_striped(
    x: Any, *, output: Any = None, warp_time_slicing: bool = False, items_per_thread: int | None = None
) -> None:
    """Turn a blocked tile into a striped one (e.g. for a coalesced striped store)."""


@primitive("block_exchange", "warp_striped_to_blocked", module="block", previous=_TRANSPOSE, renamed=_RENAMED)
def warp_striped_to_blocked(
    x: Any, *, output: Any = None, warp_time_slicing: bool = False, items_per_thread: int | None = None
) -> None:
    """Turn a warp-striped tile into a blocked one. The block size must be a multiple of 32."""


@primitive("block_exchange", "blocked_to_warp_striped", module="block", previous=_TRANSPOSE, renamed=_RENAMED)
def blocked_to_warp_striped(
    x: Any, *, output: Any = None, warp_time_slicing: bool = False, items_per_thread: int | None = None
) -> None:
    """Turn a blocked tile into a warp-striped one. The block size must be a multiple of 32."""


@primitive("block_exchange", "scatter_to_blocked", module="block", previous=_SCATTER, renamed=_RENAMED)
def scatter_to_blocked(
    x: Any, ranks: Any, *, output: Any = None, warp_time_slicing: bool = False, items_per_thread: int | None = None
) -> None:
    """Move item ``i`` of each thread to tile position ``ranks[i]``; the result is in blocked order.

    ``ranks`` is a ``cuda.local.array(N, <integer type>)``; the block's ranks must be a permutation of
    ``0 .. block_threads*N - 1``.
    """


@primitive("block_exchange", "scatter_to_striped", module="block", previous=_SCATTER, renamed=_RENAMED)
def scatter_to_striped(
    x: Any, ranks: Any, *, output: Any = None, warp_time_slicing: bool = False, items_per_thread: int | None = None
) -> None:
    """Move item ``i`` of each thread to tile position ``ranks[i]``; the result is in striped order.

    ``ranks`` as for :func:`scatter_to_blocked`.
    """


@primitive("block_exchange", "scatter_to_striped_guarded", module="block", previous=_SCATTER, renamed=_RENAMED)
def scatter_to_striped_guarded(
    x: Any, ranks: Any, *, output: Any = None, warp_time_slicing: bool = False, items_per_thread: int | None = None
) -> None:
    """Like :func:`scatter_to_striped`, but items whose rank is negative are not moved.

    ``ranks`` is a signed integer array. Output positions that no item was ranked to are undefined.
    Needs ``warp_time_slicing=False`` for blocks of more than 32 threads.
    """


@primitive(
    "block_exchange", "scatter_to_striped_flagged", module="block",
    previous=("x", "ranks", "valid_flags", "output"), renamed=_RENAMED,
)
def scatter_to_striped_flagged(
    x: Any, ranks: Any, valid_flags: Any, *, output: Any = None, warp_time_slicing: bool = False,
    items_per_thread: int | None = None,
) -> None:
    """Like :func:`scatter_to_striped`, but only items whose ``valid_flags[i]`` is nonzero are moved.

    ``valid_flags`` is a ``cuda.local.array(N, bool or integer type)``. Output positions that no valid
    item was ranked to are undefined. Needs ``warp_time_slicing=False`` for blocks of more than 32 threads.
    """
