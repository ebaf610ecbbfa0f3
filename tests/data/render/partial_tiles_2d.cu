static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// Headers newer than some CCCLs: after the version check (PrimitiveSpec.preamble=False).
#include <cuda_coop/block_top_k.cuh>
#include <cuda_coop/warp_top_k.cuh>

// cuda-coop provider 341f940543e1: block (16, 8, 1)
//   [0] block_radix_sort.radix_sort.pairs_valid[bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=uint64,descending=True,dtype=float32,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_BLOCKED,radix_bits=4,smem_config=cudaSharedMemBankSizeFourByte,value_type=int64]
//   [1] block_argsort.argsort.pairs_valid[bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int8,descending=False,dtype=bfloat16,index_type=int32,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=2,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_STRIPED,radix_bits=4]
//   [2] block_top_k.top_k.keys_valid[algorithm=cuda_coop::BLOCK_TOP_K_RADIX_SORT,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,dtype=uint8,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=2,largest=False,memoize_outer_scan=True,radix_bits=4,valid_type=int16,value_type=none]
//   [3] block_radix_rank.radix_rank.ranks_prefix_valid[algorithm=cub::RADIX_RANK_BASIC,bins_per_thread=1,bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,descending=False,dtype=int64,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=2,radix_bits=4]
//   [4] warp_top_k.top_k.pairs_valid[algorithm=cuda_coop::WARP_SORT_MERGE_SORT,count_type=int64,dtype=float16,items_per_thread=3,largest=True,threads=16,valid_type=uint32,value_type=float64]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(__nv_bfloat16) == 2 && alignof(__nv_bfloat16) == 2, "storage ABI of bfloat16");
static_assert(sizeof(__half) == 2 && alignof(__half) == 2, "storage ABI of float16");
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(short) == 2 && alignof(short) == 2, "storage ABI of int16");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");
static_assert(sizeof(signed char) == 1 && alignof(signed char) == 1, "storage ABI of int8");
static_assert(sizeof(cub::NullType) == 1 && alignof(cub::NullType) == 1, "storage ABI of none");
static_assert(sizeof(unsigned int) == 4 && alignof(unsigned int) == 4, "storage ABI of uint32");
static_assert(sizeof(unsigned long long) == 8 && alignof(unsigned long long) == 8, "storage ABI of uint64");
static_assert(sizeof(unsigned char) == 1 && alignof(unsigned char) == 1, "storage ABI of uint8");

namespace cuda_coop_341f940543e1
{
using prim_0 = cub::BlockRadixSort<float, 16, 4, long long, 4, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, 8, 1>;
using prim_1 = cuda_coop::BlockArgsort<__nv_bfloat16, 16, 2, int, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_2 = cuda_coop::BlockTopK<unsigned char, 16, 2, cub::NullType, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1, cuda_coop::BLOCK_TOP_K_RADIX_SORT>;
using prim_3 = cuda_coop::BlockRadixRankBits<long long, 16, 2, 4, false, cub::RADIX_RANK_BASIC, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_4 = cuda_coop::WarpTopK<__half, 3, 16, double, cuda_coop::WARP_SORT_MERGE_SORT>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
  prim_2::TempStorage s2;
  prim_3::TempStorage s3;
};
// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.
union warp_storage_16_t
{
  prim_4::TempStorage s4[2];
};
struct warp_storage_t
{
  warp_storage_16_t w16;
};
struct storage_t
{
  block_storage_t block;
  warp_storage_t warp[4];
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_341f940543e1

extern "C" __device__ void cuda_coop_341f940543e1_0_block_radix_sort_radix_sort(float* keys, long long* values, int begin_bit, int end_bit, unsigned long long valid_items)
{
  using Prim = cuda_coop_341f940543e1::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  // valid_items: a partial tile; the keys past it sort after every valid one (Param.pad).
  cuda_coop_detail::pad_keys<true, false, 128>(reinterpret_cast<float(&)[4]>(*keys), cub::RowMajorTid(16, 8, 1), cuda_coop_detail::clamp_count<512>(valid_items));
  Prim(cuda_coop_341f940543e1::storage.block.s0).SortDescending(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<long long(&)[4]>(*values), begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_341f940543e1_1_block_argsort_argsort(__nv_bfloat16* keys, int* indices, long long base, int begin_bit, int end_bit, signed char valid_items)
{
  using Prim = cuda_coop_341f940543e1::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  // valid_items: a partial tile; the keys past it sort after every valid one (Param.pad).
  cuda_coop_detail::pad_keys<false, false, 128>(reinterpret_cast<__nv_bfloat16(&)[2]>(*keys), cub::RowMajorTid(16, 8, 1), cuda_coop_detail::clamp_count<256>(valid_items));
  Prim(cuda_coop_341f940543e1::storage.block.s1).ArgsortBlockedToStriped(reinterpret_cast<__nv_bfloat16(&)[2]>(*keys), reinterpret_cast<int(&)[2]>(*indices), base, begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_341f940543e1_2_block_top_k_top_k(unsigned char* keys, int k, unsigned char* out_keys, long long offset, short valid_items)
{
  using Prim = cuda_coop_341f940543e1::prim_2;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  unsigned char keys_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    keys_in[k] = keys[k];
  }
  // valid_items: a partial tile; the keys past it sort after every valid one (Param.pad).
  cuda_coop_detail::pad_keys<false, false, 128>(keys_in, cub::RowMajorTid(16, 8, 1), cuda_coop_detail::clamp_count<256>(valid_items));
  Prim(cuda_coop_341f940543e1::storage.block.s2).TopKSmallest(keys_in, cuda_coop_detail::min_count(cuda_coop_detail::clamp_count<256>(k), cuda_coop_detail::clamp_count<256>(valid_items)), out_keys, offset);
}

extern "C" __device__ void cuda_coop_341f940543e1_3_block_radix_rank_radix_rank(long long* keys, int* ranks, int* digit_prefix, int begin_bit, int end_bit, int valid_items)
{
  using Prim = cuda_coop_341f940543e1::prim_3;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  long long keys_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    keys_in[k] = keys[k];
  }
  // valid_items: a partial tile; the keys past it sort after every valid one (Param.pad).
  cuda_coop_detail::pad_keys<false, false, 128>(keys_in, cub::RowMajorTid(16, 8, 1), cuda_coop_detail::clamp_count<256>(valid_items));
  Prim(cuda_coop_341f940543e1::storage.block.s3).RankKeys(keys_in, reinterpret_cast<int(&)[2]>(*ranks), reinterpret_cast<int(&)[1]>(*digit_prefix), begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_341f940543e1_4_warp_top_k_top_k(__half* keys, long long k, __half* out_keys, double* values, double* out_values, long long offset, unsigned int valid_items)
{
  using Prim = cuda_coop_341f940543e1::prim_4;
  const int tid = static_cast<int>(threadIdx.x + 16 * (threadIdx.y + 8 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_341f940543e1::storage.warp[tid / 32].w16.s4[tid % 32 / 16];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid));
  }
  __half keys_in[3];
#pragma unroll
  for (int k = 0; k < 3; ++k)
  {
    keys_in[k] = keys[k];
  }
  double values_in[3];
#pragma unroll
  for (int k = 0; k < 3; ++k)
  {
    values_in[k] = values[k];
  }
  // valid_items: a partial tile; the keys past it sort after every valid one (Param.pad).
  cuda_coop_detail::pad_keys<true, false, 16>(keys_in, tid % 16, cuda_coop_detail::clamp_count<48>(valid_items));
  Prim(temp).TopKLargest(keys_in, cuda_coop_detail::min_count(cuda_coop_detail::clamp_count<48>(k), cuda_coop_detail::clamp_count<48>(valid_items)), out_keys, values_in, out_values, offset);
}
