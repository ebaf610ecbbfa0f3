#define _CCCL_META_UNROLL_LIMIT 10
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_run_length_decode.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_shuffle.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/functional>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 04d148d34184: block (4, 4, 4)
//   [0] warp_reduce.sum.scalar[broadcast=False,dtype=float64,threads=32]
//   [1] warp_scan.scan.scalar_init[dtype=int32,op=PLUS,threads=16]
//   [2] warp_reduce.reduce.scalar_valid[broadcast=False,count_type=int32,dtype=uint8,op=MINIMUM,threads=8]
//   [3] block_reduce.sum.scalar[algorithm=cub::BLOCK_REDUCE_RAKING,block_dim_x=4,block_dim_y=4,block_dim_z=4,broadcast=False,dtype=float64]

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
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(unsigned char) == 1 && alignof(unsigned char) == 1, "storage ABI of uint8");

namespace cuda_coop_04d148d34184
{
using prim_0 = cub::WarpReduce<double, 32>;
using prim_1 = cub::WarpScan<int, 16>;
using prim_2 = cub::WarpReduce<unsigned char, 8>;
using prim_3 = cub::BlockReduce<double, 4, cub::BLOCK_REDUCE_RAKING, 4, 4>;
// Block-scope call sites share one region: the max of their TempStorage, not the sum.
union block_storage_t
{
  prim_3::TempStorage s3;
};
// Warp-scope call sites: one slot per hardware warp; one union per logical-warp width.
union warp_storage_32_t
{
  prim_0::TempStorage s0[1];
};
union warp_storage_16_t
{
  prim_1::TempStorage s1[2];
};
union warp_storage_8_t
{
  prim_2::TempStorage s2[4];
};
struct warp_storage_t
{
  warp_storage_32_t w32;
  warp_storage_16_t w16;
  warp_storage_8_t w8;
};
struct storage_t
{
  block_storage_t block;
  warp_storage_t warp[2];
};
static __shared__ storage_t storage;
static_assert(sizeof(storage_t) <= 48 * 1024, "cuda-coop: this kernel's CUB temporary storage exceeds the 48 KiB of static shared memory a block may have; use fewer items per thread, a smaller block, or algorithms that need less shared memory (direct, striped, vectorize)");
} // namespace cuda_coop_04d148d34184

extern "C" __device__ double cuda_coop_04d148d34184_0_warp_reduce_sum(double x)
{
  using Prim = cuda_coop_04d148d34184::prim_0;
  const int tid = static_cast<int>(threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_04d148d34184::storage.warp[tid / 32].w32.s0[tid % 32 / 32];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<32>(tid));
  }
  return Prim(temp).Sum(x);
}

extern "C" __device__ void cuda_coop_04d148d34184_1_warp_scan_scan(int x, int* inclusive_output, int* exclusive_output, int initial_value)
{
  using Prim = cuda_coop_04d148d34184::prim_1;
  const int tid = static_cast<int>(threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_04d148d34184::storage.warp[tid / 32].w16.s1[tid % 32 / 16];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid));
  }
  Prim(temp).Scan(x, *inclusive_output, *exclusive_output, initial_value, ::cuda::std::plus<>{});
}

extern "C" __device__ unsigned char cuda_coop_04d148d34184_2_warp_reduce_reduce(unsigned char x, int valid_items)
{
  using Prim = cuda_coop_04d148d34184::prim_2;
  const int tid = static_cast<int>(threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_04d148d34184::storage.warp[tid / 32].w8.s2[tid % 32 / 8];
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncwarp(cuda_coop_detail::logical_warp_mask<8>(tid));
  }
  if (cuda_coop_detail::clamp_count<8>(valid_items) == 0)
  {
    return cuda_coop_detail::highest_value<unsigned char>();
  }
  return Prim(temp).Reduce(x, ::cuda_coop_detail::minimum{}, cuda_coop_detail::clamp_count<8>(valid_items));
}

extern "C" __device__ double cuda_coop_04d148d34184_3_block_reduce_sum(double x)
{
  using Prim = cuda_coop_04d148d34184::prim_3;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  return Prim(cuda_coop_04d148d34184::storage.block.s3).Sum(x);
}
