"""Block-wide radix sort (CUB ``cub::BlockRadixSort``): sort the block's tile of keys, and values.

Each thread holds N keys in a ``cuda.local.array(N, dtype)`` (and N values); the tile is the block's
``block_threads * N`` keys, in blocked order on input. The sort is stable and in place.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("block_radix_sort", "radix_sort", module="block")
def radix_sort(
    keys: Any,
    values: Any = None,
    *,
    descending: bool = False,
    begin_bit: int = 0,
    end_bit: int | None = None,
    output: str = "blocked",
    radix_bits: int = 4,
    memoize_outer_scan: bool = True,
    inner_scan_algorithm: str = "warp_scans",
    items_per_thread: int | None = None,
) -> None:
    """Sort the block's tile of ``keys`` (with their ``values``) by the key bits ``[begin_bit, end_bit)``.

    After the call thread ``t`` holds the sorted positions ``t*N .. t*N+N-1`` (``output="blocked"``)
    or ``t, t + block_threads, ...`` (``output="striped"``).
    """
