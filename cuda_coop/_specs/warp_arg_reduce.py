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
from .block_arg_reduce import ARG_ORDERED, ARG_SUPPORT, arg_class_parts, arg_methods

__all__ = ["WARP_ARG_REDUCE"]

_MEMBERS, _METHODS = arg_class_parts("lane")
_SUPPORT = (
    ARG_SUPPORT
    + r"""
namespace cuda_coop
{
template <typename T, int LogicalWarpThreads = 32>
class WarpArgReduce
{
  using Pair    = ArgPair<T>;
  using ReduceT = cub::WarpReduce<Pair, LogicalWarpThreads>;
"""
    + _MEMBERS
    + r"""
public:
  __device__ __forceinline__ explicit WarpArgReduce(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}

"""
    + _METHODS
)

WARP_ARG_REDUCE = register_primitive(
    PrimitiveSpec(
        name="warp_arg_reduce",
        cub_class="cuda_coop::WarpArgReduce",
        header="cub/warp/warp_reduce.cuh",
        scope=Scope.WARP,
        tparams=(ARG_ORDERED, THREADS),
        methods=arg_methods("logical warp"),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        support=_SUPPORT,
        doc="Warp-wide argmax/argmin in every logical warp: cuda-coop's composition of ``cub::WarpReduce`` over "
        "(value, position) pairs; the result is valid in lane 0.",
        example="warp_arg_reduce",
    )
)
