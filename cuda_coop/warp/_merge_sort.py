"""Warp-wide sort (``cub::WarpMergeSort`` or ``cub::detail::WarpBitonicSort``): each logical warp sorts its tile of
keys, and values.

Each lane holds N keys in a ``cuda.local.array(N, dtype)`` (and N values); a logical warp of ``threads``
lanes (a power of two up to 32) sorts its ``threads * N`` keys, in blocked order, by ``compare``.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("warp_merge_sort", "merge_sort", module="warp", previous=("keys", "compare", "values"))
def merge_sort(
    keys: Any,
    compare: Any,
    *,
    values: Any = None,
    valid_items: Any = None,
    oob_default: Any = None,
    stable: bool = False,
    threads: int = 32,
    algorithm: str = "auto",
    items_per_thread: int | None = None,
) -> None:
    """Sort each logical warp's tile of ``keys`` (with their ``values``) in place by ``compare``.

    After the call lane ``l`` of each logical warp holds the warp's sorted positions ``l*N .. l*N+N-1``.
    With ``valid_items`` only the warp's first ``valid_items`` keys are sorted into its first
    ``valid_items`` positions; the rest hold unspecified keys and values. ``stable=True`` keeps
    equivalent keys in their input order. ``algorithm="bitonic"`` is not stable without ``stable=True`` (keys
    ``compare`` does not order may come out in another order than ``"merge_sort"`` gives); with it, and for every
    partial tile, it gives the merge sort's result bit for bit.
    """
