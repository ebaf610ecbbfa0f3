"""``cuda_coop::BlockArgReduce``: the largest (or smallest) item of the block's tile and its position, lowest
position on ties; a cuda-coop composition of ``cub::BlockReduce`` over (value, index) pairs.

The position of an item is its index in the tile (blocked: thread ``t``'s item ``i`` is ``t * N + i``; one
item per thread: the thread's CUB linear rank), or a position the kernel gives (``index=``, one item per
thread). The pairs are reduced with a total order: larger (smaller) value first, then the lower position, so
the result does not depend on CUB's reduction order. A NaN counts as the largest and as the smallest value,
as in NumPy (``np.argmax``/``np.argmin`` return the first NaN). Valid in thread 0.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, ITEMS_PER_THREAD
from ._model import ArgKind, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive
from .block_reduce import BlockReduceAlgorithm

__all__ = ["ARG_ORDERED", "BLOCK_ARG_REDUCE", "arg_methods"]

ARG_ORDERED = TemplateParam(
    name="dtype",
    cpp="T",
    kind=TParamKind.TYPE,
    kinds=("int", "uint", "float"),
    doc="Data type of the items: integers or floating-point (complex numbers have no order).",
)


_ALGORITHM = TemplateParam(
    name="algorithm",
    cpp="Algorithm",
    kind=TParamKind.ENUM,
    enum=BlockReduceAlgorithm,
    optional=True,
    public=False,
    default=BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS,
    doc="CUB's default tiled warp reductions (pairs are neither summed atomically nor commutative-only tuned).",
)


def arg_methods(where: str) -> tuple[Method, ...]:
    """``argmax`` and ``argmin``: one item (position: the thread's rank, or ``index=``) or a tile of N items."""
    x = Param(name="x", kind=ArgKind.SCALAR, type="dtype", doc="This thread's item.")
    items = Param(
        name="x", kind=ArgKind.ARRAY, type="dtype", extent="items_per_thread",
        doc="This thread's items, a ``cuda.local.array`` in blocked order.",
    )
    index = Param(
        name="index", kind=ArgKind.SCALAR, type="int64",
        doc="The position reported for this thread's item (default: its rank); an int64 value.",
    )
    outs = (
        Param(name="value", kind=ArgKind.OUTPUT, type="dtype", doc="The largest (smallest) item."),
        Param(name="position", kind=ArgKind.OUTPUT, type="int64", doc="Its position, the lowest on ties."),
    )
    overloads = (
        Overload(name="scalar", params=(x, *outs)),
        Overload(name="scalar_index", params=(x, index, *outs)),
        Overload(name="array", params=(items, *outs), tparams=(ITEMS_PER_THREAD,)),
    )
    return tuple(
        Method(
            name=f"arg{which}",
            cpp=f"Arg{which.capitalize()}",
            overloads=overloads,
            doc=f"The {word} item of the {where} and its position (lowest on ties), as ``(value, position)``.",
        )
        for which, word in (("max", "largest"), ("min", "smallest"))
    )


BLOCK_ARG_REDUCE = register_primitive(
    PrimitiveSpec(
        name="block_arg_reduce",
        cub_class="cuda_coop::BlockArgReduce",
        header="cuda_coop/block_arg_reduce.cuh",
        scope=Scope.BLOCK,
        tparams=(ARG_ORDERED, BLOCK_DIMS[0], _ALGORITHM, BLOCK_DIMS[1], BLOCK_DIMS[2]),
        methods=arg_methods("block's tile"),
        doc="Block-wide argmax/argmin: cuda-coop's composition of ``cub::BlockReduce`` over (value, position) "
        "pairs; the result is valid in thread 0.",
        example="block_arg_reduce",
    )
)
