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
from .block_arg_reduce import ARG_ORDERED, ARG_SUPPORT, arg_methods

__all__ = ["WARP_ARG_REDUCE"]

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

public:
  using TempStorage = typename ReduceT::TempStorage;

private:
  TempStorage& temp_storage;
  int lane;

  template <bool Max>
  __device__ __forceinline__ void Finish(Pair p, T& value, long long& index)
  {
    p     = ReduceT(temp_storage).Reduce(p, ArgBetter<Max>{});
    value = p.value;
    index = p.index;
  }

  template <bool Max, int N>
  __device__ __forceinline__ void Tile(T (&items)[N], T& value, long long& index)
  {
    Pair p{items[0], static_cast<long long>(lane) * N};
#pragma unroll
    for (int i = 1; i < N; ++i)
    {
      p = ArgBetter<Max>{}(p, Pair{items[i], static_cast<long long>(lane) * N + i});
    }
    Finish<Max>(p, value, index);
  }

public:
  __device__ __forceinline__ explicit WarpArgReduce(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}

  __device__ __forceinline__ void ArgMax(T x, T& value, long long& index)
  {
    Finish<true>(Pair{x, lane}, value, index);
  }
  __device__ __forceinline__ void ArgMax(T x, long long position, T& value, long long& index)
  {
    Finish<true>(Pair{x, position}, value, index);
  }
  template <int N>
  __device__ __forceinline__ void ArgMax(T (&items)[N], T& value, long long& index)
  {
    Tile<true>(items, value, index);
  }
  __device__ __forceinline__ void ArgMin(T x, T& value, long long& index)
  {
    Finish<false>(Pair{x, lane}, value, index);
  }
  __device__ __forceinline__ void ArgMin(T x, long long position, T& value, long long& index)
  {
    Finish<false>(Pair{x, position}, value, index);
  }
  template <int N>
  __device__ __forceinline__ void ArgMin(T (&items)[N], T& value, long long& index)
  {
    Tile<false>(items, value, index);
  }
};
} // namespace cuda_coop
"""
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
