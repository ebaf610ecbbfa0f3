// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::WarpTopK, the k largest (or smallest) keys of each logical warp's tile, in order, with their
// values; a composition of cub::WarpMergeSort or of cub::detail::WarpBitonicSort (the spec:
// cuda_coop/_specs/warp_top_k.py).

#pragma once

#include <cub/warp/warp_merge_sort.cuh>

#include <cuda_coop/detail/radix_order.cuh>
#include <cuda_coop/detail/top_k.cuh>
#include <cuda_coop/detail/warp_bitonic.cuh>
#include <cuda_coop/warp_merge_sort.cuh>

namespace cuda_coop
{
//! @brief The k largest (or smallest) keys of each logical warp's tile, in order, with their values.
//!
//! Lane `l` holds the warp tile's positions `l * ItemsPerThread .. l * ItemsPerThread + ItemsPerThread - 1`. The
//! tile is sorted in cub::BlockRadixSort's key order (descending for the largest), ties in input order, and the
//! items of sorted rank `r < k` are stored at `out[offset + r]`. `k` must be the same in every lane of the logical
//! warp and in [0, warp tile].
//!
//! WARP_SORT_MERGE_SORT sorts with cub::WarpMergeSort::StableSort (blocked ranks). WARP_SORT_BITONIC sorts the keys
//! packed with their positions (detail::RadixPacked) with cub::detail::WarpBitonicSort, so ties go by position, and
//! stores the striped ranks where they are (no exchange, no shared memory): the same output, bit for bit.
//!
//! @tparam KeyT                Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam ItemsPerThread      Keys each lane holds.
//! @tparam LogicalWarpThreads  Lanes of a logical warp: a power of two up to 32.
//! @tparam ValueT              <b>[optional]</b> Value type (cub::NullType for keys only).
//! @tparam Algorithm           <b>[optional]</b> WARP_SORT_MERGE_SORT (default) or WARP_SORT_BITONIC.
template <typename KeyT,
          int ItemsPerThread,
          int LogicalWarpThreads,
          typename ValueT             = cub::NullType,
          WarpSortAlgorithm Algorithm = WARP_SORT_MERGE_SORT>
class WarpTopK : public detail::TopKInterface<WarpTopK<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT, Algorithm>,
                                              KeyT,
                                              ItemsPerThread,
                                              ValueT>
{
  static constexpr bool bitonic = Algorithm == WARP_SORT_BITONIC;
  using SortT                   = cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>;
  template <bool Largest>
  using BitonicT = detail::RadixBitonic<KeyT, Largest, ItemsPerThread, LogicalWarpThreads, ValueT>;
  friend class detail::TopKInterface<WarpTopK, KeyT, ItemsPerThread, ValueT>;

public:
  //! The temporary storage of one logical warp (none for WARP_SORT_BITONIC).
  using TempStorage = ::cuda::std::conditional_t<bitonic, detail::NoStorage, typename SortT::TempStorage>;

private:
  TempStorage& temp_storage;
  int lane;

  //! WARP_SORT_BITONIC: sorts the tile (and @p values) and leaves the sorted keys in @p keys, striped.
  template <bool Largest, typename... Values>
  __device__ __forceinline__ void SortBitonic(KeyT (&keys)[ItemsPerThread], Values&... values)
  {
    using SortT = BitonicT<Largest>;
    typename SortT::ItemT items[ItemsPerThread];
    SortT::Load(keys, items);
    SortT::Sort(items, values...);
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      keys[i] = SortT::PackingT::Key(items[i]);
    }
  }

  template <bool Largest, bool WithValues>
  __device__ __forceinline__ void Select(
    KeyT (&keys)[ItemsPerThread],
    ValueT (&values)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT* out_values,
    long long offset)
  {
    if constexpr (bitonic)
    {
      // striped ranks: lane l holds ranks l, l + LogicalWarpThreads, ...
      if constexpr (WithValues)
      {
        SortBitonic<Largest>(keys, values);
        detail::StoreRanksBelow(values, k, out_values, offset, lane, LogicalWarpThreads);
      }
      else
      {
        SortBitonic<Largest>(keys);
      }
      detail::StoreRanksBelow(keys, k, out_keys, offset, lane, LogicalWarpThreads);
    }
    else
    {
      if constexpr (WithValues)
      {
        SortT(temp_storage).StableSort(keys, values, RadixOrder<KeyT, Largest>{});
        detail::StoreRanksBelow(values, k, out_values, offset, lane * ItemsPerThread, 1);
      }
      else
      {
        SortT(temp_storage).StableSort(keys, RadixOrder<KeyT, Largest>{});
      }
      detail::StoreRanksBelow(keys, k, out_keys, offset, lane * ItemsPerThread, 1);
    }
  }

public:
  //! @brief Collective constructor using the logical warp's @p temp_storage.
  __device__ __forceinline__ explicit WarpTopK(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}
};
} // namespace cuda_coop
