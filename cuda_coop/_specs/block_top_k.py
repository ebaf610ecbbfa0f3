"""``cuda_coop::BlockTopK``: the k largest (or smallest) keys of a block's tile, in order, with their values;
a cuda-coop composition of ``cub::BlockRadixSort`` or of CCCL's AIR radix select.

The C++ is ``include/cuda_coop/block_top_k.cuh`` (and its ``specializations/``).

The contract, the same for every algorithm (bit for bit, keys and values): ``out_keys[offset : offset + k]`` receives
the tile's k best keys in order (largest first for ``largest=True``) and ``out_values`` their values, in the order
of a stable ``cub::BlockRadixSort``: ties keep input order, so among equal keys the earliest tile positions are
chosen; -0.0 and +0.0 are equal (each keeps its sign); a NaN sorts by its bits. ``k`` is a runtime integer of any
type, clamped to ``[0, tile]`` (``k >= tile`` writes the whole sorted tile, ``k <= 0`` nothing); a partial tile
(``valid_items``) pads the keys past it with the key that sorts last, as the sorts do, so at most
``min(k, valid_items)`` keys are written. The caller's ``keys`` and ``values`` are not changed.

Algorithms (:class:`BlockTopKAlgorithm`):

- ``"radix_sort"``: sort the tile, store the ranks below k (any block shape; cost independent of k);
- ``"air"``: CCCL 3.6's ``cub::detail::block_topk`` (AIR radix select, ``cub/block/specializations/block_topk_air.cuh``)
  selects without sorting: its k keys come back unordered and, among keys tied with the k-th, an arbitrary subset.
  cuda-coop runs it on a copy only to learn the k-th best key, then flags, scans and ranks the original keys itself
  (``cuda_coop::detail::BlockTopKAir``) to keep the contract. CCCL numbers its threads by ``threadIdx.x`` alone,
  so 1-D blocks only;
- ``"air_or_radix_sort"``: both compiled, AIR for ``min(k, valid_items) <= 64`` at run time, the sort above.

``"auto"`` (the default) decides from what is known when the kernel compiles (key size, block size, items per
thread: ``auto_table.json``, measured by ``benchmarks/auto_table.py`` at k = 32) between ``"radix_sort"`` and
``"air_or_radix_sort"``, which decides by k at run time; never ``"air"`` alone (its cost grows with k), never an AIR
algorithm on a 2-D or 3-D block. Without a measurement it is ``"radix_sort"``: nothing was measured on a GPU yet
(this was written without one), and ``"air_or_radix_sort"``, which holds both algorithms, takes more registers (a
kernel of the compile tier, four collectives on 128 threads x 8 uint32 keys, spills with it and not with the
sort). The threshold 64 is provisional too; ``benchmarks/suite.py``'s ``top_k`` cases (k from 1 to 512, each
algorithm against its nvcc twin) and ``auto_table.py --only block_top_k`` settle both.

CUB's ``detail`` namespace promises no stability between CCCL releases: the bundled CCCL is pinned (3.6), and the
tests pin what ``"air"`` relies on, so a CCCL upgrade that changes it turns them red: the compile tier checks the
declarations used (tests/compile/test_block_top_k_air.py), the GPU tier compares ``"air"`` bit for bit with
``"radix_sort"`` (tests/gpu/test_block_top_k_algorithms.py). The warp version, ``coop.warp.top_k``
(:mod:`.warp_top_k`), sorts with ``cub::WarpMergeSort`` in the same order: CUB has no warp radix sort.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, ITEMS_PER_THREAD, VALID_TYPE, array
from ._model import (
    ArgKind,
    Auto,
    Binding,
    Constraint,
    CubEnum,
    Method,
    Overload,
    Param,
    PrimitiveSpec,
    Scope,
    TemplateParam,
    TParamKind,
)
from ._registry import register_primitive
from ._types import NONE_TYPE
from .block_radix_sort import (
    INNER_SCAN_ALGORITHM,
    KEY_ORDER_DOC,
    KEY_TYPE,
    MEMOIZE_OUTER_SCAN,
    RADIX_BITS,
    SHARED_BYTES,
    SORT_CONSTRAINTS,
    VALUE_TYPE,
    partial_tile,
    sort_storage_bytes,
)

__all__ = ["AIR_MAX_K", "BLOCK_TOP_K", "BlockTopKAlgorithm", "air_storage_bytes", "top_k_overloads"]

AIR_MAX_K = 64
"""``BlockTopK::AIR_MAX_K``: the largest ``min(k, valid_items)`` that ``"air_or_radix_sort"`` selects with AIR.
Provisional (not measured on a GPU yet; ``benchmarks/suite.py``'s block_top_k cases settle it)."""


class BlockTopKAlgorithm(CubEnum):
    """``cuda_coop::BlockTopKAlgorithm``: how ``coop.block.top_k`` finds the k best keys. Every member writes the
    same keys and values, bit for bit."""

    BLOCK_TOP_K_RADIX_SORT = (
        "Sorts the whole tile with ``cub::BlockRadixSort`` (descending for the largest) into a striped arrangement; "
        "each thread stores its items of rank below k, so the stores of a rank row are coalesced. Any block shape.",
        "The cost of one block radix sort of the tile (``ceil(key bits / radix_bits)`` passes), whatever k; "
        "the choice for large k.",
    )
    BLOCK_TOP_K_AIR = (
        "CCCL's AIR radix select (``cub::detail::block_topk``) finds the k best keys of a copy of the tile without "
        "sorting it, in 8-bit digit passes over candidates only; their worst is the k-th best key. Then one block "
        "scan of (better, equal) flags places the ties (the earliest positions, in order) and counts the better keys, "
        "which are put in shared memory in position order and each ranked by counting those before it. 1-D blocks "
        "only (CCCL numbers its threads by ``threadIdx.x``).",
        "Fewer passes than a sort (one per 8 key bits, stopping early) and no data movement but the k keys, plus a "
        "block reduction and a block scan; the ranking costs about k * ceil(k / block_threads) shared-memory loads "
        "per thread, so it grows with k: for small k (not measured yet).",
    )
    BLOCK_TOP_K_AIR_OR_RADIX_SORT = (
        f"Both compiled; at run time ``\"air\"`` when ``min(k, valid_items) <= {AIR_MAX_K}``, ``\"radix_sort\"`` "
        "above. 1-D blocks only.",
        "Each call pays only the algorithm it runs, but the kernel's registers and shared memory are the larger of "
        f"the two, and its compile takes both. The threshold {AIR_MAX_K} is provisional (not measured yet).",
    )

    @classmethod
    def _cpp_scope(cls) -> str:
        return "cuda_coop::"


_AIR_MEMBERS = (BlockTopKAlgorithm.BLOCK_TOP_K_AIR, BlockTopKAlgorithm.BLOCK_TOP_K_AIR_OR_RADIX_SORT)
_SORT_MEMBERS = (BlockTopKAlgorithm.BLOCK_TOP_K_RADIX_SORT, BlockTopKAlgorithm.BLOCK_TOP_K_AIR_OR_RADIX_SORT)

ALGORITHM = TemplateParam(
    name="algorithm", cpp="Algorithm", kind=TParamKind.ENUM, enum=BlockTopKAlgorithm, optional=True,
    default=BlockTopKAlgorithm.BLOCK_TOP_K_RADIX_SORT,
    auto=Auto(table="block_top_k", never=(BlockTopKAlgorithm.BLOCK_TOP_K_AIR,)),
    doc="How the k best keys are found; the result is the same for every algorithm. ``\"auto\"`` picks between "
    "``\"radix_sort\"`` and ``\"air_or_radix_sort\"`` (1-D blocks only) where the table measured them, never "
    "``\"air\"`` alone (its cost grows with k, which is known only at run time, and the table measures one k); "
    "without a measurement (none yet: provisional) it is ``\"radix_sort\"``.",
)


def air_storage_bytes(b: Binding) -> int:
    """A lower bound of ``BlockTopKAir``'s TempStorage in bytes: AIR's double-buffered 256-bucket histograms or its
    exchange of the tile's keys, the tile of keys or values ranked in shared memory, and a few counters."""
    tile = b.block_threads * int(b.values["items_per_thread"])
    sizes = [b.type_of("dtype").size]
    if b.values.get("value_type") not in (None, NONE_TYPE):
        sizes.append(b.type_of("value_type").size)
    return max(2 * 256 * 4, tile * max(sizes)) + 20


def _storage_bytes(b: Binding) -> int:
    """The storage of the algorithm bound (a union for ``"air_or_radix_sort"``)."""
    algorithm = b.values["algorithm"]
    air = air_storage_bytes(b) if algorithm in _AIR_MEMBERS else 0
    return max(air, sort_storage_bytes(b) if algorithm in _SORT_MEMBERS else 0)


_CONSTRAINTS = (  # the storage first: where no algorithm fits, its message names the sizes to change
    *SORT_CONSTRAINTS,
    Constraint(
        check=lambda b: _storage_bytes(b) <= SHARED_BYTES,
        message="{primitive}: a tile of {block_threads} threads x items_per_thread={items_per_thread} keys of "
        "{dtype} and their values needs more than the 48 KiB of shared memory a block may have for "
        "algorithm={algorithm} (radix_bits={radix_bits}); use fewer items per thread, a smaller block or narrower "
        "keys/values",
    ),
    Constraint(
        check=lambda b: b.values["algorithm"] not in _AIR_MEMBERS or b.block_dim[1:] == (1, 1),
        message="algorithm={algorithm} needs a 1-D block: CCCL's AIR select (cub::detail::block_topk) numbers its "
        "threads by threadIdx.x alone, but the block is {block_dim}; use algorithm='radix_sort', or a 1-D block",
    ),
)

def top_k_overloads(
    *,
    keys: Param,
    k: Param,
    out_keys: Param,
    values: Param,
    out_values: Param,
    offset: Param,
    valid: Param,
    tparams: tuple[TemplateParam, ...],
) -> tuple[Overload, ...]:
    """A top-k's forms, in the wrapper's argument order: keys, or pairs, over a whole tile or a partial one (the
    partial tile's count has a type of its own, ``valid_type``, beside k's ``count_type``)."""
    keys_only, pairs = (keys, k, out_keys, offset), (keys, k, out_keys, values, out_values, offset)
    return (
        Overload(name="keys", params=keys_only, tparams=tparams),
        Overload(name="pairs", params=pairs, tparams=tparams),
        Overload(name="keys_valid", params=(*keys_only, valid), tparams=(*tparams, VALID_TYPE)),
        Overload(name="pairs_valid", params=(*pairs, valid), tparams=(*tparams, VALID_TYPE)),
    )


LARGEST = TemplateParam(
    name="largest", cpp="Largest", kind=TParamKind.BOOL, optional=True, default=True,
    doc="The k largest keys, largest first (default); False: the k smallest, smallest first.",
)
_KEYS = array("keys", doc="This thread's keys, a ``cuda.local.array(N, dtype)`` (not changed).")
_VALUES = array(
    "values", "value_type",
    doc="This thread's values (a ``cuda.local.array(N, <type>)`` of any dtype; not changed); needs ``out_values``.",
)
_K = Param(
    name="k", kind=ArgKind.SCALAR, type="count_type", count_limit="tile", uniform=True,
    doc="How many keys to write: an integer of any type, clamped to [0, tile]; runtime values are fine.",
)


def _out(name: str, type_: str, what: str) -> Param:
    return Param(
        name=name, kind=ArgKind.POINTER, type=type_, uniform=True, min_extent="offset + min(k, valid_items, tile)",
        doc=f"A 1-D C-contiguous array (global or shared) receiving the top {what} at ``[offset, offset + k)``.",
    )


_OUT_KEYS = _out("out_keys", "dtype", "keys")
_OUT_VALUES = _out("out_values", "value_type", "keys' values")
_OFFSET = Param(
    name="offset", kind=ArgKind.SCALAR, type="int64", default=0, uniform=True, bounds=(0, 2**63 - 1),
    doc="Index of the first output element in ``out_keys``/``out_values`` (e.g. ``cuda.blockIdx.x * k``); an "
    "int64 value.",
)
_TPARAMS = (ITEMS_PER_THREAD, COUNT_TYPE, LARGEST)
_VALID = partial_tile(
    "Take the top k of the tile's first ``valid_items`` keys (blocked positions ``t*N + i``) only: at most "
    "``min(k, valid_items)`` keys are written.",
    descending="largest",
    limits=("k",),
    type_="valid_type",
)

BLOCK_TOP_K = register_primitive(
    PrimitiveSpec(
        name="block_top_k",
        cub_class="cuda_coop::BlockTopK",
        header="cuda_coop/block_top_k.cuh",
        scope=Scope.BLOCK,
        tparams=(
            KEY_TYPE,
            BLOCK_DIMS[0],
            ITEMS_PER_THREAD,
            VALUE_TYPE,
            RADIX_BITS,
            MEMOIZE_OUTER_SCAN,
            INNER_SCAN_ALGORITHM,
            BLOCK_DIMS[1],
            BLOCK_DIMS[2],
            ALGORITHM,
        ),
        algorithm=BlockTopKAlgorithm,
        methods=(
            Method(
                name="top_k",
                cpp="TopK{largest}",
                choices={"largest": {False: "Smallest", True: "Largest"}},
                overloads=top_k_overloads(
                    keys=_KEYS, k=_K, out_keys=_OUT_KEYS, values=_VALUES, out_values=_OUT_VALUES, offset=_OFFSET,
                    valid=_VALID, tparams=_TPARAMS,
                ),
                doc="Write the tile's k largest (or smallest) keys, in order, and their values. " + KEY_ORDER_DOC,
            ),
        ),
        constraints=_CONSTRAINTS,
        doc="Block-wide top-k: cuda-coop's composition of ``cub::BlockRadixSort`` or of CCCL's AIR radix select "
        "(``cub::detail::block_topk``, which lives in CUB's ``detail`` namespace: no stability promise between CCCL "
        "releases; the bundled CCCL is pinned and the tests pin its behaviour, so an upgrade that changes it turns "
        "them red). Every algorithm writes the same result. " + KEY_ORDER_DOC,
        example="block_top_k",
    )
)
