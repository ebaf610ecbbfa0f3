#define _CCCL_META_UNROLL_LIMIT 10
#include <cub/block/block_exchange.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/functional>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 01c14ae76642: block (32, 4, 1)
//   [0] block_exchange.blocked_to_warp_striped.array[block_dim_x=32,block_dim_y=4,block_dim_z=1,dtype=int64,items_per_thread=4,warp_time_slicing=True]
//   [1] block_exchange.scatter_to_blocked.array[block_dim_x=32,block_dim_y=4,block_dim_z=1,dtype=float32,items_per_thread=4,rank_type=uint16,warp_time_slicing=False]
//   [2] block_exchange.scatter_to_striped_flagged.array[block_dim_x=32,block_dim_y=4,block_dim_z=1,dtype=float64,flag_type=bool,items_per_thread=2,rank_type=int64,warp_time_slicing=False]
//   [3] warp_exchange.striped_to_blocked.array[algorithm=cub::WARP_EXCHANGE_SHUFFLE,dtype=int32,items_per_thread=8,threads=8]
//   [4] warp_exchange.scatter_to_striped.array[algorithm=cub::WARP_EXCHANGE_SMEM,dtype=int32,items_per_thread=4,rank_type=int8,threads=16]

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
static_assert(sizeof(bool) == 1 && alignof(bool) == 1, "storage ABI of bool");
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");
static_assert(sizeof(signed char) == 1 && alignof(signed char) == 1, "storage ABI of int8");
static_assert(sizeof(unsigned short) == 2 && alignof(unsigned short) == 2, "storage ABI of uint16");

namespace cuda_coop_01c14ae76642
{
using prim_0 = cub::BlockExchange<long long, 32, 4, true, 4, 1>;
using prim_1 = cub::BlockExchange<float, 32, 4, false, 4, 1>;
using prim_2 = cub::BlockExchange<double, 32, 2, false, 4, 1>;
using prim_3 = cub::WarpExchange<int, 8, 8, cub::WARP_EXCHANGE_SHUFFLE>;
using prim_4 = cub::WarpExchange<int, 4, 16, cub::WARP_EXCHANGE_SMEM>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_0::TempStorage s0;
  prim_1::TempStorage s1;
  prim_2::TempStorage s2;
};
// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.
union warp_storage_16_t
{
  prim_4::TempStorage s4[2];
};
union warp_storage_8_t
{
  prim_3::TempStorage s3[4];
};
struct warp_storage_t
{
  warp_storage_16_t w16;
  warp_storage_8_t w8;
};
struct storage_t
{
  block_storage_t block;
  warp_storage_t warp[4];
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_01c14ae76642

extern "C" __device__ void cuda_coop_01c14ae76642_0_block_exchange_blocked_to_warp_striped(long long* x, long long* output)
{
  using Prim = cuda_coop_01c14ae76642::prim_0;
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
  Prim(cuda_coop_01c14ae76642::storage.block.s0).BlockedToWarpStriped(x_in, reinterpret_cast<long long(&)[4]>(*output));
}

extern "C" __device__ void cuda_coop_01c14ae76642_1_block_exchange_scatter_to_blocked(float* x, float* output, unsigned short* ranks)
{
  using Prim = cuda_coop_01c14ae76642::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  float x_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    x_in[k] = x[k];
  }
  unsigned short ranks_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    ranks_in[k] = ranks[k];
  }
  Prim(cuda_coop_01c14ae76642::storage.block.s1).ScatterToBlocked(x_in, reinterpret_cast<float(&)[4]>(*output), ranks_in);
}

extern "C" __device__ void cuda_coop_01c14ae76642_2_block_exchange_scatter_to_striped_flagged(double* x, double* output, long long* ranks, bool* valid_flags)
{
  using Prim = cuda_coop_01c14ae76642::prim_2;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  double x_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    x_in[k] = x[k];
  }
  long long ranks_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    ranks_in[k] = ranks[k];
  }
  bool valid_flags_in[2];
#pragma unroll
  for (int k = 0; k < 2; ++k)
  {
    valid_flags_in[k] = valid_flags[k];
  }
  Prim(cuda_coop_01c14ae76642::storage.block.s2).ScatterToStripedFlagged(x_in, reinterpret_cast<double(&)[2]>(*output), ranks_in, valid_flags_in);
}

extern "C" __device__ void cuda_coop_01c14ae76642_3_warp_exchange_striped_to_blocked(int* x, int* output)
{
  using Prim = cuda_coop_01c14ae76642::prim_3;
  const int tid = static_cast<int>(threadIdx.x + 32 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_01c14ae76642::storage.warp[tid / 32].w8.s3[tid % 32 / 8];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<8>(tid));
  }
  int x_in[8];
#pragma unroll
  for (int k = 0; k < 8; ++k)
  {
    x_in[k] = x[k];
  }
  Prim(temp).StripedToBlocked(x_in, reinterpret_cast<int(&)[8]>(*output));
}

extern "C" __device__ void cuda_coop_01c14ae76642_4_warp_exchange_scatter_to_striped(int* x, int* output, signed char* ranks)
{
  using Prim = cuda_coop_01c14ae76642::prim_4;
  const int tid = static_cast<int>(threadIdx.x + 32 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_01c14ae76642::storage.warp[tid / 32].w16.s4[tid % 32 / 16];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid));
  }
  int x_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    x_in[k] = x[k];
  }
  signed char ranks_in[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
  {
    ranks_in[k] = ranks[k];
  }
  Prim(temp).ScatterToStriped(x_in, reinterpret_cast<int(&)[4]>(*output), ranks_in);
}
