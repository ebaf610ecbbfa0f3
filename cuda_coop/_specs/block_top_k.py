"""``cuda_coop::BlockTopK``: the k largest (or smallest) keys of a block's tile, in order, with their values;
a cuda-coop composition of ``cub::BlockRadixSort``.

The tile is sorted (descending for ``largest=True``) into a striped arrangement and each thread writes its
items of sorted rank ``r < k`` to ``out_keys[offset + r]`` (and ``out_values[offset + r]``): the stores of one
rank row are coalesced and ``out_keys[offset : offset + k]`` holds the tile's top k in order. Ties keep input
order (the sort is stable), so among equal keys the earlier tile positions are chosen. ``k`` is a runtime
integer of any type, clamped to ``[0, tile]`` (``k >= tile`` writes the whole sorted tile, ``k <= 0``
nothing). The caller's ``keys`` and ``values`` are not changed (the sort runs on a copy).

Why not CCCL 3.6's ``cub::detail::block_topk``: it lives in CUB's internal ``detail`` namespace (no API or
behaviour guarantee between CCCL releases), is undocumented, and its member templates take an ``IsFullTile``
parameter and a layout the public spec model does not describe; a radix sort gives a documented, stable
order (the same as ``coop.block.radix_sort``) for the cost of one block sort. The warp version, ``coop.warp.top_k``
(:mod:`.warp_top_k`), sorts with ``cub::WarpMergeSort`` in the same order: CUB has no warp radix sort.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, ITEMS_PER_THREAD, VALID_TYPE, array
from ._model import ArgKind, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive
from .block_radix_sort import (
    INNER_SCAN_ALGORITHM,
    KEY_ORDER_DOC,
    KEY_TYPE,
    MEMOIZE_OUTER_SCAN,
    RADIX_BITS,
    SORT_CONSTRAINTS,
    VALUE_TYPE,
    partial_tile,
    storage_constraint,
)

__all__ = ["BLOCK_TOP_K", "top_k_overloads"]

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
        ),
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
        constraints=(*SORT_CONSTRAINTS, storage_constraint("value_type")),
        doc="Block-wide top-k: cuda-coop's composition of ``cub::BlockRadixSort`` (CCCL's ``cub::detail::block_topk`` "
        "is internal and undocumented). " + KEY_ORDER_DOC,
        example="block_top_k",
    )
)
