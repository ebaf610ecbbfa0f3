"""Tile sums with cuda-coop: each block loads a tile and sums it with CUB.

With a GPU it launches the kernel and checks the result against NumPy; without one it compiles
the kernel for sm_90 and says what was compiled (nothing is launched).
"""

from __future__ import annotations

import sys

import numpy as np

# example-begin quickstart
from numba_cuda_mlir import cuda

import cuda.coop as coop

THREADS = 256
ITEMS = 16
TILE = THREADS * ITEMS


@cuda.jit
def tile_sums(x, partial):
    items = cuda.local.array(ITEMS, np.float32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * TILE, algorithm="transpose")
    total = coop.block.sum(items)  # cub::BlockReduce<float, 256>::Sum, valid in thread 0
    if cuda.threadIdx.x == 0:
        partial[cuda.blockIdx.x] = total
# example-end quickstart


def run_on_gpu(tiles: int = 1024) -> bool:
    rng = np.random.default_rng()
    x = rng.uniform(-1.0, 1.0, tiles * TILE).astype(np.float32)
    partial = cuda.to_device(np.full(tiles, np.nan, np.float32))
    tile_sums[tiles, THREADS](cuda.to_device(x), partial)  # the block shape (256,) comes from the launch
    got = partial.copy_to_host()
    expected = x.reshape(tiles, TILE).astype(np.float64).sum(axis=1)
    ok = bool(np.allclose(got, expected, rtol=1e-5, atol=1e-3))
    print(f"tile_sums: {tiles} tiles of {TILE} float32, max |error| {np.abs(got - expected).max():.2e}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from numba_cuda_mlir.numba_cuda import types

    from cuda.coop.numba_mlir import compile_kernel

    compiled = compile_kernel(tile_sums, (types.float32[::1], types.float32[::1]), block=THREADS, arch="sm_90")
    usage = compiled.resource_usage()
    sass = compiled.sass()
    print("No GPU here: compiled tile_sums for sm_90 with block (256, 1, 1); not launched.")
    print(f"  cubin {len(compiled.cubin)} bytes; {usage.get('reg', 0)} registers/thread; "
          f"{usage.get('local', 0)} bytes local memory")
    print(f"  shared memory per block: {compiled.shared_memory_bytes} bytes static (cuda-coop's storage and the "
          f"kernel's shared arrays), {compiled.launch_shared_memory_bytes} bytes at launch (with the 1 KiB the "
          "driver reserves)")
    calls = sum(" CALL" in line for line in sass.splitlines())
    print(f"  SASS: {len(sass.splitlines())} lines, {calls} calls (CUB wrappers are inlined by LTO)")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
