"""Warp-wide argsort and top-k (cuda-coop's compositions of ``cub::WarpMergeSort`` or ``cub::detail::WarpBitonicSort``;
CUB has no warp radix sort).

Each lane holds N keys in a ``cuda.local.array(N, dtype)``; a logical warp of ``threads`` lanes (a power of
two up to 32) works on its ``threads * N`` keys in blocked order (lane ``l`` holds positions ``l*N .. l*N+N-1``).
The key order is ``coop.block.radix_sort``'s over all the key's bits, and the sorts are stable with either
``algorithm=`` (the same result, bit for bit). The block forms'
``begin_bit=``/``end_bit=`` (a bit range), ``output=`` (a striped result) and radix tuning (``radix_bits=``,
``memoize_outer_scan=``, ``inner_scan_algorithm=``) belong to CUB's block radix sort and have no warp equivalent.
``valid_items=`` takes the warp tile's first that many keys, as for the block forms (the keys past it are padded
with the key that sorts last).
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

__all__ = ["argsort", "top_k"]


@primitive("warp_argsort", "argsort", module="warp")
def argsort(
    keys: Any,
    indices: Any,
    *,
    descending: bool = False,
    base: int = 0,
    valid_items: Any = None,
    threads: int = 32,
    algorithm: str = "auto",
    items_per_thread: int | None = None,
) -> None:
    """Fill ``indices`` with ``base`` + each key's position in the logical warp's tile and sort them with the
    keys, stably.

    Afterwards the logical warp's tile of ``indices`` (blocked) is ``np.argsort(warp_tile, kind="stable") +
    base`` (for ``descending``, ties still in input order) and ``keys`` is sorted. ``indices`` is a
    ``cuda.local.array(N, <any integer type>)``; its input is ignored. Key order as
    :func:`cuda.coop.block.radix_sort` (all bits): -0.0 and +0.0 tie (input order kept), a NaN sorts by its
    sign bit (-NaN first, +NaN last). With ``valid_items`` the warp tile's first ``valid_items`` positions hold
    ``np.argsort(warp_tile[:valid_items], kind="stable") + base``; the rest are unspecified.
    """


@primitive("warp_top_k", "top_k", module="warp", previous=("keys", "k", "out_keys", "values", "out_values"))
def top_k(
    keys: Any,
    out_keys: Any,
    *,
    k: Any,
    values: Any = None,
    out_values: Any = None,
    largest: bool = True,
    offset: int = 0,
    valid_items: Any = None,
    threads: int = 32,
    algorithm: str = "auto",
    items_per_thread: int | None = None,
) -> None:
    """Write the logical warp tile's ``k`` largest keys (``largest=False``: smallest), in order, to
    ``out_keys[offset : offset + k]`` and their values to ``out_values[offset : offset + k]``.

    ``k`` is clamped to ``[0, warp tile]``; with ``valid_items`` only the warp tile's first ``valid_items`` keys
    count and at most ``min(k, valid_items)`` are written. ``k``, ``valid_items`` and ``offset`` are the same in
    every lane of the logical warp (e.g. ``offset=coop.uniform(warp * k)``). Ties keep input order (-0.0 and +0.0
    tie); +NaN is the largest key and -NaN the smallest (:func:`cuda.coop.block.radix_sort`'s order); ``keys``
    and ``values`` are not changed.
    """
