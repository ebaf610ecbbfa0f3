// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockTopK's "radix_sort" algorithm (include <cuda_coop/block_top_k.cuh>, not this file).

#pragma once

#include <cub/block/block_radix_sort.cuh>
#include <cub/util_ptx.cuh>

#include <cuda_coop/detail/top_k.cuh>

namespace cuda_coop
{
namespace detail
{
//! @brief Top-k by sorting the whole tile: cub::BlockRadixSort (descending for the largest) into a striped
//! arrangement, then each thread stores its items of sorted rank `r < k` at `out[offset + r]` (the stores of one rank
//! row are coalesced). Stable: ties keep input order. Its cost does not depend on `k`.
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          typename ValueT,
          int RadixBits,
          bool MemoizeOuterScan,
          cub::BlockScanAlgorithm InnerScanAlgorithm,
          int BlockDimY,
          int BlockDimZ>
class BlockTopKRadixSort
{
  static constexpr int BLOCK_THREADS = BlockDimX * BlockDimY * BlockDimZ;
  using RadixSortT = cub::BlockRadixSort<KeyT,
                                         BlockDimX,
                                         ItemsPerThread,
                                         ValueT,
                                         RadixBits,
                                         MemoizeOuterScan,
                                         InnerScanAlgorithm,
                                         cudaSharedMemBankSizeFourByte,
                                         BlockDimY,
                                         BlockDimZ>;

public:
  using TempStorage = typename RadixSortT::TempStorage;

private:
  TempStorage& temp_storage;
  int linear_tid;

public:
  __device__ __forceinline__ explicit BlockTopKRadixSort(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , linear_tid(cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ))
  {}

  //! @brief Writes the tile's @p k best keys in order to `out_keys[offset, offset + k)` and, unless @p WithValues is
  //! false, their values to `out_values`. @p keys and @p values are sorted in place.
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
      if constexpr (Largest)
      {
        RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys, values);
      }
      else
      {
        RadixSortT(temp_storage).SortBlockedToStriped(keys, values);
      }
      StoreRanksBelow(values, k, out_values, offset, linear_tid, BLOCK_THREADS);
    }
    else if constexpr (Largest)
    {
      RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys);
    }
    else
    {
      RadixSortT(temp_storage).SortBlockedToStriped(keys);
    }
    StoreRanksBelow(keys, k, out_keys, offset, linear_tid, BLOCK_THREADS);
  }
};
} // namespace detail
} // namespace cuda_coop
