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

// cuda-coop provider d38f8362b67c: block (256, 1, 1)
//   [0] block_reduce.sum.array[algorithm=cub::BLOCK_REDUCE_WARP_REDUCTIONS,block_dim_x=256,block_dim_y=1,block_dim_z=1,broadcast=False,dtype=float32,items_per_thread=16]
//   [1] block_scan.exclusive_sum.array[algorithm=cub::BLOCK_SCAN_RAKING,block_dim_x=256,block_dim_y=1,block_dim_z=1,dtype=int32,items_per_thread=4]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");

namespace cuda_coop_d38f8362b67c
{
using prim_0 = cub::BlockReduce<float, 256, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 1, 1>;
using prim_1 = cub::BlockScan<int, 256, cub::BLOCK_SCAN_RAKING, 1, 1>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
};
struct storage_t
{
  block_storage_t block;
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_d38f8362b67c

extern "C" __device__ float cuda_coop_d38f8362b67c_0_block_reduce_sum(float* x)
{
  using Prim = cuda_coop_d38f8362b67c::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  float x_in[16];
#pragma unroll
  for (int k = 0; k < 16; ++k)
  {
    x_in[k] = x[k];
  }
  return Prim(cuda_coop_d38f8362b67c::storage.block.s0).Sum(x_in);
}

extern "C" __device__ void cuda_coop_d38f8362b67c_1_block_scan_exclusive_sum(int* x, int* output)
{
  using Prim = cuda_coop_d38f8362b67c::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  int x_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    x_in[k] = x[k];
  }
  Prim(cuda_coop_d38f8362b67c::storage.block.s1).ExclusiveSum(x_in, reinterpret_cast<int(&)[4]>(*output));
}
