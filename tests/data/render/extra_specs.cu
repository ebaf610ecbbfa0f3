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

// cuda-coop provider 79e5aae032a5: block (128, 1, 1)
//   [0] extra_radix_sort.sort.keys_bits[block_dim_x=128,block_dim_y=1,block_dim_z=1,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,key_dtype=uint32,memoize_outer_scan=True,radix_bits=4,smem_config=cudaSharedMemBankSizeFourByte,value_dtype=none]
//   [1] extra_radix_sort.sort_descending.pairs[block_dim_x=128,block_dim_y=1,block_dim_z=1,inner_scan_algorithm=cub::BLOCK_SCAN_RAKING,items_per_thread=4,key_dtype=float32,memoize_outer_scan=False,radix_bits=4,smem_config=cudaSharedMemBankSizeFourByte,value_dtype=int32]
//   [2] block_run_length_decode.run_length_decode.lengths[block_dim_x=128,block_dim_y=1,block_dim_z=1,decoded_items_per_thread=4,dtype=int16,offset_dtype=uint32,runs_per_thread=2]
//   [3] block_discontinuity.flag_heads.predecessor[block_dim_x=128,block_dim_y=1,block_dim_z=1,dtype=int32,flag_dtype=bool,flag_op=NOT_EQUAL_TO,items_per_thread=4]
//   [4] block_discontinuity.flag_heads.tile[block_dim_x=128,block_dim_y=1,block_dim_z=1,dtype=float32,flag_dtype=int32,flag_op=user_op:close_enough,items_per_thread=4]
//   [5] block_histogram.init_histogram.default[algorithm=cub::BLOCK_HISTO_SORT,bins=256,block_dim_x=128,block_dim_y=1,block_dim_z=1,counter_dtype=uint32,dtype=uint8,items_per_thread=4]
//   [6] block_histogram.histogram.default[algorithm=cub::BLOCK_HISTO_ATOMIC,bins=256,block_dim_x=128,block_dim_y=1,block_dim_z=1,counter_dtype=uint32,dtype=uint8,items_per_thread=4]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// User functions, supplied as LTO-IR by the DSL.
extern "C" __device__ bool close_enough(float a0, float a1);

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(bool) == 1 && alignof(bool) == 1, "storage ABI of bool");
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(short) == 2 && alignof(short) == 2, "storage ABI of int16");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(cub::NullType) == 1 && alignof(cub::NullType) == 1, "storage ABI of none");
static_assert(sizeof(unsigned int) == 4 && alignof(unsigned int) == 4, "storage ABI of uint32");
static_assert(sizeof(unsigned char) == 1 && alignof(unsigned char) == 1, "storage ABI of uint8");

namespace cuda_coop_79e5aae032a5
{
using prim_0 = cub::BlockRadixSort<unsigned int, 128, 4, cub::NullType, 4, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, 1, 1>;
using prim_1 = cub::BlockRadixSort<float, 128, 4, int, 4, false, cub::BLOCK_SCAN_RAKING, cudaSharedMemBankSizeFourByte, 1, 1>;
using prim_2 = cub::BlockRunLengthDecode<short, 128, 2, 4, unsigned int, 1, 1>;
using prim_3 = cub::BlockDiscontinuity<int, 128, 1, 1>;
using prim_4 = cub::BlockDiscontinuity<float, 128, 1, 1>;
using prim_5 = cub::BlockHistogram<unsigned char, 128, 4, 256, cub::BLOCK_HISTO_SORT, 1, 1>;
using prim_6 = cub::BlockHistogram<unsigned char, 128, 4, 256, cub::BLOCK_HISTO_ATOMIC, 1, 1>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
  prim_2::TempStorage s2;
  prim_3::TempStorage s3;
  prim_4::TempStorage s4;
  prim_5::TempStorage s5;
  prim_6::TempStorage s6;
};
struct storage_t
{
  block_storage_t block;
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
struct op_4_flag_op
{
  __device__ __forceinline__ bool operator()(const float& a0, const float& a1) const
  {
    return close_enough(a0, a1);
  }
};
} // namespace cuda_coop_79e5aae032a5

extern "C" __device__ void cuda_coop_79e5aae032a5_0_extra_radix_sort_sort(unsigned int* keys, int begin_bit, int end_bit)
{
  using Prim = cuda_coop_79e5aae032a5::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_79e5aae032a5::storage.block.s0).Sort(reinterpret_cast<unsigned int(&)[4]>(*keys), begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_79e5aae032a5_1_extra_radix_sort_sort_descending(float* keys, int* values)
{
  using Prim = cuda_coop_79e5aae032a5::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_79e5aae032a5::storage.block.s1).SortDescending(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<int(&)[4]>(*values));
}

extern "C" __device__ void cuda_coop_79e5aae032a5_2_block_run_length_decode_run_length_decode(short* run_values, unsigned int* run_lengths, unsigned int* total_decoded_size, short* decoded_items, unsigned int from_decoded_offset)
{
  using Prim = cuda_coop_79e5aae032a5::prim_2;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  short run_values_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    run_values_in[k] = run_values[k];
  }
  unsigned int run_lengths_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    run_lengths_in[k] = run_lengths[k];
  }
  Prim(cuda_coop_79e5aae032a5::storage.block.s2, run_values_in, run_lengths_in, *total_decoded_size).RunLengthDecode(reinterpret_cast<short(&)[4]>(*decoded_items), from_decoded_offset);
}

extern "C" __device__ void cuda_coop_79e5aae032a5_3_block_discontinuity_flag_heads(bool* head_flags, int* input, int tile_predecessor_item)
{
  using Prim = cuda_coop_79e5aae032a5::prim_3;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  int input_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    input_in[k] = input[k];
  }
  Prim(cuda_coop_79e5aae032a5::storage.block.s3).FlagHeads(reinterpret_cast<bool(&)[4]>(*head_flags), input_in, ::cuda::std::not_equal_to<>{}, tile_predecessor_item);
}

extern "C" __device__ void cuda_coop_79e5aae032a5_4_block_discontinuity_flag_heads(int* head_flags, float* input)
{
  using Prim = cuda_coop_79e5aae032a5::prim_4;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  float input_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    input_in[k] = input[k];
  }
  Prim(cuda_coop_79e5aae032a5::storage.block.s4).FlagHeads(reinterpret_cast<int(&)[4]>(*head_flags), input_in, cuda_coop_79e5aae032a5::op_4_flag_op{});
}

extern "C" __device__ void cuda_coop_79e5aae032a5_5_block_histogram_init_histogram(unsigned int* histogram)
{
  using Prim = cuda_coop_79e5aae032a5::prim_5;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_79e5aae032a5::storage.block.s5).InitHistogram(histogram);
}

extern "C" __device__ void cuda_coop_79e5aae032a5_6_block_histogram_histogram(unsigned char* items, unsigned int* histogram)
{
  using Prim = cuda_coop_79e5aae032a5::prim_6;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  unsigned char items_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    items_in[k] = items[k];
  }
  Prim(cuda_coop_79e5aae032a5::storage.block.s6).Histogram(items_in, histogram);
}
