// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockRadixRankBits, ranks of a tile's keys by one radix digit; a composition of
// cub::BlockRadixRank / cub::BlockRadixRankMatch (the spec: cuda_coop/_specs/block_radix_rank.py).

#pragma once

#include <cub/block/block_radix_rank.cuh>
#include <cub/block/radix_rank_sort_operations.cuh>
#include <cub/util_type.cuh>

#include <cuda/std/type_traits>

namespace cuda_coop
{
//! @brief Ranks of a tile's keys by the digit of bits `[begin_bit, begin_bit + min(RadixBits, end_bit - begin_bit))`
//! of their bit-ordered form (cub::Traits<KeyT>::TwiddleIn, as cub::BlockRadixSort maps keys), with
//! cub::BlockRadixRank or cub::BlockRadixRankMatch and cub::BFEDigitExtractor.
//!
//! CUB's `RankKeys` takes the keys' unsigned bit-ordered form and a digit extractor; this class makes both from
//! the keys and a bit range. Ties are ordered blocked (`t * N + i`) for RADIX_RANK_BASIC and RADIX_RANK_MEMOIZE,
//! warp-striped (warp, item, lane) for RADIX_RANK_MATCH.
//!
//! @tparam KeyT               Key type (an integer or floating-point type, `__half` and `__nv_bfloat16` included).
//! @tparam BlockDimX          Block length in threads along X.
//! @tparam ItemsPerThread     Keys each thread holds.
//! @tparam RadixBits          Width of the digit in bits.
//! @tparam IsDescending       <b>[optional]</b> Rank larger digits first.
//! @tparam Algorithm          <b>[optional]</b> RADIX_RANK_BASIC, RADIX_RANK_MEMOIZE or RADIX_RANK_MATCH.
//! @tparam InnerScanAlgorithm <b>[optional]</b> The block scan that ranks the digits.
//! @tparam BlockDimY          <b>[optional]</b> Block length in threads along Y (1 for RADIX_RANK_MATCH).
//! @tparam BlockDimZ          <b>[optional]</b> Block length in threads along Z (1 for RADIX_RANK_MATCH).
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          int RadixBits,
          bool IsDescending                          = false,
          cub::RadixRankAlgorithm Algorithm          = cub::RADIX_RANK_BASIC,
          cub::BlockScanAlgorithm InnerScanAlgorithm = cub::BLOCK_SCAN_WARP_SCANS,
          int BlockDimY                              = 1,
          int BlockDimZ                              = 1>
class BlockRadixRankBits
{
  static_assert(Algorithm == cub::RADIX_RANK_BASIC || Algorithm == cub::RADIX_RANK_MEMOIZE
                  || Algorithm == cub::RADIX_RANK_MATCH,
                "cuda-coop ranks with RADIX_RANK_BASIC, RADIX_RANK_MEMOIZE or RADIX_RANK_MATCH");
  using RankT = ::cuda::std::conditional_t<
    Algorithm == cub::RADIX_RANK_MATCH,
    cub::BlockRadixRankMatch<BlockDimX, RadixBits, IsDescending, InnerScanAlgorithm, BlockDimY, BlockDimZ>,
    cub::BlockRadixRank<BlockDimX,
                        RadixBits,
                        IsDescending,
                        Algorithm == cub::RADIX_RANK_MEMOIZE,
                        InnerScanAlgorithm,
                        cudaSharedMemBankSizeFourByte,
                        BlockDimY,
                        BlockDimZ>>;
  using UnsignedBits = typename cub::Traits<KeyT>::UnsignedBits;

public:
  //! Digits each thread tracks in `digit_prefix`: `max(1, ceil(2**RadixBits / block threads))`.
  static constexpr int BINS_TRACKED_PER_THREAD = RankT::BINS_TRACKED_PER_THREAD;
  //! The temporary storage of the block.
  using TempStorage = typename RankT::TempStorage;

private:
  TempStorage& temp_storage;

  __device__ __forceinline__ static void
  BitOrdered(const KeyT (&keys)[ItemsPerThread], UnsignedBits (&bits)[ItemsPerThread])
  {
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      bits[i] = cub::Traits<KeyT>::TwiddleIn(reinterpret_cast<const UnsignedBits&>(keys[i]));
    }
  }

  __device__ __forceinline__ static cub::BFEDigitExtractor<KeyT> Digit(int begin_bit, int end_bit)
  {
    const int width = end_bit - begin_bit < RadixBits ? end_bit - begin_bit : RadixBits;
    return cub::BFEDigitExtractor<KeyT>(begin_bit, width > 0 ? width : 0);
  }

public:
  //! @brief Collective constructor using the block's @p temp_storage.
  __device__ __forceinline__ explicit BlockRadixRankBits(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}

  //! @brief Ranks the keys by the digit of bits `[begin_bit, end_bit)` (at most RadixBits of them).
  __device__ __forceinline__ void
  RankKeys(KeyT (&keys)[ItemsPerThread], int (&ranks)[ItemsPerThread], int begin_bit, int end_bit)
  {
    UnsignedBits bits[ItemsPerThread];
    BitOrdered(keys, bits);
    RankT(temp_storage).RankKeys(bits, ranks, Digit(begin_bit, end_bit));
  }

  //! @brief As RankKeys, and @p digit_prefix receives the rank of the first key of each digit the thread tracks.
  template <int BinsPerThread>
  __device__ __forceinline__ void RankKeys(
    KeyT (&keys)[ItemsPerThread],
    int (&ranks)[ItemsPerThread],
    int (&digit_prefix)[BinsPerThread],
    int begin_bit,
    int end_bit)
  {
    static_assert(BinsPerThread == BINS_TRACKED_PER_THREAD, "digit_prefix has the wrong number of items");
    UnsignedBits bits[ItemsPerThread];
    BitOrdered(keys, bits);
    RankT(temp_storage).RankKeys(bits, ranks, Digit(begin_bit, end_bit), digit_prefix);
  }
};
} // namespace cuda_coop
