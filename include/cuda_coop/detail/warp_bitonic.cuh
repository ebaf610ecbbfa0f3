// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: what the warp sorts' "bitonic" algorithm shares (cuda_coop::WarpSort, WarpArgsort, WarpTopK): a stable
// sort of a logical warp's blocked tile by CCCL's cub::detail::WarpBitonicSort, and the exchange of its striped
// result back to blocked.
//
// cub::detail::WarpBitonicSort is in CUB's `detail` namespace: CCCL gives it no stability promise between
// releases. cuda-coop bundles one CCCL (3.6) and its tests pin what this header relies on (the declarations, in
// tests/compile/test_warp_bitonic.py; the results, bit for bit against the merge sort, in the GPU tier), so a CCCL
// upgrade that changes it turns the tests red.

#pragma once

#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>
#include <cub/warp/warp_bitonic_sort.cuh>
#include <cub/warp/warp_utils.cuh>

#include <cuda/std/__algorithm/max.h>
#include <cuda/std/bit>
#include <cuda/std/type_traits>
#include <cuda/type_traits>

#include <cuda_coop/detail/radix_order.cuh>

namespace cuda_coop
{
namespace detail
{
//! @brief A key and its position in the logical warp's tile (blocked: lane `l` holds positions
//! `l * ItemsPerThread + i`): what the bitonic network sorts when the result must be stable.
template <typename KeyT>
struct Positioned
{
  KeyT key;
  int position;
};

//! @brief The order of @p CompareOp on the keys, ties broken by position: a strict total order, so the unstable
//! bitonic network gives exactly the stable sort. With @p Partial, the items at positions at or past `valid` go after
//! every valid item, in position order (where either is invalid, the lower position goes first: the valid one, or
//! the earlier invalid one), and their keys (unspecified) are never compared.
template <typename KeyT, typename CompareOp, bool Partial>
struct PositionedOrder
{
  CompareOp compare;
  int valid;

  __device__ __forceinline__ bool operator()(const Positioned<KeyT>& a, const Positioned<KeyT>& b) const
  {
    if constexpr (Partial)
    {
      if ((a.position < b.position ? b.position : a.position) >= valid)
      {
        return a.position < b.position;
      }
    }
    if (compare(a.key, b.key))
    {
      return true;
    }
    return !compare(b.key, a.key) && a.position < b.position;
  }
};

//! @brief A packed radix-order key wider than 64 bits (64-bit keys): the order's high and low words, then the doubled
//! position, compared in turn (RadixPacked); three 32-bit words, so three shuffles an exchange (a 64-bit member would
//! pad it to four).
struct WidePacked
{
  unsigned order_high;
  unsigned order_low;
  unsigned low;
};

//! @brief A key in cub::BlockRadixSort's order (RadixOrderBits; all bits flipped for @p Descending) above its tile
//! position, as one unsigned integer where they fit in 32 or 64 bits: comparing two is comparing (order, position),
//! a strict total order whose ascending sort is the stable radix-order sort. The position is stored doubled, its
//! low bit set for a -0.0 key (which the order reads as +0.0), so that the key comes back with its sign.
//!
//! @tparam Tile The logical warp's tile: positions are below it.
template <typename KeyT, bool Descending, int Tile>
struct RadixPacked
{
  using KeyBits                 = typename cub::NumericTraits<KeyT>::UnsignedBits;
  static constexpr int key_bits = 8 * sizeof(KeyBits);
  static constexpr int low_bits = ::cuda::std::bit_width(static_cast<unsigned>(2 * Tile - 1));

  using Wide = WidePacked;

  using T = ::cuda::std::conditional_t<
    key_bits + low_bits <= 32,
    unsigned,
    ::cuda::std::conditional_t<key_bits + low_bits <= 64, unsigned long long, Wide>>;

  //! Ascending order of the packed items.
  struct Less
  {
    __device__ __forceinline__ bool operator()(const T& a, const T& b) const
    {
      if constexpr (::cuda::std::is_same_v<T, Wide>)
      {
        if (a.order_high != b.order_high)
        {
          return a.order_high < b.order_high;
        }
        if (a.order_low != b.order_low)
        {
          return a.order_low < b.order_low;
        }
        return a.low < b.low;
      }
      else
      {
        return a < b;
      }
    }
  };

  //! The packed form of a (flipped for @p Descending) order and a doubled position (plus the -0.0 bit).
  static __device__ __forceinline__ T Join(KeyBits order, unsigned low)
  {
    if constexpr (::cuda::std::is_same_v<T, Wide>)
    {
      const auto wide = static_cast<unsigned long long>(order);
      return Wide{static_cast<unsigned>(wide >> 32), static_cast<unsigned>(wide), low};
    }
    else
    {
      return (static_cast<T>(order) << low_bits) | static_cast<T>(low);
    }
  }

  static __device__ __forceinline__ T Pack(const KeyT& key, int position)
  {
    const KeyBits order    = static_cast<KeyBits>(Descending ? ~RadixOrderBits(key) : RadixOrderBits(key));
    constexpr KeyBits sign = KeyBits(KeyBits(1) << (key_bits - 1));
    const bool minus_zero  = ::cuda::is_floating_point_v<KeyT> && ::cuda::std::bit_cast<KeyBits>(key) == sign;
    return Join(order, static_cast<unsigned>(position) * 2u + (minus_zero ? 1u : 0u));
  }

  //! A key at @p position that sorts after every packed key at a lower position (the order field all ones): an
  //! item past a partial tile.
  static __device__ __forceinline__ T Last(int position)
  {
    return Join(static_cast<KeyBits>(~KeyBits(0)), static_cast<unsigned>(position) * 2u);
  }

  static __device__ __forceinline__ unsigned Low(const T& packed)
  {
    if constexpr (::cuda::std::is_same_v<T, Wide>)
    {
      return packed.low;
    }
    else
    {
      return static_cast<unsigned>(packed & ((T(1) << low_bits) - 1));
    }
  }

  static __device__ __forceinline__ int Position(const T& packed)
  {
    return static_cast<int>(Low(packed) >> 1);
  }

  static __device__ __forceinline__ KeyT Key(const T& packed)
  {
    using Traits = cub::NumericTraits<KeyT>;
    KeyBits order;
    if constexpr (::cuda::std::is_same_v<T, Wide>)
    {
      order = static_cast<KeyBits>((static_cast<unsigned long long>(packed.order_high) << 32) | packed.order_low);
    }
    else
    {
      order = static_cast<KeyBits>(packed >> low_bits);
    }
    KeyBits bits = Traits::TwiddleOut(static_cast<KeyBits>(Descending ? ~order : order));
    if (Low(packed) & 1u)
    {
      bits = KeyBits(KeyBits(1) << (key_bits - 1)); // -0.0
    }
    return ::cuda::std::bit_cast<KeyT>(bits);
  }
};

//! @brief The temporary storage of a collective that needs none (the size of CUB's empty storage, one byte).
struct NoStorage : cub::Uninitialized<cub::NullType>
{};

//! @brief The lane's rank in its logical warp: the hardware lane modulo @p LogicalWarpThreads, as CUB's warp
//! collectives count it (equal to the linear thread id modulo @p LogicalWarpThreads, which divides the warp).
template <int LogicalWarpThreads>
__device__ __forceinline__ int LogicalLane()
{
  return cub::detail::logical_lane_id<LogicalWarpThreads>();
}

//! @brief A stable bitonic sort of a logical warp's blocked tile of keys (and values).
//!
//! Each key is paired with its blocked position and the pairs are sorted by cub::detail::WarpBitonicSort in
//! PositionedOrder. The sorted tile comes out striped: item `i` of lane `l` has rank `i * LogicalWarpThreads + l`.
//!
//! @tparam ValueT cub::NullType for keys only.
template <typename KeyT, int ItemsPerThread, int LogicalWarpThreads, typename ValueT = cub::NullType>
struct StableBitonic
{
  using ItemT    = Positioned<KeyT>;
  using NetworkT = cub::detail::WarpBitonicSort<ItemT, ItemsPerThread, LogicalWarpThreads, ValueT>;

  //! @brief Pairs each of this lane's @p keys with its blocked position.
  static __device__ __forceinline__ void Load(const KeyT (&keys)[ItemsPerThread], ItemT (&items)[ItemsPerThread])
  {
    const int first = LogicalLane<LogicalWarpThreads>() * ItemsPerThread;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      items[i] = ItemT{keys[i], first + i};
    }
  }

  //! @brief Sorts the tile in @p CompareOp's order, stably; with @p Partial only the first @p valid positions
  //! count (the others follow them, in position order).
  template <bool Partial, typename CompareOp>
  static __device__ __forceinline__ void Sort(ItemT (&items)[ItemsPerThread], CompareOp compare, int valid)
  {
    typename NetworkT::TempStorage none;
    NetworkT(none).Sort(items, PositionedOrder<KeyT, CompareOp, Partial>{compare, valid});
  }

  //! @brief As Sort, moving @p values with their keys.
  template <bool Partial, typename CompareOp>
  static __device__ __forceinline__ void
  Sort(ItemT (&items)[ItemsPerThread], ValueT (&values)[ItemsPerThread], CompareOp compare, int valid)
  {
    typename NetworkT::TempStorage none;
    NetworkT(none).Sort(items, values, PositionedOrder<KeyT, CompareOp, Partial>{compare, valid});
  }
};

//! @brief A stable bitonic sort of a logical warp's blocked tile of keys (and values) in cub::BlockRadixSort's order
//! (@p Descending: from the largest), each key packed with its position (RadixPacked): one unsigned integer compare
//! a step, and for keys of up to 16 bits (and tiles below 32768 keys) one 32-bit shuffle an exchange.
//!
//! The sorted tile comes out striped: item `i` of lane `l` has rank `i * LogicalWarpThreads + l`.
template <typename KeyT, bool Descending, int ItemsPerThread, int LogicalWarpThreads, typename ValueT = cub::NullType>
struct RadixBitonic
{
  using PackingT = RadixPacked<KeyT, Descending, ItemsPerThread * LogicalWarpThreads>;
  using ItemT    = typename PackingT::T;
  using NetworkT = cub::detail::WarpBitonicSort<ItemT, ItemsPerThread, LogicalWarpThreads, ValueT>;

  //! @brief Packs each of this lane's @p keys with its blocked position; those at or past @p valid become
  //! RadixPacked::Last (after every valid key, in position order).
  static __device__ __forceinline__ void Load(
    const KeyT (&keys)[ItemsPerThread], ItemT (&items)[ItemsPerThread], int valid = ItemsPerThread * LogicalWarpThreads)
  {
    const int first = LogicalLane<LogicalWarpThreads>() * ItemsPerThread;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      items[i] = first + i < valid ? PackingT::Pack(keys[i], first + i) : PackingT::Last(first + i);
    }
  }

  //! @brief Sorts the packed tile (and @p values with it).
  template <typename... Values>
  static __device__ __forceinline__ void Sort(ItemT (&items)[ItemsPerThread], Values&... values)
  {
    typename NetworkT::TempStorage none;
    NetworkT(none).Sort(items, values..., typename PackingT::Less{});
  }
};

//! @brief Rearranges a logical warp's striped tile (lane `l`'s item `i` at rank `i * LogicalWarpThreads + l`) into
//! the blocked arrangement (lane `l` holding ranks `l * ItemsPerThread .. l * ItemsPerThread + ItemsPerThread - 1`),
//! one array after the other, through shared memory; with one item per lane both are the same and nothing moves.
//!
//! The loops are unrolled, so the per-thread arrays stay in registers (cub::WarpExchange's smem loops are not, and
//! left an array of eight 8-byte keys in local memory). As CUB's exchanges do, a power of two above four items per
//! lane skips one slot every 32, so that the blocked reads (`ItemsPerThread` apart) hit distinct banks.
//!
//! @tparam ItemTs The types of the arrays exchanged (one storage holds any of them at a time).
template <int ItemsPerThread, int LogicalWarpThreads, typename... ItemTs>
class StripedToBlocked
{
  static constexpr bool moves  = ItemsPerThread > 1;
  static constexpr int tile    = ItemsPerThread * LogicalWarpThreads;
  static constexpr bool padded = ItemsPerThread > 4 && (ItemsPerThread & (ItemsPerThread - 1)) == 0;
  static constexpr int slots   = tile + (padded ? tile / 32 : 0);

  static __device__ __forceinline__ int Slot(int rank)
  {
    return padded ? rank + (rank >> 5) : rank;
  }

  //! Room for a tile of any one of the types.
  struct alignas(::cuda::std::max({alignof(ItemTs)...})) AnyStorage
  {
    unsigned char bytes[slots * ::cuda::std::max({sizeof(ItemTs)...})];
  };

public:
  //! The storage of one logical warp: a (padded) tile of the largest type (none with one item per lane).
  using TempStorage = ::cuda::std::conditional_t<moves, AnyStorage, NoStorage>;

private:
  TempStorage& temp_storage;
  bool used = false;

public:
  __device__ __forceinline__ explicit StripedToBlocked(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}

  //! @brief Rearranges @p striped into @p blocked (they may be the same array); the logical warp's lanes meet
  //! (`__syncwarp`) between the stores and the loads, and before an exchange reuses the storage.
  template <typename T>
  __device__ __forceinline__ void Exchange(const T (&striped)[ItemsPerThread], T (&blocked)[ItemsPerThread])
  {
    if constexpr (moves)
    {
      const unsigned mask = cub::WarpMask<LogicalWarpThreads>(cub::detail::logical_warp_id<LogicalWarpThreads>());
      const int lane      = LogicalLane<LogicalWarpThreads>();
      T* shared           = reinterpret_cast<T*>(temp_storage.bytes);
      if (used)
      {
        __syncwarp(mask);
      }
      used = true;
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i)
      {
        shared[Slot(i * LogicalWarpThreads + lane)] = striped[i];
      }
      __syncwarp(mask);
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i)
      {
        blocked[i] = shared[Slot(lane * ItemsPerThread + i)];
      }
    }
    else
    {
      blocked[0] = striped[0];
    }
  }
};
} // namespace detail
} // namespace cuda_coop
