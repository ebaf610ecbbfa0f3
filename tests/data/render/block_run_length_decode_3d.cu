static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 9f6660d9e128: block (4, 4, 4)
//   [0] block_run_length_decode.run_length_decode.lengths_relative_window[block_dim_x=4,block_dim_y=4,block_dim_z=4,decoded_items_per_thread=4,decoded_offset_type=int64,dtype=float64,relative_offset_type=uint16,run_length_type=int32,runs_per_thread=2]
//   [1] block_run_length_decode.run_length_decode.offsets_window[block_dim_x=4,block_dim_y=4,block_dim_z=4,decoded_items_per_thread=1,decoded_offset_type=uint32,dtype=uint8,run_offset_type=uint32,runs_per_thread=3]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");
static_assert(sizeof(unsigned short) == 2 && alignof(unsigned short) == 2, "storage ABI of uint16");
static_assert(sizeof(unsigned int) == 4 && alignof(unsigned int) == 4, "storage ABI of uint32");
static_assert(sizeof(unsigned char) == 1 && alignof(unsigned char) == 1, "storage ABI of uint8");

namespace cuda_coop_9f6660d9e128
{
using prim_0 = cub::BlockRunLengthDecode<double, 4, 2, 4, long long, 4, 4>;
using prim_1 = cub::BlockRunLengthDecode<unsigned char, 4, 3, 1, unsigned int, 4, 4>;
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
} // namespace cuda_coop_9f6660d9e128

extern "C" __device__ void cuda_coop_9f6660d9e128_0_block_run_length_decode_run_length_decode(double* run_values, int* run_lengths, long long* total_decoded_size, double* decoded_items, unsigned short* relative_offsets, long long window_offset)
{
  using Prim = cuda_coop_9f6660d9e128::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  double run_values_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    run_values_in[k] = run_values[k];
  }
  int run_lengths_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    run_lengths_in[k] = run_lengths[k];
  }
  Prim(cuda_coop_9f6660d9e128::storage.block.s0, run_values_in, run_lengths_in, *total_decoded_size).RunLengthDecode(reinterpret_cast<double(&)[4]>(*decoded_items), reinterpret_cast<unsigned short(&)[4]>(*relative_offsets), window_offset);
}

extern "C" __device__ void cuda_coop_9f6660d9e128_1_block_run_length_decode_run_length_decode(unsigned char* run_values, unsigned int* run_offsets, unsigned char* decoded_items, unsigned int window_offset)
{
  using Prim = cuda_coop_9f6660d9e128::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  unsigned char run_values_in[3];
#pragma unroll
  for (int k = 0; k < 3; ++k)
  {
    run_values_in[k] = run_values[k];
  }
  unsigned int run_offsets_in[3];
#pragma unroll
  for (int k = 0; k < 3; ++k)
  {
    run_offsets_in[k] = run_offsets[k];
  }
  Prim(cuda_coop_9f6660d9e128::storage.block.s1, run_values_in, run_offsets_in).RunLengthDecode(reinterpret_cast<unsigned char(&)[1]>(*decoded_items), window_offset);
}
