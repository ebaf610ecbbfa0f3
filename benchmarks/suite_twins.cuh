// CUB C++ twins of the kernels of benchmarks/suite.py, as templates. suite.py instantiates each case
// in an extern "C" __global__ kernel with __launch_bounds__(BLOCK) (as cuda-coop gives its kernels) and
// builds them with nvcc against the CCCL that cuda-coop bundles. Each tile is BLOCK * ITEMS items at
// blockIdx.x * BLOCK * ITEMS; every twin does what its cuda-coop kernel does, call for call.
#pragma once

#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_load_to_shared.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_reduce_batched.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cuda/std/functional>
#include <cuda/std/span>

// cuda-coop's own compositions: the same C++ on both sides, built by nvcc here
#include <cuda_coop/block_top_k.cuh>
#include <cuda_coop/warp_argsort.cuh>
#include <cuda_coop/warp_merge_sort.cuh>
#include <cuda_coop/warp_top_k.cuh>

#ifdef EXPECTED_CCCL_VERSION // suite.py passes the bundle's version: the toolkit's CCCL must not win
static_assert(CCCL_VERSION == EXPECTED_CCCL_VERSION, "not the CCCL that cuda-coop bundles");
#endif

namespace twins
{
template <int BLOCK, int ITEMS>
__device__ __forceinline__ size_t tile_offset()
{
  return static_cast<size_t>(blockIdx.x) * BLOCK * ITEMS;
}

// Transposing load, block sum; thread 0 passes the tile's sum to `write` (ALG: CUB's default unless given).
template <class T, int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALG, class Write>
__device__ __forceinline__ void reduce_with(const T* x, Write write)
{
  using Load   = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Reduce = cub::BlockReduce<T, BLOCK, ALG>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Reduce::TempStorage reduce;
  } temp;
  T items[ITEMS];
  Load(temp.load).Load(x + tile_offset<BLOCK, ITEMS>(), items);
  __syncthreads();
  const T total = Reduce(temp.reduce).Sum(items);
  if (threadIdx.x == 0)
  {
    write(total);
  }
}

// The tile's sum written to partial[blockIdx.x].
template <class T, int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALG = cub::BLOCK_REDUCE_WARP_REDUCTIONS>
__device__ __forceinline__ void reduce(const T* x, T* partial)
{
  reduce_with<T, BLOCK, ITEMS, ALG>(x, [=](T total) { partial[blockIdx.x] = total; });
}

// reduce() with the store Numba-CUDA-MLIR 0.5.x compiles `partial[cuda.blockIdx.x] = total` to: partial comes
// as a memref (allocated, aligned, offset, size, stride), the int32 index is wrapped when negative, multiplied
// by the runtime stride and added to the offset (benchmarks/abi_gap.py; docs/known_issues.rst).
template <class T, int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALG>
__device__ __forceinline__ void reduce_numba_store(
  const T* x, T* partial, long long partial_offset, long long partial_size, long long partial_stride)
{
  reduce_with<T, BLOCK, ITEMS, ALG>(x, [=](T total) {
    long long i = static_cast<int>(blockIdx.x);
    i           = i < 0 ? i + partial_size : i;
    partial[partial_offset + i * partial_stride] = total;
  });
}

// Transposing load, block inclusive sum in place, transposing store (ALG: CUB's default unless given).
template <class T, int BLOCK, int ITEMS, cub::BlockScanAlgorithm ALG = cub::BLOCK_SCAN_RAKING>
__device__ __forceinline__ void scan(const T* x, T* y)
{
  using Load  = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Scan  = cub::BlockScan<T, BLOCK, ALG>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } temp;
  T items[ITEMS];
  Load(temp.load).Load(x + tile_offset<BLOCK, ITEMS>(), items);
  __syncthreads();
  Scan(temp.scan).InclusiveSum(items, items);
  __syncthreads();
  Store(temp.store).Store(y + tile_offset<BLOCK, ITEMS>(), items);
}

// Vectorized blocked load, BlockedToStriped in place, striped direct store: a copy.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void exchange(const T* x, T* y)
{
  using Load     = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Exchange = cub::BlockExchange<T, BLOCK, ITEMS>;
  using Store    = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_STRIPED>;
  __shared__ typename Exchange::TempStorage temp;
  T items[ITEMS];
  Load().Load(x + tile_offset<BLOCK, ITEMS>(), items);
  Exchange(temp).BlockedToStriped(items, items);
  Store().Store(y + tile_offset<BLOCK, ITEMS>(), items);
}

// Vectorized load, SubtractLeft (x[i] - x[i-1]) in place, vectorized store.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void adjacent_difference(const T* x, T* y)
{
  using Load  = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Diff  = cub::BlockAdjacentDifference<T, BLOCK>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_VECTORIZE>;
  __shared__ typename Diff::TempStorage temp;
  T items[ITEMS];
  Load().Load(x + tile_offset<BLOCK, ITEMS>(), items);
  Diff(temp).SubtractLeft(items, items, ::cuda::std::minus<>{});
  Store().Store(y + tile_offset<BLOCK, ITEMS>(), items);
}

// Vectorized load, FlagHeads (x[i] != x[i-1]) into int flags, vectorized store of the flags.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void discontinuity(const T* x, int* flags)
{
  using Load  = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Flag  = cub::BlockDiscontinuity<T, BLOCK>;
  using Store = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_VECTORIZE>;
  __shared__ typename Flag::TempStorage temp;
  T items[ITEMS];
  int heads[ITEMS];
  Load().Load(x + tile_offset<BLOCK, ITEMS>(), items);
  Flag(temp).FlagHeads(heads, items, ::cuda::std::not_equal_to<>{});
  Store().Store(flags + tile_offset<BLOCK, ITEMS>(), heads);
}

// Vectorized load of bytes, BlockHistogram into shared counters, one global atomicAdd per bin (BLOCK == BINS).
template <int BLOCK, int ITEMS, cub::BlockHistogramAlgorithm ALGORITHM>
__device__ __forceinline__ void histogram(const unsigned char* data, unsigned* hist)
{
  static_assert(BLOCK == 256, "one thread per bin adds the block's counts to the global histogram");
  using Load = cub::BlockLoad<unsigned char, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Hist = cub::BlockHistogram<unsigned char, BLOCK, ITEMS, 256, ALGORITHM>;
  __shared__ typename Hist::TempStorage temp;
  __shared__ unsigned counts[256];
  unsigned char samples[ITEMS];
  Load().Load(data + tile_offset<BLOCK, ITEMS>(), samples);
  Hist(temp).Histogram(samples, counts);
  __syncthreads();
  atomicAdd(hist + threadIdx.x, counts[threadIdx.x]);
}

// Transposing loads, BlockRadixSort (keys, or keys and values) in place, transposing stores.
template <class K, class V, int BLOCK, int ITEMS>
__device__ __forceinline__ void radix_sort(const K* keys_in, const V* values_in, K* keys_out, V* values_out)
{
  constexpr bool pairs = !::cuda::std::is_same_v<V, cub::NullType>;
  using LoadK  = cub::BlockLoad<K, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using StoreK = cub::BlockStore<K, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  using Sort   = cub::BlockRadixSort<K, BLOCK, ITEMS, V>;
  using VT     = ::cuda::std::conditional_t<pairs, V, int>;
  using LoadV  = cub::BlockLoad<VT, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using StoreV = cub::BlockStore<VT, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union
  {
    typename LoadK::TempStorage load_k;
    typename StoreK::TempStorage store_k;
    typename LoadV::TempStorage load_v;
    typename StoreV::TempStorage store_v;
    typename Sort::TempStorage sort;
  } temp;
  const size_t offset = tile_offset<BLOCK, ITEMS>();
  K keys[ITEMS];
  LoadK(temp.load_k).Load(keys_in + offset, keys);
  __syncthreads();
  if constexpr (pairs)
  {
    V values[ITEMS];
    LoadV(temp.load_v).Load(values_in + offset, values);
    __syncthreads();
    Sort(temp.sort).Sort(keys, values);
    __syncthreads();
    StoreK(temp.store_k).Store(keys_out + offset, keys);
    __syncthreads();
    StoreV(temp.store_v).Store(values_out + offset, values);
  }
  else
  {
    Sort(temp.sort).Sort(keys);
    __syncthreads();
    StoreK(temp.store_k).Store(keys_out + offset, keys);
  }
}

template <class K, int BLOCK, int ITEMS>
__device__ __forceinline__ void radix_sort_keys(const K* keys_in, K* keys_out)
{
  radix_sort<K, cub::NullType, BLOCK, ITEMS>(keys_in, nullptr, keys_out, nullptr);
}

// Transposing load, BlockMergeSort with operator<, transposing store.
template <class K, int BLOCK, int ITEMS>
__device__ __forceinline__ void merge_sort(const K* keys_in, K* keys_out)
{
  using Load  = cub::BlockLoad<K, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Store = cub::BlockStore<K, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  using Sort  = cub::BlockMergeSort<K, BLOCK, ITEMS>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Sort::TempStorage sort;
  } temp;
  K keys[ITEMS];
  Load(temp.load).Load(keys_in + tile_offset<BLOCK, ITEMS>(), keys);
  __syncthreads();
  Sort(temp.sort).Sort(keys, ::cuda::std::less<>{});
  __syncthreads();
  Store(temp.store).Store(keys_out + tile_offset<BLOCK, ITEMS>(), keys);
}

// Transposing load, then the tile's K largest keys in order at keys_out[blockIdx.x * K ..] with
// cuda_coop::BlockTopK and the algorithm ALG (cuda-coop's "radix_sort" when not given, the one that sorts).
template <class K, int BLOCK, int ITEMS, int TOP_K, cuda_coop::BlockTopKAlgorithm ALG = cuda_coop::BLOCK_TOP_K_RADIX_SORT>
__device__ __forceinline__ void top_k(const K* keys_in, K* keys_out)
{
  using Load = cub::BlockLoad<K, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using TopK = cuda_coop::BlockTopK<K, BLOCK, ITEMS, cub::NullType, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 1, 1, ALG>;
  __shared__ union
  {
    typename Load::TempStorage load;
    typename TopK::TempStorage top_k;
  } temp;
  K keys[ITEMS];
  Load(temp.load).Load(keys_in + tile_offset<BLOCK, ITEMS>(), keys);
  __syncthreads();
  TopK(temp.top_k).TopKLargest(keys, TOP_K, keys_out, static_cast<long long>(blockIdx.x) * TOP_K);
}

// Each thread sums its ITEMS consecutive items (blocked, direct load), then a warp sum; lane 0 writes it.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void warp_reduce(const T* x, T* partial)
{
  using Load   = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Reduce = cub::WarpReduce<T>;
  __shared__ typename Reduce::TempStorage temp[BLOCK / 32];
  T items[ITEMS];
  Load().Load(x + tile_offset<BLOCK, ITEMS>(), items);
  T total = Reduce(temp[threadIdx.x / 32]).Sum(items);
  if (threadIdx.x % 32 == 0)
  {
    partial[blockIdx.x * (BLOCK / 32) + threadIdx.x / 32] = total;
  }
}
// Each thread loads its ITEMS consecutive items (vectorized), one per batch; each warp sums every batch over its 32
// lanes (ITEMS <= 32: lane l gets batch l's sum) and every lane writes what it got.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void warp_reduce_batched(const T* x, T* sums)
{
  using Load   = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Reduce = cub::WarpReduceBatched<T, ITEMS>;
  __shared__ typename Reduce::TempStorage temp[BLOCK / 32];
  T items[ITEMS];
  Load().Load(x + tile_offset<BLOCK, ITEMS>(), items);
  sums[blockIdx.x * BLOCK + threadIdx.x] = Reduce(temp[threadIdx.x / 32]).Sum(items);
}
// Every thread writes its items of the shared tile reversed, striped (coalesced): the work after a copy to shared.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void write_reversed(const T* tile, T* y)
{
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
  {
    const int j                        = i * BLOCK + static_cast<int>(threadIdx.x);
    y[tile_offset<BLOCK, ITEMS>() + j] = tile[BLOCK * ITEMS - 1 - j];
  }
}

// cub::detail::BlockLoadToShared as cuda-coop's composition calls it for a whole tile: the 16-byte-aligned copy,
// commit and wait, invalidation of the barrier; then the reversed write.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void load_to_shared(const T* x, T* y)
{
  using Copy = cub::detail::BlockLoadToShared<BLOCK>;
  __shared__ typename Copy::TempStorage temp;
  alignas(16) __shared__ T tile[BLOCK * ITEMS];
  {
    Copy copy(temp);
    const ::cuda::std::span<T> landed = copy.template CopyAsync<T, 16>(
      ::cuda::std::span<char>(reinterpret_cast<char*>(tile), sizeof(tile)),
      ::cuda::std::span<const T>(x + tile_offset<BLOCK, ITEMS>(), BLOCK * ITEMS));
    (void) landed;
    copy.CommitAndWait();
    copy.Invalidate();
  }
  write_reversed<T, BLOCK, ITEMS>(tile, y);
}

// The same without the copy engine: vectorized BlockLoad into registers, vectorized BlockStore into the shared
// tile, a barrier; then the reversed write.
template <class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void shared_via_registers(const T* x, T* y)
{
  using Load  = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_VECTORIZE>;
  alignas(16) __shared__ T tile[BLOCK * ITEMS];
  T items[ITEMS];
  Load().Load(x + tile_offset<BLOCK, ITEMS>(), items);
  Store().Store(tile, items);
  __syncthreads();
  write_reversed<T, BLOCK, ITEMS>(tile, y);
}

// The warp sorts: each 32-lane warp loads its 32 * ITEMS keys (lane l reads positions l*ITEMS .. l*ITEMS+ITEMS-1),
// sorts them with cuda-coop's class for ALG (cuda_coop/warp_*.cuh, as a C++ consumer of the bundle calls it) and
// writes the result as the cuda-coop kernel does.
template <int ITEMS>
__device__ __forceinline__ size_t lane_offset()
{
  return (static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * ITEMS;
}

template <class K, int ITEMS>
__device__ __forceinline__ void load_lane(const K* keys_in, K (&keys)[ITEMS])
{
  for (int i = 0; i < ITEMS; ++i)
  {
    keys[i] = keys_in[lane_offset<ITEMS>() + i];
  }
}

// Sort by operator< (the keys only), stored back blocked.
template <class K, int BLOCK, int ITEMS, cuda_coop::WarpSortAlgorithm ALG = cuda_coop::WARP_SORT_MERGE_SORT>
__device__ __forceinline__ void warp_merge_sort(const K* keys_in, K* keys_out)
{
  using Sort = cuda_coop::WarpSort<K, ITEMS, 32, cub::NullType, ALG>;
  __shared__ typename Sort::TempStorage temp[BLOCK / 32];
  K keys[ITEMS];
  load_lane(keys_in, keys);
  Sort(temp[threadIdx.x / 32]).Sort(keys, ::cuda::std::less<>{});
  for (int i = 0; i < ITEMS; ++i)
  {
    keys_out[lane_offset<ITEMS>() + i] = keys[i];
  }
}

// Argsort (int indices; base: the warp tile's offset), the indices stored back blocked.
template <class K, int BLOCK, int ITEMS, cuda_coop::WarpSortAlgorithm ALG = cuda_coop::WARP_SORT_MERGE_SORT>
__device__ __forceinline__ void warp_argsort(const K* keys_in, int* indices_out)
{
  using Argsort = cuda_coop::WarpArgsort<K, ITEMS, 32, int, ALG>;
  __shared__ typename Argsort::TempStorage temp[BLOCK / 32];
  K keys[ITEMS];
  int indices[ITEMS];
  load_lane(keys_in, keys);
  const long long warp = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / 32;
  Argsort(temp[threadIdx.x / 32]).Argsort(keys, indices, warp * 32 * ITEMS);
  for (int i = 0; i < ITEMS; ++i)
  {
    indices_out[lane_offset<ITEMS>() + i] = indices[i];
  }
}

// The TOP_K (at most the warp tile) largest keys of each warp, largest first, at top_out[warp * k].
template <class K,
          int BLOCK,
          int ITEMS,
          int TOP_K,
          cuda_coop::WarpSortAlgorithm ALG = cuda_coop::WARP_SORT_MERGE_SORT>
__device__ __forceinline__ void warp_top_k(const K* keys_in, K* top_out)
{
  using TopK       = cuda_coop::WarpTopK<K, ITEMS, 32, cub::NullType, ALG>;
  constexpr int k  = TOP_K < 32 * ITEMS ? TOP_K : 32 * ITEMS;
  __shared__ typename TopK::TempStorage temp[BLOCK / 32];
  K keys[ITEMS];
  load_lane(keys_in, keys);
  const long long warp = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / 32;
  TopK(temp[threadIdx.x / 32]).TopKLargest(keys, k, top_out, warp * k);
}
} // namespace twins
