"""``cuda_coop::WarpTopK``: the k largest (or smallest) keys of each logical warp's tile, in order, with their
values; a cuda-coop composition of ``cub::WarpMergeSort`` or ``cub::detail::WarpBitonicSort``.

A copy of the logical warp's tile is sorted in ``coop.block.radix_sort``'s key order (see :mod:`.warp_argsort`;
descending for ``largest=True``), stably, and the items of sorted rank ``r < k`` are written to
``out_keys[offset + r]`` (and ``out_values[offset + r]``): ``out_keys[offset : offset + k]`` holds the warp tile's
top k in order. Ties keep input order, so among equal keys the earlier warp-tile positions are chosen, as
``coop.block.top_k`` does for a block. ``k`` is an integer of any type clamped to ``[0, warp tile]``; ``k`` and
``offset`` must be the same in every lane of the logical warp (each logical warp passes its own, e.g.
``offset = warp * k`` through ``cuda.coop.uniform``). The caller's ``keys`` and ``values`` are not changed.
Logical warps of a power of two lanes up to 32 (both networks need one).

``algorithm=`` (:class:`~.warp_merge_sort.WarpSortAlgorithm`): ``"merge_sort"`` sorts with
``cub::WarpMergeSort::StableSort`` and lane ``l`` writes its blocked ranks ``l*N + i``; ``"bitonic"`` sorts (key,
position) pairs with ``cub::detail::WarpBitonicSort``, ties broken by position, and lane ``l`` writes the striped
ranks ``i*threads + l`` the network leaves it (no exchange, no shared memory). Both write the same output, bit for
bit, so ``"auto"`` may pick either; it picks ``"merge_sort"`` until the table measures the warp sorts.
"""

from __future__ import annotations

from ._common import COUNT_TYPE, ITEMS_PER_THREAD, LOGICAL_WARP_CONSTRAINT, THREADS, array
from ._model import ArgKind, Method, Param, PrimitiveSpec, Scope
from ._registry import register_primitive
from .block_radix_sort import KEY_ORDER_DOC, KEY_TYPE, VALUE_TYPE, partial_tile
from .block_top_k import LARGEST, top_k_overloads
from .warp_merge_sort import DETAIL_DOC, WarpSortAlgorithm, warp_sort_algorithm

__all__ = ["WARP_TOP_K"]

_KEYS = array("keys", doc="This lane's keys, a ``cuda.local.array(N, dtype)`` (not changed).")
_VALUES = array(
    "values", "value_type",
    doc="This lane's values (a ``cuda.local.array(N, <type>)`` of any dtype; not changed); needs ``out_values``.",
)
_K = Param(
    name="k", kind=ArgKind.SCALAR, type="count_type", count_limit="warp_tile", uniform=True,
    doc="How many keys to write: an integer of any type, clamped to [0, warp tile]; runtime values are fine.",
)


def _out(name: str, type_: str, what: str) -> Param:
    return Param(
        name=name, kind=ArgKind.POINTER, type=type_, uniform=True, min_extent="offset + min(k, valid_items, warp_tile)",
        doc=f"A 1-D C-contiguous array (global or shared) receiving the logical warp's top {what} at "
        "``[offset, offset + k)``.",
    )


_OUT_KEYS = _out("out_keys", "dtype", "keys")
_OUT_VALUES = _out("out_values", "value_type", "keys' values")
_OFFSET = Param(
    name="offset", kind=ArgKind.SCALAR, type="int64", default=0, uniform=True, bounds=(0, 2**63 - 1),
    doc="Index of the first output element in ``out_keys``/``out_values`` (e.g. ``coop.uniform(warp * k)``); an "
    "int64 value, the same in every lane of the logical warp.",
)
_TPARAMS = (ITEMS_PER_THREAD, COUNT_TYPE, LARGEST)
_VALID = partial_tile(
    "Take the top k of the logical warp tile's first ``valid_items`` keys (positions ``l*N + i``) only: at most "
    "``min(k, valid_items)`` keys are written. Clamped to [0, warp tile].",
    limit="warp_tile",
    descending="largest",
    limits=("k",),
    type_="valid_type",
)

ALGORITHM = warp_sort_algorithm(
    "warp_top_k",
    "Sort algorithm; ``\"merge_sort\"`` and ``\"bitonic\"`` write the same keys and values, bit for bit. ``\"auto\"`` "
    "(the default) picks the one measured faster: provisional, since no warp sort is measured yet "
    "(``\"merge_sort\"`` everywhere until then).",
)

WARP_TOP_K = register_primitive(
    PrimitiveSpec(
        name="warp_top_k",
        cub_class="cuda_coop::WarpTopK",
        header="cuda_coop/warp_top_k.cuh",
        # cub/warp/warp_bitonic_sort.cuh (through cuda_coop/detail/warp_bitonic.cuh; older CCCLs such as CUDA 13.0's
        # lack it): after the version check, where used, so that a wrong CCCL first fails with that check's message.
        preamble=False,
        scope=Scope.WARP,
        tparams=(KEY_TYPE, ITEMS_PER_THREAD, THREADS, VALUE_TYPE, ALGORITHM),
        algorithm=WarpSortAlgorithm,
        methods=(
            Method(
                name="top_k",
                cpp="TopK{largest}",
                choices={"largest": {False: "Smallest", True: "Largest"}},
                overloads=top_k_overloads(
                    keys=_KEYS, k=_K, out_keys=_OUT_KEYS, values=_VALUES, out_values=_OUT_VALUES, offset=_OFFSET,
                    valid=_VALID, tparams=_TPARAMS,
                ),
                doc="Write the logical warp tile's k largest (or smallest) keys, in order, and their values. "
                + KEY_ORDER_DOC,
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide top-k in every logical warp: cuda-coop's composition of ``cub::WarpMergeSort`` "
        "(``algorithm=\"merge_sort\"``) or of ``cub::detail::WarpBitonicSort`` over (key, position) pairs "
        "(``\"bitonic\"``; the same result), stable, in ``coop.block.radix_sort``'s key order (CUB has no warp radix "
        "sort). " + KEY_ORDER_DOC + " " + DETAIL_DOC,
        example="warp_top_k",  # examples/warp_sort.py
    )
)
