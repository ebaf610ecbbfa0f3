"""Building blocks shared by the family specs: template parameters, parameters, overload sets, constraints."""

from __future__ import annotations

from ._model import (
    MAX_BLOCK_THREADS,
    MAX_ITEMS_PER_THREAD,
    ArgKind,
    Binding,
    Constraint,
    CubEnum,
    Order,
    Overload,
    Pad,
    Param,
    TemplateParam,
    TParamKind,
)

__all__ = [
    "BLOCK_DIMS",
    "BROADCAST",
    "COUNT_TYPE",
    "DTYPE",
    "ITEMS_PER_THREAD",
    "LOGICAL_WARP_CONSTRAINT",
    "THREADS",
    "VALID_TYPE",
    "aggregate",
    "array",
    "block_threads_multiple_of_warp",
    "count",
    "load_overloads",
    "op",
    "out_array",
    "output",
    "reduce_overloads",
    "scalar",
    "scan_overloads",
    "store_overloads",
]

DTYPE = TemplateParam(name="dtype", cpp="T", kind=TParamKind.TYPE, doc="Data type of the items.")
ITEMS_PER_THREAD = TemplateParam(
    name="items_per_thread",
    cpp="ItemsPerThread",
    kind=TParamKind.INT,
    bounds=(1, MAX_ITEMS_PER_THREAD),
    doc="Number of items each thread holds (the extent of its per-thread array).",
)
THREADS = TemplateParam(
    name="threads",
    cpp="LogicalWarpThreads",
    kind=TParamKind.INT,
    optional=True,
    default=32,
    bounds=(1, MAX_BLOCK_THREADS),  # LOGICAL_WARP_CONSTRAINT says what CUB allows in these
    doc="Threads per logical warp: a power of two up to 32 that divides the block size.",
)
COUNT_TYPE = TemplateParam(
    name="count_type",
    cpp="CountT",
    kind=TParamKind.TYPE,
    optional=True,
    default="int32",
    kinds=("int", "uint"),
    doc="Integer type of a count (``valid_items``) as the kernel passes it; any width, never truncated.",
)
VALID_TYPE = TemplateParam(
    name="valid_type",
    cpp="ValidT",
    kind=TParamKind.TYPE,
    optional=True,
    default="int32",
    kinds=("int", "uint"),
    doc="Integer type of ``valid_items`` where the call has another count of its own type (top-k's ``k``).",
)


BROADCAST = TemplateParam(
    name="broadcast",
    cpp="Broadcast",
    kind=TParamKind.BOOL,
    optional=True,
    default=False,
    doc="Make the result valid in every thread of the block (of the logical warp), not only in thread (lane) 0. "
    "Cost: a block broadcasts through one shared-memory slot and one extra ``__syncthreads()``; a warp with "
    "one shuffle per 32-bit word of the value.",
)
"""``broadcast=``: an overload-level BOOL the renderer honours for any method with a result (see ``_render``)."""


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


def scalar(
    name: str, type_: str = "dtype", doc: str = "", *, uniform: bool = False, bounds: tuple[int, int] | None = None
) -> Param:
    return Param(name=name, kind=ArgKind.SCALAR, type=type_, doc=doc, uniform=uniform, bounds=bounds)


def count(
    limit: str, doc: str, *, empty: str | None = None, pad: Pad | None = None, type_: str = "count_type"
) -> Param:
    """``valid_items``: an integer of any width (of the TYPE parameter ``type_``), clamped to [0, ``limit``] (see
    ``Param.count_limit``: ``"tile"``, ``"block"``, ``"warp"`` or ``"warp_tile"``); ``empty``: see ``Param.empty``;
    ``pad``: see ``Param.pad``."""
    return Param(
        name="valid_items", kind=ArgKind.SCALAR, type=type_, count_limit=limit, uniform=True, doc=doc,  # type: ignore[arg-type]
        empty=empty, pad=pad,
    )


def array(
    name: str, type_: str = "dtype", extent: str = "items_per_thread", doc: str = "", *, inout: bool = False
) -> Param:
    return Param(name=name, kind=ArgKind.ARRAY, type=type_, extent=extent, doc=doc, inout=inout)


def output(name: str, type_: str = "dtype", doc: str = "") -> Param:
    return Param(name=name, kind=ArgKind.OUTPUT, type=type_, doc=doc)


def out_array(
    name: str, type_: str = "dtype", extent: str = "items_per_thread", doc: str = "", *, in_place_of: str | None = None
) -> Param:
    return Param(name=name, kind=ArgKind.OUTPUT, type=type_, extent=extent, doc=doc, in_place_of=in_place_of)


def aggregate(name: str, doc: str) -> Param:
    return Param(name=name, kind=ArgKind.AGGREGATE, type="dtype", doc=doc)


def op(
    name: str = "op",
    returns: str = "dtype",
    args: tuple[str, ...] = ("dtype", "dtype"),
    doc: str = "Binary operator.",
    *,
    order: Order | None = None,
    associative: bool = False,
    commutative: bool = False,
) -> Param:
    return Param(
        name=name, kind=ArgKind.OPERATOR, returns=returns, args=args, doc=doc, order=order, associative=associative,
        commutative=commutative,
    )


def block_threads_multiple_of_warp(algorithms: tuple[CubEnum, ...], fix: str) -> Constraint:
    """The ``algorithm`` needs a block size that is a multiple of 32 threads; ``fix`` says what to do instead."""

    def check(b: Binding) -> bool:
        return b.values.get("algorithm") not in algorithms or b.block_threads % 32 == 0

    return Constraint(
        check=check,
        message="algorithm={algorithm} needs a block size that is a multiple of 32 threads, but the block "
        "{block_dim} has {block_threads}; " + fix,
    )


def _logical_warp_ok(b: Binding) -> bool:
    lwt = int(b.values["threads"])
    return lwt <= 32 and lwt & (lwt - 1) == 0 and b.block_threads % lwt == 0


LOGICAL_WARP_CONSTRAINT = Constraint(
    check=_logical_warp_ok,
    message="threads={threads} must be a power of two up to 32 that divides the block size "
    "({block_threads} threads in {block_dim}); choose another logical warp size or block shape",
)

_X = scalar("x", doc="This thread's input item.")
_ITEMS = array("x", doc="This thread's input items (a ``cuda.local.array``).")


def reduce_overloads(*ops: Param, limit: str, valid_doc: str) -> tuple[Overload, ...]:
    """BlockReduce's and WarpReduce's forms: one item, an array of items, one item of the first valid threads."""
    valid = count(limit, valid_doc, empty=ops[0].name if ops else "+")
    return (
        Overload(name="scalar", params=(_X, *ops), tparams=(BROADCAST,)),
        Overload(name="array", params=(_ITEMS, *ops), tparams=(ITEMS_PER_THREAD, BROADCAST)),
        Overload(name="scalar_valid", params=(_X, *ops, valid), tparams=(COUNT_TYPE, BROADCAST)),
    )


_SCAN_OUTPUT_DOC = (
    "Array form only: this thread's ``cuda.local.array`` that receives the scan, with as many items as ``x`` "
    "(``x`` itself when omitted: the scan is in place). The scalar form returns its result and takes no ``output``."
)
_INIT = scalar("initial_value", doc="Seed of the scan (applied by the first thread).", uniform=True)


def scan_overloads(
    *,
    scan_op: bool,
    inits: tuple[bool, ...],
    aggregate_param: Param,
    arrays: bool = False,
    array_inits: tuple[bool, ...] | None = None,
    prefix: Param | None = None,
) -> tuple[Overload, ...]:
    """BlockScan's and WarpScan's forms: scalar (and, for blocks, array) x seed x {plain, aggregate}, and
    the prefix-callback forms when ``prefix`` is given.

    ``inits`` lists which seeds exist (True: with ``initial_value``) for the scalar form, ``array_inits``
    for the array form (default: ``inits``).
    """
    ops = (op(doc="Binary associative scan operator.", associative=True),) if scan_op else ()
    result = []
    for shape in ("scalar", "array") if arrays else ("scalar",):
        io: tuple[Param, ...] = (
            (_X, output("output"))
            if shape == "scalar"
            else (_ITEMS, out_array("output", in_place_of="x", doc=_SCAN_OUTPUT_DOC))
        )
        tparams = (ITEMS_PER_THREAD,) if shape == "array" else ()
        for init in inits if shape == "scalar" or array_inits is None else array_inits:
            head = io + ((_INIT,) if init else ()) + ops
            name = shape + ("_init" if init else "")
            result.append(Overload(name=name, params=head, tparams=tparams))
            result.append(Overload(name=name + "_aggregate", params=(*head, aggregate_param), tparams=tparams))
        if prefix is not None:
            result.append(Overload(name=shape + "_prefix", params=(*io, *ops, prefix), tparams=tparams))
    return tuple(result)


_ITEMS_DOC = "This thread's ``cuda.local.array(N, dtype)``."


def _pointer(name: str, tile: str, extent: str, *, const: bool) -> Param:
    return Param(
        name=name,
        kind=ArgKind.POINTER,
        type="dtype",
        const=const,
        offset="offset",
        min_extent=f"min(valid_items, {extent})",
        uniform=True,
        doc=f"A 1-D C-contiguous device array (global, or a ``cuda.shared.array``); {tile} starts at "
        f"``{name}[offset]``.",
    )


def load_overloads(tile: str, valid_doc: str, extent: str = "tile") -> tuple[Overload, ...]:
    """BlockLoad's and WarpLoad's forms: a full tile, a partial one, a partial one with a default for the rest.

    ``tile`` names what ``src[offset]`` starts (``"the tile"``, ``"the logical warp's tile"``); ``extent`` is its
    number of items (``"tile"``, ``"warp_tile"``: see ``Param.min_extent``).
    """
    src = _pointer("src", tile, extent, const=True)
    items, valid = out_array("items", doc=_ITEMS_DOC), count("tile", valid_doc)
    default = scalar("oob_default", doc="Value given to the items past ``valid_items``.", uniform=True)
    return (
        Overload(name="full", params=(src, items)),
        Overload(name="guarded", params=(src, items, valid), tparams=(COUNT_TYPE,)),
        Overload(name="guarded_default", params=(src, items, valid, default), tparams=(COUNT_TYPE,)),
    )


def store_overloads(tile: str, valid_doc: str, extent: str = "tile") -> tuple[Overload, ...]:
    """BlockStore's and WarpStore's forms: a full tile and a partial one (``extent`` as for ``load_overloads``)."""
    dst = _pointer("dst", tile, extent, const=False)
    items, valid = array("items", doc=_ITEMS_DOC), count("tile", valid_doc)
    return (
        Overload(name="full", params=(dst, items)),
        Overload(name="guarded", params=(dst, items, valid), tparams=(COUNT_TYPE,)),
    )
