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

__all__ = ["ARG_ORDERED", "ARG_SUPPORT", "BLOCK_ARG_REDUCE", "arg_class_parts", "arg_methods"]

ARG_SUPPORT = r"""
#ifndef CUDA_COOP_ARG_PAIR_DEFINED
#define CUDA_COOP_ARG_PAIR_DEFINED
namespace cuda_coop
{
// A value and its position; reduced with a total order (so any reduction order gives the same pair).
template <typename T>
struct ArgPair
{
  T value;
  long long index;
};

// Max: the larger value wins, Min: the smaller; NaN beats every number (as in NumPy); ties: the lower index.
template <bool Max>
struct ArgBetter
{
  template <typename T>
  __device__ __forceinline__ ArgPair<T> operator()(const ArgPair<T>& a, const ArgPair<T>& b) const
  {
    const bool a_nan = !(a.value == a.value);
    const bool b_nan = !(b.value == b.value);
    if (a_nan || b_nan)
    {
      return (b_nan && (!a_nan || b.index < a.index)) ? b : a;
    }
    const bool b_wins = Max ? (a.value < b.value) : (b.value < a.value);
    const bool tie    = !(a.value < b.value) && !(b.value < a.value);
    return (b_wins || (tie && b.index < a.index)) ? b : a;
  }
};
} // namespace cuda_coop
#endif
"""


def arg_class_parts(rank: str) -> tuple[str, str]:
    """The C++ shared by the block and warp arg-reduce classes, for a thread whose rank is ``rank``: their
    private members (storage, rank, pair reduction, tile scan), then their public ArgMax/ArgMin."""
    return _MEMBERS.replace("RANK", rank), _METHODS.replace("RANK", rank)


_MEMBERS = r"""
public:
  using TempStorage = typename ReduceT::TempStorage;

private:
  TempStorage& temp_storage;
  int RANK;

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
    Pair p{items[0], static_cast<long long>(RANK) * N};
#pragma unroll
    for (int i = 1; i < N; ++i)
    {
      p = ArgBetter<Max>{}(p, Pair{items[i], static_cast<long long>(RANK) * N + i});
    }
    Finish<Max>(p, value, index);
  }
"""
_METHODS = r"""  __device__ __forceinline__ void ArgMax(T x, T& value, long long& index)
  {
    Finish<true>(Pair{x, RANK}, value, index);
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
    Finish<false>(Pair{x, RANK}, value, index);
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

_BLOCK_MEMBERS, _BLOCK_METHODS = arg_class_parts("linear_tid")

_SUPPORT = (
    ARG_SUPPORT
    + r"""
namespace cuda_coop
{
template <typename T,
          int BlockDimX,
          cub::BlockReduceAlgorithm Algorithm = cub::BLOCK_REDUCE_WARP_REDUCTIONS,
          int BlockDimY                       = 1,
          int BlockDimZ                       = 1>
class BlockArgReduce
{
  using Pair    = ArgPair<T>;
  using ReduceT = cub::BlockReduce<Pair, BlockDimX, Algorithm, BlockDimY, BlockDimZ>;
"""
    + _BLOCK_MEMBERS
    + r"""
public:
  __device__ __forceinline__ explicit BlockArgReduce(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , linear_tid(cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ))
  {}

"""
    + _BLOCK_METHODS
)

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
        header="cub/block/block_reduce.cuh",
        scope=Scope.BLOCK,
        tparams=(ARG_ORDERED, BLOCK_DIMS[0], _ALGORITHM, BLOCK_DIMS[1], BLOCK_DIMS[2]),
        methods=arg_methods("block's tile"),
        support=_SUPPORT,
        doc="Block-wide argmax/argmin: cuda-coop's composition of ``cub::BlockReduce`` over (value, position) "
        "pairs; the result is valid in thread 0.",
        example="block_arg_reduce",
    )
)
