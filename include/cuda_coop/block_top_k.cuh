// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockTopK, the k largest (or smallest) keys of a block's tile, in order, with their values;
// a composition of cub::BlockRadixSort, or of CCCL's AIR radix select (the spec: cuda_coop/_specs/block_top_k.py).

#pragma once

#include <cub/block/block_scan.cuh>
#include <cub/util_type.cuh>

#include <cuda/std/type_traits>

#include <cuda_coop/detail/top_k.cuh>
#include <cuda_coop/specializations/block_top_k_air.cuh>
#include <cuda_coop/specializations/block_top_k_radix_sort.cuh>

namespace cuda_coop
{
//! @brief How cuda_coop::BlockTopK finds the k best keys. Every algorithm writes the same keys and values, bit for
//! bit: the order of cub::BlockRadixSort.
enum BlockTopKAlgorithm
{
  //! Sorts the whole tile with cub::BlockRadixSort into a striped arrangement and stores the ranks below k. Any
  //! block shape; its cost does not depend on k.
  BLOCK_TOP_K_RADIX_SORT,
  //! Selects with CCCL's AIR radix select (cub::detail::block_topk), then orders the selection (see
  //! detail::BlockTopKAir). 1-D blocks only; cheaper than sorting for small k, dearer as k grows.
  BLOCK_TOP_K_AIR,
  //! Both compiled; at run time BLOCK_TOP_K_AIR for `k <= BlockTopK::AIR_MAX_K`, BLOCK_TOP_K_RADIX_SORT above. 1-D
  //! blocks only.
  BLOCK_TOP_K_AIR_OR_RADIX_SORT,
};

//! @brief The k largest (or smallest) keys of a block's tile, in order, with their values, written to global or
//! shared memory.
//!
//! Thread `t` (CUB's row-major linear id) holds the tile's positions `t * ItemsPerThread ..` (blocked). The k best
//! keys are written in order to `out_keys[offset, offset + k)` (largest first for the largest) and their values to
//! `out_values`, exactly as a stable cub::BlockRadixSort would order them: ties keep input order, so among equal keys
//! the earliest positions are chosen, and -0.0 and +0.0 are equal (each keeps its sign). `k` must be the same in
//! every thread and in [0, tile]. The arrays passed in may be changed.
//!
//! @tparam KeyT               Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam BlockDimX          Block length in threads along X.
//! @tparam ItemsPerThread     Keys each thread holds.
//! @tparam ValueT             <b>[optional]</b> Value type (cub::NullType for keys only).
//! @tparam RadixBits          <b>[optional]</b> Bits sorted per pass by the radix sort (cub::BlockRadixSort's).
//! @tparam MemoizeOuterScan   <b>[optional]</b> The radix sort's (cub::BlockRadixSort's).
//! @tparam InnerScanAlgorithm <b>[optional]</b> The radix sort's (cub::BlockRadixSort's).
//! @tparam BlockDimY          <b>[optional]</b> Block length in threads along Y.
//! @tparam BlockDimZ          <b>[optional]</b> Block length in threads along Z.
//! @tparam Algorithm          <b>[optional]</b> A BlockTopKAlgorithm; the ones using AIR need a 1-D block.
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          typename ValueT                            = cub::NullType,
          int RadixBits                              = 4,
          bool MemoizeOuterScan                      = true,
          cub::BlockScanAlgorithm InnerScanAlgorithm = cub::BLOCK_SCAN_WARP_SCANS,
          int BlockDimY                              = 1,
          int BlockDimZ                              = 1,
          BlockTopKAlgorithm Algorithm               = BLOCK_TOP_K_RADIX_SORT>
class BlockTopK
    : public detail::TopKInterface<BlockTopK<KeyT,
                                             BlockDimX,
                                             ItemsPerThread,
                                             ValueT,
                                             RadixBits,
                                             MemoizeOuterScan,
                                             InnerScanAlgorithm,
                                             BlockDimY,
                                             BlockDimZ,
                                             Algorithm>,
                                   KeyT,
                                   ItemsPerThread,
                                   ValueT>
{
  static constexpr bool USES_SORT = Algorithm != BLOCK_TOP_K_AIR;
  static constexpr bool USES_AIR  = Algorithm != BLOCK_TOP_K_RADIX_SORT;
  static_assert(!USES_AIR || (BlockDimY == 1 && BlockDimZ == 1),
                "BLOCK_TOP_K_AIR and BLOCK_TOP_K_AIR_OR_RADIX_SORT need a 1-D block: CCCL's block_topk numbers its "
                "threads by threadIdx.x alone; use BLOCK_TOP_K_RADIX_SORT");
  using SortPath = detail::BlockTopKRadixSort<KeyT,
                                              BlockDimX,
                                              ItemsPerThread,
                                              ValueT,
                                              RadixBits,
                                              MemoizeOuterScan,
                                              InnerScanAlgorithm,
                                              BlockDimY,
                                              BlockDimZ>;
  using AirPath  = detail::BlockTopKAir<KeyT, BlockDimX, ItemsPerThread, ValueT>;
  friend class detail::TopKInterface<BlockTopK, KeyT, ItemsPerThread, ValueT>;

  union BothStorage
  {
    typename SortPath::TempStorage sort;
    typename AirPath::TempStorage air;
  };

public:
  //! The largest `k` BLOCK_TOP_K_AIR_OR_RADIX_SORT selects with AIR. Provisional: not measured yet (the cases to
  //! measure are benchmarks/suite.py's block_top_k ones).
  static constexpr int AIR_MAX_K = 64;

  //! The temporary storage of the block: the radix sort's, AIR's, or the union of both.
  using TempStorage = ::cuda::std::conditional_t<
    Algorithm == BLOCK_TOP_K_RADIX_SORT,
    typename SortPath::TempStorage,
    ::cuda::std::conditional_t<Algorithm == BLOCK_TOP_K_AIR, typename AirPath::TempStorage, BothStorage>>;

private:
  TempStorage& temp_storage;

  __device__ __forceinline__ typename SortPath::TempStorage& SortStorage()
  {
    if constexpr (Algorithm == BLOCK_TOP_K_AIR_OR_RADIX_SORT)
    {
      return temp_storage.sort;
    }
    else
    {
      return temp_storage;
    }
  }

  __device__ __forceinline__ typename AirPath::TempStorage& AirStorage()
  {
    if constexpr (Algorithm == BLOCK_TOP_K_AIR_OR_RADIX_SORT)
    {
      return temp_storage.air;
    }
    else
    {
      return temp_storage;
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
    if constexpr (USES_AIR)
    {
      if (k <= 0) // AIR selects at least one key; the radix sort stores none for k <= 0
      {
        return;
      }
      if (Algorithm == BLOCK_TOP_K_AIR || k <= AIR_MAX_K)
      {
        AirPath(AirStorage()).template Select<Largest, WithValues>(keys, values, k, out_keys, out_values, offset);
        return;
      }
    }
    if constexpr (USES_SORT)
    {
      SortPath(SortStorage()).template Select<Largest, WithValues>(keys, values, k, out_keys, out_values, offset);
    }
  }

public:
  //! @brief Collective constructor using the block's @p temp_storage.
  __device__ __forceinline__ explicit BlockTopK(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}
};
} // namespace cuda_coop
