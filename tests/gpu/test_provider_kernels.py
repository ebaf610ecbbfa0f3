"""Provider wrappers on the GPU, without a DSL: a CUDA C++ kernel linked with a provider's LTO-IR.

One kernel loops over several tiles per block and calls ten wrappers of one provider in every
iteration, so every call site reuses the shared temporary storage many times: block-scope sites
(transposing load/store, reductions, scans with a block aggregate and with a prefix callback),
warp-scope sites of three logical widths, a user operator, a user type (pointer ABI) and float16
(pointer ABI). Wrong barriers or a wrong storage layout show up as wrong results here, and as
hazards under ``compute-sanitizer --tool racecheck``. Results are checked against NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider
from cuda.coop._provider._nvrtc import _compile
from cuda.coop._specs import Request, UserCallback, UserOp, user_type

IPT = 4
TILES = 3

KERNEL = r"""
#include <cuda_fp16.h>
struct Pair { int a; int b; };
extern "C" __device__ int running_total(void* state, int aggregate)
{
  int* total = static_cast<int*>(state);
  const int before = *total;
  *total += aggregate;
  return before;
}
extern "C" __device__ void pair_add(Pair* out, const Pair* x, const Pair* y)
{
  out->a = x->a + y->a;
  out->b = x->b > y->b ? x->b : y->b;
}
extern "C" __device__ int my_max(int a, int b) { return a > b ? a : b; }

extern "C" __device__ void LOAD(const int* src, int* items);
extern "C" __device__ int SUM(int* items);
extern "C" __device__ void EXSUM(int* input, int* output, int* block_aggregate);
extern "C" __device__ int PREFIX(int input, void* prefix_callback);
extern "C" __device__ void STORE(int* dst, int* items);
extern "C" __device__ int WSUM(int input);
extern "C" __device__ int WSCAN(int input);
extern "C" __device__ void WPAIR(const Pair* input, Pair* result);
extern "C" __device__ void HSUM(const __half* input, __half* result);
extern "C" __device__ int MAX(int* input);

extern "C" __global__ void k(const int* x, int* exsum, int* sums, int* aggs, int* prefix, int* wsum, int* wscan,
                             const Pair* pairs, Pair* wpairs, const __half* h, float* hsum, int* maxes)
{
  const int threads = blockDim.x * blockDim.y * blockDim.z;
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int running = 0;
  for (int t = 0; t < TILES; ++t)
  {
    const int tile = blockIdx.x * TILES + t;
    const int base = tile * threads * IPT;
    const int g = tile * threads + tid;
    int items[IPT];
    int scan[IPT];
    int agg;
    LOAD(x + base, items);
    const int s = SUM(items);
    EXSUM(items, scan, &agg);
    STORE(exsum + base, scan);
    prefix[g] = PREFIX(items[0], &running);
    const int w = WSUM(items[1]);
    wscan[g] = WSCAN(items[2]);
    Pair p = pairs[g];
    Pair r;
    WPAIR(&p, &r);
    __half hv = h[g];
    __half hr;
    HSUM(&hv, &hr);
    const int m = MAX(items);
    if (tid % 32 == 0) wsum[g / 32] = w;
    if (tid % 8 == 0) wpairs[g / 8] = r;
    if (tid == 0)
    {
      sums[tile] = s;
      aggs[tile] = agg;
      hsum[tile] = __half2float(hr);
      maxes[tile] = m;
    }
  }
}
"""

NAMES = ("LOAD", "SUM", "EXSUM", "PREFIX", "STORE", "WSUM", "WSCAN", "WPAIR", "HSUM", "MAX")


def _requests() -> list[Request]:
    arr = {"dtype": "int32", "items_per_thread": IPT}
    return [
        Request("block_load", "load", "full", algorithm="transpose", **arr),
        Request("block_reduce", "sum", "array", algorithm="raking", **arr),
        Request("block_scan", "exclusive_sum", "array_aggregate", algorithm="warp_scans", **arr),
        Request(
            "block_scan", "inclusive_sum", "scalar_prefix", dtype="int32", prefix_op=UserCallback("running_total")
        ),
        Request("block_store", "store", "full", algorithm="warp_transpose", **arr),
        Request("warp_reduce", "sum", "scalar", dtype="int32"),
        Request("warp_scan", "inclusive_sum", "scalar", dtype="int32", threads=16),
        Request(
            "warp_reduce", "reduce", "scalar", dtype=user_type(8, 4), threads=8, op=UserOp("pair_add")
        ),
        Request("block_reduce", "sum", "scalar", dtype="float16"),
        Request("block_reduce", "reduce", "array", op=UserOp("my_max"), **arr),
    ]


def build(block: tuple[int, int, int]) -> bytes:
    """The linked cubin for ``block`` (works without a GPU)."""
    from cuda.bindings import nvjitlink

    provider = Provider(
        _requests(), block_dim=block, arch="sm_90", compiler=NvrtcCompiler(pch=False), cache=MemoryCache()
    )
    source = KERNEL.replace("TILES", str(TILES)).replace("IPT", str(IPT))
    for name, sig in zip(NAMES, provider.symbols, strict=True):
        source = source.replace(f" {name}(", f" {sig.symbol}(")
    kernel, log, _ = _compile(source, provider.options, "kernel.cu")
    assert kernel is not None, log
    handle = nvjitlink.create(2, ["-arch=sm_90", "-lto"])
    try:
        for name, data in (("kernel", kernel), ("provider", provider.ltoir())):
            nvjitlink.add_data(handle, nvjitlink.InputType.LTOIR, data, len(data), name)
        nvjitlink.complete(handle)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
    finally:
        nvjitlink.destroy(handle)
    return bytes(cubin)


def _expected(x: np.ndarray, pairs: np.ndarray, h: np.ndarray, threads: int, blocks: int) -> dict[str, np.ndarray]:
    tiles = x.reshape(blocks * TILES, threads, IPT).astype(np.int64)
    flat = tiles.reshape(blocks * TILES, threads * IPT)
    exsum = (np.cumsum(flat, axis=1) - flat).astype(np.int32).reshape(-1)
    first = tiles[:, :, 0].reshape(blocks, TILES * threads)
    prefix = np.cumsum(first, axis=1).astype(np.int32).reshape(-1)
    pa = pairs["a"].reshape(-1, 8).sum(axis=1).astype(np.int32)
    pb = pairs["b"].reshape(-1, 8).max(axis=1)
    return {
        "exsum": exsum,
        "sums": flat.sum(axis=1).astype(np.int32),
        "aggs": flat.sum(axis=1).astype(np.int32),
        "prefix": prefix,
        "wsum": tiles[:, :, 1].reshape(-1, 32).sum(axis=1).astype(np.int32),
        "wscan": np.cumsum(tiles[:, :, 2].reshape(-1, 16), axis=1).astype(np.int32).reshape(-1),
        "wpairs_a": pa,
        "wpairs_b": pb,
        "hsum": h.astype(np.float64).reshape(blocks * TILES, threads).sum(axis=1),
        "maxes": flat.max(axis=1).astype(np.int32),
    }


def _pointer(array) -> np.uint64:
    """A device array's address, as cuda.core passes a pointer argument (by value)."""
    return np.uint64(array.__cuda_array_interface__["data"][0])


@pytest.mark.parametrize("block", [(128, 1, 1), (16, 8, 1), (8, 4, 4)], ids=str)
def test_provider_kernel_on_the_gpu(block: tuple[int, int, int], rng: np.random.Generator) -> None:
    """Loaded and launched through cuda.core (the extra's), with numba-cuda-mlir's device arrays: no CuPy."""
    from cuda.core import Device, LaunchConfig, ObjectCode, launch
    from numba_cuda_mlir import cuda

    threads, blocks = block[0] * block[1] * block[2], 20
    n = blocks * TILES * threads
    x = rng.integers(-1000, 1000, n * IPT, dtype=np.int32)
    pair_t = np.dtype([("a", np.int32), ("b", np.int32)])
    pairs = np.empty(n, pair_t)
    pairs["a"] = rng.integers(-50, 50, n)
    pairs["b"] = rng.integers(-(10**6), 10**6, n)
    h = rng.uniform(-1, 1, n).astype(np.float16)

    device = Device()
    device.set_current()
    kernel = ObjectCode.from_cubin(build(block)).get_kernel("k")
    d = {
        name: cuda.to_device(np.full(size, -7, dtype))
        for name, size, dtype in (
            ("exsum", n * IPT, np.int32),
            ("sums", blocks * TILES, np.int32),
            ("aggs", blocks * TILES, np.int32),
            ("prefix", n, np.int32),
            ("wsum", n // 32, np.int32),
            ("wscan", n, np.int32),
            ("wpairs", (n // 8) * 2, np.int32),
            ("hsum", blocks * TILES, np.float32),
            ("maxes", blocks * TILES, np.int32),
        )
    }
    inputs = {"x": cuda.to_device(x), "pairs": cuda.to_device(pairs.view(np.int32)), "h": cuda.to_device(h)}
    order = ("x", "exsum", "sums", "aggs", "prefix", "wsum", "wscan", "pairs", "wpairs", "h", "hsum", "maxes")
    arrays = {**inputs, **d}
    cuda.synchronize()  # the copies above are done before cuda.core's stream runs the kernel
    stream = device.create_stream()
    launch(stream, LaunchConfig(grid=blocks, block=block), kernel, *(_pointer(arrays[k]) for k in order))
    stream.sync()
    got = {k: v.copy_to_host() for k, v in d.items()}
    want = _expected(x, pairs, h, threads, blocks)
    for name in ("exsum", "sums", "aggs", "prefix", "wsum", "wscan", "maxes"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    wp = got["wpairs"].reshape(-1, 2)
    np.testing.assert_array_equal(wp[:, 0], want["wpairs_a"], err_msg="wpairs.a")
    np.testing.assert_array_equal(wp[:, 1], want["wpairs_b"], err_msg="wpairs.b")
    np.testing.assert_allclose(got["hsum"], want["hsum"], atol=0.05 * np.sqrt(threads), err_msg="hsum")
