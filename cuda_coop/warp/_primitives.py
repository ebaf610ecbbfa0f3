"""Warp-wide primitives (CUB ``cub::Warp*``): every thread of a logical warp calls them together.

``threads`` is the logical warp size, a power of two from 1 to 32 (default 32); the block is
split into ``block_threads / threads`` logical warps (by CUB's linear thread rank) that work
independently. The block size must be a multiple of ``threads``.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("warp.reduce", ("warp_reduce", "reduce"), data="x", static=("op", "threads"))
def reduce(x: Any, op: Any, *, threads: int = 32, valid_items: Any = None) -> Any:
    """Reduce one value per thread with ``op`` across the logical warp; valid in its lane 0 (``cub::WarpReduce``).

    ``op`` as for :func:`cuda.coop.block.reduce`. ``valid_items`` reduces only the first that many lanes.
    """


@primitive("warp.sum", ("warp_reduce", "sum"), data="x", static=("threads",))
def sum(x: Any, *, threads: int = 32, valid_items: Any = None) -> Any:
    """Sum of one value per thread across the logical warp; valid in its lane 0."""


@primitive("warp.exclusive_sum", ("warp_scan", "exclusive_sum"), data="x", static=("threads",))
def exclusive_sum(x: Any, *, threads: int = 32) -> Any:
    """Exclusive prefix sum across the logical warp (``cub::WarpScan::ExclusiveSum``); lane 0 gets 0."""


@primitive("warp.inclusive_sum", ("warp_scan", "inclusive_sum"), data="x", static=("threads",))
def inclusive_sum(x: Any, *, threads: int = 32) -> Any:
    """Inclusive prefix sum across the logical warp (``cub::WarpScan::InclusiveSum``)."""


@primitive("warp.exclusive_scan", ("warp_scan", "exclusive_scan"), data="x", static=("op", "threads"))
def exclusive_scan(x: Any, op: Any, initial_value: Any, *, threads: int = 32) -> Any:
    """Exclusive scan with ``op`` seeded with ``initial_value`` across the logical warp."""


@primitive("warp.inclusive_scan", ("warp_scan", "inclusive_scan"), data="x", static=("op", "threads"))
def inclusive_scan(x: Any, op: Any, *, threads: int = 32) -> Any:
    """Inclusive scan with ``op`` across the logical warp (``cub::WarpScan::InclusiveScan``)."""
