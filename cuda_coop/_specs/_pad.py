"""Partial tiles of sorts and ranks whose CUB class takes no count: the wrapper pads the tile (``Param.pad``).

``cub::BlockRadixSort``, ``cub::BlockRadixRank`` and cuda-coop's compositions of them (and of
``cub::WarpMergeSort`` in radix order) sort or rank a whole tile. A ``valid_items`` count declared with a
:class:`Pad` is honoured by the wrapper instead of CUB: before CUB runs, each key at a tile position at or past
the count is replaced by the key that sorts after every valid key in CUB's radix order, the key whose bit-ordered
form (``cub::Traits<T>::TwiddleIn``) is all ones for an ascending order (unsigned: all ones; signed: the maximum;
floats: the positive NaN with every payload bit set) and all zeros for a descending one (unsigned 0; signed the
minimum; floats: the negative NaN with every bit set). It is the largest (smallest) key in any bit range
``[begin_bit, end_bit)`` too. The sorts and ranks are stable and the padding sits after every valid item, so the
valid keys keep their order among equals and take the first ``valid_items`` positions (ranks); what the later
positions hold is unspecified.

The renderer (``_provider._render``) reads the declaration and calls ``cuda_coop_detail::pad_keys``; nothing there
names a family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Pad"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Pad:
    """How the wrapper honours a count that CUB does not take: it pads the per-thread array ``array``.

    The count is then not passed to CUB (see the module docstring for the key each padded item gets).
    """

    array: str
    """The per-thread ARRAY of keys padded (``"keys"``), in the same overload; a copy when it is an input, the
    caller's array when CUB sorts it in place."""
    descending: str | None = None
    """The BOOL template parameter that is True for a descending order (``"descending"``, top-k's ``"largest"``);
    None: always ascending."""
    warp_striped: tuple[Any, ...] = ()
    """Members of the spec's ``algorithm`` for which CUB orders ties warp-striped, (warp, item, lane), not blocked
    (``cub::BlockRadixRankMatch``): the tile positions counted are then that order's."""
    limits: tuple[str, ...] = ()
    """Other counts of the overload that the count bounds too (top-k writes ``min(k, valid_items)`` keys)."""
