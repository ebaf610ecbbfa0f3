"""``cub::BlockShuffle``: move items between the threads of the block through shared memory.

``offset`` and ``rotate`` move one value per thread by a distance in CUB's linear thread order;
``up`` and ``down`` move a blocked tile by one item (towards later, respectively earlier, items),
optionally handing every thread the tile's last (``up``) or first (``down``) item.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, DTYPE, ITEMS_PER_THREAD, aggregate, array, out_array, output, scalar
from ._model import ArgKind, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive

__all__ = ["BLOCK_SHUFFLE"]

_X = scalar("x", doc="This thread's value.")
_OUT = output("output", doc="The value of the thread ``distance`` ranks away.")
_OFFSET_DISTANCE = scalar(
    "distance",
    "int32",
    doc="Rank distance of the source thread (default 1): thread ``t`` receives thread ``t + distance``'s value; "
    "negative distances read earlier threads. An int32 (any value; larger types are refused, never truncated).",
)
DISTANCE_TYPE = TemplateParam(
    name="distance_type",
    cpp="DistanceT",
    kind=TParamKind.TYPE,
    optional=True,
    default="uint32",
    kinds=("int", "uint"),
    doc="Integer type of ``distance`` as the kernel passes it; any width.",
)
_ROTATE_DISTANCE = Param(
    name="distance",
    kind=ArgKind.SCALAR,
    type="distance_type",
    count_limit="block",
    doc="Rank distance of the source thread (default 1): thread ``t`` receives thread "
    "``(t + distance) % block_threads``'s value, for ``0 <= distance <= block_threads``. CUB reads outside its "
    "storage beyond that range, so a larger distance acts as ``block_threads`` (no rotation) and a negative one "
    "as 0; reduce it modulo the block size first.",
)
_ITEMS = array("x", doc="This thread's items in blocked order (a ``cuda.local.array``).")
_SHIFTED = out_array(
    "output",
    in_place_of="x",
    doc="Receives the shifted items (default: ``x``, in place). The one item with no source (the tile's first "
    "for ``up``, its last for ``down``) keeps this array's previous value.",
)
_SUFFIX = aggregate(
    "block_suffix", "A ``cuda.local.array(1, dtype)`` that receives the tile's last item, in every thread."
)
_PREFIX = aggregate(
    "block_prefix", "A ``cuda.local.array(1, dtype)`` that receives the tile's first item, in every thread."
)
_ARRAY = (ITEMS_PER_THREAD,)

BLOCK_SHUFFLE = register_primitive(
    PrimitiveSpec(
        name="block_shuffle",
        cub_class="cub::BlockShuffle",
        header="cub/block/block_shuffle.cuh",
        scope=Scope.BLOCK,
        tparams=(DTYPE, *BLOCK_DIMS),
        methods=(
            Method(
                name="offset",
                overloads=(
                    Overload(name="scalar", params=(_X, _OUT)),
                    Overload(name="scalar_distance", params=(_X, _OUT, _OFFSET_DISTANCE)),
                ),
                doc="Each thread receives the value of the thread ``distance`` ranks away; the result is "
                "unspecified in threads whose source lies outside the block (CUB leaves it unwritten).",
            ),
            Method(
                name="rotate",
                overloads=(
                    Overload(name="scalar", params=(_X, _OUT)),
                    Overload(name="scalar_distance", params=(_X, _OUT, _ROTATE_DISTANCE), tparams=(DISTANCE_TYPE,)),
                ),
                doc="Each thread receives the value of the thread ``distance`` ranks later, wrapping around the block.",
            ),
            Method(
                name="up",
                overloads=(
                    Overload(name="array", params=(_ITEMS, _SHIFTED), tparams=_ARRAY),
                    Overload(name="array_suffix", params=(_ITEMS, _SHIFTED, _SUFFIX), tparams=_ARRAY),
                ),
                doc="Shift the tile up by one item: item ``i`` of the tile receives item ``i - 1``.",
            ),
            Method(
                name="down",
                overloads=(
                    Overload(name="array", params=(_ITEMS, _SHIFTED), tparams=_ARRAY),
                    Overload(name="array_prefix", params=(_ITEMS, _SHIFTED, _PREFIX), tparams=_ARRAY),
                ),
                doc="Shift the tile down by one item: item ``i`` of the tile receives item ``i + 1``.",
            ),
        ),
        doc="Block-wide shuffles of values and tiles (``cub::BlockShuffle``).",
        example="block_shuffle",
    )
)
