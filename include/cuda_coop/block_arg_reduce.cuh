// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockArgReduce, the largest (or smallest) item of a block's tile and its position; a
// composition of cub::BlockReduce over (value, position) pairs (the spec: cuda_coop/_specs/block_arg_reduce.py).

#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/util_ptx.cuh>

#include <cuda_coop/detail/arg_reduce.cuh>

namespace cuda_coop
{
//! @brief Block-wide ArgMax/ArgMin: the largest (smallest) item and its position, the lowest position on ties; a
//! NaN counts as the largest and the smallest, as in NumPy. The result is valid in thread 0.
//!
//! A thread's one item is at its CUB row-major linear rank (or a position it gives); thread `t`'s items of a tile
//! are at `t * N + i` (blocked).
//!
//! @tparam T          Item type (an integer or floating-point type).
//! @tparam BlockDimX  Block length in threads along X.
//! @tparam Algorithm  <b>[optional]</b> cub::BlockReduce's algorithm.
//! @tparam BlockDimY  <b>[optional]</b> Block length in threads along Y.
//! @tparam BlockDimZ  <b>[optional]</b> Block length in threads along Z.
template <typename T,
          int BlockDimX,
          cub::BlockReduceAlgorithm Algorithm = cub::BLOCK_REDUCE_WARP_REDUCTIONS,
          int BlockDimY                       = 1,
          int BlockDimZ                       = 1>
class BlockArgReduce
    : public detail::ArgReduceBase<T, cub::BlockReduce<detail::ArgPair<T>, BlockDimX, Algorithm, BlockDimY, BlockDimZ>>
{
  using Base =
    detail::ArgReduceBase<T, cub::BlockReduce<detail::ArgPair<T>, BlockDimX, Algorithm, BlockDimY, BlockDimZ>>;

public:
  using typename Base::TempStorage;

  //! @brief Collective constructor using the block's @p temp_storage.
  __device__ __forceinline__ explicit BlockArgReduce(TempStorage& temp_storage)
      : Base(temp_storage, cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ))
  {}
};
} // namespace cuda_coop
