// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::WarpTopK, the k largest (or smallest) keys of each logical warp's tile, in order, with their
// values; a composition of cub::WarpMergeSort (the spec: cuda_coop/_specs/warp_top_k.py).

#pragma once

#include <cub/warp/warp_merge_sort.cuh>

#include <cuda_coop/detail/radix_order.cuh>
#include <cuda_coop/detail/top_k.cuh>

namespace cuda_coop
{
//! @brief The k largest (or smallest) keys of each logical warp's tile, in order, with their values.
//!
//! Lane `l` holds the warp tile's positions `l * ItemsPerThread .. l * ItemsPerThread + ItemsPerThread - 1`. The
//! tile is sorted with cub::WarpMergeSort::StableSort in cub::BlockRadixSort's key order (descending for the
//! largest), so ties keep input order, and the items of sorted rank `r < k` are stored at `out[offset + r]`.
//! `k` must be the same in every lane of the logical warp and in [0, warp tile].
//!
//! @tparam KeyT                Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam ItemsPerThread      Keys each lane holds.
//! @tparam LogicalWarpThreads  Lanes of a logical warp: a power of two up to 32.
//! @tparam ValueT              <b>[optional]</b> Value type (cub::NullType for keys only).
template <typename KeyT, int ItemsPerThread, int LogicalWarpThreads, typename ValueT = cub::NullType>
class WarpTopK : public detail::TopKInterface<WarpTopK<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>,
                                              KeyT,
                                              ItemsPerThread,
                                              ValueT>
{
  using SortT = cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>;
  friend class detail::TopKInterface<WarpTopK, KeyT, ItemsPerThread, ValueT>;

public:
  //! The temporary storage of one logical warp.
  using TempStorage = typename SortT::TempStorage;

private:
  TempStorage& temp_storage;
  int lane;

  template <bool Largest, bool WithValues>
  __device__ __forceinline__ void Select(
    KeyT (&keys)[ItemsPerThread],
    ValueT (&values)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT* out_values,
    long long offset)
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

public:
  //! @brief Collective constructor using the logical warp's @p temp_storage.
  __device__ __forceinline__ explicit WarpTopK(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}
};
} // namespace cuda_coop
