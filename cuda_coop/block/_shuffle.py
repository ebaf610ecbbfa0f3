"""Block-wide shuffles (CUB ``cub::BlockShuffle``): values and tiles move between threads.

Threads are ranked in CUB's row-major order (x fastest). :func:`shuffle_offset` and
:func:`shuffle_rotate` move one value per thread; :func:`shuffle_up` and :func:`shuffle_down` move the
block's blocked tile (N items per thread) by one item.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("block_shuffle", "offset", module="block", previous=("x", "distance"))
def shuffle_offset(x: Any, *, distance: Any = None) -> Any:
    """Return the ``x`` of the thread ``distance`` ranks away (default 1: the next thread).

    The result is unspecified in threads whose source rank lies outside the block (the last
    ``distance`` threads for a positive distance, the first ``-distance`` for a negative one).
    """


@primitive("block_shuffle", "rotate", module="block", previous=("x", "distance"))
def shuffle_rotate(x: Any, *, distance: Any = None) -> Any:
    """Return the ``x`` of the thread ``distance`` ranks later (default 1), wrapping around the block.

    ``distance`` must lie in ``[0, block_threads]`` (see its description).
    """


@primitive("block_shuffle", "up", module="block", previous=("x", "output"))
def shuffle_up(x: Any, *, output: Any = None, block_suffix: Any = None, items_per_thread: int | None = None) -> None:
    """Shift the tile up by one item: ``output`` item ``i`` of the tile is ``x`` item ``i - 1``.

    The tile's first item (thread 0's ``output[0]``) has no source and keeps ``output``'s previous value
    (in place: ``x[0]``). ``block_suffix`` receives the tile's last item in every thread.
    """


@primitive("block_shuffle", "down", module="block", previous=("x", "output"))
def shuffle_down(x: Any, *, output: Any = None, block_prefix: Any = None, items_per_thread: int | None = None) -> None:
    """Shift the tile down by one item: ``output`` item ``i`` of the tile is ``x`` item ``i + 1``.

    The tile's last item (the last thread's ``output[N-1]``) has no source and keeps ``output``'s previous
    value (in place: ``x[N-1]``). ``block_prefix`` receives the tile's first item in every thread.
    """
