// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: what cuda_coop::BlockArgReduce and cuda_coop::WarpArgReduce share: (value, position) pairs, their total
// order, and the ArgMax/ArgMin member functions over a CUB reduction of pairs.

#pragma once

namespace cuda_coop
{
namespace detail
{
//! @brief A value and its position.
template <typename T>
struct ArgPair
{
  T value;
  long long index;
};

//! @brief The better of two pairs, a total order (so any reduction order gives the same pair): the larger value
//! (@p Max) or the smaller; a NaN beats every number, as in NumPy; on ties, the lower index.
template <bool Max>
struct ArgBetter
{
  template <typename T>
  __device__ __forceinline__ ArgPair<T> operator()(const ArgPair<T>& a, const ArgPair<T>& b) const
  {
    const bool a_nan = !(a.value == a.value);
    const bool b_nan = !(b.value == b.value);
    if (a_nan || b_nan)
    {
      return (b_nan && (!a_nan || b.index < a.index)) ? b : a;
    }
    const bool b_wins = Max ? (a.value < b.value) : (b.value < a.value);
    const bool tie    = !(a.value < b.value) && !(b.value < a.value);
    return (b_wins || (tie && b.index < a.index)) ? b : a;
  }
};

//! @brief ArgMax and ArgMin over @p ReduceT, a CUB reduction of ArgPair<T> (cub::BlockReduce, cub::WarpReduce), for
//! a thread of rank @p rank (the position of its one item, or of its first item times the items per thread).
//! The result is valid where @p ReduceT's is (thread 0, lane 0).
template <typename T, typename ReduceT>
class ArgReduceBase
{
  using Pair = ArgPair<T>;

public:
  //! The temporary storage of the reduction.
  using TempStorage = typename ReduceT::TempStorage;

private:
  TempStorage& temp_storage;
  int rank;

  template <bool Max>
  __device__ __forceinline__ void Finish(Pair p, T& value, long long& index)
  {
    p     = ReduceT(temp_storage).Reduce(p, ArgBetter<Max>{});
    value = p.value;
    index = p.index;
  }

  template <bool Max, int N>
  __device__ __forceinline__ void Tile(T (&items)[N], T& value, long long& index)
  {
    Pair p{items[0], static_cast<long long>(rank) * N};
#pragma unroll
    for (int i = 1; i < N; ++i)
    {
      p = ArgBetter<Max>{}(p, Pair{items[i], static_cast<long long>(rank) * N + i});
    }
    Finish<Max>(p, value, index);
  }

protected:
  __device__ __forceinline__ ArgReduceBase(TempStorage& temp_storage, int rank)
      : temp_storage(temp_storage)
      , rank(rank)
  {}

public:
  //! @brief The largest of the threads' items @p x and its position (the thread's rank), the lowest on ties.
  __device__ __forceinline__ void ArgMax(T x, T& value, long long& index)
  {
    Finish<true>(Pair{x, rank}, value, index);
  }

  //! @brief The largest of the threads' items @p x and its @p position, the lowest on ties.
  __device__ __forceinline__ void ArgMax(T x, long long position, T& value, long long& index)
  {
    Finish<true>(Pair{x, position}, value, index);
  }

  //! @brief The largest item of the tile (blocked: position `rank * N + i`) and its position, the lowest on ties.
  template <int N>
  __device__ __forceinline__ void ArgMax(T (&items)[N], T& value, long long& index)
  {
    Tile<true>(items, value, index);
  }

  //! @brief The smallest of the threads' items @p x and its position (the thread's rank), the lowest on ties.
  __device__ __forceinline__ void ArgMin(T x, T& value, long long& index)
  {
    Finish<false>(Pair{x, rank}, value, index);
  }

  //! @brief The smallest of the threads' items @p x and its @p position, the lowest on ties.
  __device__ __forceinline__ void ArgMin(T x, long long position, T& value, long long& index)
  {
    Finish<false>(Pair{x, position}, value, index);
  }

  //! @brief The smallest item of the tile (blocked: position `rank * N + i`) and its position, the lowest on ties.
  template <int N>
  __device__ __forceinline__ void ArgMin(T (&items)[N], T& value, long long& index)
  {
    Tile<false>(items, value, index);
  }
};
} // namespace detail
} // namespace cuda_coop
