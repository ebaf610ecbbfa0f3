"""``cub::BlockHistogram``: a block counts its samples into bins held in shared or global memory."""

from __future__ import annotations

from ._common import BLOCK_DIMS, ITEMS_PER_THREAD, array
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

__all__ = ["BLOCK_HISTOGRAM", "BlockHistogramAlgorithm", "sort_shared_bytes"]


class BlockHistogramAlgorithm(CubEnum):
    """``cub::BlockHistogramAlgorithm``: how BlockHistogram counts the block's samples."""

    BLOCK_HISTO_SORT = (
        "Sort, then measure runs (CUB's default): the block radix-sorts its samples, flags where the "
        "sorted value changes, and each bin's count is the length of its run; each bin is then updated by "
        "exactly one thread.",
        "Throughput does not depend on how the samples are distributed over the bins; needs shared memory "
        "for two 4-byte run bounds per bin besides the sort's storage.",
    )
    BLOCK_HISTO_ATOMIC = (
        "Every sample adds one to its bin's counter with a block-scope atomic addition.",
        "Fast when samples spread evenly over many bins; slows down markedly when many samples of the "
        "block hit the same bin (atomic contention). Needs no temporary storage.",
    )


ALGORITHM = TemplateParam(
    name="algorithm",
    cpp="Algorithm",
    kind=TParamKind.ENUM,
    enum=BlockHistogramAlgorithm,
    optional=True,
    default=BlockHistogramAlgorithm.BLOCK_HISTO_SORT,
    auto=Auto(table="block_histogram"),
    doc="Histogram algorithm; ``\"auto\"`` (the default) picks ``\"atomic\"`` only for counter types "
    "``atomicAdd_block`` takes; its speed depends on how the samples spread over the bins, which the table "
    "measures for uniformly spread samples.",
)
SAMPLE_TYPE = TemplateParam(
    name="dtype",
    cpp="T",
    kind=TParamKind.TYPE,
    kinds=("int", "uint"),
    doc="Integer type of the samples; every sample must lie in [0, bins).",
)
BINS = TemplateParam(
    name="bins",
    cpp="Bins",
    kind=TParamKind.INT,
    doc="Number of bins: ``counters`` holds at least this many counters, samples lie in [0, bins).",
)
COUNTER_TYPE = TemplateParam(
    name="counter_type",
    cpp="CounterT",
    kind=TParamKind.TYPE,
    kinds=("int", "uint"),
    doc="Integer type of the counters, taken from ``counters``.",
)

_SAMPLES = array(
    "samples",
    doc="This thread's samples (a ``cuda.local.array(N, dtype)`` of integers in [0, bins)); not modified.",
)
_COUNTERS = Param(
    name="counters",
    kind=ArgKind.POINTER,
    direction="inout",  # histogram_composite adds to them
    min_extent="bins",
    uniform=True,
    type="counter_type",
    doc="A 1-D C-contiguous array of at least ``bins`` integer counters, in shared memory "
    "(``cuda.shared.array``) or in global memory owned by this block alone (CUB updates counters with "
    "plain or block-scope atomic additions, so two blocks must never share them).",
)

_ATOMIC_COUNTERS = frozenset({"int32", "uint32", "uint64"})
"""Counter types CUDA's ``atomicAdd_block`` takes (BLOCK_HISTO_ATOMIC adds with it)."""
_MAX_SHARED = 48 * 1024


def _atomic_counter_ok(b: Binding) -> bool:
    counter = b.values.get("counter_type")  # histogram_init adds nothing: it has no counter_type
    return (
        b.values["algorithm"] is not BlockHistogramAlgorithm.BLOCK_HISTO_ATOMIC
        or counter is None
        or counter.name in _ATOMIC_COUNTERS
    )


def sort_shared_bytes(b: Binding) -> int:
    """Shared memory BLOCK_HISTO_SORT needs after sorting: BlockDiscontinuity's first/last items (two
    samples per thread) and two unsigned-int run bounds per bin. The sort's own storage shares the space."""
    flags: int = -(-2 * b.values["dtype"].size * b.block_threads // 4) * 4
    return flags + 8 * int(b.values["bins"])


def _sort_bins_fit(b: Binding) -> bool:
    return b.values["algorithm"] is not BlockHistogramAlgorithm.BLOCK_HISTO_SORT or sort_shared_bytes(b) <= _MAX_SHARED


def _overloads() -> tuple[Overload, ...]:
    return (Overload(name="array", params=(_SAMPLES, _COUNTERS), tparams=(COUNTER_TYPE,)),)


_INIT_COUNTERS = Param(
    name="counters",
    kind=ArgKind.POINTER,
    min_extent="bins",
    uniform=True,
    type="dtype",
    doc="A 1-D C-contiguous array of at least ``bins`` integer counters (shared memory, or global memory owned "
    "by this block alone); its first ``bins`` counters are set to zero, the rest are left alone.",
)
_INIT_ITEMS = TemplateParam(
    name="items_per_thread",
    cpp="ItemsPerThread",
    kind=TParamKind.INT,
    optional=True,
    default=1,
    public=False,
    doc="Samples per thread: no part of zeroing the counters, so always 1.",
)
_INIT_ALGORITHM = TemplateParam(
    name="algorithm",
    cpp="Algorithm",
    kind=TParamKind.ENUM,
    enum=BlockHistogramAlgorithm,
    optional=True,
    default=BlockHistogramAlgorithm.BLOCK_HISTO_ATOMIC,
    public=False,
    doc="No part of zeroing the counters: always ``\"atomic\"``, whose storage is empty (no shared memory, "
    "no barrier before the call).",
)


def _init_overloads() -> tuple[Overload, ...]:
    """InitHistogram: the class's sample type is the counters' (only ``bins`` and the block shape matter)."""
    return (Overload(name="init", params=(_INIT_COUNTERS,), tparams=(_INIT_ITEMS, _INIT_ALGORITHM)),)


BLOCK_HISTOGRAM = register_primitive(
    PrimitiveSpec(
        name="block_histogram",
        cub_class="cub::BlockHistogram",
        header="cub/block/block_histogram.cuh",
        scope=Scope.BLOCK,
        tparams=(SAMPLE_TYPE, BLOCK_DIMS[0], ITEMS_PER_THREAD, BINS, ALGORITHM, BLOCK_DIMS[1], BLOCK_DIMS[2]),
        algorithm=BlockHistogramAlgorithm,
        methods=(
            Method(
                name="histogram_init",
                cpp="InitHistogram",
                overloads=_init_overloads(),
                doc="Zero the first ``bins`` counters (each thread a strided share), with no barrier before or "
                "after: call ``cuda.syncthreads()`` before the block adds to them (``histogram_composite``).",
            ),
            Method(
                name="histogram",
                cpp="Histogram",
                overloads=_overloads(),
                doc="Zero the first ``bins`` counters, then count the block's samples into them.",
            ),
            Method(
                name="histogram_composite",
                cpp="Composite",
                overloads=_overloads(),
                doc="Add the block's samples to the counts already in the first ``bins`` counters.",
            ),
        ),
        constraints=(
            Constraint(
                check=_atomic_counter_ok,
                message="algorithm={algorithm} adds with atomicAdd_block, which takes int32, uint32 or uint64 "
                "counters, but counters= holds {counter_type}; use one of those counter types or algorithm='sort'",
            ),
            Constraint(
                check=_sort_bins_fit,
                message="algorithm={algorithm} keeps 8 bytes of shared memory per bin (and two samples per thread): "
                "bins={bins} with {block_threads} threads needs more than the 48 KiB a block may have; use "
                "algorithm='atomic' or fewer bins",
            ),
        ),
        doc="Block-wide histogram (``cub::BlockHistogram``) of integer samples into shared- or global-memory "
        "counters, with CUB's three members: ``histogram`` (``Histogram``: zero the counters, barrier, count one "
        "tile), ``histogram_init`` (``InitHistogram``: zero them only) and ``histogram_composite`` (``Composite``: "
        "add a tile to the counts already there). To count many tiles into the same counters, zero them once "
        "with ``histogram_init`` (or count the first tile with ``histogram``), call ``cuda.syncthreads()``, then "
        "add each tile with ``histogram_composite``; a loop of ``histogram`` calls would keep only the last tile. "
        "Counters are updated without a final barrier: call ``cuda.syncthreads()`` before other threads read them.",
        example="block_histogram",
    )
)
