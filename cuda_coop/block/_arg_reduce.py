"""Block-wide argmax and argmin (cuda-coop's composition of ``cub::BlockReduce`` over (value, position) pairs)."""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("block_arg_reduce", "argmax", module="block", previous=("x", "index"))
def argmax(x: Any, *, index: Any = None, items_per_thread: int | None = None) -> Any:
    """Return ``(value, position)``: the block's largest item and its position, the lowest on ties; valid in
    thread 0.

    ``x`` is one value per thread (position: the thread's CUB linear rank, or ``index``, an int64) or a
    ``cuda.local.array`` of N values in blocked order (position ``rank * N + i``). NaN counts as the largest
    value, as in ``np.argmax``. Integers and floating-point values only: complex numbers have no order.
    """


@primitive("block_arg_reduce", "argmin", module="block", previous=("x", "index"))
def argmin(x: Any, *, index: Any = None, items_per_thread: int | None = None) -> Any:
    """Return ``(value, position)``: the block's smallest item and its position, the lowest on ties; valid in
    thread 0. Forms as for :func:`argmax`; NaN counts as the smallest value, as in ``np.argmin``."""
