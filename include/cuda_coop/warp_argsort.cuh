// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::WarpArgsort, the permutation that sorts each logical warp's tile; a composition of
// cub::WarpMergeSort (the spec: cuda_coop/_specs/warp_argsort.py).

#pragma once

#include <cub/warp/warp_merge_sort.cuh>

#include <cuda_coop/detail/radix_order.cuh>

namespace cuda_coop
{
//! @brief Stable argsort of each logical warp's tile: the indices `base + l * ItemsPerThread + i` (each key's
//! position in the warp tile, offset by `base`) sorted with the keys by cub::WarpMergeSort::StableSort in
//! cub::BlockRadixSort's key order (cuda_coop::RadixOrder).
//!
//! @tparam KeyT                Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam ItemsPerThread      Keys each lane holds.
//! @tparam LogicalWarpThreads  Lanes of a logical warp: a power of two up to 32.
//! @tparam IndexT              Integer type of the indices (`base + position` converts to it as C++ converts).
template <typename KeyT, int ItemsPerThread, int LogicalWarpThreads, typename IndexT>
class WarpArgsort
{
  using SortT = cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, IndexT>;

public:
  //! The temporary storage of one logical warp.
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
  //! @brief Collective constructor using the logical warp's @p temp_storage.
  __device__ __forceinline__ explicit WarpArgsort(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}

  //! @brief Sorts the keys ascending and fills @p indices with their warp-tile positions plus @p base.
  __device__ __forceinline__ void
  Argsort(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base)
  {
    Fill(indices, base);
    SortT(temp_storage).StableSort(keys, indices, RadixOrder<KeyT, false>{});
  }

  //! @brief As Argsort, descending (ties still in input order).
  __device__ __forceinline__ void
  ArgsortDescending(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base)
  {
    Fill(indices, base);
    SortT(temp_storage).StableSort(keys, indices, RadixOrder<KeyT, true>{});
  }
};
} // namespace cuda_coop
