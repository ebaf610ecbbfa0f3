"""Block histogram (``cub::BlockHistogram``): public stubs; the spec is ``_specs/block_histogram.py``."""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

__all__ = ["histogram", "histogram_composite", "histogram_init"]


@primitive("block_histogram", "histogram", module="block")
def histogram(
    samples: Any, counters: Any, *, bins: int, algorithm: str = "auto", items_per_thread: int | None = None
) -> None:
    """Count the block's samples into ``counters[0:bins]``, which it first sets to zero.

    Every thread passes its ``samples`` (integers in ``[0, bins)``; other values are undefined
    behaviour, as in CUB). The counters are written by all threads and there is no barrier at the end:
    call ``cuda.syncthreads()`` before reading them. To count several tiles into the same counters, zero
    them once (this function, or a loop and ``cuda.syncthreads()``) and add the next tiles with
    :func:`histogram_composite`.
    """


@primitive("block_histogram", "histogram_composite", module="block")
def histogram_composite(
    samples: Any, counters: Any, *, bins: int, algorithm: str = "auto", items_per_thread: int | None = None
) -> None:
    """Add the block's samples to the counts already in ``counters[0:bins]``.

    The counters must have been initialised, and that initialisation made visible to the block
    (``cuda.syncthreads()``), before the call. As for :func:`histogram`, synchronise before reading them.
    """


@primitive("block_histogram", "histogram_init", module="block")
def histogram_init(counters: Any, *, bins: int) -> None:
    """Set ``counters[0:bins]`` to zero, each thread of the block a strided share (CUB's ``InitHistogram``).

    Call it with every thread of the block, then ``cuda.syncthreads()`` before the block adds to the counters
    with :func:`histogram_composite` (there is no barrier at either end). Counters past ``bins`` are left alone.
    It zeroes the counters for a series of tiles: ``histogram_init``, ``cuda.syncthreads()``, then one
    ``histogram_composite`` per tile, also when the series may be empty.
    """
