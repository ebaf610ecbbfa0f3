"""``cub::BlockExchange``: rearrange a tile between blocked, striped and warp-striped orders, or by rank.

A *blocked* arrangement gives thread ``t`` the items ``t*N .. t*N+N-1`` of the tile; a *striped* one
gives it ``t, t + block_threads, ...``; a *warp-striped* one stripes each warp's ``32*N`` items across
its 32 lanes. Every method goes through shared memory and reads the result back; the output may be
the input (in place) or another per-thread array.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, DTYPE, ITEMS_PER_THREAD, array, out_array
from ._model import Binding, Constraint, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive

__all__ = ["BLOCK_EXCHANGE"]

WARP_TIME_SLICING = TemplateParam(
    name="warp_time_slicing",
    cpp="WarpTimeSlicing",
    kind=TParamKind.BOOL,
    optional=True,
    default=False,
    doc="Use shared memory for one warp's share of the tile only and exchange in one synchronised round per "
    "warp: a smaller footprint for less parallelism.",
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
SIGNED_RANK_TYPE = TemplateParam(
    name="rank_type",
    cpp="OffsetT",
    kind=TParamKind.TYPE,
    optional=True,
    default="int32",
    kinds=("int",),
    doc="Signed integer type of the ranks (a negative rank marks an item that is not exchanged).",
)
FLAG_TYPE = TemplateParam(
    name="flag_type",
    cpp="ValidFlag",
    kind=TParamKind.TYPE,
    optional=True,
    default="bool",
    kinds=("bool", "int", "uint"),
    doc="Type of the validity flags (bool or an integer; nonzero means valid).",
)

_X = array("x", doc="This thread's input items, a ``cuda.local.array(N, dtype)``.")
_OUTPUT = out_array(
    "output", in_place_of="x", doc="Receives this thread's items after the exchange (default: ``x``, in place)."
)
_RANKS = array(
    "ranks",
    "rank_type",
    doc="Tile position (0 .. block_threads*N-1) of each of this thread's items; the ranks of the block must be a "
    "permutation of the tile's positions (a rank outside the tile writes outside CUB's shared memory).",
)
_GUARDED_RANKS = array(
    "ranks",
    "rank_type",
    doc="Tile position of each of this thread's items, or a negative value for an item that is not exchanged; "
    "output positions no item was ranked to hold undefined values.",
)
_FLAGGED_RANKS = array(
    "ranks",
    "rank_type",
    doc="Tile position of each of this thread's items; only the ranks of valid items are used.",
)
_FLAGS = array(
    "valid_flags",
    "flag_type",
    doc="Per-item flag: only items whose flag is nonzero (True) are exchanged; output positions no valid item "
    "was ranked to hold undefined values.",
)


def _transpose(name: str, doc: str) -> Method:
    return Method(name=name, overloads=(Overload(name="array", params=(_X, _OUTPUT)),), doc=doc)


def _scatter(name: str, doc: str, params: tuple[Param, ...], tparams: tuple[TemplateParam, ...]) -> Method:
    """A scatter in CUB's argument order: input items, output items, ranks (and flags)."""
    overload = Overload(name="array", params=(_X, _OUTPUT, *params), tparams=tparams)
    return Method(name=name, overloads=(overload,), doc=doc)


_WARP_STRIPED = ("warp_striped_to_blocked", "blocked_to_warp_striped")
_UNSLICED = ("scatter_to_striped_guarded", "scatter_to_striped_flagged")


def _whole_warps(b: Binding) -> bool:
    """CUB lays out a warp-striped tile in 32-lane warps: the last warp of a block that is not a multiple of 32
    would read items no lane wrote and write past its shared memory."""
    return b.method.name not in _WARP_STRIPED or b.block_threads % 32 == 0


def _unsliced(b: Binding) -> bool:
    """CUB's guarded and flagged scatters ignore WarpTimeSlicing and index the whole tile, which the
    time-sliced storage (one warp's share) does not hold."""
    return b.method.name not in _UNSLICED or not b.values["warp_time_slicing"] or b.block_threads <= 32


BLOCK_EXCHANGE = register_primitive(
    PrimitiveSpec(
        name="block_exchange",
        cub_class="cub::BlockExchange",
        header="cub/block/block_exchange.cuh",
        scope=Scope.BLOCK,
        tparams=(DTYPE, BLOCK_DIMS[0], ITEMS_PER_THREAD, WARP_TIME_SLICING, BLOCK_DIMS[1], BLOCK_DIMS[2]),
        methods=(
            _transpose("striped_to_blocked", "Rearrange a striped tile into a blocked arrangement."),
            _transpose("blocked_to_striped", "Rearrange a blocked tile into a striped arrangement."),
            _transpose("warp_striped_to_blocked", "Rearrange a warp-striped tile into a blocked arrangement."),
            _transpose("blocked_to_warp_striped", "Rearrange a blocked tile into a warp-striped arrangement."),
            _scatter(
                "scatter_to_blocked",
                "Move each item to the tile position its rank gives; the result is in blocked order.",
                (_RANKS,),
                (RANK_TYPE,),
            ),
            _scatter(
                "scatter_to_striped",
                "Move each item to the tile position its rank gives; the result is in striped order.",
                (_RANKS,),
                (RANK_TYPE,),
            ),
            _scatter(
                "scatter_to_striped_guarded",
                "Like scatter_to_striped, skipping the items whose rank is negative.",
                (_GUARDED_RANKS,),
                (SIGNED_RANK_TYPE,),
            ),
            _scatter(
                "scatter_to_striped_flagged",
                "Like scatter_to_striped, exchanging only the items whose flag is set.",
                (_FLAGGED_RANKS, _FLAGS),
                (RANK_TYPE, FLAG_TYPE),
            ),
        ),
        constraints=(
            Constraint(
                check=_whole_warps,
                message="{method} needs whole warps: a block size that is a multiple of 32 threads, but the block "
                "{block_dim} has {block_threads}; CUB would read items no thread wrote. Use "
                "striped_to_blocked/blocked_to_striped, or a multiple of 32 threads",
            ),
            Constraint(
                check=_unsliced,
                message="{method} does not time-slice: with warp_time_slicing=True CUB would write the whole tile "
                "of the block {block_dim} into one warp's shared memory; use warp_time_slicing=False",
            ),
        ),
        doc="Block-wide data rearrangement (``cub::BlockExchange``) of per-thread arrays.",
        example="block_exchange",
    )
)
