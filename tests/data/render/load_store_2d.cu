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

// cuda-coop provider daeb893f2676: block (16, 8, 1)
//   [0] block_load.load.guarded_default[algorithm=cub::BLOCK_LOAD_TRANSPOSE,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,dtype=int64,items_per_thread=4]
//   [1] block_scan.inclusive_scan.array_init_aggregate[algorithm=cub::BLOCK_SCAN_WARP_SCANS,block_dim_x=16,block_dim_y=8,block_dim_z=1,dtype=int64,items_per_thread=4,op=MAXIMUM]
//   [2] block_store.store.guarded[algorithm=cub::BLOCK_STORE_WARP_TRANSPOSE,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,dtype=int64,items_per_thread=4]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");

namespace cuda_coop_daeb893f2676
{
using prim_0 = cub::BlockLoad<long long, 16, 4, cub::BLOCK_LOAD_TRANSPOSE, 8, 1>;
using prim_1 = cub::BlockScan<long long, 16, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_2 = cub::BlockStore<long long, 16, 4, cub::BLOCK_STORE_WARP_TRANSPOSE, 8, 1>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
  prim_2::TempStorage s2;
};
struct storage_t
{
  block_storage_t block;
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_daeb893f2676

extern "C" __device__ void cuda_coop_daeb893f2676_0_block_load_load(const long long* src, long long* items, int valid_items, long long oob_default)
{
  using Prim = cuda_coop_daeb893f2676::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_daeb893f2676::storage.block.s0).Load(src, reinterpret_cast<long long(&)[4]>(*items), cuda_coop_detail::clamp_count<512>(valid_items), oob_default);
}

extern "C" __device__ void cuda_coop_daeb893f2676_1_block_scan_inclusive_scan(long long* x, long long* output, long long initial_value, long long* block_aggregate)
{
  using Prim = cuda_coop_daeb893f2676::prim_1;
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
  Prim(cuda_coop_daeb893f2676::storage.block.s1).InclusiveScan(x_in, reinterpret_cast<long long(&)[4]>(*output), initial_value, ::cuda_coop_detail::maximum{}, *block_aggregate);
}

extern "C" __device__ void cuda_coop_daeb893f2676_2_block_store_store(long long* dst, long long* items, int valid_items)
{
  using Prim = cuda_coop_daeb893f2676::prim_2;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  long long items_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    items_in[k] = items[k];
  }
  Prim(cuda_coop_daeb893f2676::storage.block.s2).Store(dst, items_in, cuda_coop_detail::clamp_count<512>(valid_items));
}
