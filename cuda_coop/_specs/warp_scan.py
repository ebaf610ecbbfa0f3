"""``cub::WarpScan``: prefix sums and scans within each logical warp."""

from __future__ import annotations

from ._common import DTYPE, LOGICAL_WARP_CONSTRAINT, LOGICAL_WARP_THREADS, op, output, scalar
from ._model import ArgKind, Method, Overload, Param, PrimitiveSpec, Scope
from ._registry import register_primitive

__all__ = ["WARP_SCAN"]

_INPUT = scalar("input", doc="This thread's input item.")
_INIT = scalar("initial_value", doc="Seed of the scan.")
_AGGREGATE = Param(
    name="warp_aggregate",
    kind=ArgKind.AGGREGATE,
    type="dtype",
    doc="Receives the logical warp's aggregate, in every lane.",
)


def _overloads(*, scan_op: bool, inits: tuple[bool, ...]) -> tuple[Overload, ...]:
    ops = (op(doc="Binary associative scan operator."),) if scan_op else ()
    result = []
    for init in inits:
        head = (_INPUT, output("output"), *((_INIT,) if init else ()), *ops)
        name = "scalar" + ("_init" if init else "")
        result += [Overload(name=name, params=head), Overload(name=name + "_aggregate", params=(*head, _AGGREGATE))]
    return tuple(result)


def _both(init: bool) -> Overload:
    return Overload(
        name="scalar_init" if init else "scalar",
        params=(
            _INPUT,
            output("inclusive_output"),
            output("exclusive_output"),
            *((_INIT,) if init else ()),
            op(doc="Binary associative scan operator."),
        ),
    )


WARP_SCAN = register_primitive(
    PrimitiveSpec(
        name="warp_scan",
        cub_class="cub::WarpScan",
        header="cub/warp/warp_scan.cuh",
        scope=Scope.WARP,
        tparams=(DTYPE, LOGICAL_WARP_THREADS),
        methods=(
            Method(
                name="exclusive_sum",
                cpp="ExclusiveSum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Exclusive prefix sum in each logical warp; lane 0's output is 0.",
            ),
            Method(
                name="inclusive_sum",
                cpp="InclusiveSum",
                overloads=_overloads(scan_op=False, inits=(False,)),
                doc="Inclusive prefix sum in each logical warp.",
            ),
            Method(
                name="exclusive_scan",
                cpp="ExclusiveScan",
                overloads=_overloads(scan_op=True, inits=(True, False)),
                doc="Exclusive prefix scan; without ``initial_value`` lane 0's output is undefined.",
            ),
            Method(
                name="inclusive_scan",
                cpp="InclusiveScan",
                overloads=_overloads(scan_op=True, inits=(False, True)),
                doc="Inclusive prefix scan.",
            ),
            Method(
                name="scan",
                cpp="Scan",
                overloads=(_both(False), _both(True)),
                doc="Inclusive and exclusive prefix scans at once.",
            ),
            Method(
                name="broadcast",
                cpp="Broadcast",
                returns="dtype",
                overloads=(Overload(name="scalar", params=(_INPUT, scalar("src_lane", "uint32"))),),
                doc="Every lane receives ``input`` of lane ``src_lane`` of its logical warp.",
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide prefix scans (``cub::WarpScan``) in every logical warp of the block.",
        example="warp_scan_exclusive_sum",
    )
)
