"""``cub::WarpLoad`` and ``cub::WarpStore``: each logical warp moves its own tile between memory and
per-thread arrays.

A logical warp's tile is ``threads * items_per_thread`` items starting at ``src[offset]`` /
``dst[offset]``. CUB ranks the lanes by ``laneid % threads`` and never looks at the warp's index, so
every logical warp of the block moves the tile at the pointer it is given: a kernel gives each warp
its own ``offset`` (typically ``warp * threads * items_per_thread`` plus the block's base), or all
warps read the same tile.
"""

from __future__ import annotations

from ._common import (
    DTYPE,
    ITEMS_PER_THREAD,
    LOGICAL_WARP_CONSTRAINT,
    THREADS,
    load_overloads,
    store_overloads,
)
from ._model import Auto, CubEnum, Method, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive

__all__ = ["WARP_LOAD", "WARP_STORE", "WarpLoadAlgorithm", "WarpStoreAlgorithm"]

_STRIDED = "Coalescing drops as the stride between lanes (the items per thread) grows."
_STRIPED = "Coalescing does not depend on the items per thread: consecutive lanes touch consecutive items."
_TRANSPOSE = (
    "Coalesced for any number of items per thread; the exchange through the logical warp's shared memory "
    "(threads * items_per_thread + 1 items) adds latency compared with the direct and vectorized variants."
)


class WarpLoadAlgorithm(CubEnum):
    """``cub::WarpLoadAlgorithm``: how a logical warp reads its tile."""

    WARP_LOAD_DIRECT = (
        "Lane ``l`` reads items ``l*N .. l*N+N-1`` of the tile directly (a blocked arrangement).",
        _STRIDED,
    )
    WARP_LOAD_STRIPED = (
        "Lane ``l`` reads items ``l, l + threads, l + 2*threads, ...`` of the tile directly (a striped "
        "arrangement: the items stay striped in the per-thread array).",
        _STRIPED,
    )
    WARP_LOAD_VECTORIZE = (
        "A blocked arrangement read with vector loads (e.g. ld.global.v4.s32) when the tile's start is "
        "suitably aligned, element by element otherwise and for partial tiles.",
        "Coalescing stays high until the per-lane stride exceeds the widest vector load; fastest when "
        "``src[offset]`` is 16-byte aligned and the items per thread are a multiple of the vector width.",
    )
    WARP_LOAD_TRANSPOSE = (
        "The tile is read striped, then transposed to a blocked arrangement in shared memory "
        "(``cub::WarpExchange``).",
        _TRANSPOSE,
    )


class WarpStoreAlgorithm(CubEnum):
    """``cub::WarpStoreAlgorithm``: how a logical warp writes its tile."""

    WARP_STORE_DIRECT = (
        "Lane ``l`` writes its items to ``l*N .. l*N+N-1`` of the tile directly (a blocked arrangement).",
        _STRIDED,
    )
    WARP_STORE_STRIPED = (
        "Lane ``l`` writes its items to ``l, l + threads, ...`` of the tile directly (the per-thread "
        "array is taken as striped).",
        _STRIPED,
    )
    WARP_STORE_VECTORIZE = (
        "A blocked arrangement written with vector stores when the tile's start is suitably aligned, "
        "element by element otherwise and for partial tiles.",
        "Coalescing stays high until the per-lane stride exceeds the widest vector store.",
    )
    WARP_STORE_TRANSPOSE = (
        "A blocked arrangement is transposed to striped in shared memory (``cub::WarpExchange``), then "
        "written striped.",
        _TRANSPOSE,
    )


def _tparams(enum: type[CubEnum], default: CubEnum, auto: Auto) -> tuple[TemplateParam, ...]:
    """WarpLoad's and WarpStore's template parameters, in CUB's order."""
    algorithm = TemplateParam(
        name="algorithm",
        cpp="ALGORITHM",
        kind=TParamKind.ENUM,
        enum=enum,
        optional=True,
        default=default,
        auto=auto,
        doc="Data movement algorithm; ``\"auto\"`` (the default) never picks ``\"striped\"``, which changes "
        "the arrangement of the items.",
    )
    return (DTYPE, ITEMS_PER_THREAD, algorithm, THREADS)


# The clamp is the block tile (block_threads * items_per_thread), at or above the warp tile: CUB treats
# every count at or above the warp tile as the whole tile, so the result is the same as a clamp to the
# warp tile; the clamp only keeps wide and negative counts exact before CUB's int parameter.
_VALID_DOC = (
    "Move only the first ``valid_items`` items of this logical warp's tile (a partial last tile); any value "
    "at or above ``threads * items_per_thread`` means the whole tile, a negative one none of it."
)

WARP_LOAD = register_primitive(
    PrimitiveSpec(
        name="warp_load",
        cub_class="cub::WarpLoad",
        header="cub/warp/warp_load.cuh",
        scope=Scope.WARP,
        tparams=_tparams(
            WarpLoadAlgorithm,
            WarpLoadAlgorithm.WARP_LOAD_DIRECT,
            Auto(
                table="warp_load",
                never=(WarpLoadAlgorithm.WARP_LOAD_STRIPED,),
                staged=(WarpLoadAlgorithm.WARP_LOAD_TRANSPOSE,),
            ),
        ),
        algorithm=WarpLoadAlgorithm,
        methods=(
            Method(
                name="load",
                overloads=load_overloads("the logical warp's tile", _VALID_DOC, "warp_tile"),
                doc="Load the logical warp's tile into its lanes' per-thread arrays.",
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide tile load (``cub::WarpLoad``) in every logical warp of the block.",
        example="warp_load_store",
    )
)

WARP_STORE = register_primitive(
    PrimitiveSpec(
        name="warp_store",
        cub_class="cub::WarpStore",
        header="cub/warp/warp_store.cuh",
        scope=Scope.WARP,
        tparams=_tparams(
            WarpStoreAlgorithm,
            WarpStoreAlgorithm.WARP_STORE_DIRECT,
            Auto(
                table="warp_store",
                never=(WarpStoreAlgorithm.WARP_STORE_STRIPED,),
                staged=(WarpStoreAlgorithm.WARP_STORE_TRANSPOSE,),
            ),
        ),
        algorithm=WarpStoreAlgorithm,
        methods=(
            Method(
                name="store",
                overloads=store_overloads("the logical warp's tile", _VALID_DOC, "warp_tile"),
                doc="Store the lanes' per-thread arrays as the logical warp's tile.",
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide tile store (``cub::WarpStore``) in every logical warp of the block.",
        example="warp_load_store",
    )
)
