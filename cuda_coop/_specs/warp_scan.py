"""``cub::WarpScan``: prefix sums and scans within each logical warp."""

from __future__ import annotations

from ._common import DTYPE, LOGICAL_WARP_CONSTRAINT, THREADS, aggregate, op, output, scalar, scan_overloads
from ._model import Method, Overload, PrimitiveSpec, Scope
from ._registry import register_primitive

__all__ = ["WARP_SCAN"]

_INPUT = scalar("x", doc="This thread's input item.")
_INIT = scalar("initial_value", doc="Seed of the scan.", uniform=True)
_AGGREGATE = aggregate(
    "warp_aggregate", "A ``cuda.local.array(1, dtype)`` that receives the logical warp's total, in every lane."
)


def _overloads(*, scan_op: bool, inits: tuple[bool, ...]) -> tuple[Overload, ...]:
    return scan_overloads(scan_op=scan_op, inits=inits, aggregate_param=_AGGREGATE)


def _both(init: bool) -> Overload:
    return Overload(
        name="scalar_init" if init else "scalar",
        params=(
            _INPUT,
            output("inclusive_output"),
            output("exclusive_output"),
            *((_INIT,) if init else ()),
            op(doc="Binary associative scan operator.", associative=True),
        ),
    )


WARP_SCAN = register_primitive(
    PrimitiveSpec(
        name="warp_scan",
        cub_class="cub::WarpScan",
        header="cub/warp/warp_scan.cuh",
        scope=Scope.WARP,
        tparams=(DTYPE, THREADS),
        methods=(
            Method(
                name="exclusive_sum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Exclusive prefix sum in each logical warp; lane 0's output is 0.",
            ),
            Method(
                name="inclusive_sum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Inclusive prefix sum in each logical warp.",
            ),
            Method(
                name="exclusive_scan",
                # CUB's forms without a seed leave lane 0's output undefined: only seeded forms are offered.
                overloads=_overloads(scan_op=True, inits=(True,)),
                doc="Exclusive prefix scan seeded with ``initial_value``.",
            ),
            Method(
                name="inclusive_scan",
                overloads=_overloads(scan_op=True, inits=(False, True)),
                doc="Inclusive prefix scan, optionally seeded with ``initial_value``.",
            ),
            Method(
                name="scan",
                overloads=(_both(False), _both(True)),
                doc="Inclusive and exclusive prefix scans at once.",
            ),
            Method(
                name="broadcast",
                returns="dtype",
                overloads=(Overload(name="scalar", params=(_INPUT, scalar("src_lane", "uint32", uniform=True))),),
                doc="Every lane receives ``x`` of lane ``src_lane`` of its logical warp.",
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide prefix scans (``cub::WarpScan``) in every logical warp of the block.",
        example="warp_scan_exclusive_sum",
    )
)
