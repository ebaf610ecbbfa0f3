// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockArgsort, the permutation that sorts a block's tile; a composition of
// cub::BlockRadixSort (the spec: cuda_coop/_specs/block_argsort.py).

#pragma once

#include <cub/block/block_radix_sort.cuh>
#include <cub/util_ptx.cuh>

namespace cuda_coop
{
//! @brief Stable argsort of a block's tile: the indices `base + t * ItemsPerThread + i` (each key's blocked tile
//! position, offset by `base`) sorted with the keys by cub::BlockRadixSort of (key, index) pairs.
//!
//! Afterwards thread `t`'s indices are the tile positions of its sorted keys, as
//! `np.argsort(tile, kind="stable") + base` (descending: ties still in input order). The `begin_bit`/`end_bit`
//! range and the key order are cub::BlockRadixSort's.
//!
//! @tparam KeyT               Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam BlockDimX          Block length in threads along X.
//! @tparam ItemsPerThread     Keys each thread holds.
//! @tparam IndexT             Integer type of the indices (`base + position` converts to it as C++ converts).
//! @tparam RadixBits          <b>[optional]</b> Bits sorted per pass (cub::BlockRadixSort's).
//! @tparam MemoizeOuterScan   <b>[optional]</b> cub::BlockRadixSort's.
//! @tparam InnerScanAlgorithm <b>[optional]</b> cub::BlockRadixSort's.
//! @tparam BlockDimY          <b>[optional]</b> Block length in threads along Y.
//! @tparam BlockDimZ          <b>[optional]</b> Block length in threads along Z.
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          typename IndexT,
          int RadixBits                              = 4,
          bool MemoizeOuterScan                      = true,
          cub::BlockScanAlgorithm InnerScanAlgorithm = cub::BLOCK_SCAN_WARP_SCANS,
          int BlockDimY                              = 1,
          int BlockDimZ                              = 1>
class BlockArgsort
{
  using RadixSortT = cub::BlockRadixSort<KeyT,
                                         BlockDimX,
                                         ItemsPerThread,
                                         IndexT,
                                         RadixBits,
                                         MemoizeOuterScan,
                                         InnerScanAlgorithm,
                                         cudaSharedMemBankSizeFourByte,
                                         BlockDimY,
                                         BlockDimZ>;

public:
  //! The temporary storage of the block.
  using TempStorage = typename RadixSortT::TempStorage;

private:
  TempStorage& temp_storage;

  __device__ __forceinline__ static void Fill(IndexT (&indices)[ItemsPerThread], long long base)
  {
    const long long first =
      base + static_cast<long long>(cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ)) * ItemsPerThread;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      indices[i] = static_cast<IndexT>(first + i);
    }
  }

public:
  //! @brief Collective constructor using the block's @p temp_storage.
  __device__ __forceinline__ explicit BlockArgsort(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}

  //! @brief Sorts the keys ascending and fills @p indices with their tile positions plus @p base, blocked.
  __device__ __forceinline__ void
  Argsort(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).Sort(keys, indices, begin_bit, end_bit);
  }

  //! @brief As Argsort, descending.
  __device__ __forceinline__ void ArgsortDescending(
    KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).SortDescending(keys, indices, begin_bit, end_bit);
  }

  //! @brief As Argsort, the result striped.
  __device__ __forceinline__ void ArgsortBlockedToStriped(
    KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).SortBlockedToStriped(keys, indices, begin_bit, end_bit);
  }

  //! @brief As Argsort, descending, the result striped.
  __device__ __forceinline__ void ArgsortDescendingBlockedToStriped(
    KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys, indices, begin_bit, end_bit);
  }
};
} // namespace cuda_coop
