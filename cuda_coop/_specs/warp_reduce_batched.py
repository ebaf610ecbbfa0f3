"""``cub::WarpReduceBatched``: each logical warp reduces B independent batches at once, one item per batch per lane.

Every lane holds B items in a ``cuda.local.array(B, dtype)``, item ``b`` belonging to batch ``b``; the logical warp
reduces each batch over its lanes and hands the B results out among its lanes, ``ceil(B / threads)`` per lane:
*blocked* (lane ``l`` gets batches ``l*M .. l*M+M-1``) or *striped* (lane ``l`` gets batches ``l, l + threads, ...``).
With B at most ``threads`` that is one result per lane (lane ``l`` gets batch ``l``), returned by the call; with
more, the results go to ``output=``, a ``cuda.local.array(M, dtype)``. One call does what B warp reductions do, in
about ``log2(threads)`` shuffle rounds for all the batches together (CUB's WSPRO: each round halves the batches a
lane holds while it doubles the lanes each partial covers).

Read from the bundled CCCL 3.6 (``cub/warp/warp_reduce_batched.cuh`` and
``cub/warp/specializations/warp_reduce_batched_wspro.cuh``):

- the lanes combine their values as ``op(partner's, own)`` in one lane and ``op(own, partner's)`` in its partner, so
  the operator must be commutative as well as associative, and a float sum rounds in an order that is neither the
  batch's order nor the same from batch to batch (NumPy's ``sum`` agrees within the usual tolerance);
- ``TempStorage`` is empty: shuffles only, no shared memory and no barrier; for 32-lane warps, at most 8 batches and a
  32-bit integer sum, min, max, ``&``, ``|`` or ``^`` CUB uses ``redux.sync`` instead (sm_80 and later);
- the positions of the results past the last batch (``M * threads > B``) hold values that belong to no batch;
- ``SyncPhysicalWarp`` (``sync_physical_warp=True``) makes the shuffles of a logical warp narrower than 32 lanes sync
  the whole hardware warp: faster, but every logical warp of that hardware warp must make the same call, or it hangs.
"""

from __future__ import annotations

from ._common import DTYPE, LOGICAL_WARP_CONSTRAINT, THREADS, array, op
from ._model import (
    ArgKind,
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

__all__ = ["WARP_REDUCE_BATCHED", "BatchedArrangement"]


class BatchedArrangement(CubEnum):
    """How a lane's results map to batches when a logical warp has more batches than lanes."""

    REDUCE_TO_BLOCKED = (
        "Lane ``l`` gets batches ``l*M .. l*M+M-1`` (``M = ceil(B / threads)``) in ``output[0 .. M-1]`` "
        "(``ReduceToBlocked``/``SumToBlocked``).",
        "CUB: usually much faster than striped results rearranged into blocked ones afterwards; striped may be "
        "slightly faster, depending on B and ``threads``.",
    )
    REDUCE_TO_STRIPED = (
        "Lane ``l`` gets batches ``l, l + threads, l + 2*threads, ...`` in ``output[0 .. M-1]`` "
        "(``ReduceToStriped``/``SumToStriped``).",
        "CUB: can be slightly faster than blocked when there are more batches than lanes.",
    )

    @classmethod
    def _cpp_scope(cls) -> str:
        return "cuda_coop::"  # never rendered: it picks the member function


BATCHES = TemplateParam(
    name="batches",
    cpp="Batches",
    kind=TParamKind.INT,
    doc="Number of batches B: the extent of ``x`` (one item per batch per lane).",
)
SYNC_PHYSICAL_WARP = TemplateParam(
    name="sync_physical_warp",
    cpp="SyncPhysicalWarp",
    kind=TParamKind.BOOL,
    optional=True,
    default=False,
    doc="Sync the whole 32-lane hardware warp in each shuffle, not only the logical warp (CUB: usually faster for "
    "logical warps of fewer than 32 lanes). Then every lane of the hardware warp must make this call together: the "
    "block is a multiple of 32 threads, and a condition around the call must be the same in all 32 lanes (a "
    "``coop.uniform(...)`` around it asserts that much, not only the logical warp's); a hardware warp some of whose "
    "logical warps skip the call hangs.",
)
ARRANGEMENT = TemplateParam(
    name="arrangement",
    cpp="(member function)",
    kind=TParamKind.ENUM,
    enum=BatchedArrangement,
    optional=True,
    default=BatchedArrangement.REDUCE_TO_BLOCKED,
    doc="``\"blocked\"`` or ``\"striped\"`` mapping of a lane's results to batches when there are more batches than "
    "lanes; with at most ``threads`` batches both give lane ``l`` batch ``l``.",
)
OUTPUTS_PER_THREAD = TemplateParam(
    name="outputs_per_thread",
    cpp="ceil_div(Batches, LogicalWarpThreads)",
    kind=TParamKind.INT,
    doc="Number of results per lane M: the extent of ``output`` (it must be ``ceil(batches / threads)``).",
)

_X = array("x", extent="batches", doc="This lane's items, a ``cuda.local.array(B, dtype)``: ``x[b]`` is its item of "
           "batch ``b``.")
_OUTPUT = Param(  # an ARRAY so that a call with it is told from one without (outputs are implied, ``Method.match``);
    # by reference (``inout``), written only (``direction``)
    name="output", kind=ArgKind.ARRAY, type="dtype", extent="outputs_per_thread", inout=True, direction="out",
    doc="This lane's results, a ``cuda.local.array(M, dtype)`` with ``M = ceil(B / threads)``, in the ``arrangement``; "
    "a position past the last batch gets a value that belongs to no batch. Omitted (B at most ``threads`` only), the "
    "call returns lane ``l``'s result, batch ``l``'s.",
)
_OP = op(doc="Binary operator, associative and commutative.", associative=True, commutative=True)


def _forms(*ops: Param, one: str) -> tuple[Overload, ...]:
    """The one-result form (``one``: CUB's member function returning batch ``l``'s result) and the output form."""
    return (
        Overload(name="one", params=(_X, *ops), tparams=(ARRANGEMENT,), cpp=one, returns="dtype"),
        Overload(name="array", params=(_X, _OUTPUT, *ops), tparams=(ARRANGEMENT, OUTPUTS_PER_THREAD)),
    )


def _one_result_fits(b: Binding) -> bool:
    return b.overload.name != "one" or int(b.values["batches"]) <= int(b.values["threads"])


def _outputs_match(b: Binding) -> bool:
    if b.overload.name != "array":
        return True
    batches, threads = int(b.values["batches"]), int(b.values["threads"])
    return int(b.values["outputs_per_thread"]) == -(-batches // threads)


def _whole_hardware_warps(b: Binding) -> bool:
    return not b.values["sync_physical_warp"] or b.block_threads % 32 == 0


_ARRANGED = {BatchedArrangement.REDUCE_TO_BLOCKED: "Blocked", BatchedArrangement.REDUCE_TO_STRIPED: "Striped"}

WARP_REDUCE_BATCHED = register_primitive(
    PrimitiveSpec(
        name="warp_reduce_batched",
        cub_class="cub::WarpReduceBatched",
        header="cub/warp/warp_reduce_batched.cuh",
        scope=Scope.WARP,
        tparams=(DTYPE, BATCHES, THREADS, SYNC_PHYSICAL_WARP),
        # WarpReduceBatchedWspro::Reduce: ::cuda::static_for<0, max_out_per_thread>([&](auto out_idx) ...).
        generic_lambdas=True,
        methods=(
            Method(
                name="reduce_batched",
                cpp="ReduceTo{arrangement}",
                choices={"arrangement": _ARRANGED},
                overloads=_forms(_OP, one="Reduce"),
                doc="Reduce each of the B batches across the logical warp with ``op``.",
            ),
            Method(
                name="sum_batched",
                cpp="SumTo{arrangement}",
                choices={"arrangement": _ARRANGED},
                overloads=_forms(one="Sum"),
                doc="Sum each of the B batches across the logical warp.",
            ),
        ),
        constraints=(
            LOGICAL_WARP_CONSTRAINT,
            Constraint(
                check=_one_result_fits,
                message="{primitive}: x= holds batches={batches} items, more than the threads={threads} lanes of a "
                "logical warp, so each lane gets ceil(batches / threads) results: pass output=, a cuda.local.array of "
                "that many items (arrangement='blocked' or 'striped' says which batches each lane gets)",
            ),
            Constraint(
                check=_outputs_match,
                message="{primitive}: output= has outputs_per_thread={outputs_per_thread} items, but batches={batches} "
                "over threads={threads} lanes give each lane ceil(batches / threads) results; pass a cuda.local.array "
                "of exactly that many items",
            ),
            Constraint(
                check=_whole_hardware_warps,
                message="{primitive}: sync_physical_warp=True syncs whole 32-lane hardware warps, but the block "
                "{block_dim} has {block_threads} threads, so its last hardware warp is partial; use a block of a "
                "multiple of 32 threads or sync_physical_warp=False",
            ),
        ),
        preamble=False,  # new in CCCL 3.4: included after the version check, where used
        doc="Batched warp-wide reductions (``cub::WarpReduceBatched``): B batches reduced by each logical warp in one "
        "call.",
        example="warp_reduce_batched",
    )
)
