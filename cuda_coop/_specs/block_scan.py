"""``cub::BlockScan``: prefix sums and scans across the thread block."""

from __future__ import annotations

from ._common import BLOCK_DIMS, DTYPE, aggregate, block_threads_multiple_of_warp, scan_overloads
from ._model import ArgKind, Auto, CubEnum, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive

__all__ = ["BLOCK_SCAN", "BlockScanAlgorithm"]


class BlockScanAlgorithm(CubEnum):
    """``cub::BlockScanAlgorithm``: how BlockScan scans across the block."""

    BLOCK_SCAN_RAKING = (
        "Raking reduce-then-scan (CUB's default): upsweep in registers and across shared partials by "
        "one warp, a warp-synchronous Kogge-Stone scan, then downsweeps in shared memory and registers.",
        "Longer turn-around latency when the GPU is under-occupied, often higher throughput when it is well occupied.",
    )
    BLOCK_SCAN_RAKING_MEMOIZE = (
        "Like BLOCK_SCAN_RAKING, but raking threads keep their upsweep segment in registers during the "
        "warp scan so the downsweep does not re-read it from shared memory.",
        "Fewer shared-memory reads at the cost of more registers.",
    )
    BLOCK_SCAN_WARP_SCANS = (
        "Tiled warp scans: each warp scans its items, then the warp aggregates are propagated to later "
        "warps. Needs a block size that is a multiple of 32 threads.",
        "Lower turn-around latency when the GPU is under-occupied; lower throughput than raking when it "
        "is well occupied.",
    )


ALGORITHM = TemplateParam(
    name="algorithm",
    cpp="Algorithm",
    kind=TParamKind.ENUM,
    enum=BlockScanAlgorithm,
    optional=True,
    default=BlockScanAlgorithm.BLOCK_SCAN_RAKING,
    auto=Auto(table="block_scan"),
    doc="Scan algorithm; ``\"auto\"`` (the default) picks ``\"warp_scans\"`` only for blocks of a multiple of 32 "
    "threads."
    " Floating-point results may round differently from one algorithm to another: the order of the operations "
    "differs.",
)

_AGGREGATE = aggregate(
    "block_aggregate", "A ``cuda.local.array(1, dtype)`` that receives the block's total, in every thread."
)
_PREFIX = Param(
    name="prefix_op",
    kind=ArgKind.CALLBACK,
    returns="dtype",
    args=("dtype",),
    state="prefix_state",
    doc="A Python function ``prefix_op(state, block_aggregate)`` the first warp calls with the tile's total; "
    "lane 0's result seeds the scan (CUB's BlockPrefixCallbackOp). ``state`` points to ``prefix_state``, "
    "an array the caller owns (e.g. a ``cuda.local.array(1, dtype)`` holding the running total across tiles).",
)


def _overloads(
    *, scan_op: bool, inits: tuple[bool, ...], array_inits: tuple[bool, ...] | None = None
) -> tuple[Overload, ...]:
    return scan_overloads(
        scan_op=scan_op, inits=inits, array_inits=array_inits, arrays=True, aggregate_param=_AGGREGATE, prefix=_PREFIX
    )


BLOCK_SCAN = register_primitive(
    PrimitiveSpec(
        name="block_scan",
        cub_class="cub::BlockScan",
        header="cub/block/block_scan.cuh",
        scope=Scope.BLOCK,
        tparams=(DTYPE, BLOCK_DIMS[0], ALGORITHM, BLOCK_DIMS[1], BLOCK_DIMS[2]),
        algorithm=BlockScanAlgorithm,
        methods=(
            Method(
                name="exclusive_sum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Exclusive prefix sum; thread 0's output is 0 (or the prefix callback's value).",
            ),
            Method(
                name="inclusive_sum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Inclusive prefix sum.",
            ),
            Method(
                name="exclusive_scan",
                # CUB's forms without a seed leave thread 0's output undefined: only seeded forms are offered.
                overloads=_overloads(scan_op=True, inits=(True,)),
                doc="Exclusive prefix scan with ``op``, seeded with ``initial_value`` or by ``prefix_op``.",
            ),
            Method(
                name="inclusive_scan",
                overloads=_overloads(scan_op=True, inits=(False,), array_inits=(False, True)),
                doc="Inclusive prefix scan with ``op``; the array form accepts an ``initial_value``.",
            ),
        ),
        constraints=(
            block_threads_multiple_of_warp(
                (BlockScanAlgorithm.BLOCK_SCAN_WARP_SCANS,),
                "CUB would silently use another algorithm; ask for algorithm='raking' or use a multiple of 32 threads",
            ),
        ),
        doc="Block-wide prefix scans (``cub::BlockScan``), scalar and per-thread-array forms, with block "
        "aggregates and block prefix callbacks.",
        example="block_scan_exclusive_sum",
    )
)
