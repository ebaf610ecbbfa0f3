// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: what cuda_coop::BlockTopK and cuda_coop::WarpTopK share, their public member functions and the
// store of the ranks below k.

#pragma once

namespace cuda_coop
{
namespace detail
{
//! @brief Stores each of a thread's @p items whose rank `first + i * stride` is below @p k at
//! `out[offset + first + i * stride]` (blocked ranks: stride 1; striped: stride the number of threads).
template <int ItemsPerThread, typename T>
__device__ __forceinline__ void
StoreRanksBelow(T (&items)[ItemsPerThread], int k, T* out, long long offset, int first, int stride)
{
#pragma unroll
  for (int i = 0; i < ItemsPerThread; ++i)
  {
    const int rank = first + i * stride;
    if (rank < k)
    {
      out[offset + rank] = items[i];
    }
  }
}

//! @brief The public member functions of a top-k composition (CRTP base).
//!
//! `TopKLargest` and `TopKSmallest`, for keys and for keys with values, each forward to
//! `Derived::template Select<Largest, WithValues>(keys, values, k, out_keys, out_values, offset)`, which writes the
//! tile's k largest (smallest) keys, in order, to `out_keys[offset, offset + k)` and, with values, their values to
//! `out_values` (keys only: a placeholder array of @p ValueT, cub::NullType, and no `out_values`). The arrays are the
//! caller's and may be changed (the generated wrappers pass copies).
template <typename Derived, typename KeyT, int ItemsPerThread, typename ValueT>
class TopKInterface
{
  template <bool Largest>
  __device__ __forceinline__ void Keys(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    ValueT none[ItemsPerThread];
    static_cast<Derived&>(*this).template Select<Largest, false>(keys, none, k, out_keys, nullptr, offset);
  }

  template <bool Largest>
  __device__ __forceinline__ void Pairs(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    static_cast<Derived&>(*this).template Select<Largest, true>(keys, values, k, out_keys, out_values, offset);
  }

public:
  //! @brief Writes the k largest keys, largest first (ties in input order), to `out_keys[offset, offset + k)`.
  __device__ __forceinline__ void TopKLargest(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    Keys<true>(keys, k, out_keys, offset);
  }

  //! @brief Writes the k smallest keys, smallest first (ties in input order), to `out_keys[offset, offset + k)`.
  __device__ __forceinline__ void TopKSmallest(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    Keys<false>(keys, k, out_keys, offset);
  }

  //! @brief Writes the k largest keys and their values, in order, from `offset` on.
  __device__ __forceinline__ void TopKLargest(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    Pairs<true>(keys, k, out_keys, values, out_values, offset);
  }

  //! @brief Writes the k smallest keys and their values, in order, from `offset` on.
  __device__ __forceinline__ void TopKSmallest(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    Pairs<false>(keys, k, out_keys, values, out_values, offset);
  }
};
} // namespace detail
} // namespace cuda_coop
