// Hand-written CUB C++ twins of the cuda-coop benchmark kernels (benchmarks/run.py builds this
// with nvcc against the CCCL that cuda-coop bundles and runs it in the same session).
//   usage: cub_twins <log2 n> <repetitions>   prints one JSON object per kernel
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
  for (size_t i = 0; i < n; ++i) {
    hf[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    hi[i] = static_cast<int>((i * 2654435761u) % 7) - 3;
  }
  float *xf, *pf;
  int *xi, *yi;
  CHECK(cudaMalloc(&xf, n * sizeof(float)));
  CHECK(cudaMalloc(&pf, tiles * sizeof(float)));
  CHECK(cudaMalloc(&xi, n * sizeof(int)));
  CHECK(cudaMalloc(&yi, n * sizeof(int)));
  CHECK(cudaMemcpy(xf, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(xi, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  const float sum_ms  = median_ms([&] { tile_sum_f32<<<tiles, BLOCK>>>(xf, pf); }, reps);
  const float scan_ms = median_ms([&] { tile_inclusive_sum_i32<<<tiles, BLOCK>>>(xi, yi); }, reps);
  CHECK(cudaGetLastError());

  // Spot checks against the host, so a wrong twin cannot pass as fast.
  std::vector<float> partial(tiles);
  std::vector<int> scanned(BLOCK * ITEMS);
  CHECK(cudaMemcpy(partial.data(), pf, tiles * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(scanned.data(), yi, scanned.size() * sizeof(int), cudaMemcpyDeviceToHost));
  double expect = 0;
  for (int i = 0; i < BLOCK * ITEMS; ++i) { expect += hf[i]; }
  int running = 0;
  bool scan_ok = true;
  for (int i = 0; i < BLOCK * ITEMS; ++i) { running += hi[i]; scan_ok &= scanned[i] == running; }
  const bool sum_ok = std::abs(partial[0] - expect) <= 1e-3 * std::max(1.0, std::abs(expect));

  std::printf("{\"kernel\": \"tile_sum_f32\", \"median_ms\": %.5f, \"ok\": %s}\n", sum_ms, sum_ok ? "true" : "false");
  std::printf("{\"kernel\": \"tile_inclusive_sum_i32\", \"median_ms\": %.5f, \"ok\": %s}\n", scan_ms,
              scan_ok ? "true" : "false");
  return (sum_ok && scan_ok) ? 0 : 1;
}
