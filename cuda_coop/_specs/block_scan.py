"""``cub::BlockScan``: prefix sums and scans across the thread block."""

from __future__ import annotations

from ._common import (
    BLOCK_DIMS,
    DTYPE,
    ITEMS_PER_THREAD,
    array,
    block_threads_multiple_of_warp,
    op,
    out_array,
    output,
    scalar,
)
from ._model import ArgKind, CubEnum, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
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
    doc="Scan algorithm.",
)

_INIT = scalar("initial_value", doc="Seed of the scan (applied by thread 0).")
_AGGREGATE = Param(
    name="block_aggregate",
    kind=ArgKind.AGGREGATE,
    type="dtype",
    doc="Receives the block-wide aggregate, in every thread.",
)
_PREFIX = Param(
    name="prefix_callback",
    kind=ArgKind.CALLBACK,
    returns="dtype",
    args=("dtype",),
    doc="Called by the first warp with the block aggregate; lane 0's result seeds the scan. "
    "Its state pointer carries running totals across tiles.",
)


def _overloads(
    *, scan_op: bool, inits: tuple[bool, ...], array_inits: tuple[bool, ...] | None = None
) -> tuple[Overload, ...]:
    """Every shape x {plain, aggregate} x init variant, plus the prefix-callback forms."""
    ops = (op(doc="Binary associative scan operator."),) if scan_op else ()
    result = []
    for shape in ("scalar", "array"):
        io: tuple[Param, ...] = (
            (scalar("input"), output("output")) if shape == "scalar" else (array("input"), out_array("output"))
        )
        tparams = (ITEMS_PER_THREAD,) if shape == "array" else ()
        for init in inits if shape == "scalar" or array_inits is None else array_inits:
            head = io + ((_INIT,) if init else ()) + ops
            name = shape + ("_init" if init else "")
            result.append(Overload(name=name, params=head, tparams=tparams))
            result.append(Overload(name=name + "_aggregate", params=(*head, _AGGREGATE), tparams=tparams))
        result.append(Overload(name=shape + "_prefix", params=(*io, *ops, _PREFIX), tparams=tparams))
    return tuple(result)


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
                cpp="ExclusiveSum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Exclusive prefix sum; thread 0's output is 0 (or the prefix callback's value).",
            ),
            Method(
                name="inclusive_sum",
                cpp="InclusiveSum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Inclusive prefix sum.",
            ),
            Method(
                name="exclusive_scan",
                cpp="ExclusiveScan",
                overloads=_overloads(scan_op=True, inits=(True, False)),
                doc="Exclusive prefix scan with ``op``; without ``initial_value`` thread 0's output is undefined.",
            ),
            Method(
                name="inclusive_scan",
                cpp="InclusiveScan",
                overloads=_overloads(scan_op=True, inits=(False,), array_inits=(False, True)),
                doc="Inclusive prefix scan with ``op``; the array form accepts an ``initial_value``.",
            ),
        ),
        constraints=(
            block_threads_multiple_of_warp(
                (BlockScanAlgorithm.BLOCK_SCAN_WARP_SCANS,),
                "CUB would silently use BLOCK_SCAN_RAKING; ask for BLOCK_SCAN_RAKING or use a multiple of 32 threads",
            ),
        ),
        doc="Block-wide prefix scans (``cub::BlockScan``), scalar and per-thread-array forms, with block "
        "aggregates and block prefix callbacks.",
        example="block_scan_exclusive_sum",
    )
)
