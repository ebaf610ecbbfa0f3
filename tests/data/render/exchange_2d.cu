#define _CCCL_META_UNROLL_LIMIT 10
#include <cub/block/block_exchange.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/functional>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 01c14ae76642: block (32, 4, 1)
//   [0] block_exchange.blocked_to_warp_striped.array[block_dim_x=32,block_dim_y=4,block_dim_z=1,dtype=int64,items_per_thread=4,warp_time_slicing=True]
//   [1] block_exchange.scatter_to_blocked.array[block_dim_x=32,block_dim_y=4,block_dim_z=1,dtype=float32,items_per_thread=4,rank_type=uint16,warp_time_slicing=False]
//   [2] block_exchange.scatter_to_striped_flagged.array[block_dim_x=32,block_dim_y=4,block_dim_z=1,dtype=float64,flag_type=bool,items_per_thread=2,rank_type=int64,warp_time_slicing=False]
//   [3] warp_exchange.striped_to_blocked.array[algorithm=cub::WARP_EXCHANGE_SHUFFLE,dtype=int32,items_per_thread=8,threads=8]
//   [4] warp_exchange.scatter_to_striped.array[algorithm=cub::WARP_EXCHANGE_SMEM,dtype=int32,items_per_thread=4,rank_type=int8,threads=16]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(bool) == 1 && alignof(bool) == 1, "storage ABI of bool");
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");
static_assert(sizeof(signed char) == 1 && alignof(signed char) == 1, "storage ABI of int8");
static_assert(sizeof(unsigned short) == 2 && alignof(unsigned short) == 2, "storage ABI of uint16");

namespace cuda_coop_01c14ae76642
{
using prim_0 = cub::BlockExchange<long long, 32, 4, true, 4, 1>;
using prim_1 = cub::BlockExchange<float, 32, 4, false, 4, 1>;
using prim_2 = cub::BlockExchange<double, 32, 2, false, 4, 1>;
using prim_3 = cub::WarpExchange<int, 8, 8, cub::WARP_EXCHANGE_SHUFFLE>;
using prim_4 = cub::WarpExchange<int, 4, 16, cub::WARP_EXCHANGE_SMEM>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
  prim_2::TempStorage s2;
};
// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.
union warp_storage_16_t
{
  prim_4::TempStorage s4[2];
};
union warp_storage_8_t
{
  prim_3::TempStorage s3[4];
};
struct warp_storage_t
{
  warp_storage_16_t w16;
  warp_storage_8_t w8;
};
struct storage_t
{
  block_storage_t block;
  warp_storage_t warp[4];
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_01c14ae76642

extern "C" __device__ void cuda_coop_01c14ae76642_0_block_exchange_blocked_to_warp_striped(long long* x, long long* output)
{
  using Prim = cuda_coop_01c14ae76642::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  long long x_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    x_in[k] = x[k];
  }
  Prim(cuda_coop_01c14ae76642::storage.block.s0).BlockedToWarpStriped(x_in, reinterpret_cast<long long(&)[4]>(*output));
}

extern "C" __device__ void cuda_coop_01c14ae76642_1_block_exchange_scatter_to_blocked(float* x, float* output, unsigned short* ranks)
{
  using Prim = cuda_coop_01c14ae76642::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  float x_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    x_in[k] = x[k];
  }
  unsigned short ranks_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    ranks_in[k] = ranks[k];
  }
  Prim(cuda_coop_01c14ae76642::storage.block.s1).ScatterToBlocked(x_in, reinterpret_cast<float(&)[4]>(*output), ranks_in);
}

extern "C" __device__ void cuda_coop_01c14ae76642_2_block_exchange_scatter_to_striped_flagged(double* x, double* output, long long* ranks, bool* valid_flags)
{
  using Prim = cuda_coop_01c14ae76642::prim_2;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  double x_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    x_in[k] = x[k];
  }
  long long ranks_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    ranks_in[k] = ranks[k];
  }
  bool valid_flags_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    valid_flags_in[k] = valid_flags[k];
  }
  Prim(cuda_coop_01c14ae76642::storage.block.s2).ScatterToStripedFlagged(x_in, reinterpret_cast<double(&)[2]>(*output), ranks_in, valid_flags_in);
}

extern "C" __device__ void cuda_coop_01c14ae76642_3_warp_exchange_striped_to_blocked(int* x, int* output)
{
  using Prim = cuda_coop_01c14ae76642::prim_3;
  const int tid = static_cast<int>(threadIdx.x + 32 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_01c14ae76642::storage.warp[tid / 32].w8.s3[tid % 32 / 8];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<8>(tid));
  }
  int x_in[8];
#pragma unroll
  for (int k = 0; k < 8; ++k)
  {
    x_in[k] = x[k];
  }
  Prim(temp).StripedToBlocked(x_in, reinterpret_cast<int(&)[8]>(*output));
}

extern "C" __device__ void cuda_coop_01c14ae76642_4_warp_exchange_scatter_to_striped(int* x, int* output, signed char* ranks)
{
  using Prim = cuda_coop_01c14ae76642::prim_4;
  const int tid = static_cast<int>(threadIdx.x + 32 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_01c14ae76642::storage.warp[tid / 32].w16.s4[tid % 32 / 16];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid));
  }
  int x_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    x_in[k] = x[k];
  }
  signed char ranks_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    ranks_in[k] = ranks[k];
  }
  Prim(temp).ScatterToStriped(x_in, reinterpret_cast<int(&)[4]>(*output), ranks_in);
}
