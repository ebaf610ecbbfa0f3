#define _CCCL_META_UNROLL_LIMIT 10
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_run_length_decode.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_shuffle.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
#include <cuda_coop/block_arg_reduce.cuh>
#include <cuda_coop/block_argsort.cuh>
#include <cuda_coop/block_radix_rank.cuh>
#include <cuda_coop/warp_arg_reduce.cuh>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/functional>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 04d148d34184: block (4, 4, 4)
//   [0] warp_reduce.sum.scalar[broadcast=False,dtype=float64,threads=32]
//   [1] warp_scan.scan.scalar_init[dtype=int32,op=PLUS,threads=16]
//   [2] warp_reduce.reduce.scalar_valid[broadcast=False,count_type=int32,dtype=uint8,op=MINIMUM,threads=8]
//   [3] block_reduce.sum.scalar[algorithm=cub::BLOCK_REDUCE_RAKING,block_dim_x=4,block_dim_y=4,block_dim_z=4,broadcast=False,dtype=float64]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(unsigned char) == 1 && alignof(unsigned char) == 1, "storage ABI of uint8");

namespace cuda_coop_04d148d34184
{
using prim_0 = cub::WarpReduce<double, 32>;
using prim_1 = cub::WarpScan<int, 16>;
using prim_2 = cub::WarpReduce<unsigned char, 8>;
using prim_3 = cub::BlockReduce<double, 4, cub::BLOCK_REDUCE_RAKING, 4, 4>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_3::TempStorage s3;
};
// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.
union warp_storage_32_t
{
  prim_0::TempStorage s0[1];
};
union warp_storage_16_t
{
  prim_1::TempStorage s1[2];
};
union warp_storage_8_t
{
  prim_2::TempStorage s2[4];
};
struct warp_storage_t
{
  warp_storage_32_t w32;
  warp_storage_16_t w16;
  warp_storage_8_t w8;
};
struct storage_t
{
  block_storage_t block;
  warp_storage_t warp[2];
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_04d148d34184

extern "C" __device__ double cuda_coop_04d148d34184_0_warp_reduce_sum(double x)
{
  using Prim = cuda_coop_04d148d34184::prim_0;
  const int tid = static_cast<int>(threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_04d148d34184::storage.warp[tid / 32].w32.s0[tid % 32 / 32];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<32>(tid));
  }
  return Prim(temp).Sum(x);
}

extern "C" __device__ void cuda_coop_04d148d34184_1_warp_scan_scan(int x, int* inclusive_output, int* exclusive_output, int initial_value)
{
  using Prim = cuda_coop_04d148d34184::prim_1;
  const int tid = static_cast<int>(threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_04d148d34184::storage.warp[tid / 32].w16.s1[tid % 32 / 16];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid));
  }
  Prim(temp).Scan(x, *inclusive_output, *exclusive_output, initial_value, ::cuda::std::plus<>{});
}

extern "C" __device__ unsigned char cuda_coop_04d148d34184_2_warp_reduce_reduce(unsigned char x, int valid_items)
{
  using Prim = cuda_coop_04d148d34184::prim_2;
  const int tid = static_cast<int>(threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_04d148d34184::storage.warp[tid / 32].w8.s2[tid % 32 / 8];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<8>(tid));
  }
  if (cuda_coop_detail::clamp_count<8>(valid_items) == 0)
  {
    return cuda_coop_detail::highest_value<unsigned char>();
  }
  return Prim(temp).Reduce(x, ::cuda_coop_detail::minimum{}, cuda_coop_detail::clamp_count<8>(valid_items));
}

extern "C" __device__ double cuda_coop_04d148d34184_3_block_reduce_sum(double x)
{
  using Prim = cuda_coop_04d148d34184::prim_3;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  return Prim(cuda_coop_04d148d34184::storage.block.s3).Sum(x);
}
