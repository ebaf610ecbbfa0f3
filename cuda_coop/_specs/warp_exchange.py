"""``cub::WarpExchange``: rearrange each logical warp's items between blocked and striped orders, or by rank.

In a logical warp of ``threads`` lanes holding N items each, *blocked* gives lane ``l`` the warp's items
``l*N .. l*N+N-1`` and *striped* gives it ``l, l + threads, ...``.
"""

from __future__ import annotations

from ._common import DTYPE, ITEMS_PER_THREAD, LOGICAL_WARP_CONSTRAINT, THREADS, array, out_array
from ._model import Binding, Constraint, CubEnum, Method, Overload, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive

__all__ = ["WARP_EXCHANGE", "WarpExchangeAlgorithm"]


class WarpExchangeAlgorithm(CubEnum):
    """``cub::WarpExchangeAlgorithm``: how WarpExchange moves items between lanes."""

    WARP_EXCHANGE_SMEM = (
        "Each lane writes its items to the logical warp's shared memory, the warp synchronises, and each lane "
        "reads its new items back (CUB's default). Any number of items per thread; also scatters by rank.",
        "Two shared-memory passes and one warp barrier; the footprint is threads*N+1 items per logical warp "
        "(padded against bank conflicts when N is a power of two above 4).",
    )
    WARP_EXCHANGE_SHUFFLE = (
        "A transpose in registers by log2(threads) rounds of butterfly shuffles (shfl.sync.bfly); no shared "
        "memory. Needs exactly as many items per thread as the logical warp has lanes, and does not scatter.",
        "No shared memory and no barrier; N*log2(N)/2 shuffles per lane, so it pays off for small N.",
    )


ALGORITHM = TemplateParam(
    name="algorithm",
    cpp="Algorithm",
    kind=TParamKind.ENUM,
    enum=WarpExchangeAlgorithm,
    optional=True,
    default=WarpExchangeAlgorithm.WARP_EXCHANGE_SMEM,
    doc="Exchange algorithm.",
)
RANK_TYPE = TemplateParam(
    name="rank_type",
    cpp="OffsetT",
    kind=TParamKind.TYPE,
    optional=True,
    default="int32",
    kinds=("int", "uint"),
    doc="Integer type of the ranks, as the kernel's array holds them.",
)

_X = array("x", doc="This thread's input items, a ``cuda.local.array(N, dtype)``.")
_OUTPUT = out_array(
    "output", in_place_of="x", doc="Receives this thread's items after the exchange (default: ``x``, in place)."
)
_RANKS = array(
    "ranks",
    "rank_type",
    doc="Position (0 .. threads*N-1) in the logical warp's striped result of each of this thread's items; the "
    "ranks of a logical warp must be a permutation of its positions. Not modified.",
)
_SHUFFLE = WarpExchangeAlgorithm.WARP_EXCHANGE_SHUFFLE


def _shuffle_square(b: Binding) -> bool:
    return b.values["algorithm"] is not _SHUFFLE or b.values["items_per_thread"] == b.values["threads"]


def _shuffle_no_scatter(b: Binding) -> bool:
    return b.values["algorithm"] is not _SHUFFLE or b.method.name != "scatter_to_striped"


def _shuffle_types(b: Binding) -> bool:
    """The shuffle transpose passes items through __shfl_xor_sync: built-in integers and floats only."""
    return b.values["algorithm"] is not _SHUFFLE or b.values["dtype"].kind in ("int", "uint", "float")


def _transpose(name: str, doc: str) -> Method:
    return Method(name=name, overloads=(Overload(name="array", params=(_X, _OUTPUT)),), doc=doc)


WARP_EXCHANGE = register_primitive(
    PrimitiveSpec(
        name="warp_exchange",
        cub_class="cub::WarpExchange",
        header="cub/warp/warp_exchange.cuh",
        scope=Scope.WARP,
        tparams=(DTYPE, ITEMS_PER_THREAD, THREADS, ALGORITHM),
        algorithm=WarpExchangeAlgorithm,
        methods=(  # the scatter first: the transposes (last) are the methods every algorithm runs
            Method(
                name="scatter_to_striped",
                overloads=(Overload(name="array", params=(_X, _OUTPUT, _RANKS), tparams=(RANK_TYPE,)),),
                doc="Move each item to the position its rank gives in the logical warp's striped arrangement.",
            ),
            _transpose("blocked_to_striped", "Rearrange each logical warp's blocked items into a striped arrangement."),
            _transpose("striped_to_blocked", "Rearrange each logical warp's striped items into a blocked arrangement."),
        ),
        constraints=(
            LOGICAL_WARP_CONSTRAINT,
            Constraint(
                check=_shuffle_square,
                message="algorithm={algorithm} needs items_per_thread equal to threads (got items_per_thread="
                "{items_per_thread}, threads={threads}); use algorithm='smem'",
            ),
            Constraint(
                check=_shuffle_no_scatter,
                message="algorithm={algorithm} cannot scatter by rank; use algorithm='smem' for scatter_to_striped",
            ),
            Constraint(
                check=_shuffle_types,
                message="algorithm={algorithm} shuffles built-in integers and floats only (got {dtype}); "
                "use algorithm='smem'",
            ),
        ),
        doc="Warp-wide data rearrangement (``cub::WarpExchange``) in every logical warp of the block.",
        example="warp_exchange",
    )
)
