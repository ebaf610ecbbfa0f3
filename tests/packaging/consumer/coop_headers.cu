// Compiles cuda-coop's own headers (cuda_coop/*.cuh, shipped in the bundle's include directory) as plain CUDA C++,
// each class instantiated, against the CCCL that find_package(CCCL) found.
#include <cuda_coop/block_arg_reduce.cuh>
#include <cuda_coop/block_argsort.cuh>
#include <cuda_coop/block_load_to_shared.cuh>
#include <cuda_coop/block_radix_rank.cuh>
#include <cuda_coop/block_top_k.cuh>
#include <cuda_coop/warp_arg_reduce.cuh>
#include <cuda_coop/warp_argsort.cuh>
#include <cuda_coop/warp_merge_sort.cuh>
#include <cuda_coop/warp_top_k.cuh>

#include <cuda/std/functional>
#include <cuda/std/version>

static_assert(CCCL_VERSION == FOUND_CCCL_VERSION, "these CCCL headers are not the package's (the CUDA toolkit's won?)");

constexpr int threads = 128;
constexpr int items   = 4;

__global__ void block_top_k(const float* in, const int* in_values, float* out, int* out_values, int k)
{
  using TopK      = cuda_coop::BlockTopK<float, threads, items>;
  using TopKPairs = cuda_coop::BlockTopK<float, threads, items, int>;
  __shared__ union
  {
    typename TopK::TempStorage keys;
    typename TopKPairs::TempStorage pairs;
  } temp;
  float keys[items];
  int values[items];
  for (int i = 0; i < items; ++i)
  {
    keys[i]   = in[threadIdx.x * items + i];
    values[i] = in_values[threadIdx.x * items + i];
  }
  TopK(temp.keys).TopKLargest(keys, k, out, 0);
  __syncthreads();
  TopKPairs(temp.pairs).TopKSmallest(keys, k, out, values, out_values, k);
}

// The other algorithms: CCCL's AIR radix select (1-D blocks), alone or chosen by k at run time. Same output.
template <cuda_coop::BlockTopKAlgorithm Algorithm>
__global__ void block_top_k_by(const double* in, const short* in_values, double* out, short* out_values, int k)
{
  using TopK = cuda_coop::BlockTopK<double, threads, items, short, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 1, 1, Algorithm>;
  __shared__ typename TopK::TempStorage temp;
  double keys[items];
  short values[items];
  for (int i = 0; i < items; ++i)
  {
    keys[i]   = in[threadIdx.x * items + i];
    values[i] = in_values[threadIdx.x * items + i];
  }
  TopK(temp).TopKLargest(keys, k, out, values, out_values, blockIdx.x * static_cast<long long>(k));
}
template __global__ void block_top_k_by<cuda_coop::BLOCK_TOP_K_AIR>(const double*, const short*, double*, short*, int);
template __global__ void
block_top_k_by<cuda_coop::BLOCK_TOP_K_AIR_OR_RADIX_SORT>(const double*, const short*, double*, short*, int);

__global__ void block_argsort_and_rank(const double* in, long long* indices_out, int* ranks_out)
{
  using Argsort = cuda_coop::BlockArgsort<double, threads, items, long long>;
  using Rank    = cuda_coop::BlockRadixRankBits<double, threads, items, 8, true, cub::RADIX_RANK_MATCH>;
  __shared__ union
  {
    typename Argsort::TempStorage argsort;
    typename Rank::TempStorage rank;
  } temp;
  double keys[items];
  long long indices[items];
  int ranks[items];
  int digit_prefix[Rank::BINS_TRACKED_PER_THREAD];
  for (int i = 0; i < items; ++i)
  {
    keys[i] = in[threadIdx.x * items + i];
  }
  Rank(temp.rank).RankKeys(keys, ranks, digit_prefix, 0, 64);
  __syncthreads();
  Argsort(temp.argsort).ArgsortDescendingBlockedToStriped(keys, indices, 0, 0, 64);
  for (int i = 0; i < items; ++i)
  {
    indices_out[threadIdx.x * items + i] = indices[i];
    ranks_out[threadIdx.x * items + i]   = ranks[i] + digit_prefix[0];
  }
}

__global__ void arg_reduce(const int* in, int* value_out, long long* index_out)
{
  using Block = cuda_coop::BlockArgReduce<int, threads>;
  using Warp  = cuda_coop::WarpArgReduce<int, 16>;
  __shared__ typename Block::TempStorage block_temp;
  __shared__ typename Warp::TempStorage warp_temp[threads / 16];
  int items_in[items];
  for (int i = 0; i < items; ++i)
  {
    items_in[i] = in[threadIdx.x * items + i];
  }
  int value;
  long long index;
  Block(block_temp).ArgMax(items_in, value, index);
  Warp(warp_temp[threadIdx.x / 16]).ArgMin(items_in[0], value, index);
  if (threadIdx.x == 0)
  {
    *value_out = value;
    *index_out = index;
  }
}

__global__ void warp_sorts(const __half* in, const short* in_values, __half* out, short* out_values, unsigned* idx, int k)
{
  using Argsort = cuda_coop::WarpArgsort<__half, items, 32, unsigned>;
  using TopK    = cuda_coop::WarpTopK<__half, items, 8, short>;
  __shared__ typename Argsort::TempStorage argsort_temp[threads / 32];
  __shared__ typename TopK::TempStorage top_k_temp[threads / 8];
  __half keys[items];
  short values[items];
  unsigned indices[items];
  for (int i = 0; i < items; ++i)
  {
    keys[i]   = in[threadIdx.x * items + i];
    values[i] = in_values[threadIdx.x * items + i];
  }
  TopK(top_k_temp[threadIdx.x / 8]).TopKLargest(keys, k, out, values, out_values, threadIdx.x / 8 * k);
  Argsort(argsort_temp[threadIdx.x / 32]).Argsort(keys, indices, 0);
  for (int i = 0; i < items; ++i)
  {
    idx[threadIdx.x * items + i] = indices[i];
  }
}

__global__ void load_to_shared(const float* in, float* out, int valid_items)
{
  using Copy = cuda_coop::BlockLoadToShared<float, threads, items>;
  __shared__ typename Copy::TempStorage temp;
  __shared__ alignas(16) float tile[threads * items];
  Copy(temp).LoadToShared(in + blockIdx.x * threads * items, tile);
  out[threadIdx.x] = tile[(threads * items - 1) - threadIdx.x];
  __syncthreads();
  Copy(temp).LoadToShared(in, tile, valid_items);
  out[threads + threadIdx.x] = tile[threadIdx.x];
}

__global__ void warp_bitonic_sorts(const int* in, const double* in_values, int* out, double* out_values, int k)
{
  constexpr auto bitonic = cuda_coop::WARP_SORT_BITONIC;
  using Sort             = cuda_coop::WarpSort<int, items, 16, double, bitonic>;
  using Argsort          = cuda_coop::WarpArgsort<int, items, 16, long long, bitonic>;
  using TopK             = cuda_coop::WarpTopK<int, items, 16, double, bitonic>;
  __shared__ union
  {
    typename Sort::TempStorage sort[threads / 16];
    typename Argsort::TempStorage argsort[threads / 16];
  } temp;
  __shared__ typename TopK::TempStorage top_k_temp[threads / 16];
  int keys[items];
  double values[items];
  long long indices[items];
  for (int i = 0; i < items; ++i)
  {
    keys[i]   = in[threadIdx.x * items + i];
    values[i] = in_values[threadIdx.x * items + i];
  }
  TopK(top_k_temp[threadIdx.x / 16]).TopKSmallest(keys, k, out, values, out_values, threadIdx.x / 16 * k);
  Sort(temp.sort[threadIdx.x / 16]).StableSort(keys, values, ::cuda::std::less<>{});
  __syncwarp();
  Argsort(temp.argsort[threadIdx.x / 16]).ArgsortDescending(keys, indices, 0);
  for (int i = 0; i < items; ++i)
  {
    out[threadIdx.x * items + i]        = keys[i] + static_cast<int>(indices[i]);
    out_values[threadIdx.x * items + i] = values[i];
  }
}
