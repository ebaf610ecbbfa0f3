// Proves at compile time that the bundle's CCCL, not the CUDA toolkit's, was used.
#include <cub/block/block_reduce.cuh>
#include <cuda/std/version>
#include <thrust/version.h>

static_assert(CCCL_VERSION == EXPECTED_CCCL_VERSION, "the CUDA toolkit's CCCL was picked up instead of the bundle's");

__global__ void block_sum(const int* in, int* out)
{
  using BlockReduce = cub::BlockReduce<int, 128>;
  __shared__ typename BlockReduce::TempStorage temp;
  int total = BlockReduce(temp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) { *out = total; }
}

int main() { return 0; }
