"""Warp-wide primitives (CUB ``cub::Warp*``): every thread of a logical warp calls them together.

``threads`` is the logical warp size, a power of two from 1 to 32 (default 32); the block is
split into ``block_threads / threads`` logical warps (by CUB's linear thread rank) that work
independently. The block size must be a multiple of ``threads``. Each stub's parameters and
defaults are checked against its CUB spec, which also writes the second half of its docstring.

Where the block forms have more, CUB's warp classes have no equivalent: ``WarpReduce`` and ``WarpScan`` have one
algorithm each (no ``algorithm=``); ``WarpScan`` takes one item per lane (no array form: no ``output=`` or
``items_per_thread=``), has no prefix callback (no ``prefix_op=``/``prefix_state=``) and gives ``warp_aggregate=``
where a block scan gives ``block_aggregate=``.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("warp_reduce", "reduce", module="warp")
def reduce(x: Any, op: Any, *, threads: int = 32, valid_items: Any = None, items_per_thread: int | None = None,
           broadcast: bool = False) -> Any:
    """Reduce one value (or a ``cuda.local.array`` of N values) per thread with ``op`` across the logical
    warp; the result is valid in its lane 0, or in every lane with ``broadcast=True`` (one shuffle).

    ``op`` as for :func:`cuda.coop.block.reduce`. ``valid_items`` (scalar form only) reduces the first
    that many lanes.
    """


@primitive("warp_reduce", "sum", module="warp")
def sum(x: Any, *, threads: int = 32, valid_items: Any = None, items_per_thread: int | None = None,
        broadcast: bool = False) -> Any:
    """Sum of one value (or N values) per thread across the logical warp; valid in its lane 0 (every lane
    with ``broadcast=True``)."""


@primitive("warp_scan", "exclusive_sum", module="warp")
def exclusive_sum(x: Any, *, warp_aggregate: Any = None, threads: int = 32) -> Any:
    """Exclusive prefix sum across the logical warp; lane 0 gets 0."""


@primitive("warp_scan", "inclusive_sum", module="warp")
def inclusive_sum(x: Any, *, warp_aggregate: Any = None, threads: int = 32) -> Any:
    """Inclusive prefix sum across the logical warp."""


@primitive("warp_scan", "exclusive_scan", module="warp", previous=("x", "op", "initial_value"))
def exclusive_scan(x: Any, op: Any, *, initial_value: Any, warp_aggregate: Any = None, threads: int = 32) -> Any:
    """Exclusive scan with ``op`` seeded with ``initial_value`` across the logical warp.

    ``initial_value`` is required: CUB's ``WarpScan`` has no prefix callback (``prefix_op=`` of
    :func:`cuda.coop.block.exclusive_scan`) to seed it instead.
    """


@primitive("warp_scan", "inclusive_scan", module="warp")
def inclusive_scan(x: Any, op: Any, *, initial_value: Any = None, warp_aggregate: Any = None,
                   threads: int = 32) -> Any:
    """Inclusive scan with ``op`` across the logical warp, optionally seeded with ``initial_value``."""
