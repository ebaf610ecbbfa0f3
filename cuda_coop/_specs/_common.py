"""Building blocks shared by the family specs: common template parameters, parameters, constraints."""

from __future__ import annotations

from ._model import ArgKind, Constraint, Overload, Param, TemplateParam, TParamKind
from ._request import Binding

__all__ = [
    "BLOCK_DIMS",
    "DTYPE",
    "ITEMS_PER_THREAD",
    "LOGICAL_WARP_THREADS",
    "array",
    "block_threads_multiple_of_warp",
    "op",
    "out_array",
    "output",
    "reduce_overloads",
    "scalar",
]

DTYPE = TemplateParam(name="dtype", cpp="T", kind=TParamKind.TYPE, doc="Data type of the items.")
ITEMS_PER_THREAD = TemplateParam(
    name="items_per_thread",
    cpp="ItemsPerThread",
    kind=TParamKind.INT,
    doc="Number of items each thread holds (the extent of its per-thread array).",
)
LOGICAL_WARP_THREADS = TemplateParam(
    name="logical_warp_threads",
    cpp="LogicalWarpThreads",
    kind=TParamKind.INT,
    optional=True,
    default=32,
    doc="Threads per logical warp: a power of two up to 32 that divides the block size.",
)


def _dim(axis: str, optional: bool) -> TemplateParam:
    return TemplateParam(
        name=f"block_dim_{axis}",
        cpp=f"BlockDim{axis.upper()}",
        kind=TParamKind.INT,
        inferred=f"block_dim_{axis}",  # type: ignore[arg-type]
        optional=optional,
        default=1 if optional else None,
        doc=f"Block length in threads along {axis.upper()}; taken from the launch.",
    )


BLOCK_DIMS = (_dim("x", False), _dim("y", True), _dim("z", True))
"""BlockDimX, BlockDimY, BlockDimZ: inferred from the launch's block shape."""


def scalar(name: str, type_: str = "dtype", doc: str = "") -> Param:
    return Param(name=name, kind=ArgKind.SCALAR, type=type_, doc=doc)


def array(
    name: str, type_: str = "dtype", extent: str = "items_per_thread", doc: str = "", *, inout: bool = False
) -> Param:
    return Param(name=name, kind=ArgKind.ARRAY, type=type_, extent=extent, doc=doc, inout=inout)


def output(name: str, type_: str = "dtype", doc: str = "") -> Param:
    return Param(name=name, kind=ArgKind.OUTPUT, type=type_, doc=doc)


def out_array(name: str, type_: str = "dtype", extent: str = "items_per_thread", doc: str = "") -> Param:
    return Param(name=name, kind=ArgKind.OUTPUT, type=type_, extent=extent, doc=doc)


def op(
    name: str = "op", returns: str = "dtype", args: tuple[str, ...] = ("dtype", "dtype"), doc: str = "Binary operator."
) -> Param:
    return Param(name=name, kind=ArgKind.OPERATOR, returns=returns, args=args, doc=doc)


def block_threads_multiple_of_warp(algorithms: tuple[object, ...], what: str) -> Constraint:
    """The ``algorithm`` needs a block size that is a multiple of 32 threads."""

    def check(b: Binding) -> bool:
        return b.values.get("algorithm") not in algorithms or b.block_threads % 32 == 0

    return Constraint(
        check=check,
        message="algorithm={algorithm} needs a block size that is a multiple of 32 threads, but the block "
        "{block_dim} has {block_threads}; " + what,
    )


def _logical_warp_ok(b: Binding) -> bool:
    lwt = int(b.values["logical_warp_threads"])
    return lwt <= 32 and lwt & (lwt - 1) == 0 and b.block_threads % lwt == 0


LOGICAL_WARP_CONSTRAINT = Constraint(
    check=_logical_warp_ok,
    message="logical_warp_threads={logical_warp_threads} must be a power of two up to 32 that divides "
    "the block size ({block_threads} threads in {block_dim}); choose another logical warp size or block shape",
)


def reduce_overloads(*ops: Param, valid_doc: str) -> tuple[Overload, ...]:
    """The overloads BlockReduce and WarpReduce share: one item, an array of items, one item of the first valid ones."""
    one = scalar("input", doc="This thread's input item.")
    items = array("input", doc="This thread's input items.")
    return (
        Overload(name="scalar", params=(one, *ops)),
        Overload(name="array", params=(items, *ops), tparams=(ITEMS_PER_THREAD,)),
        Overload(name="scalar_valid", params=(one, *ops, scalar("valid_items", "int32", doc=valid_doc))),
    )
