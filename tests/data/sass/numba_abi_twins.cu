// The CUB twins of benchmarks/cub_twins.cu, written with the kernel ABI and indexing that numba-cuda-mlir
// gives the Python kernels of benchmarks/run.py, so that the SASS of the two differs only by what
// cuda-coop generates (tests/compile/test_sass_parity.py):
// - every 1-D array argument is a memref: (allocated pointer, aligned pointer, offset, size, stride),
//   five parameters, indexed as aligned[offset + i * stride] with 64-bit arithmetic;
// - an index may be negative: numba wraps it (i < 0 ? i + size : i); thread and block indices are int32;
// - `coop.block.load(x, items, offset=o)` reads from &x[o]; `cuda.shared.array(256, uint32)` is a
//   __shared__ array of its own;
// - the kernel is compiled with the launch's block size as its bound (maxntid), as cuda-coop does.
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

constexpr int BLOCK = 256;
constexpr int ITEMS = 16;
constexpr int BINS  = 256;

#define ARRAY(T, n) void *n##_alloc, T *n, long long n##_off, long long n##_size, long long n##_stride
#define AT(n, i) (n[n##_off + wrap((i), n##_size) * n##_stride])
#define FROM(n, o) (n + (n##_off + (o) * n##_stride))

__device__ __forceinline__ long long wrap(long long i, long long size) { return i < 0 ? i + size : i; }
__device__ __forceinline__ int tid() { return static_cast<int>(threadIdx.x); }
__device__ __forceinline__ long long tile_offset() { return static_cast<long long>(static_cast<int>(blockIdx.x)) * (BLOCK * ITEMS); }

extern "C" __global__ void __launch_bounds__(BLOCK) tile_sum_f32(ARRAY(float, x), ARRAY(float, partial))
{
  using Load   = cub::BlockLoad<float, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Reduce = cub::BlockReduce<float, BLOCK>;
  __shared__ union { typename Load::TempStorage load; typename Reduce::TempStorage reduce; } temp;
  float items[ITEMS];
  Load(temp.load).Load(FROM(x, tile_offset()), items);
  __syncthreads();
  const float total = Reduce(temp.reduce).Sum(items);
  if (tid() == 0) { AT(partial, static_cast<int>(blockIdx.x)) = total; }
}

extern "C" __global__ void __launch_bounds__(BLOCK) tile_inclusive_sum_i32(ARRAY(int, x), ARRAY(int, y))
{
  using Load  = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Scan  = cub::BlockScan<int, BLOCK>;
  using Store = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union { typename Load::TempStorage load; typename Scan::TempStorage scan; typename Store::TempStorage store; } temp;
  const long long offset = tile_offset();
  int items[ITEMS];
  Load(temp.load).Load(FROM(x, offset), items);
  __syncthreads();
  Scan(temp.scan).InclusiveSum(items, items);
  __syncthreads();
  Store(temp.store).Store(FROM(y, offset), items);
}

extern "C" __global__ void __launch_bounds__(BLOCK) exchange_b2s_i32(ARRAY(int, x), ARRAY(int, y))
{
  using Load     = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Exchange = cub::BlockExchange<int, BLOCK, ITEMS>;
  using Store    = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_STRIPED>;
  __shared__ typename Exchange::TempStorage temp;
  const long long offset = tile_offset();
  int items[ITEMS];
  Load().Load(FROM(x, offset), items);
  Exchange(temp).BlockedToStriped(items, items);
  Store().Store(FROM(y, offset), items);
}

template <cub::BlockHistogramAlgorithm ALGORITHM>
__device__ __forceinline__ void histogram_u8(unsigned char* data, long long data_off, long long data_stride,
                                             unsigned* hist, long long hist_off, long long hist_size, long long hist_stride)
{
  using Load = cub::BlockLoad<unsigned char, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Hist = cub::BlockHistogram<unsigned char, BLOCK, ITEMS, BINS, ALGORITHM>;
  __shared__ typename Hist::TempStorage temp;
  __shared__ unsigned counts[BINS];
  unsigned char samples[ITEMS];
  Load().Load(data + (data_off + tile_offset() * data_stride), samples);
  Hist(temp).Histogram(samples, counts);
  __syncthreads();
  atomicAdd(&AT(hist, tid()), counts[wrap(tid(), BINS)]);
}

extern "C" __global__ void __launch_bounds__(BLOCK) histogram_sort_u8(ARRAY(unsigned char, data), ARRAY(unsigned, hist))
{
  histogram_u8<cub::BLOCK_HISTO_SORT>(data, data_off, data_stride, hist, hist_off, hist_size, hist_stride);
}

extern "C" __global__ void __launch_bounds__(BLOCK) histogram_atomic_u8(ARRAY(unsigned char, data), ARRAY(unsigned, hist))
{
  histogram_u8<cub::BLOCK_HISTO_ATOMIC>(data, data_off, data_stride, hist, hist_off, hist_size, hist_stride);
}
