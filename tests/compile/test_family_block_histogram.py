"""``cub::BlockHistogram`` through real NVRTC and through the numba-cuda-mlir DSL, for sm_90 (no GPU).

Every method x algorithm x (sample, counter) type compiles to LTO-IR; kernels with shared and global
counters compile in 1-D/2-D/3-D blocks with inlined wrappers (no CALL, no local memory); misuse is a
UsageError naming the argument and the call's file:line; the GPU tier's kernels compile.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import Request
from cuda.coop.errors import CompileError, UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_block_histogram as sanitizer
from tests.gpu import test_family_block_histogram as gpu
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.nvrtc import compile_requests
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import block_rank, covering

TYPES = [("uint8", "uint32"), ("uint16", "uint64"), ("int32", "int32"), ("int8", "int64"), ("uint64", "uint16")]
ATOMIC_COUNTERS = ("int32", "uint32", "uint64")


@pytest.mark.parametrize("block", [(128,), (33,), (4, 4, 4)], ids=["128", "33", "4x4x4"])
def test_every_method_algorithm_and_type_compiles_with_nvrtc(
    block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """One provider (one NVRTC call) per block shape holding every combination."""
    requests = [
        Request("block_histogram", method, "array", dtype=dtype, counter_type=counter, items_per_thread=ipt,
                bins=bins, algorithm=algorithm)
        for method in ("histogram", "histogram_composite")
        for algorithm in ("sort", "atomic")
        for (dtype, counter), ipt, bins in zip(TYPES, (1, 4, 3, 2, 5), (256, 1000, 37, 100, 4000), strict=True)
        if algorithm == "sort" or counter in ATOMIC_COUNTERS
    ]
    p = compile_requests(requests, toolchain, compiler, block)
    assert p.source.count(".Histogram(samples_in, counters);") == p.source.count(".Composite(samples_in, counters);")


@pytest.mark.parametrize(("dtype", "block", "most"), [("uint16", (128,), 6080), ("uint64", (4, 4, 4), 6016)])
def test_most_sort_bins_the_constraint_allows_compile(
    dtype: str, block: tuple[int, ...], most: int, toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """The refusal of too many bins is exact: the largest count it allows fits (the unit tier refuses one more)."""
    request = Request("block_histogram", "histogram", "array", dtype=dtype, counter_type="uint32", items_per_thread=4,
                      bins=most)
    compile_requests([request], toolchain, compiler, block)


BINS = 256
ITEMS = 4


@cuda.jit
def shared_and_global(x, block_counts, totals):
    samples = cuda.local.array(ITEMS, np.uint8)
    counters = cuda.shared.array(BINS, np.uint32)
    tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    threads = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
    base = (cuda.blockIdx.x * threads + tid) * ITEMS
    for i in range(ITEMS):
        samples[i] = x[base + i]
    coop.block.histogram(samples, counters, bins=BINS)
    coop.block.histogram_composite(samples, counters, bins=BINS, algorithm="atomic")
    coop.block.histogram(samples, block_counts[cuda.blockIdx.x], bins=BINS, algorithm="atomic")
    coop.block.histogram_composite(samples, block_counts[cuda.blockIdx.x], bins=BINS)
    cuda.syncthreads()
    b = tid
    while b < BINS:  # no range() with a runtime step: its trip count divides in 64 bits (a CALL in SASS)
        cuda.atomic.add(totals, b, counters[b])
        b += threads


SIG = (types.uint8[::1], types.uint32[:, ::1], types.uint32[::1])


@pytest.mark.parametrize("block", [(128,), (16, 8), (4, 4, 4)], ids=["1d", "2d", "3d"])
def test_kernel_compiles_inlined(block: tuple[int, ...]) -> None:
    compiled = compile_kernel(shared_and_global, SIG, block=block)
    assert_inlined(compiled)
    assert "call." not in compiled.ptx


COVERING = covering([(case, pair) for case in gpu.CASES for pair in case.pairs], lambda cp: cp[0].block,
                    lambda cp: cp[0].ipt, lambda cp: cp[1].dtype, lambda cp: cp[1].counter, lambda cp: cp[1].bins,
                    lambda cp: [k for k in ("sort", "atomic") if getattr(cp[1], k)])
"""Every block shape, item count, sample and counter type, bin count and algorithm of the GPU tier's pairs, each
pair a kernel of its own (the GPU tier's 21 kernels hold every pair their shape allows)."""


@pytest.mark.parametrize("case_pair", COVERING, ids=lambda cp: f"{cp[0].id}-{cp[1].dtype}-{cp[1].counter}")
def test_gpu_tier_kernels_compile(case_pair: tuple[gpu.Case, gpu.Pair]) -> None:
    case, pair = case_pair
    compiled = compile_kernel(gpu.make_kernel(case, (pair,)), gpu.signature(case, (pair,)), block=case.block)
    assert_inlined(compiled, spills=True)  # 64 registers a thread at 1024 threads; 16 samples a thread need more


NUMBA_CUDA_COVERING = covering(COVERING, lambda cp: block_rank(cp[0]), lambda cp: cp[0].ipt,
                               lambda cp: [k for k in ("sort", "atomic") if getattr(cp[1], k)])
"""The same kernels' sources under numba-cuda: every block rank, item count and algorithm."""


@pytest.mark.parametrize("case_pair", NUMBA_CUDA_COVERING, ids=lambda cp: f"{cp[0].id}-{cp[1].dtype}-{cp[1].counter}")
def test_gpu_tier_kernels_compile_under_numba_cuda(case_pair: tuple[gpu.Case, gpu.Pair]) -> None:
    case, pair = case_pair
    kernel = gpu.make_kernel(case, (pair,), dsl=NUMBA_CUDA)
    compiled = NUMBA_CUDA.compile_kernel(kernel, gpu.signature(case, (pair,), dsl=NUMBA_CUDA), block=case.block)
    assert_inlined(compiled, spills=True)


def test_gpu_tier_covers_every_block_item_count_and_type() -> None:
    """The full product: 7 blocks x items 1, 4, 16 x every type pair, each with every algorithm it allows; only
    the sorts refused at compile time (below) are left out."""
    assert {(c.block, c.ipt) for c in gpu.CASES} == {(b, i) for b in gpu.BLOCKS for i in gpu.ITEMS}
    assert {(1024, 1, 1), (256, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4)} <= set(gpu.BLOCKS) and 16 in gpu.ITEMS
    assert {d for d, _, _ in gpu.TYPES} == {f"{k}{w}" for k in ("int", "uint") for w in (8, 16, 32, 64)}
    assert len({c for _, c, _ in gpu.TYPES}) >= 7
    for case in gpu.CASES:
        by_types = {(p.dtype, p.counter, p.bins): p for p in case.pairs}
        for dtype, counter, bins in gpu.TYPES:
            pair = by_types.get((dtype, counter, bins))
            sorts, atomic = case.sorts(dtype), counter in gpu.ATOMIC_COUNTERS
            assert (pair.sort, pair.atomic) == (sorts, atomic) if pair else not (sorts or atomic), (case.id, dtype)
    refused = [(c.id, p) for c in gpu.CASES for p in gpu.TYPES if not c.sorts(p[0])]
    assert {cid for cid, _ in refused} == {"1024x1x1-ipt16"}


def _sorted_tile(dtype: str):  # type: ignore[no-untyped-def]
    DT = getattr(np, dtype)

    @cuda.jit
    def kernel(x, counters):
        samples = cuda.local.array(16, DT)
        for i in range(16):
            samples[i] = x[cuda.threadIdx.x * 16 + i]
        coop.block.histogram(samples, counters, bins=37, algorithm="sort")

    return kernel


@pytest.mark.parametrize("dtype", [d for d, _, _ in gpu.TYPES if np.dtype(d).itemsize >= 4])
def test_a_sorted_tile_over_the_shared_memory_is_refused(dtype: str) -> None:
    """1024 threads x 16 samples of 4 or 8 bytes: the GPU tier runs only "atomic" for those there, because CUB's sort
    storage for the tile is over the 48 KiB a block may have; this is the documented error."""
    case = next(c for c in gpu.CASES if c.block == (1024, 1, 1) and c.ipt == 16)
    assert not case.sorts(dtype) and not any(p.sort for p in case.pairs if p.dtype == dtype)
    sig = (getattr(types, dtype)[::1], types.uint32[::1])
    with pytest.raises(CompileError, match=r"static assertion failed.*exceeds the 48 KiB of static shared memory"):
        compile_kernel(_sorted_tile(dtype), sig, block=(1024,))


BINS_INIT = 300


@cuda.jit
def init_then_tiles(x, out, tiles):
    """histogram_init once, then a runtime number of tiles (maybe none) added with histogram_composite."""
    samples = cuda.local.array(ITEMS, np.int16)
    counters = cuda.shared.array(BINS_INIT + 4, np.uint16)
    tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    threads = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
    coop.block.histogram_init(counters, bins=BINS_INIT)
    cuda.syncthreads()
    for t in range(tiles):
        for i in range(ITEMS):
            samples[i] = x[(t * threads + tid) * ITEMS + i]
        coop.block.histogram_composite(samples, counters, bins=BINS_INIT, algorithm="sort")
    cuda.syncthreads()
    b = tid
    while b < BINS_INIT:
        out[b] = counters[b]
        b += threads


@pytest.mark.parametrize("block", [(128,), (33,), (16, 8), (4, 4, 4)], ids=["128", "33", "2d", "3d"])
def test_init_kernel_compiles_inlined(block: tuple[int, ...]) -> None:
    compiled = compile_kernel(init_then_tiles, (types.int16[::1], types.uint16[::1], types.int32), block=block)
    assert_inlined(compiled)


COUNTERS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


@pytest.mark.parametrize("block", [(33,), (16, 8), (4, 4, 4), (1024,)], ids=["33", "2d", "3d", "1024"])
def test_init_compiles_for_every_counter_type(
    block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """One provider per block (not multiples of 32, and 1024 threads): init of every counter type and a few bins."""
    requests = [Request("block_histogram", "histogram_init", "init", dtype=counter, bins=bins)
                for counter in COUNTERS for bins in (1, 33, 4096)]
    p = compile_requests(requests, toolchain, compiler, block)
    assert p.source.count(".InitHistogram(counters);") == len(requests) == p.source.count("BLOCK_HISTO_ATOMIC, ")


@pytest.mark.parametrize("block", sanitizer.BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_sanitizer_kernel_compiles(block: tuple[int, int, int]) -> None:
    threads = block[0] * block[1] * block[2]
    sig = (types.uint16[::1], types.uint32[::1])
    assert_inlined(compile_kernel(sanitizer.kernel_for(threads), sig, block=block), local=True)


# --- misuse ------------------------------------------------------------------------------------------------------


@cuda.jit
def float_samples(x, counters):
    samples = cuda.local.array(2, np.float32)
    samples[0] = x[0]
    coop.block.histogram(samples, counters, bins=16)


@cuda.jit
def float_counters(x, counters):
    samples = cuda.local.array(2, np.uint8)
    samples[0] = x[0]
    coop.block.histogram(samples, counters, bins=16)


@cuda.jit
def wide_atomic_counters(x, counters):
    samples = cuda.local.array(2, np.uint8)
    samples[0] = x[0]
    coop.block.histogram_composite(samples, counters, bins=16, algorithm="atomic")


@cuda.jit
def no_bins(x, counters):
    samples = cuda.local.array(2, np.uint8)
    samples[0] = x[0]
    coop.block.histogram(samples, counters)


@cuda.jit
def runtime_bins(x, counters):
    samples = cuda.local.array(2, np.uint8)
    samples[0] = x[0]
    coop.block.histogram(samples, counters, bins=x.shape[0])


@cuda.jit
def global_samples(x, counters):
    coop.block.histogram(x, counters, bins=16)


@cuda.jit
def two_d_counters(x, counters):
    samples = cuda.local.array(2, np.uint8)
    samples[0] = x[0]
    coop.block.histogram(samples, counters, bins=16)


@cuda.jit
def too_many_sort_bins(x, counters):
    samples = cuda.local.array(2, np.uint16)
    samples[0] = x[0]
    coop.block.histogram(samples, counters, bins=8000, algorithm="sort")  # "auto" would pick "atomic"


@cuda.jit
def init_float_counters(x, counters):
    coop.block.histogram_init(counters, bins=16)


@cuda.jit
def init_with_samples(x, counters):
    samples = cuda.local.array(2, np.uint8)
    samples[0] = x[0]
    coop.block.histogram_init(samples, counters, bins=16)


@cuda.jit
def init_with_algorithm(x, counters):
    coop.block.histogram_init(counters, bins=16, algorithm="sort")


@cuda.jit
def init_runtime_bins(x, counters):
    coop.block.histogram_init(counters, bins=x.shape[0])


U8, U32 = types.uint8[::1], types.uint32[::1]


@pytest.mark.parametrize(
    ("kernel", "sig", "pattern"),
    [
        (float_samples, (types.float32[::1], U32), r"samples= holds float32; it must hold signed integer or unsigned"),
        (float_counters, (U8, types.float32[::1]), r"counters= holds float32; it must hold signed integer or unsigned"),
        (wide_atomic_counters, (U8, types.int64[::1]),
         r"histogram_composite\(\) at .*:\d+: .*algorithm='atomic' adds with atomicAdd_block.*counters= holds int64"),
        (no_bins, (U8, U32), r"histogram\(\) at .*:\d+: bins= is required and keyword-only: "
         r"coop\.block\.histogram\(samples, counters, bins=bins\)"),
        (runtime_bins, (U8, U32), r"bins= must be a compile-time constant"),
        (global_samples, (U8, U32), r"samples= must be this thread's own cuda.local.array"),
        (two_d_counters, (U8, types.uint32[:, ::1]), r"counters= must be a 1-D C-contiguous array"),
        (too_many_sort_bins, (types.uint16[::1], U32), r"'sort' keeps 8 bytes of shared memory per bin.*8000"),
        (init_float_counters, (U8, types.float32[::1]), r"histogram_init\(\) at .*:\d+: counters= holds float32"),
        (init_with_samples, (U8, U32), r"histogram_init\(\) at .*:\d+: 2 positional arguments, but it takes 1 "
         r"\(counters\); pass the others by keyword \(bins=\)"),
        (init_with_algorithm, (U8, U32), r"histogram_init\(\) at .*:\d+: no parameter 'algorithm'"),
        (init_runtime_bins, (U8, U32), r"bins= must be a compile-time constant"),
    ],
    ids=lambda v: v.py_func.__name__ if hasattr(v, "py_func") else None,
)
def test_misuse_is_a_usage_error(kernel, sig, pattern: str) -> None:
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=(64,))
    message = str(info.value)
    assert re.search(pattern, message), message
    assert "test_family_block_histogram.py:" in message
