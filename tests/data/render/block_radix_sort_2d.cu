static_assert(CCCL_VERSION == 3006000, "cuda-coop selected CCCL 3.6.0, but another CCCL (e.g. the CUDA toolkit's) comes first on the include path");

// cuda-coop provider c89f8a3e7840: block (16, 8, 1)
//   [0] block_radix_sort.radix_sort.pairs[bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,descending=True,dtype=float32,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_STRIPED,radix_bits=4,smem_config=cudaSharedMemBankSizeFourByte,value_type=float64]
//   [1] block_radix_sort.radix_sort.keys[begin_bit=DEFAULT,bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,descending=False,dtype=int8,end_bit=DEFAULT,inner_scan_algorithm=cub::BLOCK_SCAN_RAKING,items_per_thread=16,memoize_outer_scan=False,output=cuda_coop::SORT_OUTPUT_BLOCKED,radix_bits=6,smem_config=cudaSharedMemBankSizeFourByte,value_type=none]
//   [2] block_argsort.argsort.pairs[base=DEFAULT,begin_bit=DEFAULT,bit_type=int32,block_dim_x=16,block_dim_y=8,block_dim_z=1,descending=False,dtype=float32,index_type=int64,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,memoize_outer_scan=True,output=cuda_coop::SORT_OUTPUT_STRIPED,radix_bits=4]
//   [3] block_top_k.top_k.pairs[block_dim_x=16,block_dim_y=8,block_dim_z=1,count_type=int32,dtype=float64,inner_scan_algorithm=cub::BLOCK_SCAN_WARP_SCANS,items_per_thread=4,largest=False,memoize_outer_scan=True,radix_bits=4,value_type=int32]

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

// Storage ABI of the value types, as the DSL sees them.
static_assert(sizeof(float) == 4 && alignof(float) == 4, "storage ABI of float32");
static_assert(sizeof(double) == 8 && alignof(double) == 8, "storage ABI of float64");
static_assert(sizeof(int) == 4 && alignof(int) == 4, "storage ABI of int32");
static_assert(sizeof(long long) == 8 && alignof(long long) == 8, "storage ABI of int64");
static_assert(sizeof(signed char) == 1 && alignof(signed char) == 1, "storage ABI of int8");
static_assert(sizeof(cub::NullType) == 1 && alignof(cub::NullType) == 1, "storage ABI of none");

namespace cuda_coop_c89f8a3e7840
{
using prim_0 = cub::BlockRadixSort<float, 16, 4, double, 4, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, 8, 1>;
using prim_1 = cub::BlockRadixSort<signed char, 16, 16, cub::NullType, 6, false, cub::BLOCK_SCAN_RAKING, cudaSharedMemBankSizeFourByte, 8, 1>;
using prim_2 = cuda_coop::BlockArgsort<float, 16, 4, long long, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
using prim_3 = cuda_coop::BlockTopK<double, 16, 4, int, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 8, 1>;
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
} // namespace cuda_coop_c89f8a3e7840

extern "C" __device__ void cuda_coop_c89f8a3e7840_0_block_radix_sort_radix_sort(float* keys, double* values, int begin_bit, int end_bit)
{
  using Prim = cuda_coop_c89f8a3e7840::prim_0;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_c89f8a3e7840::storage.block.s0).SortDescendingBlockedToStriped(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<double(&)[4]>(*values), begin_bit, end_bit);
}

extern "C" __device__ void cuda_coop_c89f8a3e7840_1_block_radix_sort_radix_sort(signed char* keys)
{
  using Prim = cuda_coop_c89f8a3e7840::prim_1;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_c89f8a3e7840::storage.block.s1).Sort(reinterpret_cast<signed char(&)[16]>(*keys), 0, 8);
}

extern "C" __device__ void cuda_coop_c89f8a3e7840_2_block_argsort_argsort(float* keys, long long* indices, int end_bit)
{
  using Prim = cuda_coop_c89f8a3e7840::prim_2;
  if constexpr (cuda_coop_detail::uses_storage<Prim>)
  {
    __syncthreads();
  }
  Prim(cuda_coop_c89f8a3e7840::storage.block.s2).ArgsortBlockedToStriped(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<long long(&)[4]>(*indices), 0, 0, end_bit);
}

extern "C" __device__ void cuda_coop_c89f8a3e7840_3_block_top_k_top_k(double* keys, int k, double* out_keys, int* values, int* out_values, long long offset)
{
  using Prim = cuda_coop_c89f8a3e7840::prim_3;
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
  Prim(cuda_coop_c89f8a3e7840::storage.block.s3).TopKSmallest(keys_in, cuda_coop_detail::clamp_count<512>(k), out_keys, values_in, out_values, offset);
}
