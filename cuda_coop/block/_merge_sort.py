"""Block-wide merge sort (CUB ``cub::BlockMergeSort``): sort the block's tile of keys, and values, with a comparator.

Each thread holds N keys in a ``cuda.local.array(N, dtype)`` (and N values); the tile is the block's
``block_threads * N`` keys in blocked order. ``compare(a, b)`` is true when ``a`` goes before ``b``.
The block's thread count must be a power of two.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("block_merge_sort", "merge_sort", module="block", previous=("keys", "compare", "values"))
def merge_sort(
    keys: Any,
    compare: Any,
    *,
    values: Any = None,
    valid_items: Any = None,
    oob_default: Any = None,
    stable: bool = False,
    items_per_thread: int | None = None,
) -> None:
    """Sort the block's tile of ``keys`` (with their ``values``) in place by ``compare``.

    After the call thread ``t`` holds the sorted positions ``t*N .. t*N+N-1``. With ``valid_items`` only
    the tile's first ``valid_items`` keys are sorted into its first ``valid_items`` positions; the rest
    hold unspecified keys and values. ``stable=True`` keeps equivalent keys in their input order.
    """
