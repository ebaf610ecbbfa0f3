"""The block shape of a kernel that gives each thread block one row: threads, and items per thread.

:func:`row_shape` states one rule, the same for every item type, so that a user does not have to guess a shape
and a recipe does not hard-code one. The rule is a hypothesis that ``benchmarks/peers.py`` tests on a GPU: it times
the shape chosen here next to its neighbours (half and twice the threads, with twice and half the items per
thread) and records which was fastest, so that a measurement can confirm or correct the rule.

No module state. NumPy is imported when :func:`row_shape` is called, not when ``cuda.coop`` is imported.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

from .errors import UsageError

__all__ = ["BYTES_PER_THREAD", "MAX_THREADS", "MIN_THREADS", "RowShape", "row_shape"]

BYTES_PER_THREAD = 32
"""Bytes of a tile each thread holds: two 16-byte vector loads (``ld.global.v4``) in flight per thread."""
MIN_THREADS = 32
"""The smallest block :func:`row_shape` picks: one warp."""
MAX_THREADS = 1024
"""The largest block CUDA allows, and :func:`row_shape`'s default ``max_threads``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RowShape:
    """A block shape for one-block-per-row kernels: ``threads`` per block, ``items_per_thread`` items each.

    A kernel built for it defines ``cuda.local.array(shape.items_per_thread, dtype)`` and is launched with
    ``shape.threads`` threads per block; a row of ``n`` items is ``shape.tiles(n)`` tiles of ``shape.tile``
    items, the last one partial when ``n`` is not a multiple of ``shape.tile``.
    """

    threads: int
    items_per_thread: int

    @property
    def tile(self) -> int:
        """The number of items the block holds at once, ``threads * items_per_thread``."""
        return self.threads * self.items_per_thread

    def tiles(self, n: int) -> int:
        """How many tiles cover ``n`` items (the last may be partial); 0 for ``n == 0``."""
        return -(-n // self.tile)

    def __str__(self) -> str:
        return f"{self.threads}x{self.items_per_thread}"


def row_shape(n: int, dtype: Any, *, max_threads: int = MAX_THREADS) -> RowShape:
    """Threads and items per thread for a kernel whose blocks each process one row of ``n`` items of ``dtype``.

    The rule (not yet confirmed by a measurement; ``benchmarks/peers.py`` times it against its neighbours):

    - **items per thread**: 32 bytes of items, two 16-byte vector loads per thread (``32 // itemsize``: 8
      ``float32``, 16 ``float16``/``bfloat16``, 32 ``uint8``, 4 ``float64``; 1 for items wider than 32 bytes).
      A thread that issues two vector loads keeps more bytes in flight than one that issues one, and a multiple
      of the vector width lets ``algorithm="vectorize"`` use vector loads;
    - **threads**: the smallest power of two, at least 32 (one warp) and at most ``max_threads``, whose tile
      holds the whole row, so that the row is read once and stays in registers. A longer row is several tiles
      of ``max_threads`` threads each, the last one partial where ``n`` is not a multiple of the tile. Powers
      of two keep the number of distinct kernels small: every row length up to the same power of two shares
      one kernel.

    Parameters
    ----------
    n:
        The row's length in items, at least 1.
    dtype:
        The item type: anything ``numpy.dtype`` takes (``np.float32``, ``"int8"``, ``ml_dtypes.bfloat16``).
    max_threads:
        The largest block to pick: a power of two from 32 to 1024 (lower it for a kernel whose shared memory
        or registers limit its block size).

    Returns
    -------
    RowShape
        ``threads`` and ``items_per_thread``; ``tiles(n)`` is the number of tiles a row takes.

    Raises
    ------
    cuda.coop.errors.UsageError
        ``n`` is not a positive integer, ``dtype`` is not a NumPy type, or ``max_threads`` is not a power of
        two from 32 to 1024.

    Examples
    --------
    >>> import numpy as np
    >>> import cuda.coop as coop
    >>> coop.row_shape(4096, np.float32)
    RowShape(threads=512, items_per_thread=8)
    >>> coop.row_shape(1000, np.float16).tiles(1000)
    1
    """
    length = _integer(n)
    if length is None or length < 1:
        raise UsageError(f"row_shape(n={n!r}): n is the row's length in items, a positive int")
    cap = _integer(max_threads)
    if cap is None or not MIN_THREADS <= cap <= MAX_THREADS or cap & (cap - 1):
        raise UsageError(
            f"row_shape(max_threads={max_threads!r}): pass a power of two from {MIN_THREADS} to {MAX_THREADS}"
        )
    import numpy as np

    try:
        itemsize = np.dtype(dtype).itemsize
    except TypeError:
        raise UsageError(
            f"row_shape(dtype={dtype!r}): pass a NumPy item type (np.float32, 'int8', ml_dtypes.bfloat16)"
        ) from None
    if itemsize < 1:
        raise UsageError(f"row_shape(dtype={dtype!r}): the type has no size; pass a NumPy item type")
    items = max(1, BYTES_PER_THREAD // itemsize)
    needed = -(-length // items)
    threads = MIN_THREADS
    while threads < needed and threads < cap:
        threads *= 2
    return RowShape(threads=threads, items_per_thread=items)


def _integer(value: object) -> int | None:
    """``value`` as an int (Python and NumPy integers), or None for anything else (bool included)."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None
