static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider d9104290b7e8: block (16, 8, 1)
//   [0] block_radix_sort.radix_sort.pairs[bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,descending=True,dtype=float32,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_STRIPED,radix_bits=4,smem_config=cudaSharedMemBankSizeFourByte,value_type=float64]
//   [1] block_radix_sort.radix_sort.keys[begin_bit=DEFAULT,bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,descending=False,dtype=int8,end_bit=DEFAULT,inner_scan_algorithm=cub::BLOCK_SCAN_RAKING,items_per_thread=16,memoize_outer_scan=False,output=cuda_coop::SORT_OUTPUT_BLOCKED,radix_bits=6,smem_config=cudaSharedMemBankSizeFourByte,value_type=none]
//   [2] block_argsort.argsort.pairs[base=DEFAULT,begin_bit=DEFAULT,bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,descending=False,dtype=float32,index_type=int64,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_STRIPED,radix_bits=4]
//   [3] block_top_k.top_k.pairs[algorithm=cuda_coop::BLOCK_TOP_K_RADIX_SORT,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,dtype=float64,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,largest=False,memoize_outer_scan=True,radix_bits=4,value_type=int32]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");
static_assert(sizeof(signed char) == 1 && alignof(signed char) == 1, "storage ABI of int8");
static_assert(sizeof(cub::NullType) == 1 && alignof(cub::NullType) == 1, "storage ABI of none");

namespace cuda_coop_d9104290b7e8
{
using prim_0 = cub::BlockRadixSort<float, 16, 4, double, 4, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, 8, 1>;
using prim_1 = cub::BlockRadixSort<signed char, 16, 16, cub::NullType, 6, false, cub::BLOCK_SCAN_RAKING, cudaSharedMemBankSizeFourByte, 8, 1>;
using prim_2 = cuda_coop::BlockArgsort<float, 16, 4, long long, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_3 = cuda_coop::BlockTopK<double, 16, 4, int, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1, cuda_coop::BLOCK_TOP_K_RADIX_SORT>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
  prim_2::TempStorage s2;
  prim_3::TempStorage s3;
};
struct storage_t
{
  block_storage_t block;
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_d9104290b7e8

extern "C" __device__ void cuda_coop_d9104290b7e8_0_block_radix_sort_radix_sort(float* keys, double* values, int begin_bit, int end_bit)
{
  using Prim = cuda_coop_d9104290b7e8::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_d9104290b7e8::storage.block.s0).SortDescendingBlockedToStriped(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<double(&)[4]>(*values), begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_d9104290b7e8_1_block_radix_sort_radix_sort(signed char* keys)
{
  using Prim = cuda_coop_d9104290b7e8::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_d9104290b7e8::storage.block.s1).Sort(reinterpret_cast<signed char(&)[16]>(*keys), 0, 8);
}

extern "C" __device__ void cuda_coop_d9104290b7e8_2_block_argsort_argsort(float* keys, long long* indices, int end_bit)
{
  using Prim = cuda_coop_d9104290b7e8::prim_2;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_d9104290b7e8::storage.block.s2).ArgsortBlockedToStriped(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<long long(&)[4]>(*indices), 0, 0, end_bit);
}

extern "C" __device__ void cuda_coop_d9104290b7e8_3_block_top_k_top_k(double* keys, int k, double* out_keys, int* values, int* out_values, long long offset)
{
  using Prim = cuda_coop_d9104290b7e8::prim_3;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  double keys_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    keys_in[k] = keys[k];
  }
  int values_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    values_in[k] = values[k];
  }
  Prim(cuda_coop_d9104290b7e8::storage.block.s3).TopKSmallest(keys_in, cuda_coop_detail::clamp_count<512>(k), out_keys, values_in, out_values, offset);
}
