"""``cub::WarpMergeSort``: each logical warp sorts its own tile of keys (and values) with a comparator.

A logical warp of ``threads`` lanes (a power of two up to 32) holding N keys each sorts its
``threads * N`` keys, in blocked order (lane ``l`` holds the warp's positions ``l*N .. l*N+N-1``).
Comparator, stability, partial tiles (``valid_items`` counts the logical warp's keys) and
``oob_default`` are as for :mod:`.block_merge_sort`.
"""

from __future__ import annotations

from ._common import ITEMS_PER_THREAD, LOGICAL_WARP_CONSTRAINT, THREADS
from ._model import PrimitiveSpec, Scope
from ._registry import register_primitive
from .block_merge_sort import KEY_TYPE, VALUE_TYPE, merge_sort_method

__all__ = ["WARP_MERGE_SORT"]

WARP_MERGE_SORT = register_primitive(
    PrimitiveSpec(
        name="warp_merge_sort",
        cub_class="cub::WarpMergeSort",
        header="cub/warp/warp_merge_sort.cuh",
        scope=Scope.WARP,
        tparams=(KEY_TYPE, ITEMS_PER_THREAD, THREADS, VALUE_TYPE),
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
        doc="Warp-wide merge sort (``cub::WarpMergeSort``) in every logical warp of the block, with a comparator.",
        example="warp_merge_sort",
    )
)
