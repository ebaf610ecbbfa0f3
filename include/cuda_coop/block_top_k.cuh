// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockTopK, the k largest (or smallest) keys of a block's tile, in order, with their values;
// a composition of cub::BlockRadixSort (the spec: cuda_coop/_specs/block_top_k.py).

#pragma once

#include <cub/block/block_radix_sort.cuh>
#include <cub/util_ptx.cuh>

#include <cuda_coop/detail/top_k.cuh>

namespace cuda_coop
{
//! @brief The k largest (or smallest) keys of a block's tile, in order, with their values, written to global or
//! shared memory.
//!
//! Thread `t` (CUB's row-major linear id) holds the tile's positions `t * ItemsPerThread ..` (blocked). The tile
//! is sorted with cub::BlockRadixSort (descending for the largest) into a striped arrangement, and each thread
//! stores its items of sorted rank `r < k` at `out[offset + r]`: the stores of one rank row are coalesced. The
//! sort is stable, so ties keep input order. `k` must be the same in every thread and in [0, tile].
//!
//! @tparam KeyT               Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam BlockDimX          Block length in threads along X.
//! @tparam ItemsPerThread     Keys each thread holds.
//! @tparam ValueT             <b>[optional]</b> Value type (cub::NullType for keys only).
//! @tparam RadixBits          <b>[optional]</b> Bits sorted per pass (cub::BlockRadixSort's).
//! @tparam MemoizeOuterScan   <b>[optional]</b> cub::BlockRadixSort's.
//! @tparam InnerScanAlgorithm <b>[optional]</b> cub::BlockRadixSort's.
//! @tparam BlockDimY          <b>[optional]</b> Block length in threads along Y.
//! @tparam BlockDimZ          <b>[optional]</b> Block length in threads along Z.
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          typename ValueT                            = cub::NullType,
          int RadixBits                              = 4,
          bool MemoizeOuterScan                      = true,
          cub::BlockScanAlgorithm InnerScanAlgorithm = cub::BLOCK_SCAN_WARP_SCANS,
          int BlockDimY                              = 1,
          int BlockDimZ                              = 1>
class BlockTopK
    : public detail::TopKInterface<
        BlockTopK<KeyT, BlockDimX, ItemsPerThread, ValueT, RadixBits, MemoizeOuterScan, InnerScanAlgorithm, BlockDimY, BlockDimZ>,
        KeyT,
        ItemsPerThread,
        ValueT>
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
  friend class detail::TopKInterface<BlockTopK, KeyT, ItemsPerThread, ValueT>;

public:
  //! The temporary storage of the block.
  using TempStorage = typename RadixSortT::TempStorage;

private:
  TempStorage& temp_storage;
  int linear_tid;

  template <bool Largest>
  __device__ __forceinline__ void SelectKeys(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    if constexpr (Largest)
    {
      RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys);
    }
    else
    {
      RadixSortT(temp_storage).SortBlockedToStriped(keys);
    }
    detail::StoreRanksBelow(keys, k, out_keys, offset, linear_tid, BLOCK_THREADS);
  }

  template <bool Largest>
  __device__ __forceinline__ void SelectPairs(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    if constexpr (Largest)
    {
      RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys, values);
    }
    else
    {
      RadixSortT(temp_storage).SortBlockedToStriped(keys, values);
    }
    detail::StoreRanksBelow(keys, k, out_keys, offset, linear_tid, BLOCK_THREADS);
    detail::StoreRanksBelow(values, k, out_values, offset, linear_tid, BLOCK_THREADS);
  }

public:
  //! @brief Collective constructor using the block's @p temp_storage.
  __device__ __forceinline__ explicit BlockTopK(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , linear_tid(cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ))
  {}
};
} // namespace cuda_coop
