"""Block-wide radix sorting (CUB ``cub::BlockRadixSort``) and cuda-coop's compositions of it: sort a tile of
keys (and values), argsort it, take its top k.

Each thread holds N keys in a ``cuda.local.array(N, dtype)`` (and N values); the tile is the block's
``block_threads * N`` keys, in blocked order on input (thread ``t`` holds tile positions ``t*N .. t*N+N-1``).
Keys are any integer type, float16, bfloat16, float32 or float64. The
order is CUB's radix order: integers numerically, floats (every width) ``-NaN < -inf < ... < -0.0 == +0.0 < ... < +inf <
+NaN`` (-0.0 and +0.0 tie and keep their input order); every sort here is stable, descending too. CUB has
no warp radix sort: :func:`cuda.coop.warp.argsort` and :func:`cuda.coop.warp.top_k` use a merge sort.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

__all__ = ["argsort", "radix_rank", "radix_sort", "top_k"]


@primitive("block_radix_sort", "radix_sort", module="block", previous=("keys", "values"))
def radix_sort(
    keys: Any,
    *,
    values: Any = None,
    descending: bool = False,
    begin_bit: int = 0,
    end_bit: int | None = None,
    valid_items: Any = None,
    output: str = "blocked",
    radix_bits: int = 4,
    memoize_outer_scan: bool = True,
    inner_scan_algorithm: str = "warp_scans",
    items_per_thread: int | None = None,
) -> None:
    """Sort the block's tile of ``keys`` (with their ``values``) by the key bits ``[begin_bit, end_bit)``.

    After the call thread ``t`` holds the sorted positions ``t*N .. t*N+N-1`` (``output="blocked"``)
    or ``t, t + block_threads, ...`` (``output="striped"``). The bits are those of CUB's order-preserving
    form of the key (signed integers and floats have their sign bit flipped, negative floats all bits);
    ``begin_bit``/``end_bit`` may be runtime integers, constants are checked against the key's width;
    ``begin_bit == end_bit`` keeps the input order; ``begin_bit > end_bit`` is undefined in CUB (refused when
    both are constants). With ``valid_items`` only the tile's first ``valid_items`` keys are sorted, into its first
    ``valid_items`` positions; the rest hold unspecified keys and values.

    Key order: integers numerically; floats ``-NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN`` (a NaN by
    its sign bit; -0.0 and +0.0 tie, keep their input order and their signs). Stable, descending too.
    """


@primitive("block_argsort", "argsort", module="block")
def argsort(
    keys: Any,
    indices: Any,
    *,
    descending: bool = False,
    base: int = 0,
    begin_bit: int = 0,
    end_bit: int | None = None,
    valid_items: Any = None,
    output: str = "blocked",
    radix_bits: int = 4,
    memoize_outer_scan: bool = True,
    inner_scan_algorithm: str = "warp_scans",
    items_per_thread: int | None = None,
) -> None:
    """Fill ``indices`` with ``base`` + each key's tile position and sort them with the keys, stably.

    Afterwards the tile of ``indices`` (arranged as ``output``) is ``np.argsort(tile, kind="stable") + base``
    (for ``descending``, ties still in input order) and ``keys`` is sorted as by ``radix_sort``. ``indices``
    is a ``cuda.local.array(N, <any integer type>)``; its input is ignored. Key order as ``radix_sort``:
    -0.0 and +0.0 tie (input order kept), a NaN sorts by its sign bit (-NaN first, +NaN last). With
    ``valid_items`` the first ``valid_items`` positions hold ``np.argsort(tile[:valid_items], kind="stable") +
    base``; the rest are unspecified.
    """


@primitive("block_top_k", "top_k", module="block", previous=("keys", "k", "out_keys", "values", "out_values"))
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
    algorithm: str = "auto",
    radix_bits: int = 4,
    memoize_outer_scan: bool = True,
    inner_scan_algorithm: str = "warp_scans",
    items_per_thread: int | None = None,
) -> None:
    """Write the tile's ``k`` largest keys (``largest=False``: smallest), in order, to
    ``out_keys[offset : offset + k]`` and their values to ``out_values[offset : offset + k]``.

    ``k`` is clamped to ``[0, tile]``; with ``valid_items`` only the tile's first ``valid_items`` keys count and
    at most ``min(k, valid_items)`` are written. Ties keep input order (-0.0 and +0.0 tie); +NaN is the largest
    key and -NaN the smallest (CUB's radix order); ``keys`` and ``values`` are not changed. Every ``algorithm``
    writes the same keys and values: ``"radix_sort"`` sorts the tile (``cub::BlockRadixSort``; ``radix_bits``,
    ``memoize_outer_scan`` and ``inner_scan_algorithm`` are its), ``"air"`` selects with CCCL's AIR radix select
    (``cub::detail::block_topk``, 1-D blocks) and orders the selection itself, ``"air_or_radix_sort"`` picks
    between them by k at run time.
    """


@primitive("block_radix_rank", "radix_rank", module="block", previous=("keys", "ranks", "digit_prefix"))
def radix_rank(
    keys: Any,
    ranks: Any,
    *,
    digit_prefix: Any = None,
    radix_bits: int = 4,
    begin_bit: int = 0,
    end_bit: int | None = None,
    descending: bool = False,
    valid_items: Any = None,
    algorithm: str = "basic",
    inner_scan_algorithm: str = "warp_scans",
    items_per_thread: int | None = None,
    bins_per_thread: int | None = None,
) -> None:
    """Rank the tile's ``keys`` by the digit of bits ``[begin_bit, begin_bit + radix_bits)`` (cut at ``end_bit``)
    of their bit-ordered form: ``ranks[i]`` receives the key's position in the tile stably sorted by that digit.

    Ties keep blocked order for ``algorithm="basic"``/``"memoize"`` and warp-striped order (warp, item, lane)
    for ``"match"`` (1-D blocks only). With ``digit_prefix`` (a ``cuda.local.array(B, np.int32)``, ``B = max(1,
    ceil(2**radix_bits / block_threads))``: 1 for the default 4 radix bits on 16 threads or more) thread ``t``
    also receives the first rank of each digit ``t*B .. t*B+B-1`` below ``2**radix_bits`` (the count of keys
    ordered before that digit). With ``valid_items`` only the tile's first ``valid_items`` keys (in the order
    ties keep) are ranked among themselves; the others rank after them. The bit-ordered form and the float order
    are ``radix_sort``'s (-0.0 and +0.0 tie); ``keys`` are not changed.
    """
