static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider 71c0bcc06d4b: block (16, 8, 1)
//   [0] block_radix_sort.radix_sort.pairs_valid[bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=uint64,descending=True,dtype=float32,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_BLOCKED,radix_bits=4,smem_config=cudaSharedMemBankSizeFourByte,value_type=int64]
//   [1] block_argsort.argsort.pairs_valid[bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int8,descending=False,dtype=bfloat16,index_type=int32,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=2,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_STRIPED,radix_bits=4]
//   [2] block_top_k.top_k.keys_valid[block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,dtype=uint8,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=2,largest=False,memoize_outer_scan=True,radix_bits=4,valid_type=int16,value_type=none]
//   [3] block_radix_rank.radix_rank.ranks_prefix_valid[algorithm=cub::RADIX_RANK_BASIC,bins_per_thread=1,bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,descending=False,dtype=int64,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=2,radix_bits=4]
//   [4] warp_top_k.top_k.pairs_valid[count_type=int64,dtype=float16,items_per_thread=3,largest=True,threads=16,valid_type=uint32,value_type=float64]

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

// cuda-coop's compositions of CUB classes.

namespace cuda_coop
{
// Stable argsort of a block's tile: indices = base + blocked tile position, sorted with the keys by
// cub::BlockRadixSort of (key, index) pairs.
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          typename IndexT,
          int RadixBits                              = 4,
          bool MemoizeOuterScan                      = true,
          cub::BlockScanAlgorithm InnerScanAlgorithm = cub::BLOCK_SCAN_WARP_SCANS,
          int BlockDimY                              = 1,
          int BlockDimZ                              = 1>
class BlockArgsort
{
  using RadixSortT = cub::BlockRadixSort<KeyT, BlockDimX, ItemsPerThread, IndexT, RadixBits, MemoizeOuterScan,
                                         InnerScanAlgorithm, cudaSharedMemBankSizeFourByte, BlockDimY, BlockDimZ>;

public:
  using TempStorage = typename RadixSortT::TempStorage;

private:
  TempStorage& temp_storage;

  __device__ __forceinline__ static void Fill(IndexT (&indices)[ItemsPerThread], long long base)
  {
    const long long first =
      base + static_cast<long long>(cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ)) * ItemsPerThread;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      indices[i] = static_cast<IndexT>(first + i);
    }
  }

public:
  __device__ __forceinline__ explicit BlockArgsort(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}

  __device__ __forceinline__ void
  Argsort(KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).Sort(keys, indices, begin_bit, end_bit);
  }

  __device__ __forceinline__ void ArgsortDescending(
    KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).SortDescending(keys, indices, begin_bit, end_bit);
  }

  __device__ __forceinline__ void ArgsortBlockedToStriped(
    KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).SortBlockedToStriped(keys, indices, begin_bit, end_bit);
  }

  __device__ __forceinline__ void ArgsortDescendingBlockedToStriped(
    KeyT (&keys)[ItemsPerThread], IndexT (&indices)[ItemsPerThread], long long base, int begin_bit, int end_bit)
  {
    Fill(indices, base);
    RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys, indices, begin_bit, end_bit);
  }
};
} // namespace cuda_coop

namespace cuda_coop
{
// Ranks of a tile's keys by the digit of bits [begin_bit, begin_bit + min(RadixBits, end_bit - begin_bit)) of
// their bit-ordered form (cub::Traits<KeyT>::TwiddleIn, as cub::BlockRadixSort), with cub::BlockRadixRank or
// cub::BlockRadixRankMatch and cub::BFEDigitExtractor.
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          int RadixBits,
          bool IsDescending                          = false,
          cub::RadixRankAlgorithm Algorithm          = cub::RADIX_RANK_BASIC,
          cub::BlockScanAlgorithm InnerScanAlgorithm = cub::BLOCK_SCAN_WARP_SCANS,
          int BlockDimY                              = 1,
          int BlockDimZ                              = 1>
class BlockRadixRankBits
{
  static_assert(Algorithm == cub::RADIX_RANK_BASIC || Algorithm == cub::RADIX_RANK_MEMOIZE
                  || Algorithm == cub::RADIX_RANK_MATCH,
                "cuda-coop ranks with RADIX_RANK_BASIC, RADIX_RANK_MEMOIZE or RADIX_RANK_MATCH");
  using RankT = ::cuda::std::conditional_t<
    Algorithm == cub::RADIX_RANK_MATCH,
    cub::BlockRadixRankMatch<BlockDimX, RadixBits, IsDescending, InnerScanAlgorithm, BlockDimY, BlockDimZ>,
    cub::BlockRadixRank<BlockDimX,
                        RadixBits,
                        IsDescending,
                        Algorithm == cub::RADIX_RANK_MEMOIZE,
                        InnerScanAlgorithm,
                        cudaSharedMemBankSizeFourByte,
                        BlockDimY,
                        BlockDimZ>>;
  using UnsignedBits = typename cub::Traits<KeyT>::UnsignedBits;

public:
  static constexpr int BINS_TRACKED_PER_THREAD = RankT::BINS_TRACKED_PER_THREAD;
  using TempStorage                            = typename RankT::TempStorage;

private:
  TempStorage& temp_storage;

  __device__ __forceinline__ static void
  BitOrdered(const KeyT (&keys)[ItemsPerThread], UnsignedBits (&bits)[ItemsPerThread])
  {
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      bits[i] = cub::Traits<KeyT>::TwiddleIn(reinterpret_cast<const UnsignedBits&>(keys[i]));
    }
  }

  __device__ __forceinline__ static cub::BFEDigitExtractor<KeyT> Digit(int begin_bit, int end_bit)
  {
    const int width = end_bit - begin_bit < RadixBits ? end_bit - begin_bit : RadixBits;
    return cub::BFEDigitExtractor<KeyT>(begin_bit, width > 0 ? width : 0);
  }

public:
  __device__ __forceinline__ explicit BlockRadixRankBits(TempStorage& temp_storage)
      : temp_storage(temp_storage)
  {}

  __device__ __forceinline__ void
  RankKeys(KeyT (&keys)[ItemsPerThread], int (&ranks)[ItemsPerThread], int begin_bit, int end_bit)
  {
    UnsignedBits bits[ItemsPerThread];
    BitOrdered(keys, bits);
    RankT(temp_storage).RankKeys(bits, ranks, Digit(begin_bit, end_bit));
  }

  template <int BinsPerThread>
  __device__ __forceinline__ void RankKeys(
    KeyT (&keys)[ItemsPerThread],
    int (&ranks)[ItemsPerThread],
    int (&digit_prefix)[BinsPerThread],
    int begin_bit,
    int end_bit)
  {
    static_assert(BinsPerThread == BINS_TRACKED_PER_THREAD, "digit_prefix has the wrong number of items");
    UnsignedBits bits[ItemsPerThread];
    BitOrdered(keys, bits);
    RankT(temp_storage).RankKeys(bits, ranks, Digit(begin_bit, end_bit), digit_prefix);
  }
};
} // namespace cuda_coop

namespace cuda_coop
{
// The k largest (or smallest) keys of a block's tile, with their values, written in order to global or
// shared memory: cub::BlockRadixSort into a striped arrangement, then each thread stores its ranks below k.
template <typename KeyT,
          int BlockDimX,
          int ItemsPerThread,
          typename ValueT                            = cub::NullType,
          int RadixBits                              = 4,
          bool MemoizeOuterScan                      = true,
          cub::BlockScanAlgorithm InnerScanAlgorithm = cub::BLOCK_SCAN_WARP_SCANS,
          int BlockDimY                              = 1,
          int BlockDimZ                              = 1>
class BlockTopK
{
  static constexpr int BLOCK_THREADS = BlockDimX * BlockDimY * BlockDimZ;
  using RadixSortT = cub::BlockRadixSort<KeyT, BlockDimX, ItemsPerThread, ValueT, RadixBits, MemoizeOuterScan,
                                         InnerScanAlgorithm, cudaSharedMemBankSizeFourByte, BlockDimY, BlockDimZ>;

public:
  using TempStorage = typename RadixSortT::TempStorage;

private:
  TempStorage& temp_storage;
  int linear_tid;

  template <typename T>
  __device__ __forceinline__ void Write(T (&items)[ItemsPerThread], int k, T* out, long long offset) const
  {
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      const int rank = i * BLOCK_THREADS + linear_tid;
      if (rank < k)
      {
        out[offset + rank] = items[i];
      }
    }
  }

public:
  __device__ __forceinline__ explicit BlockTopK(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , linear_tid(cub::RowMajorTid(BlockDimX, BlockDimY, BlockDimZ))
  {}

  __device__ __forceinline__ void TopKLargest(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys);
    Write(keys, k, out_keys, offset);
  }

  __device__ __forceinline__ void TopKSmallest(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    RadixSortT(temp_storage).SortBlockedToStriped(keys);
    Write(keys, k, out_keys, offset);
  }

  __device__ __forceinline__ void TopKLargest(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    RadixSortT(temp_storage).SortDescendingBlockedToStriped(keys, values);
    Write(keys, k, out_keys, offset);
    Write(values, k, out_values, offset);
  }

  __device__ __forceinline__ void TopKSmallest(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    RadixSortT(temp_storage).SortBlockedToStriped(keys, values);
    Write(keys, k, out_keys, offset);
    Write(values, k, out_values, offset);
  }
};
} // namespace cuda_coop

#ifndef CUDA_COOP_RADIX_ORDER_DEFINED
#define CUDA_COOP_RADIX_ORDER_DEFINED
#include <cuda/std/bit>
namespace cuda_coop
{
// cub::BlockRadixSort's key order as a comparator: the keys' bits twiddled by cub::NumericTraits (sign bit
// flipped for signed integers and non-negative floats, every bit for negative floats), -0.0 read as +0.0.
template <typename KeyT>
__device__ __forceinline__ typename cub::NumericTraits<KeyT>::UnsignedBits RadixOrderBits(const KeyT& key)
{
  using Traits       = cub::NumericTraits<KeyT>;
  using UnsignedBits = typename Traits::UnsignedBits;
  UnsignedBits bits  = Traits::TwiddleIn(::cuda::std::bit_cast<UnsignedBits>(key));
  if constexpr (::cuda::is_floating_point_v<KeyT>)
  {
    constexpr UnsignedBits minus_zero = UnsignedBits(UnsignedBits(1) << (8 * sizeof(UnsignedBits) - 1));
    if (bits == Traits::TwiddleIn(minus_zero))
    {
      bits = Traits::TwiddleIn(UnsignedBits(0));
    }
  }
  return bits;
}

// a goes before b: ascending (Descending = false) or descending radix order; a strict weak order.
template <typename KeyT, bool Descending>
struct RadixOrder
{
  __device__ __forceinline__ bool operator()(const KeyT& a, const KeyT& b) const
  {
    return Descending ? RadixOrderBits(b) < RadixOrderBits(a) : RadixOrderBits(a) < RadixOrderBits(b);
  }
};
} // namespace cuda_coop
#endif

namespace cuda_coop
{
// The k largest (or smallest) keys of each logical warp's tile, with their values, written in order:
// cub::WarpMergeSort::StableSort in radix order, then each lane stores its ranks below k.
template <typename KeyT, int ItemsPerThread, int LogicalWarpThreads, typename ValueT = cub::NullType>
class WarpTopK
{
  using SortT = cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>;

public:
  using TempStorage = typename SortT::TempStorage;

private:
  TempStorage& temp_storage;
  int lane;

  template <typename T>
  __device__ __forceinline__ void Write(T (&items)[ItemsPerThread], int k, T* out, long long offset) const
  {
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      const int rank = lane * ItemsPerThread + i;
      if (rank < k)
      {
        out[offset + rank] = items[i];
      }
    }
  }

public:
  __device__ __forceinline__ explicit WarpTopK(TempStorage& temp_storage)
      : temp_storage(temp_storage)
      , lane(static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % LogicalWarpThreads)
  {}

  __device__ __forceinline__ void TopKLargest(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    SortT(temp_storage).StableSort(keys, RadixOrder<KeyT, true>{});
    Write(keys, k, out_keys, offset);
  }

  __device__ __forceinline__ void TopKSmallest(KeyT (&keys)[ItemsPerThread], int k, KeyT* out_keys, long long offset)
  {
    SortT(temp_storage).StableSort(keys, RadixOrder<KeyT, false>{});
    Write(keys, k, out_keys, offset);
  }

  __device__ __forceinline__ void TopKLargest(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    SortT(temp_storage).StableSort(keys, values, RadixOrder<KeyT, true>{});
    Write(keys, k, out_keys, offset);
    Write(values, k, out_values, offset);
  }

  __device__ __forceinline__ void TopKSmallest(
    KeyT (&keys)[ItemsPerThread],
    int k,
    KeyT* out_keys,
    ValueT (&values)[ItemsPerThread],
    ValueT* out_values,
    long long offset)
  {
    SortT(temp_storage).StableSort(keys, values, RadixOrder<KeyT, false>{});
    Write(keys, k, out_keys, offset);
    Write(values, k, out_values, offset);
  }
};
} // namespace cuda_coop

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

namespace cuda_coop_71c0bcc06d4b
{
using prim_0 = cub::BlockRadixSort<float, 16, 4, long long, 4, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, 8, 1>;
using prim_1 = cuda_coop::BlockArgsort<__nv_bfloat16, 16, 2, int, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_2 = cuda_coop::BlockTopK<unsigned char, 16, 2, cub::NullType, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_3 = cuda_coop::BlockRadixRankBits<long long, 16, 2, 4, false, cub::RADIX_RANK_BASIC, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_4 = cuda_coop::WarpTopK<__half, 3, 16, double>;
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
} // namespace cuda_coop_71c0bcc06d4b

extern "C" __device__ void cuda_coop_71c0bcc06d4b_0_block_radix_sort_radix_sort(float* keys, long long* values, int begin_bit, int end_bit, unsigned long long valid_items)
{
  using Prim = cuda_coop_71c0bcc06d4b::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  // valid_items: a partial tile; the keys past it sort after every valid one (Param.pad).
  cuda_coop_detail::pad_keys<true, false, 128>(reinterpret_cast<float(&)[4]>(*keys), cub::RowMajorTid(16, 8, 1), cuda_coop_detail::clamp_count<512>(valid_items));
  Prim(cuda_coop_71c0bcc06d4b::storage.block.s0).SortDescending(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<long long(&)[4]>(*values), begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_71c0bcc06d4b_1_block_argsort_argsort(__nv_bfloat16* keys, int* indices, long long base, int begin_bit, int end_bit, signed char valid_items)
{
  using Prim = cuda_coop_71c0bcc06d4b::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  // valid_items: a partial tile; the keys past it sort after every valid one (Param.pad).
  cuda_coop_detail::pad_keys<false, false, 128>(reinterpret_cast<__nv_bfloat16(&)[2]>(*keys), cub::RowMajorTid(16, 8, 1), cuda_coop_detail::clamp_count<256>(valid_items));
  Prim(cuda_coop_71c0bcc06d4b::storage.block.s1).ArgsortBlockedToStriped(reinterpret_cast<__nv_bfloat16(&)[2]>(*keys), reinterpret_cast<int(&)[2]>(*indices), base, begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_71c0bcc06d4b_2_block_top_k_top_k(unsigned char* keys, int k, unsigned char* out_keys, long long offset, short valid_items)
{
  using Prim = cuda_coop_71c0bcc06d4b::prim_2;
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
  Prim(cuda_coop_71c0bcc06d4b::storage.block.s2).TopKSmallest(keys_in, cuda_coop_detail::min_count(cuda_coop_detail::clamp_count<256>(k), cuda_coop_detail::clamp_count<256>(valid_items)), out_keys, offset);
}

extern "C" __device__ void cuda_coop_71c0bcc06d4b_3_block_radix_rank_radix_rank(long long* keys, int* ranks, int* digit_prefix, int begin_bit, int end_bit, int valid_items)
{
  using Prim = cuda_coop_71c0bcc06d4b::prim_3;
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
  Prim(cuda_coop_71c0bcc06d4b::storage.block.s3).RankKeys(keys_in, reinterpret_cast<int(&)[2]>(*ranks), reinterpret_cast<int(&)[1]>(*digit_prefix), begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_71c0bcc06d4b_4_warp_top_k_top_k(__half* keys, long long k, __half* out_keys, double* values, double* out_values, long long offset, unsigned int valid_items)
{
  using Prim = cuda_coop_71c0bcc06d4b::prim_4;
  const int tid = static_cast<int>(threadIdx.x + 16 * (threadIdx.y + 8 * threadIdx.z));
  Prim::TempStorage& temp = cuda_coop_71c0bcc06d4b::storage.warp[tid / 32].w16.s4[tid % 32 / 16];
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
