// Hand-written CUB C++ twins of the cuda-coop benchmark kernels (benchmarks/run.py builds this
// with nvcc against the CCCL that cuda-coop bundles and runs it in the same session).
//   usage: cub_twins <log2 n> <repetitions>   prints one JSON object per kernel
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef EXPECTED_CCCL_VERSION  // run.py passes the bundle's version: the toolkit's CCCL must not win
static_assert(CCCL_VERSION == EXPECTED_CCCL_VERSION, "not the CCCL that cuda-coop bundles");
#endif

constexpr int BLOCK = 256;
constexpr int ITEMS = 16;
constexpr int BINS  = 256;

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

extern "C" __global__ void tile_sum_f32(const float* x, float* partial)
{
  using Load   = cub::BlockLoad<float, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Reduce = cub::BlockReduce<float, BLOCK>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Reduce::TempStorage reduce;
  } temp;
  float items[ITEMS];
  Load(temp.load).Load(x + static_cast<size_t>(blockIdx.x) * BLOCK * ITEMS, items);
  __syncthreads();
  const float total = Reduce(temp.reduce).Sum(items);
  if (threadIdx.x == 0) { partial[blockIdx.x] = total; }
}

extern "C" __global__ void tile_inclusive_sum_i32(const int* x, int* y)
{
  using Load  = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Scan  = cub::BlockScan<int, BLOCK>;
  using Store = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } temp;
  const size_t offset = static_cast<size_t>(blockIdx.x) * BLOCK * ITEMS;
  int items[ITEMS];
  Load(temp.load).Load(x + offset, items);
  __syncthreads();
  Scan(temp.scan).InclusiveSum(items, items);
  __syncthreads();
  Store(temp.store).Store(y + offset, items);
}

// Blocked-to-striped exchange: vectorized blocked load, BlockExchange::BlockedToStriped in place, striped
// direct store. The output is a copy of the input (any other permutation is a bug the check catches).
extern "C" __global__ void exchange_b2s_i32(const int* x, int* y)
{
  using Load     = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Exchange = cub::BlockExchange<int, BLOCK, ITEMS>;
  using Store    = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_STRIPED>;
  __shared__ typename Exchange::TempStorage temp;
  const size_t offset = static_cast<size_t>(blockIdx.x) * BLOCK * ITEMS;
  int items[ITEMS];
  Load().Load(x + offset, items);  // vectorized: no shared memory
  Exchange(temp).BlockedToStriped(items, items);
  Store().Store(y + offset, items);  // striped direct: no shared memory
}

// 256-bin histogram of bytes: vectorized blocked load of the tile, BlockHistogram (ALGORITHM) into shared
// counters (Histogram() zeroes them first), then one global atomicAdd per bin (BLOCK == BINS).
template <cub::BlockHistogramAlgorithm ALGORITHM>
__device__ __forceinline__ void histogram_u8(const unsigned char* data, unsigned* hist)
{
  static_assert(BLOCK == BINS, "one thread per bin adds the block's counts to the global histogram");
  using Load = cub::BlockLoad<unsigned char, BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Hist = cub::BlockHistogram<unsigned char, BLOCK, ITEMS, BINS, ALGORITHM>;
  __shared__ typename Hist::TempStorage temp;
  __shared__ unsigned counts[BINS];
  unsigned char samples[ITEMS];
  Load().Load(data + static_cast<size_t>(blockIdx.x) * BLOCK * ITEMS, samples);
  Hist(temp).Histogram(samples, counts);
  __syncthreads();
  atomicAdd(hist + threadIdx.x, counts[threadIdx.x]);
}

extern "C" __global__ void histogram_sort_u8(const unsigned char* data, unsigned* hist)
{
  histogram_u8<cub::BLOCK_HISTO_SORT>(data, hist);
}

extern "C" __global__ void histogram_atomic_u8(const unsigned char* data, unsigned* hist)
{
  histogram_u8<cub::BLOCK_HISTO_ATOMIC>(data, hist);
}

// Median over `reps` of the mean time of BATCH back-to-back launches (as run.py measures the
// Python kernels, whose per-launch host overhead is then hidden behind the GPU work).
constexpr int BATCH = 10;

template <class Launch>
static float median_ms(Launch launch, int reps)
{
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i) { launch(); }
  CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(start));
    for (int b = 0; b < BATCH; ++b) { launch(); }
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms / BATCH);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv)
{
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  const int reps  = argc > 2 ? std::atoi(argv[2]) : 50;
  const size_t n  = size_t{1} << log2n;
  const unsigned tiles = static_cast<unsigned>(n / (BLOCK * ITEMS));

  std::vector<float> hf(n);
  std::vector<int> hi(n);
  std::vector<unsigned char> hb(n);
  for (size_t i = 0; i < n; ++i) {
    hf[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    hi[i] = static_cast<int>((i * 2654435761u) % 7) - 3;
    hb[i] = static_cast<unsigned char>(((i * 2654435761u) >> 16) & 255u);  // as run.py's bytes
  }
  float *xf, *pf;
  int *xi, *yi;
  CHECK(cudaMalloc(&xf, n * sizeof(float)));
  CHECK(cudaMalloc(&pf, tiles * sizeof(float)));
  CHECK(cudaMalloc(&xi, n * sizeof(int)));
  CHECK(cudaMalloc(&yi, n * sizeof(int)));
  CHECK(cudaMemcpy(xf, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(xi, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int* xe;  // exchange input: 0, 1, 2, ... so any wrong permutation shows
  unsigned char* xb;
  unsigned* hist;
  std::vector<int> he(n);
  for (size_t i = 0; i < n; ++i) { he[i] = static_cast<int>(i); }
  CHECK(cudaMalloc(&xe, n * sizeof(int)));
  CHECK(cudaMalloc(&xb, n));
  CHECK(cudaMalloc(&hist, BINS * sizeof(unsigned)));
  CHECK(cudaMemcpy(xe, he.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(xb, hb.data(), n, cudaMemcpyHostToDevice));

  const float sum_ms  = median_ms([&] { tile_sum_f32<<<tiles, BLOCK>>>(xf, pf); }, reps);
  const float scan_ms = median_ms([&] { tile_inclusive_sum_i32<<<tiles, BLOCK>>>(xi, yi); }, reps);
  CHECK(cudaGetLastError());
  // The scan's output is read now: the exchange below reuses yi.
  std::vector<int> scanned(BLOCK * ITEMS);
  CHECK(cudaMemcpy(scanned.data(), yi, scanned.size() * sizeof(int), cudaMemcpyDeviceToHost));
  // The exchange and histograms are checked after one clean launch each, then timed.
  std::vector<unsigned> expect_hist(BINS, 0);
  for (size_t i = 0; i < n; ++i) { ++expect_hist[hb[i]]; }
  std::vector<int> copied(n);
  std::vector<unsigned> got_hist(BINS);
  CHECK(cudaMemset(yi, 0, n * sizeof(int)));
  exchange_b2s_i32<<<tiles, BLOCK>>>(xe, yi);
  CHECK(cudaMemcpy(copied.data(), yi, n * sizeof(int), cudaMemcpyDeviceToHost));
  const bool exchange_ok = copied == he;
  CHECK(cudaMemset(hist, 0, BINS * sizeof(unsigned)));
  histogram_sort_u8<<<tiles, BLOCK>>>(xb, hist);
  CHECK(cudaMemcpy(got_hist.data(), hist, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const bool hist_sort_ok = got_hist == expect_hist;
  CHECK(cudaMemset(hist, 0, BINS * sizeof(unsigned)));
  histogram_atomic_u8<<<tiles, BLOCK>>>(xb, hist);
  CHECK(cudaMemcpy(got_hist.data(), hist, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const bool hist_atomic_ok = got_hist == expect_hist;
  const float exchange_ms    = median_ms([&] { exchange_b2s_i32<<<tiles, BLOCK>>>(xe, yi); }, reps);
  const float hist_sort_ms   = median_ms([&] { histogram_sort_u8<<<tiles, BLOCK>>>(xb, hist); }, reps);
  const float hist_atomic_ms = median_ms([&] { histogram_atomic_u8<<<tiles, BLOCK>>>(xb, hist); }, reps);
  CHECK(cudaGetLastError());

  // Spot checks against the host, so a wrong twin cannot pass as fast.
  std::vector<float> partial(tiles);
  CHECK(cudaMemcpy(partial.data(), pf, tiles * sizeof(float), cudaMemcpyDeviceToHost));
  double expect = 0;
  for (int i = 0; i < BLOCK * ITEMS; ++i) { expect += hf[i]; }
  int running = 0;
  bool scan_ok = true;
  for (int i = 0; i < BLOCK * ITEMS; ++i) { running += hi[i]; scan_ok &= scanned[i] == running; }
  const bool sum_ok = std::abs(partial[0] - expect) <= 1e-3 * std::max(1.0, std::abs(expect));

  std::printf("{\"kernel\": \"tile_sum_f32\", \"median_ms\": %.5f, \"ok\": %s}\n", sum_ms, sum_ok ? "true" : "false");
  std::printf("{\"kernel\": \"tile_inclusive_sum_i32\", \"median_ms\": %.5f, \"ok\": %s}\n", scan_ms,
              scan_ok ? "true" : "false");
  std::printf("{\"kernel\": \"exchange_b2s_i32\", \"median_ms\": %.5f, \"ok\": %s}\n", exchange_ms,
              exchange_ok ? "true" : "false");
  std::printf("{\"kernel\": \"histogram_sort_u8\", \"median_ms\": %.5f, \"ok\": %s}\n", hist_sort_ms,
              hist_sort_ok ? "true" : "false");
  std::printf("{\"kernel\": \"histogram_atomic_u8\", \"median_ms\": %.5f, \"ok\": %s}\n", hist_atomic_ms,
              hist_atomic_ok ? "true" : "false");
  return (sum_ok && scan_ok && exchange_ok && hist_sort_ok && hist_atomic_ok) ? 0 : 1;
}
