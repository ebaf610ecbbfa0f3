"""``cub::BlockLoad`` and ``cub::BlockStore``: a tile moves between memory and per-thread arrays."""

from __future__ import annotations

from ._common import (
    BLOCK_DIMS,
    DTYPE,
    ITEMS_PER_THREAD,
    block_threads_multiple_of_warp,
    load_overloads,
    store_overloads,
)
from ._model import Auto, CubEnum, Method, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive

__all__ = ["BLOCK_LOAD", "BLOCK_STORE", "BlockLoadAlgorithm", "BlockStoreAlgorithm"]

_COALESCING_STRIDE = "Coalescing drops as the stride between threads (the items per thread) grows."
_TRANSPOSE_COST = (
    "Coalescing stays high for any number of items per thread; the local exchange through "
    "shared memory adds latency compared with the direct and vectorized variants."
)


class BlockLoadAlgorithm(CubEnum):
    """``cub::BlockLoadAlgorithm``: how a tile is read into a blocked arrangement."""

    BLOCK_LOAD_DIRECT = ("A blocked arrangement is read directly from memory.", _COALESCING_STRIDE)
    BLOCK_LOAD_STRIPED = (
        "A striped arrangement is read directly from memory.",
        "Coalescing does not depend on the items per thread.",
    )
    BLOCK_LOAD_VECTORIZE = (
        "A blocked arrangement is read with vector loads (e.g. ld.global.v4.s32) when the tile's start "
        "is suitably aligned, and element by element otherwise (also for partial tiles).",
        "Coalescing stays high until the per-thread stride exceeds the widest vector load.",
    )
    BLOCK_LOAD_TRANSPOSE = (
        "A striped arrangement is read and transposed to blocked in shared memory.",
        _TRANSPOSE_COST,
    )
    BLOCK_LOAD_WARP_TRANSPOSE = (
        "A warp-striped arrangement is read and transposed to blocked in shared memory, warp by warp. "
        "Needs a block size that is a multiple of 32.",
        _TRANSPOSE_COST + " More shared memory, less latency than the timesliced variant.",
    )
    BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED = (
        "Like BLOCK_LOAD_WARP_TRANSPOSE, with one warp's worth of shared memory time-sliced among warps. "
        "Needs a block size that is a multiple of 32.",
        "Less shared memory, more latency than BLOCK_LOAD_WARP_TRANSPOSE.",
    )


class BlockStoreAlgorithm(CubEnum):
    """``cub::BlockStoreAlgorithm``: how a blocked arrangement is written to memory."""

    BLOCK_STORE_DIRECT = ("A blocked arrangement is written directly to memory.", _COALESCING_STRIDE)
    BLOCK_STORE_STRIPED = (
        "A striped arrangement is written directly to memory.",
        "Coalescing does not depend on the items per thread.",
    )
    BLOCK_STORE_VECTORIZE = (
        "A blocked arrangement is written with vector stores when the tile's start is suitably aligned, "
        "and element by element otherwise (also for partial tiles).",
        "Coalescing stays high until the per-thread stride exceeds the widest vector store.",
    )
    BLOCK_STORE_TRANSPOSE = (
        "A blocked arrangement is transposed to striped in shared memory, then written.",
        _TRANSPOSE_COST,
    )
    BLOCK_STORE_WARP_TRANSPOSE = (
        "A blocked arrangement is transposed to warp-striped in shared memory, then written. Needs a "
        "block size that is a multiple of 32.",
        _TRANSPOSE_COST + " More shared memory, less latency than the timesliced variant.",
    )
    BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED = (
        "Like BLOCK_STORE_WARP_TRANSPOSE, with one warp's worth of shared memory time-sliced among "
        "warps. Needs a block size that is a multiple of 32.",
        "Less shared memory, more latency than BLOCK_STORE_WARP_TRANSPOSE.",
    )


def _tparams(enum: type[CubEnum], default: CubEnum, auto: Auto) -> tuple[TemplateParam, ...]:
    """BlockLoad's and BlockStore's template parameters, in CUB's order."""
    algorithm = TemplateParam(
        name="algorithm",
        cpp="Algorithm",
        kind=TParamKind.ENUM,
        enum=enum,
        optional=True,
        default=default,
        auto=auto,
        doc="Data movement algorithm; ``\"auto\"`` (the default) never picks ``\"striped\"``, which changes "
        "the arrangement of the items.",
    )
    return (DTYPE, BLOCK_DIMS[0], ITEMS_PER_THREAD, algorithm, BLOCK_DIMS[1], BLOCK_DIMS[2])


_VALID_DOC = (
    "Move only the first ``valid_items`` items of the tile (a partial last tile; CUB: block_items_end); any "
    "value at or above the tile size means the whole tile."
)

BLOCK_LOAD = register_primitive(
    PrimitiveSpec(
        name="block_load",
        cub_class="cub::BlockLoad",
        header="cub/block/block_load.cuh",
        scope=Scope.BLOCK,
        tparams=_tparams(
            BlockLoadAlgorithm,
            BlockLoadAlgorithm.BLOCK_LOAD_DIRECT,
            Auto(
                table="block_load",
                never=(BlockLoadAlgorithm.BLOCK_LOAD_STRIPED,),
                staged=(BlockLoadAlgorithm.BLOCK_LOAD_TRANSPOSE, BlockLoadAlgorithm.BLOCK_LOAD_WARP_TRANSPOSE),
            ),
        ),
        algorithm=BlockLoadAlgorithm,
        methods=(
            Method(
                name="load",
                overloads=load_overloads("the tile", _VALID_DOC),
                doc="Load a tile into a blocked arrangement.",
            ),
        ),
        constraints=(
            block_threads_multiple_of_warp(
                (BlockLoadAlgorithm.BLOCK_LOAD_WARP_TRANSPOSE, BlockLoadAlgorithm.BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED),
                "use algorithm='transpose' or a multiple of 32 threads",
            ),
        ),
        doc="Block-wide tile load (``cub::BlockLoad``) into per-thread arrays.",
        example="block_load_store",
    )
)

BLOCK_STORE = register_primitive(
    PrimitiveSpec(
        name="block_store",
        cub_class="cub::BlockStore",
        header="cub/block/block_store.cuh",
        scope=Scope.BLOCK,
        tparams=_tparams(
            BlockStoreAlgorithm,
            BlockStoreAlgorithm.BLOCK_STORE_DIRECT,
            Auto(
                table="block_store",
                never=(BlockStoreAlgorithm.BLOCK_STORE_STRIPED,),
                staged=(BlockStoreAlgorithm.BLOCK_STORE_TRANSPOSE, BlockStoreAlgorithm.BLOCK_STORE_WARP_TRANSPOSE),
            ),
        ),
        algorithm=BlockStoreAlgorithm,
        methods=(
            Method(
                name="store",
                overloads=store_overloads("the tile", _VALID_DOC),
                doc="Store a blocked arrangement as a tile.",
            ),
        ),
        constraints=(
            block_threads_multiple_of_warp(
                (
                    BlockStoreAlgorithm.BLOCK_STORE_WARP_TRANSPOSE,
                    BlockStoreAlgorithm.BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED,
                ),
                "use algorithm='transpose' or a multiple of 32 threads",
            ),
        ),
        doc="Block-wide tile store (``cub::BlockStore``) from per-thread arrays.",
        example="block_load_store",
    )
)
