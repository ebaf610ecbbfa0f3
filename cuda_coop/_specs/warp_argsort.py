"""``cuda_coop::WarpArgsort``: the permutation that sorts each logical warp's tile, a cuda-coop composition of
``cub::WarpMergeSort`` or ``cub::detail::WarpBitonicSort``.

CUB has no warp radix sort; a stable sort of (key, index) pairs gives the same result as ``coop.block.argsort`` does
for a block: ``indices`` receives ``base + l*N + i`` (each key's position in the logical warp's tile, lane ``l``
holding positions ``l*N .. l*N+N-1``, offset by ``base``) and the pairs are sorted by key, stably, so afterwards lane
``l``'s ``indices`` are the warp-tile positions of the sorted keys: ``np.argsort(warp_tile, kind="stable") + base``
(descending: ties still in input order).

``algorithm=`` (:class:`~.warp_merge_sort.WarpSortAlgorithm`): ``"merge_sort"`` sorts the (key, index) pairs with
``cub::WarpMergeSort::StableSort``; ``"bitonic"`` sorts (key, position) pairs with ``cub::detail::WarpBitonicSort``,
ties broken by position (a strict total order: the unstable network gives the stable result), exchanges the striped
result back to blocked and writes ``base + position``. Both give the same keys and indices, bit for bit, so
``"auto"`` may pick either; it picks ``"merge_sort"`` until the table measures the warp sorts.

Key order: the comparator compares CUB's radix-order form of the keys (``cub::NumericTraits<KeyT>::TwiddleIn``
of their bits, -0.0 read as +0.0, as ``cub::BlockRadixSort`` does), so the order is exactly
``coop.block.radix_sort``'s over all the key's bits: integers numerically; floats ``-NaN < -inf < ... < -0.0 ==
+0.0 < ... < +inf < +NaN`` (a NaN by its sign bit and payload; -0.0 and +0.0 tie and keep their input order).
There is no bit range. Logical warps of a power of two lanes up to 32 (both networks need one).
"""

from __future__ import annotations

from ._common import COUNT_TYPE, ITEMS_PER_THREAD, LOGICAL_WARP_CONSTRAINT, THREADS, array
from ._model import ArgKind, Method, Overload, Param, PrimitiveSpec, Scope
from ._registry import register_primitive
from .block_argsort import INDEX_TYPE
from .block_radix_sort import DESCENDING, KEY_ORDER_DOC, KEY_TYPE, partial_tile
from .warp_merge_sort import DETAIL_DOC, WarpSortAlgorithm, warp_sort_algorithm

__all__ = ["WARP_ARGSORT"]

_KEYS = array(
    "keys", inout=True,
    doc="This lane's keys, a ``cuda.local.array(N, dtype)``; the logical warp's tile is sorted in place (blocked: "
    "lane ``l`` receives the warp's sorted positions ``l*N .. l*N+N-1``).",
)
_INDICES = array(
    "indices", "index_type", inout=True,
    doc="A ``cuda.local.array(N, <integer type>)``; its input is ignored: it receives ``base`` plus the "
    "warp-tile positions (``l*N + i``) of this lane's sorted keys.",
)
_BASE = Param(
    name="base", kind=ArgKind.SCALAR, type="int64", default=0, uniform=True,
    doc="Added to every warp-tile position (e.g. the warp tile's offset in the whole array); an int64 value.",
)
_VALID = partial_tile(
    "Sort only the logical warp tile's first ``valid_items`` keys (positions ``l*N + i``) with their indices into "
    "its first ``valid_items`` positions; the later positions hold unspecified keys and indices. Clamped to [0, "
    "warp tile].",
    limit="warp_tile",
)

ALGORITHM = warp_sort_algorithm(
    "warp_argsort",
    "Sort algorithm; ``\"merge_sort\"`` and ``\"bitonic\"`` give the same keys and indices, bit for bit. ``\"auto\"`` "
    "(the default) picks the one measured faster: provisional, since no warp sort is measured yet "
    "(``\"merge_sort\"`` everywhere until then).",
)

WARP_ARGSORT = register_primitive(
    PrimitiveSpec(
        name="warp_argsort",
        cub_class="cuda_coop::WarpArgsort",
        header="cuda_coop/warp_argsort.cuh",
        # cub/warp/warp_bitonic_sort.cuh (through cuda_coop/detail/warp_bitonic.cuh; older CCCLs such as CUDA 13.0's
        # lack it): after the version check, where used, so that a wrong CCCL first fails with that check's message.
        preamble=False,
        scope=Scope.WARP,
        tparams=(KEY_TYPE, ITEMS_PER_THREAD, THREADS, INDEX_TYPE, ALGORITHM),
        algorithm=WarpSortAlgorithm,
        methods=(
            Method(
                name="argsort",
                cpp="Argsort{descending}",
                choices={"descending": {False: "", True: "Descending"}},
                overloads=(
                    Overload(name="pairs", params=(_KEYS, _INDICES, _BASE), tparams=(ITEMS_PER_THREAD, DESCENDING)),
                    Overload(
                        name="pairs_valid",
                        params=(_KEYS, _INDICES, _BASE, _VALID),
                        tparams=(ITEMS_PER_THREAD, DESCENDING, COUNT_TYPE),
                    ),
                ),
                doc="Fill ``indices`` with ``base`` + warp-tile positions and sort them with the keys, stably. "
                + KEY_ORDER_DOC,
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide stable argsort in every logical warp: cuda-coop's composition of ``cub::WarpMergeSort`` over "
        "(key, index) pairs (``algorithm=\"merge_sort\"``) or of ``cub::detail::WarpBitonicSort`` over (key, position) "
        "pairs (``\"bitonic\"``; the same result), in ``coop.block.radix_sort``'s key order (CUB has no warp radix "
        "sort). " + KEY_ORDER_DOC + " " + DETAIL_DOC,
        example="warp_argsort",  # examples/warp_sort.py
    )
)
