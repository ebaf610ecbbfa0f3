"""``cub::BlockReduce``: a reduction across the thread block; the result is valid in thread 0."""

from __future__ import annotations

from ._common import BLOCK_DIMS, DTYPE, op, reduce_overloads
from ._model import Auto, Binding, Constraint, CubEnum, Method, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._operators import KnownOp
from ._registry import register_primitive

__all__ = ["BLOCK_REDUCE", "BlockReduceAlgorithm"]


class BlockReduceAlgorithm(CubEnum):
    """``cub::BlockReduceAlgorithm``: how BlockReduce reduces across the block."""

    BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY = (
        "A raking reduction for commutative operators only: threads reduce their items in registers, "
        "the partials of all but the first warp go to shared memory, the first warp rakes them and "
        "finishes with a warp-synchronous reduction. Needs a block of more than 32 threads, a multiple of 32.",
        "Less communication than BLOCK_REDUCE_RAKING and fewer operator applications than "
        "BLOCK_REDUCE_WARP_REDUCTIONS: good throughput when the GPU is well occupied; latency may be higher.",
    )
    BLOCK_REDUCE_RAKING = (
        "A raking reduction that supports commutative and non-commutative operators: upsweep in "
        "registers, raking across shared partials by one warp, then a warp-synchronous Kogge-Stone reduction.",
        "Fewer operator applications than BLOCK_REDUCE_WARP_REDUCTIONS and higher throughput when the GPU "
        "is well occupied; longer turn-around latency.",
    )
    BLOCK_REDUCE_WARP_REDUCTIONS = (
        "Tiled warp reductions (CUB's default): each warp reduces its items, then warp aggregates are "
        "combined in order. Supports non-commutative operators.",
        "More operator applications than the raking variants, lower latency: useful when the GPU is under-occupied.",
    )
    BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC = (
        "Like BLOCK_REDUCE_WARP_REDUCTIONS, but warp aggregates are combined with atomic additions, so "
        "the order of floating-point additions varies between runs. Sums only.",
        "Fewest synchronisation steps; results of floating-point sums are not bitwise reproducible.",
    )


_ATOMIC_SUM_TYPES = frozenset({"int32", "uint32", "int64", "uint64", "float32", "float64"})


def _nondeterministic_ok(b: Binding) -> bool:
    if b.values["algorithm"] is not BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC:
        return True
    is_sum = b.method.name == "sum" or b.values.get("op") is KnownOp.PLUS
    return is_sum and b.values["dtype"].name in _ATOMIC_SUM_TYPES


def _nondeterministic_full(b: Binding) -> bool:
    """CUB 3.6's atomic path adds every warp's aggregate, ignoring num_valid: a partial reduction with it
    is wrong (seen on an H200: warps past valid_items added their undefined aggregates)."""
    if b.values["algorithm"] is not BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC:
        return True
    return "valid_items" not in {p.name for p in b.overload.params}


def _commutative_only_ok(b: Binding) -> bool:
    if b.values["algorithm"] is not BlockReduceAlgorithm.BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY:
        return True
    return (
        b.block_threads % 32 == 0 and b.block_threads > 32 and "valid_items" not in {p.name for p in b.overload.params}
    )


ALGORITHM = TemplateParam(
    name="algorithm",
    cpp="Algorithm",
    kind=TParamKind.ENUM,
    enum=BlockReduceAlgorithm,
    optional=True,
    default=BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS,
    auto=Auto(
        table="block_reduce",
        never=(BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC,),
        commutative=(BlockReduceAlgorithm.BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,),
    ),
    doc="Reduction algorithm; ``\"auto\"`` (the default) never picks ``\"warp_reductions_nondeterministic\"``, "
    "and picks ``\"raking_commutative_only\"`` only for a sum or a known commutative operator, never for a "
    "user function."
    " Floating-point results may round differently from one algorithm to another: the order of the operations "
    "differs.",
)

_VALID_DOC = (
    "Reduce only the first ``valid_items`` threads' inputs (CUB: num_valid), in CUB's linear thread order; "
    "any value at or above the block size means every thread."
)


BLOCK_REDUCE = register_primitive(
    PrimitiveSpec(
        name="block_reduce",
        cub_class="cub::BlockReduce",
        header="cub/block/block_reduce.cuh",
        scope=Scope.BLOCK,
        tparams=(DTYPE, BLOCK_DIMS[0], ALGORITHM, BLOCK_DIMS[1], BLOCK_DIMS[2]),
        algorithm=BlockReduceAlgorithm,
        methods=(
            Method(
                name="reduce",
                returns="dtype",
                overloads=reduce_overloads(op(associative=True), limit="block", valid_doc=_VALID_DOC),
                doc="Reduce the block's items with ``op``; the result is valid in thread 0.",
            ),
            Method(
                name="sum",
                returns="dtype",
                overloads=reduce_overloads(limit="block", valid_doc=_VALID_DOC),
                doc="Sum the block's items; the result is valid in thread 0.",
            ),
        ),
        constraints=(
            Constraint(
                check=_nondeterministic_ok,
                message=(
                    "algorithm={algorithm} adds with atomics: it computes sums of int32, uint32, int64, uint64, "
                    "float32 or float64 only (got {method} of {dtype}); use algorithm='warp_reductions'"
                ),
            ),
            Constraint(
                check=_nondeterministic_full,
                message=(
                    "algorithm={algorithm} adds every warp's partial with atomics and ignores valid_items (CUB "
                    "would return a wrong sum); use algorithm='warp_reductions' for a partial reduction"
                ),
            ),
            Constraint(
                check=_commutative_only_ok,
                message=(
                    "algorithm={algorithm} needs every thread's input (no valid_items) and a block of more than "
                    "32 threads, a multiple of 32 (got {block_threads} threads in {block_dim}); CUB would silently "
                    "use another algorithm, so ask for algorithm='raking'"
                ),
            ),
        ),
        doc="Block-wide reduction (``cub::BlockReduce``). The aggregate is valid in thread 0 only.",
        example="block_reduce_sum",
    )
)
