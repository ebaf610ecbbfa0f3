static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider ebfa299122cc: block (16, 8, 1)
//   [0] block_histogram.histogram.array[algorithm=cub::BLOCK_HISTO_SORT,bins=256,block_dim_x=16,block_dim_y=8,block_dim_z=1,counter_type=uint32,dtype=uint8,items_per_thread=4]
//   [1] block_histogram.histogram_composite.array[algorithm=cub::BLOCK_HISTO_ATOMIC,bins=100,block_dim_x=16,block_dim_y=8,block_dim_z=1,counter_type=uint64,dtype=int16,items_per_thread=4]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(short) == 2 && alignof(short) == 2, "storage ABI of int16");
static_assert(sizeof(unsigned int) == 4 && alignof(unsigned int) == 4, "storage ABI of uint32");
static_assert(sizeof(unsigned long long) == 8 && alignof(unsigned long long) == 8, "storage ABI of uint64");
static_assert(sizeof(unsigned char) == 1 && alignof(unsigned char) == 1, "storage ABI of uint8");

namespace cuda_coop_ebfa299122cc
{
using prim_0 = cub::BlockHistogram<unsigned char, 16, 4, 256, cub::BLOCK_HISTO_SORT, 8, 1>;
using prim_1 = cub::BlockHistogram<short, 16, 4, 100, cub::BLOCK_HISTO_ATOMIC, 8, 1>;
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
} // namespace cuda_coop_ebfa299122cc

extern "C" __device__ void cuda_coop_ebfa299122cc_0_block_histogram_histogram(unsigned char* samples, unsigned int* counters)
{
  using Prim = cuda_coop_ebfa299122cc::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  unsigned char samples_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    samples_in[k] = samples[k];
  }
  Prim(cuda_coop_ebfa299122cc::storage.block.s0).Histogram(samples_in, counters);
}

extern "C" __device__ void cuda_coop_ebfa299122cc_1_block_histogram_histogram_composite(short* samples, unsigned long long* counters)
{
  using Prim = cuda_coop_ebfa299122cc::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  short samples_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    samples_in[k] = samples[k];
  }
  Prim(cuda_coop_ebfa299122cc::storage.block.s1).Composite(samples_in, counters);
}
