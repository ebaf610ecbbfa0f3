"""Warp-wide argmax and argmin (cuda-coop's composition of ``cub::WarpReduce`` over (value, position) pairs)."""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("warp_arg_reduce", "argmax", module="warp", previous=("x", "index"))
def argmax(x: Any, *, index: Any = None, threads: int = 32, items_per_thread: int | None = None) -> Any:
    """Return ``(value, position)``: the logical warp's largest item and its position, the lowest on ties;
    valid in its lane 0.

    Positions are within the logical warp: the lane (one value per lane, unless ``index`` gives one) or
    ``lane * N + i`` for a ``cuda.local.array`` of N values. NaN counts as the largest value.
    """


@primitive("warp_arg_reduce", "argmin", module="warp", previous=("x", "index"))
def argmin(x: Any, *, index: Any = None, threads: int = 32, items_per_thread: int | None = None) -> Any:
    """Return ``(value, position)``: the logical warp's smallest item and its position, the lowest on ties;
    valid in its lane 0. Forms as for :func:`argmax`."""
