"""``cuda_coop::WarpSort``: each logical warp sorts its own tile of keys (and values) with a comparator, by
``cub::WarpMergeSort`` or ``cub::detail::WarpBitonicSort``.

A logical warp of ``threads`` lanes (a power of two up to 32) holding N keys each sorts its ``threads * N`` keys, in
blocked order (lane ``l`` holds the warp's positions ``l*N .. l*N+N-1``), before and after the call, whatever the
algorithm. Comparator, stability, partial tiles (``valid_items`` counts the logical warp's keys) and ``oob_default``
are as for :mod:`.block_merge_sort`.

``algorithm=`` (:class:`WarpSortAlgorithm`, shared with ``coop.warp.argsort`` and ``coop.warp.top_k``):
``"merge_sort"`` is ``cub::WarpMergeSort`` itself; ``"bitonic"`` is cuda-coop's composition (``cuda_coop::WarpSort``,
``include/cuda_coop/warp_merge_sort.cuh``) of CCCL 3.6's ``cub::detail::WarpBitonicSort``, a network that is not
stable and works on a striped tile. Without ``stable=True`` and on a whole tile it is that network alone: keys that
``compare`` does not order (equal keys with values; -0.0 and +0.0 under ``"<"``; keys equal under a user comparator but
different in bits) may come out in another order than ``"merge_sort"`` gives (CUB's ``Sort`` promises no order for
them either). With ``stable=True``, and for every partial tile, each key is paired with its tile position and ties are
broken by it: the result is the merge sort's, bit for bit, on the first ``valid_items`` positions. The sorted tile
comes out of the network striped and is exchanged back to blocked through shared memory (nothing moves for one item
per lane).

``"auto"`` (the default) picks ``"bitonic"`` only where its result cannot differ from the merge sort's and the
measured table says it is faster (``Auto.ties_unseen``: see :func:`_ties_unseen`); the table has no measurement of
the warp sorts yet, so it binds ``"merge_sort"`` everywhere until ``benchmarks/auto_table.py`` has run on a GPU.
"""

from __future__ import annotations

from collections.abc import Callable

from ._common import ITEMS_PER_THREAD, LOGICAL_WARP_CONSTRAINT, THREADS
from ._model import Auto, Binding, CubEnum, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._operators import STRICT_WEAK_ORDERS
from ._registry import register_primitive
from .block_merge_sort import KEY_TYPE, VALUE_TYPE, merge_sort_method

__all__ = ["WARP_MERGE_SORT", "WarpSortAlgorithm", "warp_sort_algorithm"]

DETAIL_DOC = (
    "``cub::detail::WarpBitonicSort`` is in CUB's ``detail`` namespace, which CCCL gives no stability promise between "
    "releases: cuda-coop bundles one CCCL (3.6) and pins the behaviour it relies on in its tests (the declarations in "
    "the compile tier, ``tests/compile/test_warp_bitonic.py``; the results against ``\"merge_sort\"``, bit for bit, in "
    "the GPU tier), so a CCCL upgrade that changes it fails them."
)


class WarpSortAlgorithm(CubEnum):
    """``cuda_coop::WarpSortAlgorithm``: how a logical warp sorts its tile (``coop.warp.merge_sort``,
    ``coop.warp.argsort``, ``coop.warp.top_k``)."""

    WARP_SORT_MERGE_SORT = (
        "``cub::WarpMergeSort``: each lane sorts its items in registers, then the lanes' sorted runs are merged "
        "pairwise through shared memory, each merge finding its split by a binary search (merge path). Stable. Any "
        "number of items per lane.",
        "Shared memory of a warp tile of keys (and one of values) per logical warp, and a ``__syncwarp`` per merge "
        "step; the merge path's searches and its data-dependent accesses cost more than the exchanges of a fixed "
        "network for small tiles.",
    )
    WARP_SORT_BITONIC = (
        "CCCL 3.6's ``cub::detail::WarpBitonicSort``: a bitonic sorting network, compare-exchanges in registers "
        "within a lane and by shuffles between lanes; any number of items per lane. Not stable by itself: for "
        "``coop.warp.argsort`` and ``coop.warp.top_k``, and for ``coop.warp.merge_sort`` with ``stable=True`` or "
        "``valid_items``, each key carries its tile position and ties are broken by it, which gives the merge sort's "
        "result bit for bit (in CUB's radix order, which ``\"<\"`` and ``\">\"`` on numbers are, the key's "
        "bit-ordered form and its position are packed into one integer, compared at once; a Python comparator "
        "compares the keys, then the positions); ``coop.warp.merge_sort`` without them runs the network alone and "
        "keys the comparator does not order may come out in another order. The network's result is striped; "
        "cuda-coop exchanges it back to blocked (``top_k`` stores it where it is). " + DETAIL_DOC,
        "No shared memory for the network (for one item per lane none at all; otherwise one warp tile for the "
        "exchange back to blocked, none for ``top_k``); ``O(N log^2 N)`` compare-exchanges for N items per lane, and "
        "for each item ``log2(threads) * (log2(threads) + 1) / 2`` shuffle rounds to sort it across the lanes plus "
        "``log2(threads)`` per merge level. Fully unrolled: its code grows with the items per lane, and a kernel of "
        "several such sorts by a Python comparator can pass what the link-time optimiser inlines (see the known "
        "issues). A packed key and position takes 32 bits for keys up to 16 bits (tiles below 32768 keys), 64 for "
        "32-bit keys, 96 for 64-bit ones. Expected to win for few items per lane; not measured yet (see "
        "``\"auto\"``).",
    )

    @classmethod
    def _cpp_scope(cls) -> str:
        return "cuda_coop::"

    @property
    def generic_lambdas(self) -> bool:
        """``cub::detail::WarpBitonicSort`` runs its stages in
        ``::cuda::static_for<num_stages>([&](auto stage) ...)``."""
        return self is WarpSortAlgorithm.WARP_SORT_BITONIC


def _ties_unseen(b: Binding) -> bool:
    """Whether ``"bitonic"`` gives a merge_sort call the merge sort's result and is what the table measures: keys
    only over a whole tile (the network alone, as measured), integer keys (keys that ``"<"`` or ``">"`` does not order
    have the same bits) and a known strict order (a user comparator may tie keys that differ). ``stable=True`` and
    partial tiles give the same result too, but through the positioned network, which the table does not measure."""
    names = {p.name for p in b.overload.all_params}
    key = b.values["dtype"]
    return (
        names == {"keys", "compare"}
        and not b.values.get("stable", False)
        and getattr(key, "kind", None) in ("int", "uint", "bool")
        and b.values.get("compare") in STRICT_WEAK_ORDERS
    )


def warp_sort_algorithm(
    table: str, doc: str, ties_unseen: Callable[[Binding], bool] | None = None
) -> TemplateParam:
    """``algorithm=`` of a warp sort (``Algorithm``, the C++ template parameter of its class), auto-chosen from
    ``table``; ``ties_unseen``: where ``"bitonic"`` may give another result (``Auto.unstable``), the calls that
    cannot tell."""
    unstable = (WarpSortAlgorithm.WARP_SORT_BITONIC,) if ties_unseen is not None else ()
    return TemplateParam(
        name="algorithm",
        cpp="Algorithm",
        kind=TParamKind.ENUM,
        enum=WarpSortAlgorithm,
        optional=True,
        default=WarpSortAlgorithm.WARP_SORT_MERGE_SORT,
        auto=Auto(table=table, unstable=unstable, ties_unseen=ties_unseen),
        doc=doc,
    )


ALGORITHM = warp_sort_algorithm(
    "warp_merge_sort",
    "Sort algorithm; ``\"auto\"`` (the default) picks ``\"bitonic\"`` only for keys-only sorts of a whole tile of "
    "integer keys by ``\"<\"`` or ``\">\"`` without ``stable=True`` (where the unstable network's result is the merge "
    "sort's, and the calls the table measures), and only where it was measured faster: provisional, since no warp sort "
    "is measured yet (``\"merge_sort\"`` everywhere until then).",
    _ties_unseen,
)

WARP_MERGE_SORT = register_primitive(
    PrimitiveSpec(
        name="warp_merge_sort",
        cub_class="cuda_coop::WarpSort",
        header="cuda_coop/warp_merge_sort.cuh",
        # cub/warp/warp_bitonic_sort.cuh (through cuda_coop/detail/warp_bitonic.cuh; older CCCLs such as CUDA 13.0's
        # lack it): after the version check, where used, so that a wrong CCCL first fails with that check's message.
        preamble=False,
        scope=Scope.WARP,
        tparams=(KEY_TYPE, ITEMS_PER_THREAD, THREADS, VALUE_TYPE, ALGORITHM),
        algorithm=WarpSortAlgorithm,
        methods=(
            merge_sort_method(
                "merge_sort",
                "warp_tile",
                "the logical warp's tile",
                "the logical warp",
                "Sort each logical warp's tile of keys (and values).",
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide sort in every logical warp of the block, with a comparator: ``cub::WarpMergeSort`` "
        "(``algorithm=\"merge_sort\"``), or cuda-coop's composition of ``cub::detail::WarpBitonicSort`` "
        "(``\"bitonic\"``: not stable without ``stable=True``; the merge sort's result with it and on partial tiles). "
        + DETAIL_DOC,
        example="warp_merge_sort",
    )
)
