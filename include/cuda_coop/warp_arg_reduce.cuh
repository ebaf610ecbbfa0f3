// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::WarpArgReduce, the largest (or smallest) item of each logical warp and its position; a
// composition of cub::WarpReduce over (value, position) pairs (the spec: cuda_coop/_specs/warp_arg_reduce.py).

#pragma once

#include <cub/warp/warp_reduce.cuh>

#include <cuda_coop/detail/arg_reduce.cuh>

namespace cuda_coop
{
//! @brief Warp-wide ArgMax/ArgMin in every logical warp: the largest (smallest) item and its position within the
//! logical warp (lane `l`'s item `i` of N is `l * N + i`; one item per lane: the lane), the lowest position on
//! ties; a NaN counts as the largest and the smallest. The result is valid in lane 0 of each logical warp.
//!
//! @tparam T                   Item type (an integer or floating-point type).
//! @tparam LogicalWarpThreads  <b>[optional]</b> Lanes of a logical warp: a power of two up to 32.
template <typename T, int LogicalWarpThreads = 32>
class WarpArgReduce : public detail::ArgReduceBase<T, cub::WarpReduce<detail::ArgPair<T>, LogicalWarpThreads>>
{
  using Base = detail::ArgReduceBase<T, cub::WarpReduce<detail::ArgPair<T>, LogicalWarpThreads>>;

public:
  using typename Base::TempStorage;

  //! @brief Collective constructor using the logical warp's @p temp_storage.
  __device__ __forceinline__ explicit WarpArgReduce(TempStorage& temp_storage)
      : Base(temp_storage,
             static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}
};
} // namespace cuda_coop
