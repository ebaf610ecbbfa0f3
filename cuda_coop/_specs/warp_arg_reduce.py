"""``cuda_coop::WarpArgReduce``: the largest (or smallest) item of each logical warp and its position, lowest
position on ties; a cuda-coop composition of ``cub::WarpReduce`` over (value, index) pairs.

Positions are within the logical warp (lane ``l``'s item ``i`` of N is ``l * N + i``; one item per lane: the
lane), or given by the kernel (``index=``). Same total order as ``coop.block.argmax`` (NaN first, then the
lower position on ties). Valid in lane 0 of each logical warp.
"""

from __future__ import annotations

from ._common import LOGICAL_WARP_CONSTRAINT, THREADS
from ._model import PrimitiveSpec, Scope
from ._registry import register_primitive
from .block_arg_reduce import ARG_ORDERED, arg_methods

__all__ = ["WARP_ARG_REDUCE"]

WARP_ARG_REDUCE = register_primitive(
    PrimitiveSpec(
        name="warp_arg_reduce",
        cub_class="cuda_coop::WarpArgReduce",
        header="cuda_coop/warp_arg_reduce.cuh",
        scope=Scope.WARP,
        tparams=(ARG_ORDERED, THREADS),
        methods=arg_methods("logical warp"),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        doc="Warp-wide argmax/argmin in every logical warp: cuda-coop's composition of ``cub::WarpReduce`` over "
        "(value, position) pairs; the result is valid in lane 0.",
        example="warp_arg_reduce",
    )
)
