// SPDX-License-Identifier: Apache-2.0
//
// cuda-coop: cuda_coop::BlockLoadToShared, a block copies a tile from global to shared memory and waits for it; a
// composition of CCCL's cub::detail::BlockLoadToShared (the spec: cuda_coop/_specs/block_load_to_shared.py).
//
// cub::detail has no stability promise between CCCL releases: this header is compiled against the CCCL that cuda-coop
// bundles (3.6), whose declarations the compile tier pins. The header is new in CCCL 3.6, so providers include it
// after their CCCL version check (PrimitiveSpec.preamble=False), never in the fixed preamble.

#pragma once

#include <cub/block/block_load_to_shared.cuh>
#include <cub/util_ptx.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/span>

namespace cuda_coop
{
// cub::detail::BlockLoadToShared in one call: the tile's largest prefix of whole 16-byte chunks goes through CUB's
// aligned path (GmemAlign = bulk_copy_min_align: the items land at dst[0], dst needs no room past the tile), the
// remaining bytes (fewer than 16) are copied by as many threads, one item each, before the commit's barrier; then the
// barrier is invalidated, so that the temporary storage is free for any later call.
template <class T, int BlockDimX, int ItemsPerThread, int BlockDimY = 1, int BlockDimZ = 1>
class BlockLoadToShared
{
  using Copy                = cub::detail::BlockLoadToShared<BlockDimX, BlockDimY, BlockDimZ>;
  static constexpr int tile = BlockDimX * BlockDimY * BlockDimZ * ItemsPerThread;
  static constexpr int chunk = cub::detail::bulk_copy_min_align;
  static_assert(chunk % int(sizeof(T)) == 0, "cuda-coop: an item must divide the 16-byte chunks CUB copies");

public:
  using TempStorage = typename Copy::TempStorage;

  __device__ __forceinline__ explicit BlockLoadToShared(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}

  __device__ __forceinline__ void LoadToShared(const T* src, T* dst)
  {
    Load<true>(src, dst, tile);
  }

  __device__ __forceinline__ void LoadToShared(const T* src, T* dst, int valid_items)
  {
    Load<false>(src, dst, valid_items);
  }

private:
  // Whole tiles have no tail: a block of whole warps makes every tile a multiple of 16 bytes.
  template <bool WholeTile>
  __device__ __forceinline__ void Load(const T* src, T* dst, int valid_items)
  {
    constexpr int per_chunk = chunk / int(sizeof(T));
    const int bulk          = valid_items / per_chunk * per_chunk;
    Copy copy(temp_storage);
    const ::cuda::std::span<T> landed = copy.template CopyAsync<T, chunk>(
      ::cuda::std::span<char>(reinterpret_cast<char*>(dst), static_cast<::cuda::std::size_t>(bulk) * sizeof(T)),
      ::cuda::std::span<const T>(src, static_cast<::cuda::std::size_t>(bulk)));
    (void) landed; // dst itself: the aligned path does not move the items
    if constexpr (!WholeTile || tile % per_chunk != 0)
    {
      const int rank = cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ);
      if (rank < valid_items - bulk)
      {
        dst[bulk + rank] = src[bulk + rank];
      }
    }
    copy.CommitAndWait();
    copy.Invalidate();
  }

  TempStorage& temp_storage;
};
} // namespace cuda_coop
