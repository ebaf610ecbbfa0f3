"""``cuda_coop::WarpArgsort``: the permutation that sorts each logical warp's tile, a cuda-coop composition of
``cub::WarpMergeSort``.

CUB has no warp radix sort; a stable ``cub::WarpMergeSort`` of (key, index) pairs gives the same result as
``coop.block.argsort`` does for a block: ``indices`` receives ``base + l*N + i`` (each key's position in the
logical warp's tile, lane ``l`` holding positions ``l*N .. l*N+N-1``, offset by ``base``) and the pairs are
sorted by key, stably, so afterwards lane ``l``'s ``indices`` are the warp-tile positions of the sorted keys:
``np.argsort(warp_tile, kind="stable") + base`` (descending: ties still in input order).

Key order: the comparator compares CUB's radix-order form of the keys (``cub::NumericTraits<KeyT>::TwiddleIn``
of their bits, -0.0 read as +0.0, as ``cub::BlockRadixSort`` does), so the order is exactly
``coop.block.radix_sort``'s over all the key's bits: integers numerically; floats ``-NaN < -inf < ... < -0.0 ==
+0.0 < ... < +inf < +NaN`` (a NaN by its sign bit and payload; -0.0 and +0.0 tie and keep their input order).
There is no bit range. Logical warps of a power of two lanes up to 32 (CUB's merge network needs one).
"""

from __future__ import annotations

from ._common import COUNT_TYPE, ITEMS_PER_THREAD, LOGICAL_WARP_CONSTRAINT, THREADS, array
from ._model import ArgKind, Method, Overload, Param, PrimitiveSpec, Scope
from ._registry import register_primitive
from .block_argsort import INDEX_TYPE
from .block_radix_sort import DESCENDING, KEY_ORDER_DOC, KEY_TYPE, partial_tile

__all__ = ["RADIX_ORDER_SUPPORT", "WARP_ARGSORT"]

RADIX_ORDER_SUPPORT = r"""
#ifndef CUDA_COOP_RADIX_ORDER_DEFINED
#define CUDA_COOP_RADIX_ORDER_DEFINED
#include <cuda/std/bit>
namespace cuda_coop
{
// cub::BlockRadixSort's key order as a comparator: the keys' bits twiddled by cub::NumericTraits (sign bit
// flipped for signed integers and non-negative floats, every bit for negative floats), -0.0 read as +0.0.
template <typename KeyT>
__device__ __forceinline__ typename cub::NumericTraits<KeyT>::UnsignedBits RadixOrderBits(const KeyT& key)
{
  using Traits       = cub::NumericTraits<KeyT>;
  using UnsignedBits = typename Traits::UnsignedBits;
  UnsignedBits bits  = Traits::TwiddleIn(::cuda::std::bit_cast<UnsignedBits>(key));
  if constexpr (::cuda::is_floating_point_v<KeyT>)
  {
    constexpr UnsignedBits minus_zero = UnsignedBits(UnsignedBits(1) << (8 * sizeof(UnsignedBits) - 1));
    if (bits == Traits::TwiddleIn(minus_zero))
    {
      bits = Traits::TwiddleIn(UnsignedBits(0));
    }
  }
  return bits;
}

// a goes before b: ascending (Descending = false) or descending radix order; a strict weak order.
template <typename KeyT, bool Descending>
struct RadixOrder
{
  __device__ __forceinline__ bool operator()(const KeyT& a, const KeyT& b) const
  {
    return Descending ? RadixOrderBits(b) < RadixOrderBits(a) : RadixOrderBits(a) < RadixOrderBits(b);
  }
};
} // namespace cuda_coop
#endif
"""

SUPPORT = RADIX_ORDER_SUPPORT + r"""
namespace cuda_coop
{
// Stable argsort of each logical warp's tile: indices = base + position in the warp's tile (blocked), sorted
// with the keys by cub::WarpMergeSort::StableSort in radix order.
template <typename KeyT, int ItemsPerThread, int LogicalWarpThreads, typename IndexT>
class WarpArgsort
{
  using SortT = cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, IndexT>;

public:
  using TempStorage = typename SortT::TempStorage;

private:
  TempStorage& temp_storage;
  int lane;

  __device__ __forceinline__ void Fill(IndexT (&indices)[ItemsPerThread], long long base) const
  {
    const long long first = base + static_cast<long long>(lane) * ItemsPerThread;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      indices[i] = static_cast<IndexT>(first + i);
    }
  }

public:
  __device__ __forceinline__ explicit WarpArgsort(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}

  __device__ __forceinline__ void
  Argsort(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base)
  {
    Fill(indices, base);
    SortT(temp_storage).StableSort(keys, indices, RadixOrder<KeyT, false>{});
  }

  __device__ __forceinline__ void
  ArgsortDescending(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base)
  {
    Fill(indices, base);
    SortT(temp_storage).StableSort(keys, indices, RadixOrder<KeyT, true>{});
  }
};
} // namespace cuda_coop
"""

_KEYS = array(
    "keys", inout=True,
    doc="This lane's keys, a ``cuda.local.array(N, dtype)``; the logical warp's tile is sorted in place (blocked: "
    "lane ``l`` receives the warp's sorted positions ``l*N .. l*N+N-1``).",
)
_INDICES = array(
    "indices", "index_type", inout=True,
    doc="A ``cuda.local.array(N, <integer type>)``; its input is ignored: it receives ``base`` plus the "
    "warp-tile positions (``l*N + i``) of this lane's sorted keys.",
)
_BASE = Param(
    name="base", kind=ArgKind.SCALAR, type="int64", default=0, uniform=True,
    doc="Added to every warp-tile position (e.g. the warp tile's offset in the whole array); an int64 value.",
)
_VALID = partial_tile(
    "Sort only the logical warp tile's first ``valid_items`` keys (positions ``l*N + i``) with their indices into "
    "its first ``valid_items`` positions; the later positions hold unspecified keys and indices. Clamped to [0, "
    "warp tile].",
    limit="warp_tile",
)

WARP_ARGSORT = register_primitive(
    PrimitiveSpec(
        name="warp_argsort",
        cub_class="cuda_coop::WarpArgsort",
        header="cub/warp/warp_merge_sort.cuh",
        scope=Scope.WARP,
        tparams=(KEY_TYPE, ITEMS_PER_THREAD, THREADS, INDEX_TYPE),
        methods=(
            Method(
                name="argsort",
                cpp="Argsort{descending}",
                choices={"descending": {False: "", True: "Descending"}},
                overloads=(
                    Overload(name="pairs", params=(_KEYS, _INDICES, _BASE), tparams=(ITEMS_PER_THREAD, DESCENDING)),
                    Overload(
                        name="pairs_valid",
                        params=(_KEYS, _INDICES, _BASE, _VALID),
                        tparams=(ITEMS_PER_THREAD, DESCENDING, COUNT_TYPE),
                    ),
                ),
                doc="Fill ``indices`` with ``base`` + warp-tile positions and sort them with the keys, stably. "
                + KEY_ORDER_DOC,
            ),
        ),
        constraints=(LOGICAL_WARP_CONSTRAINT,),
        support=SUPPORT,
        doc="Warp-wide stable argsort in every logical warp: cuda-coop's composition of ``cub::WarpMergeSort`` over "
        "(key, index) pairs, in ``coop.block.radix_sort``'s key order (CUB has no warp radix sort). "
        + KEY_ORDER_DOC,
        example="warp_argsort",  # examples/warp_sort.py
    )
)
