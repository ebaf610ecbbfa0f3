// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::WarpSort, each logical warp sorts its own blocked tile of keys (and values) with a
// comparator, by cub::WarpMergeSort or by cub::detail::WarpBitonicSort (the spec: cuda_coop/_specs/warp_merge_sort.py),
// and cuda_coop::WarpSortAlgorithm, which the warp sorts (WarpSort, WarpArgsort, WarpTopK) take.

#pragma once

#include <cub/util_type.cuh>
#include <cub/warp/warp_merge_sort.cuh>

#include <cuda/std/functional>
#include <cuda/std/type_traits>
#include <cuda/type_traits>

#include <cuda_coop/detail/warp_bitonic.cuh>

namespace cuda_coop
{
//! @brief How a logical warp sorts its tile.
enum WarpSortAlgorithm
{
  //! cub::WarpMergeSort: each lane sorts its items, then the lanes' runs are merged through shared memory
  //! (merge path). Stable.
  WARP_SORT_MERGE_SORT,
  //! cub::detail::WarpBitonicSort: a bitonic network, in registers within a lane and by shuffles between lanes.
  //! Not stable by itself: where a stable result is asked for, each key carries its tile position and ties are
  //! broken by it (in cub::BlockRadixSort's order, packed into one integer with it). Its result is striped; it is
  //! exchanged back to blocked through shared memory (none for one item per lane).
  WARP_SORT_BITONIC,
};

//! @brief Each logical warp sorts its own tile of keys (and values) with a comparator.
//!
//! Lane `l` holds the warp tile's positions `l * ItemsPerThread .. l * ItemsPerThread + ItemsPerThread - 1`
//! (blocked), before and after. With WARP_SORT_MERGE_SORT this is cub::WarpMergeSort itself. With WARP_SORT_BITONIC
//! the member functions are cub::WarpMergeSort's:
//! - `Sort(keys[, values], compare)`: the bitonic network alone; not stable (keys that `compare` does not order keep
//!   no particular order);
//! - `StableSort(...)`, and every partial-tile form (`valid_items`, with or without `oob_default`): stable, the
//!   same result as cub::WarpMergeSort's StableSort on the first `valid_items` positions (keys ordered by `compare`,
//!   ties by tile position; `::cuda::std::less<>` and `greater<>` on numbers sort the keys packed with their
//!   positions, detail::RadixBitonic). The positions at or past `valid_items` receive the invalid items' values in
//!   position order, with unspecified keys (`oob_default` where it is given).
//!
//! @tparam KeyT                Key type (default constructible and trivially copyable).
//! @tparam ItemsPerThread      Keys each lane holds.
//! @tparam LogicalWarpThreads  Lanes of a logical warp: a power of two up to 32.
//! @tparam ValueT              <b>[optional]</b> Value type (cub::NullType for keys only).
//! @tparam Algorithm           <b>[optional]</b> WARP_SORT_MERGE_SORT (default) or WARP_SORT_BITONIC.
template <typename KeyT,
          int ItemsPerThread,
          int LogicalWarpThreads      = 32,
          typename ValueT             = cub::NullType,
          WarpSortAlgorithm Algorithm = WARP_SORT_MERGE_SORT>
class WarpSort : public cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>
{
public:
  using cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>::WarpMergeSort;
};

//! @brief WarpSort by the bitonic network (see the primary template).
template <typename KeyT, int ItemsPerThread, int LogicalWarpThreads, typename ValueT>
class WarpSort<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT, WARP_SORT_BITONIC>
{
  static constexpr bool keys_only = ::cuda::std::is_same_v<ValueT, cub::NullType>;
  using ValueSlotT                = ::cuda::std::conditional_t<keys_only, KeyT, ValueT>; // exchanged
  using StableT                   = detail::StableBitonic<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>;
  using UnstableT                 = cub::detail::WarpBitonicSort<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>;
  using ExchangeT                 = detail::StripedToBlocked<ItemsPerThread, LogicalWarpThreads, KeyT, ValueSlotT>;

public:
  //! The temporary storage of one logical warp: the exchange of the striped result (none for one item per lane).
  using TempStorage = typename ExchangeT::TempStorage;

private:
  TempStorage& temp_storage;

  //! Whether @p CompareOp is cub::BlockRadixSort's order on the keys (up to -0.0 == +0.0, and NaN, which `<` does
  //! not order): `<` or `>` on integer or floating-point keys. A stable sort by it is then a stable sort of the
  //! keys packed with their positions (detail::RadixBitonic): one integer compare a step, not two by `compare`.
  template <typename CompareOp>
  static constexpr bool radix_order =
    (::cuda::std::is_same_v<CompareOp, ::cuda::std::less<>>
     || ::cuda::std::is_same_v<CompareOp, ::cuda::std::greater<>>)
    && (::cuda::std::is_integral_v<KeyT> || ::cuda::is_floating_point_v<KeyT>);

  //! Sorts stably (each key paired with its tile position); @p values is empty (keys only) or the values.
  template <bool Partial, typename CompareOp, typename... Values>
  __device__ __forceinline__ void
  Stable(KeyT (&keys)[ItemsPerThread], CompareOp compare, int valid, const KeyT* oob_default, Values&... values)
  {
    if constexpr (radix_order<CompareOp>)
    {
      using SortT = detail::RadixBitonic<KeyT,
                                         ::cuda::std::is_same_v<CompareOp, ::cuda::std::greater<>>,
                                         ItemsPerThread,
                                         LogicalWarpThreads,
                                         ValueT>;
      typename SortT::ItemT items[ItemsPerThread];
      SortT::Load(keys, items, valid);
      SortT::Sort(items, values...);
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i)
      {
        keys[i] = Partial && oob_default != nullptr && SortT::PackingT::Position(items[i]) >= valid
                  ? *oob_default
                  : SortT::PackingT::Key(items[i]);
      }
      Blocked(keys, values...);
    }
    else
    {
      Positioned<Partial>(keys, compare, valid, oob_default, values...);
    }
  }

  //! Stable for any comparator: each key paired with its tile position (detail::PositionedOrder).
  template <bool Partial, typename CompareOp, typename... Values>
  __device__ __forceinline__ void
  Positioned(KeyT (&keys)[ItemsPerThread], CompareOp compare, int valid, const KeyT* oob_default, Values&... values)
  {
    typename StableT::ItemT items[ItemsPerThread];
    StableT::Load(keys, items);
    if constexpr (Partial)
    {
      if (oob_default != nullptr)
      {
#pragma unroll
        for (int i = 0; i < ItemsPerThread; ++i)
        {
          if (items[i].position >= valid)
          {
            items[i].key = *oob_default;
          }
        }
      }
    }
    StableT::template Sort<Partial>(items, values..., compare, valid);
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      keys[i] = items[i].key;
    }
    Blocked(keys, values...);
  }

  //! Rearranges the striped result (keys, then values) into the blocked arrangement.
  template <typename... Values>
  __device__ __forceinline__ void Blocked(KeyT (&keys)[ItemsPerThread], Values&... values)
  {
    ExchangeT exchange(temp_storage);
    exchange.Exchange(keys, keys);
    (exchange.Exchange(values, values), ...);
  }

public:
  //! @brief Collective constructor using the logical warp's @p temp_storage.
  __device__ __forceinline__ explicit WarpSort(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}

  //! @brief Sorts the keys by @p compare with the bitonic network alone (not stable).
  template <typename CompareOp>
  __device__ __forceinline__ void Sort(KeyT (&keys)[ItemsPerThread], CompareOp compare)
  {
    typename UnstableT::TempStorage none;
    UnstableT(none).Sort(keys, compare); // blocked in, taken as striped: an unstable sort ignores the arrangement
    Blocked(keys);
  }

  //! @brief Sorts the keys and their values by @p compare with the bitonic network alone (not stable).
  template <typename CompareOp>
  __device__ __forceinline__ void
  Sort(KeyT (&keys)[ItemsPerThread], ValueT (&values)[ItemsPerThread], CompareOp compare)
  {
    typename UnstableT::TempStorage none;
    UnstableT(none).Sort(keys, values, compare);
    Blocked(keys, values);
  }

  //! @brief Sorts the tile's first @p valid_items keys by @p compare, stably.
  template <typename CompareOp>
  __device__ __forceinline__ void Sort(KeyT (&keys)[ItemsPerThread], CompareOp compare, int valid_items)
  {
    Stable<true>(keys, compare, valid_items, nullptr);
  }

  //! @brief As Sort(keys, compare, valid_items); the invalid keys become @p oob_default.
  template <typename CompareOp>
  __device__ __forceinline__ void
  Sort(KeyT (&keys)[ItemsPerThread], CompareOp compare, int valid_items, KeyT oob_default)
  {
    Stable<true>(keys, compare, valid_items, &oob_default);
  }

  //! @brief Sorts the tile's first @p valid_items keys and their values by @p compare, stably.
  template <typename CompareOp>
  __device__ __forceinline__ void
  Sort(KeyT (&keys)[ItemsPerThread], ValueT (&values)[ItemsPerThread], CompareOp compare, int valid_items)
  {
    Stable<true>(keys, compare, valid_items, nullptr, values);
  }

  //! @brief As Sort(keys, values, compare, valid_items); the invalid keys become @p oob_default.
  template <typename CompareOp>
  __device__ __forceinline__ void Sort(
    KeyT (&keys)[ItemsPerThread],
    ValueT (&values)[ItemsPerThread],
    CompareOp compare,
    int valid_items,
    KeyT oob_default)
  {
    Stable<true>(keys, compare, valid_items, &oob_default, values);
  }

  //! @brief Sorts the keys by @p compare, stably.
  template <typename CompareOp>
  __device__ __forceinline__ void StableSort(KeyT (&keys)[ItemsPerThread], CompareOp compare)
  {
    Stable<false>(keys, compare, ItemsPerThread * LogicalWarpThreads, nullptr);
  }

  //! @brief Sorts the keys and their values by @p compare, stably.
  template <typename CompareOp>
  __device__ __forceinline__ void
  StableSort(KeyT (&keys)[ItemsPerThread], ValueT (&values)[ItemsPerThread], CompareOp compare)
  {
    Stable<false>(keys, compare, ItemsPerThread * LogicalWarpThreads, nullptr, values);
  }

  //! @brief Sorts the tile's first @p valid_items keys by @p compare, stably.
  template <typename CompareOp>
  __device__ __forceinline__ void StableSort(KeyT (&keys)[ItemsPerThread], CompareOp compare, int valid_items)
  {
    Stable<true>(keys, compare, valid_items, nullptr);
  }

  //! @brief As StableSort(keys, compare, valid_items); the invalid keys become @p oob_default.
  template <typename CompareOp>
  __device__ __forceinline__ void
  StableSort(KeyT (&keys)[ItemsPerThread], CompareOp compare, int valid_items, KeyT oob_default)
  {
    Stable<true>(keys, compare, valid_items, &oob_default);
  }

  //! @brief Sorts the tile's first @p valid_items keys and their values by @p compare, stably.
  template <typename CompareOp>
  __device__ __forceinline__ void
  StableSort(KeyT (&keys)[ItemsPerThread], ValueT (&values)[ItemsPerThread], CompareOp compare, int valid_items)
  {
    Stable<true>(keys, compare, valid_items, nullptr, values);
  }

  //! @brief As StableSort(keys, values, compare, valid_items); the invalid keys become @p oob_default.
  template <typename CompareOp>
  __device__ __forceinline__ void StableSort(
    KeyT (&keys)[ItemsPerThread],
    ValueT (&values)[ItemsPerThread],
    CompareOp compare,
    int valid_items,
    KeyT oob_default)
  {
    Stable<true>(keys, compare, valid_items, &oob_default, values);
  }
};
} // namespace cuda_coop
