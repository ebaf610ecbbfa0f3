// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: CUB's radix key order as a value and as a comparator.

#pragma once

#include <cub/util_type.cuh>

#include <cuda/std/bit>
#include <cuda/type_traits>

namespace cuda_coop
{
namespace detail
{
//! @brief The bit-ordered form of @p key that cub::BlockRadixSort sorts by.
//!
//! The key's bits twiddled by cub::NumericTraits (the sign bit flipped for signed integers and non-negative
//! floats, every bit flipped for negative floats), with -0.0 read as +0.0 as CUB's digit extractor reads it:
//! comparing the results as unsigned integers is cub::BlockRadixSort's ascending order, NaNs included.
template <typename KeyT>
__device__ __forceinline__ typename cub::NumericTraits<KeyT>::UnsignedBits RadixOrderBits(const KeyT& key)
{
  using Traits       = cub::NumericTraits<KeyT>;
  using UnsignedBits = typename Traits::UnsignedBits;
  UnsignedBits bits  = Traits::TwiddleIn(::cuda::std::bit_cast<UnsignedBits>(key));
  if constexpr (::cuda::is_floating_point_v<KeyT>)
  {
    constexpr UnsignedBits minus_zero = UnsignedBits(UnsignedBits(1) << (8 * sizeof(UnsignedBits) - 1));
    if (bits == Traits::TwiddleIn(minus_zero))
    {
      bits = Traits::TwiddleIn(UnsignedBits(0));
    }
  }
  return bits;
}
} // namespace detail

//! @brief cub::BlockRadixSort's key order as a strict weak order: @p a goes before @p b, ascending
//! (@p Descending false) or descending.
template <typename KeyT, bool Descending>
struct RadixOrder
{
  __device__ __forceinline__ bool operator()(const KeyT& a, const KeyT& b) const
  {
    return Descending ? detail::RadixOrderBits(b) < detail::RadixOrderBits(a)
                      : detail::RadixOrderBits(a) < detail::RadixOrderBits(b);
  }
};
} // namespace cuda_coop
