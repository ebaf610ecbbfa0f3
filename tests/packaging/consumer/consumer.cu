// Compiles only against the CCCL that find_package(CCCL) found: the bundle's, not the toolkit's.
#include <cub/block/block_reduce.cuh>
#include <cuda/std/version>
#include <thrust/version.h>

static_assert(CCCL_VERSION == FOUND_CCCL_VERSION, "these CCCL headers are not the package's (the CUDA toolkit's won?)");

__global__ void block_sum(const int* in, int* out)
{
  using BlockReduce = cub::BlockReduce<int, 128>;
  __shared__ typename BlockReduce::TempStorage temp;
  const int total = BlockReduce(temp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
  if (threadIdx.x == 0)
  {
    out[blockIdx.x] = total;
  }
}

int main()
{
  return 0;
}
