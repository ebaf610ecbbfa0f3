// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::WarpArgsort, the permutation that sorts each logical warp's tile; a composition of
// cub::WarpMergeSort or of cub::detail::WarpBitonicSort (the spec: cuda_coop/_specs/warp_argsort.py).

#pragma once

#include <cub/warp/warp_merge_sort.cuh>

#include <cuda_coop/detail/radix_order.cuh>
#include <cuda_coop/detail/warp_bitonic.cuh>
#include <cuda_coop/warp_merge_sort.cuh>

namespace cuda_coop
{
//! @brief Stable argsort of each logical warp's tile: the indices `base + l * ItemsPerThread + i` (each key's
//! position in the warp tile, offset by `base`) sorted with the keys in cub::BlockRadixSort's key order
//! (cuda_coop::RadixOrder), ties in input order.
//!
//! WARP_SORT_MERGE_SORT sorts (key, index) pairs with cub::WarpMergeSort::StableSort. WARP_SORT_BITONIC sorts the
//! keys packed with their positions (detail::RadixPacked: order bits above the position, one integer) with
//! cub::detail::WarpBitonicSort, so ties go by position, and exchanges the striped result back to blocked: the same
//! keys and indices, bit for bit.
//!
//! @tparam KeyT                Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam ItemsPerThread      Keys each lane holds.
//! @tparam LogicalWarpThreads  Lanes of a logical warp: a power of two up to 32.
//! @tparam IndexT              Integer type of the indices (`base + position` converts to it as C++ converts).
//! @tparam Algorithm           <b>[optional]</b> WARP_SORT_MERGE_SORT (default) or WARP_SORT_BITONIC.
template <typename KeyT,
          int ItemsPerThread,
          int LogicalWarpThreads,
          typename IndexT,
          WarpSortAlgorithm Algorithm = WARP_SORT_MERGE_SORT>
class WarpArgsort
{
  static constexpr bool bitonic = Algorithm == WARP_SORT_BITONIC;
  using SortT                   = cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, IndexT>;
  template <bool Descending>
  using BitonicT  = detail::RadixBitonic<KeyT, Descending, ItemsPerThread, LogicalWarpThreads>;
  using PackedT   = typename BitonicT<false>::ItemT; // the same type either way
  using ExchangeT = detail::StripedToBlocked<ItemsPerThread, LogicalWarpThreads, PackedT>;

public:
  //! The temporary storage of one logical warp.
  using TempStorage =
    ::cuda::std::conditional_t<bitonic, typename ExchangeT::TempStorage, typename SortT::TempStorage>;

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

  template <bool Descending>
  __device__ __forceinline__ void
  Sort(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base)
  {
    if constexpr (bitonic)
    {
      using SortT = BitonicT<Descending>;
      PackedT items[ItemsPerThread];
      SortT::Load(keys, items);
      SortT::Sort(items);
      ExchangeT(temp_storage).Exchange(items, items); // the packed keys and positions, back to blocked at once
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i)
      {
        keys[i]    = SortT::PackingT::Key(items[i]);
        indices[i] = static_cast<IndexT>(base + SortT::PackingT::Position(items[i]));
      }
    }
    else
    {
      Fill(indices, base);
      SortT(temp_storage).StableSort(keys, indices, RadixOrder<KeyT, Descending>{});
    }
  }

public:
  //! @brief Collective constructor using the logical warp's @p temp_storage.
  __device__ __forceinline__ explicit WarpArgsort(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}

  //! @brief Sorts the keys ascending and fills @p indices with their warp-tile positions plus @p base.
  __device__ __forceinline__ void
  Argsort(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base)
  {
    Sort<false>(keys, indices, base);
  }

  //! @brief As Argsort, descending (ties still in input order).
  __device__ __forceinline__ void
  ArgsortDescending(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base)
  {
    Sort<true>(keys, indices, base);
  }
};
} // namespace cuda_coop
