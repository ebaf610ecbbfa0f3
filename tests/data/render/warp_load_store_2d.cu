static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 62eca42e13c6: block (16, 8, 1)
//   [0] warp_load.load.guarded_default[algorithm=cub::WARP_LOAD_TRANSPOSE,count_type=int64,dtype=float32,items_per_thread=4,threads=16]
//   [1] warp_store.store.guarded[algorithm=cub::WARP_STORE_TRANSPOSE,count_type=int64,dtype=float32,items_per_thread=4,threads=16]
//   [2] warp_load.load.full[algorithm=cub::WARP_LOAD_VECTORIZE,dtype=float32,items_per_thread=4,threads=32]
//   [3] warp_store.store.full[algorithm=cub::WARP_STORE_STRIPED,dtype=float32,items_per_thread=4,threads=8]

// (verbatim: cuda_coop/_provider/_render.py _DETAIL)

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");

namespace cuda_coop_62eca42e13c6
{
using prim_0 = cub::WarpLoad<float, 4, cub::WARP_LOAD_TRANSPOSE, 16>;
using prim_1 = cub::WarpStore<float, 4, cub::WARP_STORE_TRANSPOSE, 16>;
using prim_2 = cub::WarpLoad<float, 4, cub::WARP_LOAD_VECTORIZE, 32>;
using prim_3 = cub::WarpStore<float, 4, cub::WARP_STORE_STRIPED, 8>;
// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.
union warp_storage_32_t
{
  prim_2::TempStorage s2[1];
};
union warp_storage_16_t
{
  prim_0::TempStorage s0[2];
  prim_1::TempStorage s1[2];
};
union warp_storage_8_t
{
  prim_3::TempStorage s3[4];
};
struct warp_storage_t
{
  warp_storage_32_t w32;
  warp_storage_16_t w16;
  warp_storage_8_t w8;
};
struct storage_t
{
  warp_storage_t warp[4];
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_62eca42e13c6

extern "C" __device__ void cuda_coop_62eca42e13c6_0_warp_load_load(const float* src, float* items, long long valid_items, float oob_default)
{
  using Prim = cuda_coop_62eca42e13c6::prim_0;
  const int tid = static_cast<int>(threadIdx.x + 16 * (threadIdx.y + 8 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_62eca42e13c6::storage.warp[tid / 32].w16.s0[tid % 32 / 16];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid));
  }
  Prim(temp).Load(src, reinterpret_cast<float(&)[4]>(*items), cuda_coop_detail::clamp_count<512>(valid_items), oob_default);
}

extern "C" __device__ void cuda_coop_62eca42e13c6_1_warp_store_store(float* dst, float* items, long long valid_items)
{
  using Prim = cuda_coop_62eca42e13c6::prim_1;
  const int tid = static_cast<int>(threadIdx.x + 16 * (threadIdx.y + 8 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_62eca42e13c6::storage.warp[tid / 32].w16.s1[tid % 32 / 16];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid));
  }
  float items_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    items_in[k] = items[k];
  }
  Prim(temp).Store(dst, items_in, cuda_coop_detail::clamp_count<512>(valid_items));
}

extern "C" __device__ void cuda_coop_62eca42e13c6_2_warp_load_load(const float* src, float* items)
{
  using Prim = cuda_coop_62eca42e13c6::prim_2;
  const int tid = static_cast<int>(threadIdx.x + 16 * (threadIdx.y + 8 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_62eca42e13c6::storage.warp[tid / 32].w32.s2[tid % 32 / 32];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<32>(tid));
  }
  Prim(temp).Load(src, reinterpret_cast<float(&)[4]>(*items));
}

extern "C" __device__ void cuda_coop_62eca42e13c6_3_warp_store_store(float* dst, float* items)
{
  using Prim = cuda_coop_62eca42e13c6::prim_3;
  const int tid = static_cast<int>(threadIdx.x + 16 * (threadIdx.y + 8 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_62eca42e13c6::storage.warp[tid / 32].w8.s3[tid % 32 / 8];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<8>(tid));
  }
  float items_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    items_in[k] = items[k];
  }
  Prim(temp).Store(dst, items_in);
}
