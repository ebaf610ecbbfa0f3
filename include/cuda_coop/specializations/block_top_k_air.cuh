// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockTopK's "air" algorithm (include <cuda_coop/block_top_k.cuh>, not this file).
//
// CCCL's cub::detail::block_topk (AIR radix select, cub/block/specializations/block_topk_air.cuh) selects the k best
// keys of a tile without sorting it, into the tile's first k blocked slots, in no order (atomic tickets), and among
// the keys tied with the k-th it takes an arbitrary subset. cuda-coop's top-k writes the k best keys in order, ties
// in input order, the earliest positions chosen among equal keys: the order of cub::BlockRadixSort. So the select
// runs on a copy of the keys only to learn the boundary, the worst key selected, and the order comes from the
// original keys. CUB's detail namespace has no stability promise between CCCL releases: the bundle is pinned, and
// the tests pin the behaviour relied on here (tests/compile/test_block_top_k_air.py: the declarations;
// tests/gpu/test_block_top_k_algorithms.py: "air" bitwise against "radix_sort").

#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_topk.cuh>
#include <cub/util_type.cuh>

#include <cuda/functional>
#include <cuda/std/type_traits>

#include <cuda_coop/detail/radix_order.cuh>

namespace cuda_coop
{
namespace detail
{
//! @brief Top-k by AIR radix selection, in cub::BlockRadixSort's order, for a 1-D block of @p BlockThreads.
//!
//! 1. The boundary: cub::detail::block_topk selects the k best keys of a copy of the tile; the worst of them (a
//!    block reduction of their places in the order), T, is the k-th best key.
//! 2. Over the original keys, each item is flagged better than T or equal to T; one block exclusive scan of the
//!    packed pair of flags gives each item its rank among the better ones (in position order), their count B, and
//!    each tie its rank among the ties (in position order). The ties with rank below k - B are the earliest ones:
//!    they are equal and already in order, so each is stored at `offset + B + its tie rank` by its thread.
//! 3. The B better items are put in shared memory in position order and each is ranked by counting those before it
//!    (better, or equal at a lower position): B loads per item, cheap for the small k this algorithm is for.
//!
//! Shared memory is the union of the parts (each reuses the previous one's after a barrier) and one key. The cost
//! grows with k (step 3: about k * ceil(k / BlockThreads) loads per thread); radix sorting costs the same for any k.
template <typename KeyT, int BlockThreads, int ItemsPerThread, typename ValueT>
class BlockTopKAir
{
  static constexpr int TILE      = BlockThreads * ItemsPerThread;
  static constexpr bool KEYS_ONLY = ::cuda::std::is_same_v<ValueT, cub::NullType>;
  using Place                    = typename cub::NumericTraits<KeyT>::UnsignedBits;
  using SelectT                  = cub::detail::block_topk<KeyT, BlockThreads, ItemsPerThread>;
  using ReduceT                  = cub::BlockReduce<Place, BlockThreads>;
  // (better, tie) flags packed in one integer, each half wide enough to count a tile.
  using PackedT                     = ::cuda::std::conditional_t<(TILE < (1 << 16)), unsigned int, unsigned long long>;
  static constexpr int HALF         = 4 * sizeof(PackedT);
  static constexpr PackedT BETTER   = PackedT(1) << HALF;
  static constexpr PackedT TIE_MASK = BETTER - 1;
  using ScanT                       = cub::BlockScan<PackedT, BlockThreads>;

  struct Storage
  {
    union
    {
      typename SelectT::TempStorage select;
      typename ReduceT::TempStorage reduce;
      typename ScanT::TempStorage scan;
      KeyT keys[TILE];
      ValueT values[TILE];
    } stage;
    Place boundary;
  };

public:
  struct TempStorage : cub::Uninitialized<Storage>
  {};

private:
  Storage& storage;
  int linear_tid;

  // The key's place in the order the top-k is written in: a smaller place comes first. The radix order's bits
  // (-0.0 read as +0.0), complemented for the largest keys.
  template <bool Largest>
  __device__ __forceinline__ static Place PlaceOf(const KeyT& key)
  {
    const Place bits = RadixOrderBits(key);
    return Largest ? Place(~bits) : bits;
  }

  // The place of the k-th best key (k >= 1): the worst of the k keys cub::detail::block_topk selects.
  template <bool Largest>
  __device__ __forceinline__ Place Boundary(const KeyT (&keys)[ItemsPerThread], int k)
  {
    KeyT copy[ItemsPerThread];
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      copy[i] = keys[i];
    }
    if constexpr (Largest)
    {
      SelectT(storage.stage.select).template max_keys<true>(copy, k, TILE);
    }
    else
    {
      SelectT(storage.stage.select).template min_keys<true>(copy, k, TILE);
    }
    Place worst = 0;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      if (linear_tid * ItemsPerThread + i < k)
      {
        const Place place = PlaceOf<Largest>(copy[i]);
        worst             = place > worst ? place : worst;
      }
    }
    __syncthreads(); // the select's last reads of its storage are done: the reduction reuses it
    worst = ReduceT(storage.stage.reduce).Reduce(worst, ::cuda::maximum<>{});
    if (linear_tid == 0)
    {
      storage.boundary = worst;
    }
    __syncthreads();
    return storage.boundary;
  }

public:
  __device__ __forceinline__ explicit BlockTopKAir(TempStorage& temp_storage)
      : storage(temp_storage.Alias())
      , linear_tid(static_cast<int>(threadIdx.x))
  {}

  //! @brief Writes the tile's @p k best keys (1 <= k <= tile, the same in every thread) in order to
  //! `out_keys[offset, offset + k)` and, unless @p WithValues is false, their values to `out_values`: exactly what
  //! BlockTopKRadixSort writes. @p keys and @p values are not changed.
  template <bool Largest, bool WithValues>
  __device__ __forceinline__ void Select(
    KeyT (&keys)[ItemsPerThread],
    ValueT (&values)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT* out_values,
    long long offset)
  {
    const Place boundary = Boundary<Largest>(keys, k);
    PackedT flags[ItemsPerThread];
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      const Place place = PlaceOf<Largest>(keys[i]);
      flags[i]          = place < boundary ? BETTER : place == boundary ? PackedT(1) : PackedT(0);
    }
    PackedT ranks[ItemsPerThread]; // (rank among the better keys, rank among the ties), in position order
    PackedT totals;
    ScanT(storage.stage.scan).ExclusiveSum(flags, ranks, totals);
    const int better = static_cast<int>(totals >> HALF);
    const int ties   = k - better; // ties to take: the earliest ones
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      const int tie = static_cast<int>(ranks[i] & TIE_MASK);
      if (flags[i] == PackedT(1) && tie < ties)
      {
        out_keys[offset + better + tie] = keys[i];
        if constexpr (WithValues)
        {
          out_values[offset + better + tie] = values[i];
        }
      }
    }
    __syncthreads(); // the scan's reads are done: the better keys reuse its storage
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      if (flags[i] == BETTER)
      {
        storage.stage.keys[ranks[i] >> HALF] = keys[i];
      }
    }
    __syncthreads();
    int placed[ItemsPerThread]; // the output rank of the better key j = linear_tid + n * BlockThreads
#pragma unroll
    for (int n = 0; n < ItemsPerThread; ++n)
    {
      const int j = linear_tid + n * BlockThreads;
      if (j < better)
      {
        const KeyT key    = storage.stage.keys[j];
        const Place place = PlaceOf<Largest>(key);
        int rank          = 0;
        for (int i = 0; i < better; ++i)
        {
          const Place other = PlaceOf<Largest>(storage.stage.keys[i]);
          rank += other < place || (other == place && i < j);
        }
        placed[n]              = rank;
        out_keys[offset + rank] = key;
      }
    }
    if constexpr (WithValues)
    {
      __syncthreads(); // every better key is read: their values reuse the storage
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i)
      {
        if (flags[i] == BETTER)
        {
          storage.stage.values[ranks[i] >> HALF] = values[i];
        }
      }
      __syncthreads();
#pragma unroll
      for (int n = 0; n < ItemsPerThread; ++n)
      {
        const int j = linear_tid + n * BlockThreads;
        if (j < better)
        {
          out_values[offset + placed[n]] = storage.stage.values[j];
        }
      }
    }
  }
};
} // namespace detail
} // namespace cuda_coop
