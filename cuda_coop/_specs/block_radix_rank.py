"""``cuda_coop::BlockRadixRankBits``: rank a tile's keys by one radix digit (``cub::BlockRadixRank`` /
``cub::BlockRadixRankMatch``), for users building their own sorts and histograms.

CUB's ``RankKeys`` takes the keys' unsigned bit-ordered form and a digit-extractor object, which a kernel's call
cannot spell; cuda-coop's composition makes both from the call: it maps each key as ``cub::BlockRadixSort``
does (``cub::Traits<KeyT>::TwiddleIn``: see ``coop.block.radix_sort`` for the key order, -0.0 read as +0.0)
and extracts the digit of bits ``[begin_bit, begin_bit + min(radix_bits, end_bit - begin_bit))`` with
``cub::BFEDigitExtractor``. ``ranks[i]`` receives the key's position in the tile stably sorted by that digit
(descending: larger digits first). Ties are ordered by the arrangement each algorithm assumes: blocked
(``t*N + i``) for ``"basic"``/``"memoize"``, warp-striped (warp, item, lane) for ``"match"``.
``digit_prefix`` (optional) receives, for each digit ``d = t*B + j < 2**radix_bits`` that thread ``t``
tracks (``B = max(1, ceil(2**radix_bits / block_threads))`` digits a thread), the rank of the first key of
digit ``d``: the count of keys with a smaller digit (descending: a larger one); entries past the digits are
left unchanged. CUB's early-counts algorithms (``RADIX_RANK_MATCH_EARLY_COUNTS_*``) belong to the one-sweep
device sort (counts callbacks, warp-striped tiles) and are not offered.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, ITEMS_PER_THREAD, array, out_array
from ._model import (
    Binding,
    Constraint,
    CubEnum,
    Method,
    Overload,
    PrimitiveSpec,
    Scope,
    TemplateParam,
    TParamKind,
)
from ._registry import register_primitive
from .block_radix_sort import (
    BEGIN_BIT,
    BIT_TYPE,
    END_BIT,
    INNER_SCAN_ALGORITHM,
    KEY_TYPE,
    MAX_RADIX_BITS,
    SORT_CONSTRAINTS,
    partial_tile,
)

__all__ = ["BLOCK_RADIX_RANK", "RadixRankAlgorithm"]


class RadixRankAlgorithm(CubEnum):
    """CUB's ``RadixRankAlgorithm`` members that rank a tile on their own."""

    RADIX_RANK_BASIC = (
        "``cub::BlockRadixRank``: per-thread packed digit counters in shared memory, one block scan; ties in "
        "blocked order (thread t's items t*N .. t*N+N-1).",
        "Shared memory grows with ``2**radix_bits`` per thread; good for few radix bits.",
    )
    RADIX_RANK_MEMOIZE = (
        "``cub::BlockRadixRank`` keeping its raking segment in registers between the upsweep and downsweep; "
        "ties in blocked order.",
        "Fewer shared-memory reads than ``basic`` for more registers.",
    )
    RADIX_RANK_MATCH = (
        "``cub::BlockRadixRankMatch``: warp-private digit counters, lanes of equal digit found by warp matching; "
        "ties in warp-striped order (warp, item, lane). 1-D blocks only (CUB's inner scan assumes one).",
        "Less shared memory than ``basic`` for many radix bits; slower when a warp has many distinct digits.",
    )


RADIX_BITS = TemplateParam(
    name="radix_bits", cpp="RadixBits", kind=TParamKind.INT, optional=True, default=4, bounds=(1, MAX_RADIX_BITS),
    doc="Width of the digit in bits (``2**radix_bits`` digits; default 4, as ``radix_sort``'s passes).",
)
DESCENDING = TemplateParam(
    name="descending", cpp="IsDescending", kind=TParamKind.BOOL, optional=True, default=False,
    doc="Rank larger digits first.",
)
ALGORITHM = TemplateParam(
    name="algorithm", cpp="Algorithm", kind=TParamKind.ENUM, enum=RadixRankAlgorithm, optional=True,
    default=RadixRankAlgorithm.RADIX_RANK_BASIC, doc="Ranking algorithm (see the algorithms below).",
)
BINS_PER_THREAD = TemplateParam(
    name="bins_per_thread", cpp="BinsPerThread", kind=TParamKind.INT, bounds=(1, 1 << MAX_RADIX_BITS),
    doc="Items of ``digit_prefix``: ``max(1, ceil(2**radix_bits / block_threads))``.",
)
_KEYS = array("keys", doc="This thread's keys, a ``cuda.local.array(N, dtype)`` (not changed).")
_RANKS = out_array("ranks", "int32", doc="A ``cuda.local.array(N, np.int32)`` receiving each key's rank.")
_PREFIX = array(
    "digit_prefix", "int32", "bins_per_thread", inout=True,
    doc="A ``cuda.local.array(B, np.int32)`` receiving the rank of the first key of each digit this thread "
    "tracks (digits ``t*B .. t*B+B-1``, those below ``2**radix_bits``; other entries are left unchanged).",
)


def _tracked(b: Binding) -> int:
    return max(1, -(-(1 << int(b.values["radix_bits"])) // b.block_threads))  # integer ceil


def _storage_bytes(b: Binding) -> int:
    """A lower bound of the ranking TempStorage (the counters; CUB adds a small block scan)."""
    rb, threads = int(b.values["radix_bits"]), b.block_threads
    if b.values["algorithm"] is RadixRankAlgorithm.RADIX_RANK_MATCH:
        warps = -(-threads // 32)
        padded = warps + 1 if warps % 2 == 0 else warps
        return (1 << rb) * padded * 4
    return ((1 << max(rb - 1, 0)) + 1) * threads * 4


def _match(b: Binding) -> bool:
    return b.values["algorithm"] is RadixRankAlgorithm.RADIX_RANK_MATCH


_CONSTRAINTS = (
    *SORT_CONSTRAINTS,
    Constraint(
        check=lambda b: b.values["algorithm"] is not RadixRankAlgorithm.RADIX_RANK_MATCH
        or b.block_dim[1:] == (1, 1),
        message="algorithm='match' needs a 1-D block (CUB's BlockRadixRankMatch scans as if the block were "
        "block_threads x block_dim_y x block_dim_z threads), but the block is {block_dim}; use "
        "algorithm='basic' or 'memoize', or a 1-D block",
    ),
    Constraint(
        check=lambda b: "bins_per_thread" not in b.values or int(b.values["bins_per_thread"]) == _tracked(b),
        message="digit_prefix= has {bins_per_thread} items, but with radix_bits={radix_bits} on {block_threads} "
        "threads each thread tracks max(1, ceil(2**radix_bits / block_threads)) digits; make digit_prefix a "
        "cuda.local.array of that many int32",
    ),
    Constraint(
        check=lambda b: b.values["algorithm"] is RadixRankAlgorithm.RADIX_RANK_MATCH
        or b.block_threads * int(b.values["items_per_thread"]) <= 65535,
        message="algorithm={algorithm} counts digits in 16 bits: a tile of {block_threads} x "
        "items_per_thread={items_per_thread} keys is over 65535; use fewer items per thread or algorithm='match'",
    ),
    Constraint(
        check=lambda b: not _match(b) or _storage_bytes(b) <= 48 * 1024,
        message="radix_bits={radix_bits} with algorithm={algorithm} on {block_threads} threads needs more than "
        "the 48 KiB of shared memory a block may have for its digit counters; use fewer radix_bits",
    ),
    Constraint(
        check=lambda b: _match(b) or _storage_bytes(b) <= 48 * 1024,
        message="radix_bits={radix_bits} with algorithm={algorithm} on {block_threads} threads needs more than "
        "the 48 KiB of shared memory a block may have for its digit counters; use fewer radix_bits, or "
        "algorithm='match' (1-D blocks), whose counters take less for many bits",
    ),
)

_VALID = partial_tile(
    "Rank only the tile's first ``valid_items`` keys: in blocked order (``t*N + i``), or for ``\"match\"`` in "
    "its warp-striped order ((warp, item, lane): position ``w*32*N + i*W + l`` with ``W`` the warp's lanes). The "
    "later keys rank after every valid one (ranks ``valid_items`` and up); the valid keys' ranks, and the "
    "``digit_prefix`` entries of every digit the bit range can hold, are those of the valid keys alone (ascending, "
    "an entry past those digits, when ``end_bit - begin_bit < radix_bits``, counts the whole tile).",
    warp_striped=(RadixRankAlgorithm.RADIX_RANK_MATCH,),
)
_BITS = (ITEMS_PER_THREAD, BIT_TYPE)
_PREFIX_BITS = (ITEMS_PER_THREAD, BINS_PER_THREAD, BIT_TYPE)

BLOCK_RADIX_RANK = register_primitive(
    PrimitiveSpec(
        name="block_radix_rank",
        cub_class="cuda_coop::BlockRadixRankBits",
        header="cuda_coop/block_radix_rank.cuh",
        scope=Scope.BLOCK,
        tparams=(
            KEY_TYPE,
            BLOCK_DIMS[0],
            ITEMS_PER_THREAD,
            RADIX_BITS,
            DESCENDING,
            ALGORITHM,
            INNER_SCAN_ALGORITHM,
            BLOCK_DIMS[1],
            BLOCK_DIMS[2],
        ),
        methods=(
            Method(
                name="radix_rank",
                cpp="RankKeys",
                overloads=(
                    Overload(name="ranks", params=(_KEYS, _RANKS, BEGIN_BIT, END_BIT), tparams=_BITS),
                    Overload(
                        name="ranks_prefix", params=(_KEYS, _RANKS, _PREFIX, BEGIN_BIT, END_BIT), tparams=_PREFIX_BITS
                    ),
                    Overload(
                        name="ranks_valid",
                        params=(_KEYS, _RANKS, BEGIN_BIT, END_BIT, _VALID),
                        tparams=(*_BITS, COUNT_TYPE),
                    ),
                    Overload(
                        name="ranks_prefix_valid",
                        params=(_KEYS, _RANKS, _PREFIX, BEGIN_BIT, END_BIT, _VALID),
                        tparams=(*_PREFIX_BITS, COUNT_TYPE),
                    ),
                ),
                doc="Rank the tile's keys by one digit of their bit-ordered form (and the digits' first ranks).",
            ),
        ),
        algorithm=RadixRankAlgorithm,
        constraints=_CONSTRAINTS,
        doc="Block-wide radix ranking: cuda-coop's composition of ``cub::BlockRadixRank`` / "
        "``cub::BlockRadixRankMatch`` with CUB's key bit-ordering and ``cub::BFEDigitExtractor``.",
        example="block_radix_rank",
    )
)
