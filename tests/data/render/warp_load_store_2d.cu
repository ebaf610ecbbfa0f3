static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 62eca42e13c6: block (16, 8, 1)
//   [0] warp_load.load.guarded_default[algorithm=cub::WARP_LOAD_TRANSPOSE,count_type=int64,dtype=float32,items_per_thread=4,threads=16]
//   [1] warp_store.store.guarded[algorithm=cub::WARP_STORE_TRANSPOSE,count_type=int64,dtype=float32,items_per_thread=4,threads=16]
//   [2] warp_load.load.full[algorithm=cub::WARP_LOAD_VECTORIZE,dtype=float32,items_per_thread=4,threads=32]
//   [3] warp_store.store.full[algorithm=cub::WARP_STORE_STRIPED,dtype=float32,items_per_thread=4,threads=8]

namespace cuda_coop_detail
{
// Whether a collective's TempStorage holds anything (CUB's empty storage is one byte).
template <class Prim>
inline constexpr bool uses_storage = sizeof(typename Prim::TempStorage) > 1;

// Lanes of the calling thread's logical warp (LogicalWarpThreads divides the block size).
template <int LogicalWarpThreads>
__device__ __forceinline__ unsigned logical_warp_mask(int linear_tid)
{
  if constexpr (LogicalWarpThreads == 32)
  {
    return 0xffffffffu;
  }
  else
  {
    return ((1u << LogicalWarpThreads) - 1u) << (linear_tid % 32 / LogicalWarpThreads * LogicalWarpThreads);
  }
}

// A count of any integer type, clamped to [0, Limit]: at or above the limit means "all", never truncated.
template <int Limit, class I>
__device__ __forceinline__ int clamp_count(I n)
{
  if constexpr (::cuda::std::is_signed_v<I>)
  {
    const long long v = n;
    return v <= 0 ? 0 : v >= Limit ? Limit : static_cast<int>(v);
  }
  else
  {
    const unsigned long long v = n;
    return v >= static_cast<unsigned long long>(Limit) ? Limit : static_cast<int>(v);
  }
}

// The smaller of two clamped counts (a top-k's k bounded by its partial tile's valid items).
__device__ __forceinline__ int min_count(int a, int b)
{
  return a < b ? a : b;
}

// A partial tile of a sort or rank whose CUB class sorts whole tiles (Param.pad): each key at a tile position at
// or past `valid` becomes the key that sorts after every valid one in CUB's radix order, the one whose bit-ordered
// form (cub::Traits<KeyT>::TwiddleIn) is all ones (ascending) or all zeros (descending). `rank` is the thread's
// rank among the Threads sharing the tile; tile positions are blocked (rank * N + i) or, where CUB orders ties
// warp-striped (cub::BlockRadixRankMatch), (warp, item, lane): warp * 32 * N + i * lanes + lane.
template <bool Descending, bool WarpStriped, int Threads, class KeyT, int N>
__device__ __forceinline__ void pad_keys(KeyT (&keys)[N], int rank, int valid)
{
  using Traits            = cub::Traits<KeyT>;
  using UnsignedBits      = typename Traits::UnsignedBits;
  const UnsignedBits bits = Traits::TwiddleOut(Descending ? UnsignedBits(0) : UnsignedBits(-1));
  const KeyT pad          = reinterpret_cast<const KeyT&>(bits);
  const int warp          = rank / 32;
  const int lanes         = Threads - warp * 32 < 32 ? Threads - warp * 32 : 32;
  const int first         = WarpStriped ? warp * 32 * N + rank % 32 : rank * N;
  const int stride        = WarpStriped ? lanes : 1;
#pragma unroll
  for (int i = 0; i < N; ++i)
  {
    if (first + i * stride >= valid)
    {
      keys[i] = pad;
    }
  }
}

// NumPy's maximum and minimum ("max"/"min", np.maximum/np.minimum, builtin max/min): a NaN operand gives
// NaN. libcu++'s cuda::maximum/minimum are fmax/fmin there (np.fmax/np.fmin): a NaN operand is dropped.
template <bool Max>
struct numpy_extremum
{
  template <class T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const
  {
    if constexpr (::cuda::is_floating_point_v<T>)
    {
      if (::cuda::std::isnan(a))
      {
        return a;
      }
      if (::cuda::std::isnan(b))
      {
        return b;
      }
    }
    if constexpr (Max)
    {
      return ::cuda::maximum<T>{}(a, b);
    }
    else
    {
      return ::cuda::minimum<T>{}(a, b);
    }
  }
};
using maximum = numpy_extremum<true>;
using minimum = numpy_extremum<false>;

// The identity of +, | and ^: T value-initialised (a function: `signed char{}` is not C++, `zero<signed char>()` is).
template <class T>
__device__ __forceinline__ T zero()
{
  return T{};
}

// The identities of maximum and minimum: the result of reducing no item (-inf and +inf where T has them).
template <class T>
__device__ __forceinline__ T lowest_value()
{
  using limits = ::cuda::std::numeric_limits<T>;
  if constexpr (limits::has_infinity)
  {
    return -limits::infinity();
  }
  else
  {
    return limits::lowest();
  }
}
template <class T>
__device__ __forceinline__ T highest_value()
{
  using limits = ::cuda::std::numeric_limits<T>;
  if constexpr (limits::has_infinity)
  {
    return limits::infinity();
  }
  else
  {
    return limits::max();
  }
}
} // namespace cuda_coop_detail

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
