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
#include <cuda/std/complex>

static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 9fa7f723268c: block (128, 1, 1)
//   [0] block_scan.exclusive_scan.array_prefix[algorithm=cub::BLOCK_SCAN_RAKING,block_dim_x=128,block_dim_y=1,block_dim_z=1,dtype=user12a4,items_per_thread=2,op=user_op:udt_combine,prefix_op=user_callback:udt_running_total]
//   [1] block_reduce.reduce.scalar[algorithm=cub::BLOCK_REDUCE_WARP_REDUCTIONS,block_dim_x=128,block_dim_y=1,block_dim_z=1,broadcast=False,dtype=float16,op=user_op:half_max]
//   [2] warp_reduce.sum.array[broadcast=False,dtype=complex64,items_per_thread=3,threads=32]
//   [3] block_scan.exclusive_sum.scalar_prefix[algorithm=cub::BLOCK_SCAN_RAKING,block_dim_x=128,block_dim_y=1,block_dim_z=1,dtype=int32,prefix_op=user_callback:int_running_total]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// User types: storage ABI only.
struct alignas(4) cuda_coop_storage_12_4
{
  unsigned char bytes[12];
};

// User functions, supplied as LTO-IR by the DSL.
extern "C" __device__ void half_max(__half* out, const __half* a0, const __half* a1);
extern "C" __device__ int int_running_total(void* state, int a0);
extern "C" __device__ void udt_combine(cuda_coop_storage_12_4* out, const cuda_coop_storage_12_4* a0, const cuda_coop_storage_12_4* a1);
extern "C" __device__ void udt_running_total(void* state, cuda_coop_storage_12_4* out, const cuda_coop_storage_12_4* a0);

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(::cuda::std::complex<float>) == 8 && alignof(::cuda::std::complex<float>) == 8, "storage ABI of complex64");
static_assert(sizeof(__half) == 2 && alignof(__half) == 2, "storage ABI of float16");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(cuda_coop_storage_12_4) == 12 && alignof(cuda_coop_storage_12_4) == 4, "storage ABI of user12a4");

namespace cuda_coop_9fa7f723268c
{
using prim_0 = cub::BlockScan<cuda_coop_storage_12_4, 128, cub::BLOCK_SCAN_RAKING, 1, 1>;
using prim_1 = cub::BlockReduce<__half, 128, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 1, 1>;
using prim_2 = cub::WarpReduce<::cuda::std::complex<float>, 32>;
using prim_3 = cub::BlockScan<int, 128, cub::BLOCK_SCAN_RAKING, 1, 1>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
  prim_3::TempStorage s3;
};
// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.
union warp_storage_32_t
{
  prim_2::TempStorage s2[1];
};
struct warp_storage_t
{
  warp_storage_32_t w32;
};
struct storage_t
{
  block_storage_t block;
  warp_storage_t warp[4];
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
struct op_0_op
{
  __device__ __forceinline__ cuda_coop_storage_12_4 operator()(const cuda_coop_storage_12_4& a0, const cuda_coop_storage_12_4& a1) const
  {
    cuda_coop_storage_12_4 r; udt_combine(&r, &a0, &a1); return r;
  }
};
struct cb_0_prefix_op
{
  void* state;
  __device__ __forceinline__ cuda_coop_storage_12_4 operator()(const cuda_coop_storage_12_4& a0)
  {
    cuda_coop_storage_12_4 r; udt_running_total(state, &r, &a0); return r;
  }
};
struct op_1_op
{
  __device__ __forceinline__ __half operator()(const __half& a0, const __half& a1) const
  {
    __half r; half_max(&r, &a0, &a1); return r;
  }
};
struct cb_3_prefix_op
{
  void* state;
  __device__ __forceinline__ int operator()(const int& a0)
  {
    return int_running_total(state, a0);
  }
};
} // namespace cuda_coop_9fa7f723268c

extern "C" __device__ void cuda_coop_9fa7f723268c_0_block_scan_exclusive_scan(cuda_coop_storage_12_4* x, cuda_coop_storage_12_4* output, void* prefix_op)
{
  using Prim = cuda_coop_9fa7f723268c::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  cuda_coop_storage_12_4 x_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    x_in[k] = x[k];
  }
  cuda_coop_9fa7f723268c::cb_0_prefix_op prefix_op_fn{prefix_op};
  Prim(cuda_coop_9fa7f723268c::storage.block.s0).ExclusiveScan(x_in, reinterpret_cast<cuda_coop_storage_12_4(&)[2]>(*output), cuda_coop_9fa7f723268c::op_0_op{}, prefix_op_fn);
}

extern "C" __device__ void cuda_coop_9fa7f723268c_1_block_reduce_reduce(const __half* x, __half* result)
{
  using Prim = cuda_coop_9fa7f723268c::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  *result = Prim(cuda_coop_9fa7f723268c::storage.block.s1).Reduce(*x, cuda_coop_9fa7f723268c::op_1_op{});
}

extern "C" __device__ void cuda_coop_9fa7f723268c_2_warp_reduce_sum(::cuda::std::complex<float>* x, ::cuda::std::complex<float>* result)
{
  using Prim = cuda_coop_9fa7f723268c::prim_2;
  const int tid = threadIdx.x;
  Prim::TempStorage& temp = cuda_coop_9fa7f723268c::storage.warp[tid / 32].w32.s2[tid % 32 / 32];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<32>(tid));
  }
  ::cuda::std::complex<float> x_in[3];
#pragma unroll
  for (int k = 0; k < 3; ++k)
  {
    x_in[k] = x[k];
  }
  *result = Prim(temp).Sum(x_in);
}

extern "C" __device__ int cuda_coop_9fa7f723268c_3_block_scan_exclusive_sum(int x, void* prefix_op)
{
  using Prim = cuda_coop_9fa7f723268c::prim_3;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  cuda_coop_9fa7f723268c::cb_3_prefix_op prefix_op_fn{prefix_op};
  int output;
  Prim(cuda_coop_9fa7f723268c::storage.block.s3).ExclusiveSum(x, output, prefix_op_fn);
  return output;
}
