"""``coop.block.radix_sort`` / ``argsort`` / ``top_k`` / ``radix_rank`` through real NVRTC and through the
numba-cuda-mlir DSL, for sm_90 (no GPU).

Every overload x direction x output x key dtype compiles to LTO-IR; a kernel calling all three primitives
compiles in 1-D/2-D/3-D blocks with inlined wrappers (no CALL, no local memory); misuse is a UsageError
naming the argument and the call's file:line; the GPU tier's kernels compile and cover its axes.
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import DEFAULT, Request, get_primitive
from cuda.coop._specs._support import support_matrix
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_block_radix_sort as sanitizer
from tests.gpu import test_family_block_radix_sort as gpu
from tests.gpu import test_radix_sort_half as half
from tests.helpers import requires
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.nvrtc import compile_requests
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import block_rank, covering

KEYS = ("int8", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32", "float64")


def _requests() -> list[Request]:
    result = []
    for n, (key, descending, output) in enumerate(itertools.product(KEYS, (False, True), ("blocked", "striped"))):
        ipt = (1, 4, 3, 8)[n % 4]
        value = ("int32", "float64", "uint8", "float16", "complex64", "bool", "bfloat16", "complex128")[n % 8]
        bits = {"begin_bit": DEFAULT, "end_bit": DEFAULT} if n % 2 else {}
        common = {"dtype": key, "items_per_thread": ipt, **bits}
        result.append(Request("block_radix_sort", "radix_sort", "keys", descending=descending, output=output,
                              **common))
        result.append(Request("block_radix_sort", "radix_sort", "pairs", descending=descending, output=output,
                              value_type=value, **common))
        result.append(Request("block_argsort", "argsort", "pairs", descending=descending, output=output,
                              index_type=("int32", "int64", "uint32", "uint16")[n % 4], base=DEFAULT, **common))
        top = {"dtype": key, "items_per_thread": ipt, "largest": descending, "count_type": "int64",
               "offset": DEFAULT}
        result.append(Request("block_top_k", "top_k", "pairs" if output == "striped" else "keys",
                              **({"value_type": value} if output == "striped" else {}), **top))
    return result


@pytest.mark.parametrize("block", [(128,), (33,), (4, 4, 4)], ids=["128", "33", "4x4x4"])
def test_every_overload_direction_output_and_key_type_compiles_with_nvrtc(
    block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """One provider (one NVRTC call) per block shape holding every combination."""
    p = compile_requests(_requests(), toolchain, compiler, block)
    for name in ("SortDescendingBlockedToStriped(", ".Sort(", "ArgsortDescending(", "TopKSmallest(", "TopKLargest("):
        assert name in p.source, name


ITEMS = 4


@cuda.jit
def every_primitive(keys_in, values_in, keys_out, index_out, top_keys, top_values, bits):
    keys = cuda.local.array(ITEMS, np.uint32)
    values = cuda.local.array(ITEMS, np.float32)
    fkeys = cuda.local.array(ITEMS, np.float32)
    index = cuda.local.array(ITEMS, np.int32)
    tile = cuda.blockIdx.x * 512
    coop.block.load(keys_in, keys, offset=tile, algorithm="direct")
    coop.block.load(values_in, values, offset=tile, algorithm="direct")
    for i in range(ITEMS):
        fkeys[i] = values[i]
    coop.block.radix_sort(keys, values=values, descending=True, output="striped", begin_bit=bits[0], end_bit=bits[1])
    coop.block.store(keys_out, keys, offset=tile, algorithm="striped")
    coop.block.argsort(fkeys, index, base=tile)
    coop.block.store(index_out, index, offset=tile, algorithm="direct")
    coop.block.top_k(keys, top_keys, k=bits[2], values=values, out_values=top_values, largest=False,
                     offset=cuda.blockIdx.x * 16)
    coop.block.radix_rank(fkeys, index, radix_bits=5, begin_bit=bits[0], descending=True, algorithm="memoize")
    coop.block.store(index_out, index, offset=tile + 512, algorithm="direct")


SIG = (types.uint32[::1], types.float32[::1], types.uint32[::1], types.int32[::1], types.uint32[::1],
       types.float32[::1], types.int32[::1])


@pytest.mark.parametrize("block", [(128,), (16, 8), (4, 4, 4)], ids=["1d", "2d", "3d"])
def test_kernel_compiles_inlined(block: tuple[int, ...]) -> None:
    compiled = compile_kernel(every_primitive, SIG, block=block)
    assert_inlined(compiled)
    assert "call." not in compiled.ptx


@cuda.jit
def match_rank(keys_in, ranks_out, prefix_out):
    keys = cuda.local.array(ITEMS, np.float64)
    ranks = cuda.local.array(ITEMS, np.int32)
    prefix = cuda.local.array(2, np.int32)
    t = cuda.threadIdx.x
    for i in range(ITEMS):
        keys[i] = keys_in[t * ITEMS + i]
    coop.block.radix_rank(keys, ranks, digit_prefix=prefix, radix_bits=8, begin_bit=56, algorithm="match")
    for i in range(ITEMS):
        ranks_out[t * ITEMS + i] = ranks[i]
    prefix_out[2 * t] = prefix[0]
    prefix_out[2 * t + 1] = prefix[1]


def test_match_rank_compiles_inlined() -> None:
    """256 digits on 128 threads: two digits a thread."""
    compiled = compile_kernel(match_rank, (types.float64[::1], types.int32[::1], types.int32[::1]), block=(128,))
    assert_inlined(compiled)


def _rank_requests(block: tuple[int, ...]) -> list[Request]:
    algorithms = ("basic", "memoize", "match") if len(block) == 1 else ("basic", "memoize")
    result = []
    for n, (key, algorithm, descending) in enumerate(itertools.product(KEYS, algorithms, (False, True))):
        radix_bits = (1, 4, 5, 6, 8)[n % 5] if algorithm == "match" else (1, 3, 4, 5)[n % 4]
        threads = math.prod(block)
        common = {"dtype": key, "items_per_thread": (1, 4, 7)[n % 3], "radix_bits": radix_bits,
                  "algorithm": algorithm, "descending": descending, "end_bit": DEFAULT}
        result.append(Request("block_radix_rank", "radix_rank", "ranks", **common))
        result.append(Request("block_radix_rank", "radix_rank", "ranks_prefix",
                              bins_per_thread=gpu.tracked(radix_bits, threads), **common))
    return result


@pytest.mark.parametrize("block", [(128,), (33,), (4, 4, 4)], ids=["128", "33", "4x4x4"])
def test_every_rank_algorithm_and_form_compiles_with_nvrtc(
    block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    p = compile_requests(_rank_requests(block), toolchain, compiler, block)
    assert bool(re.search(r"BlockRadixRankBits<[^;]*cub::RADIX_RANK_MATCH", p.source)) == (len(block) == 1)
    assert p.source.count("reinterpret_cast<int(&)[") > p.source.count(".RankKeys(")  # ranks and digit_prefix


HALF_COVERING = covering(half.CASES, "dtype", "block", "ipt", "descending", "output", "bits", "largest", "algorithm")
RANK_COVERING = covering(gpu.RANK_CASES, "dtype", "block", "ipt", "radix_bits", "descending", "algorithm",
                         lambda c: c.match)
SORT_COVERING = covering(gpu.CASES, "dtype", "values", "block", "ipt", "descending", "output", "bits", "second",
                         "index_type")
"""The GPU tier's radix sort, half-key and rank kernels the compile tier compiles: every value of every axis."""


@pytest.mark.parametrize("case", HALF_COVERING, ids=lambda c: c.id)
def test_gpu_tier_half_key_kernels_compile(case: half.Case) -> None:
    """tests/gpu/test_radix_sort_half.py's kernels: float16/bfloat16 keys through radix_sort, argsort, top_k and
    radix_rank."""
    compiled = compile_kernel(half.make_kernel(case), half.signature(case), block=case.block)
    assert "call." not in compiled.ptx


def test_half_key_cases_cover_every_axis(rng: np.random.Generator) -> None:
    half.test_cases_cover_every_axis()
    half.test_model_is_numpys_order_without_nans_and_orders_nans_by_sign(rng)


@pytest.mark.parametrize("case", RANK_COVERING, ids=lambda c: c.id)
def test_gpu_tier_rank_kernels_compile(case: gpu.RankCase) -> None:
    compiled = compile_kernel(gpu.make_rank_kernel(case), gpu.rank_signature(case), block=case.block)
    if case.threads >= 1024 or case.ipt == 16:  # 64 registers a thread at 1024; five arrays of 16 keys need more
        assert_inlined(compiled, spills=True)
    else:
        assert_inlined(compiled)


def test_rank_cases_cover_algorithms_blocks_and_digits_per_thread() -> None:
    cases = gpu.RANK_CASES
    assert {c.algorithm for c in cases} | {"match"} == {"basic", "memoize", "match"} and any(c.match for c in cases)
    assert {c.block for c in cases} == set(gpu.BLOCKS)
    assert {c.descending for c in cases} == {False, True}
    assert any(gpu.tracked(c.radix_bits, c.threads) > 1 for c in cases)
    assert any(c.end - c.begin < c.radix_bits for c in cases)
    assert {c.dtype for c in cases} >= {"float32", "float64", "int64", "uint64", "int8"}


SPILLING = {
    "int8-keys-4x4x4-ipt8-desc-blocked-default-argsort",
    "float32-keys-256x1x1-ipt8-desc-blocked-default-argsort",
}
"""GPU-tier kernels where ptxas spills a register (8 bytes, numba-cuda-mlir 0.5.4, measured): the spill comes from
the test kernel's own per-thread arrays (values loaded and stored although the case sorts keys only), not from the
sorts: the same two calls without them compile with no local memory, as their nvcc twin does
(``test_sort_then_argsort_has_no_local_memory_like_its_nvcc_twin``)."""


@pytest.mark.parametrize("case", SORT_COVERING, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)
    if case.threads >= 1024 or case.ipt == 16 or case.id in SPILLING:
        assert_inlined(compiled, spills=True)
    else:
        assert_inlined(compiled)


NUMBA_CUDA_SORT = covering(SORT_COVERING, block_rank, "second")
NUMBA_CUDA_RANK = covering(RANK_COVERING, block_rank, "algorithm", lambda c: c.match)
"""The same kernels' sources under numba-cuda: every block rank, sort output and form, rank algorithm."""


@pytest.mark.parametrize("case", NUMBA_CUDA_SORT, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile_under_numba_cuda(case: gpu.Case) -> None:
    kernel, sig = gpu.make_kernel(case, dsl=NUMBA_CUDA), gpu.signature(case, dsl=NUMBA_CUDA)
    compiled = NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block)
    assert_inlined(compiled, spills=case.threads >= 1024 or case.ipt == 16 or case.id in SPILLING)


@pytest.mark.parametrize("case", NUMBA_CUDA_RANK, ids=lambda c: c.id)
def test_gpu_tier_rank_kernels_compile_under_numba_cuda(case: gpu.RankCase) -> None:
    kernel, sig = gpu.make_rank_kernel(case, dsl=NUMBA_CUDA), gpu.rank_signature(case, dsl=NUMBA_CUDA)
    compiled = NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block)
    assert_inlined(compiled, spills=case.threads >= 1024 or case.ipt == 16)


def _sort_then_argsort(ipt: int, threads: int, key: type, index: type):  # type: ignore[no-untyped-def]
    tile = threads * ipt

    @cuda.jit
    def kernel(x, bits, keys_out, keys2_out, idx_out):
        keys = cuda.local.array(ipt, key)
        keys2 = cuda.local.array(ipt, key)
        idx = cuda.local.array(ipt, index)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        mine = cuda.blockIdx.x * tile + t * ipt
        for i in range(ipt):
            keys[i] = x[mine + i]
            keys2[i] = x[mine + i]
        coop.block.radix_sort(keys, descending=True)
        for i in range(ipt):
            keys_out[mine + i] = keys[i]
        coop.block.argsort(keys2, idx, base=cuda.blockIdx.x * tile + 7, begin_bit=bits[0], end_bit=bits[1])
        for i in range(ipt):
            keys2_out[mine + i] = keys2[i]
            idx_out[mine + i] = idx[i]

    return kernel


_TWIN = r"""
template <int BX, int BY, int BZ, int IPT, typename K, typename I>
__global__ void __launch_bounds__(BX * BY * BZ) twin(const K* x, const int* bits, K* keys_out, K* keys2_out, I* idx_out)
{
  constexpr int T = BX * BY * BZ, TILE = T * IPT;
  using Sort = cub::BlockRadixSort<K, BX, IPT, cub::NullType, 4, true, cub::BLOCK_SCAN_WARP_SCANS,
                                   cudaSharedMemBankSizeFourByte, BY, BZ>;
  using Arg = cuda_coop::BlockArgsort<K, BX, IPT, I, 4, true, cub::BLOCK_SCAN_WARP_SCANS, BY, BZ>;
  __shared__ union { typename Sort::TempStorage s; typename Arg::TempStorage a; } storage;
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  K keys[IPT], keys2[IPT];
  I idx[IPT];
  long long mine = (long long)blockIdx.x * TILE + t * IPT;
  for (int i = 0; i < IPT; ++i) { keys[i] = x[mine + i]; keys2[i] = x[mine + i]; }
  Sort(storage.s).SortDescending(keys);
  for (int i = 0; i < IPT; ++i) keys_out[mine + i] = keys[i];
  __syncthreads();
  Arg(storage.a).Argsort(keys2, idx, (long long)blockIdx.x * TILE + 7, bits[0], bits[1]);
  for (int i = 0; i < IPT; ++i) { keys2_out[mine + i] = keys2[i]; idx_out[mine + i] = idx[i]; }
}
template __global__ void twin<4, 4, 4, 8, signed char, int>(const signed char*, const int*, signed char*, signed char*,
                                                           int*);
template __global__ void twin<256, 1, 1, 8, float, long long>(const float*, const int*, float*, float*, long long*);
"""


def test_sort_then_argsort_has_no_local_memory_like_its_nvcc_twin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The two SPILLING configurations with only the sorts' own arrays: no CALL/LDL/STL, and the nvcc twin
    (the same CUB classes and cuda-coop's BlockArgsort) has no spill either."""
    for block, key, index in (((4, 4, 4), np.int8, np.int32), ((256, 1, 1), np.float32, np.int64)):
        k, i = getattr(types, np.dtype(key).name), getattr(types, np.dtype(index).name)
        kernel = _sort_then_argsort(8, math.prod(block), key, index)
        assert_inlined(compile_kernel(kernel, (k[::1], types.int32[::1], k[::1], k[::1], i[::1]), block=block))
    nvcc = requires.nvcc("the twin half of the comparison")
    source = tmp_path / "twin.cu"
    source.write_text(f"#include <{get_primitive('block_argsort').header}>\n" + _TWIN)
    result = subprocess.run([nvcc, "-O3", "-std=c++17", "-arch=sm_90", f"-I{coop.header_bundle().include_dir}",
                             "-cubin", "-Xptxas", "-v", "-o", str(tmp_path / "twin.cubin"), str(source)],
                            check=True, capture_output=True, text=True)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", result.stderr)
    assert len(spills) == 2 and all(s == ("0", "0") for s in spills), result.stderr


def test_gpu_tier_covers_every_axis() -> None:
    cases = gpu.CASES
    pairs = Counter((c.dtype, c.block) for c in cases)
    assert pairs == dict.fromkeys(itertools.product(gpu.DTYPES, gpu.BLOCKS), 1), "one kernel per (dtype, block) pair"
    keys = {row.dtype for row in support_matrix() if row.primitive == "block.radix_sort" and row.supported}
    assert set(gpu.DTYPES) | set(half.DTYPES) == keys, "every key type radix_sort takes (halves: test_radix_sort_half)"
    assert {c.ipt for c in cases} == set(gpu.ITEMS) == {1, 4, 8, 16}
    assert {c.values for c in cases} == set(gpu.VALUES)
    assert {c.descending for c in cases} == {False, True}
    assert {c.output for c in cases} == {"blocked", "striped"}
    assert {c.bits for c in cases} == set(gpu.BITS)
    assert {c.second for c in cases} == {"argsort", "top_k"}
    assert {c.index_type for c in cases if c.second == "argsort"} == set(gpu.INDEX_TYPES)
    assert {(1024, 1, 1), (33, 1, 1), (4, 4, 4)} <= {c.block for c in cases}


def test_a_tile_over_the_shared_memory_is_refused() -> None:
    """1024 threads x 16 uint64 keys with float64 values: the exchange alone is 128 KiB; the documented
    UsageError comes before compiling."""
    case = gpu.Case("uint64", "float64", (1024, 1, 1), 16, False, "blocked", "default", "argsort", "int64")
    assert gpu.tile_bytes(case.threads, case.ipt, [8]) > gpu.SHARED
    assert all(gpu.tile_bytes(c.threads, c.ipt, [8]) <= gpu.SHARED or np.dtype(c.dtype).itemsize < 8
               for c in gpu.CASES if c.values != "float64")
    with pytest.raises(UsageError, match=r"radix_sort\(\) at .*:\d+: .*needs more than the 48 KiB of shared memory"):
        compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)


@pytest.mark.parametrize("block", sanitizer.BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_sanitizer_kernel_compiles(block: tuple[int, int, int]) -> None:
    threads = math.prod(block)
    sig = (types.int32[::1], types.float32[::1], types.uint32[::1], types.float64[::1], types.int32[::1],
           types.int32[::1], types.float32[::1], types.int64[::1], types.float64[::1], types.int32[::1])
    assert_inlined(compile_kernel(sanitizer.kernel_for(threads), sig, block=block), local=True)


# --- misuse ------------------------------------------------------------------------------------------------------


@cuda.jit
def bool_keys(x, y):
    keys = cuda.local.array(2, np.bool_)
    keys[0] = x[0] > 0
    coop.block.radix_sort(keys)


@cuda.jit
def end_bit_too_large(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, end_bit=40)


@cuda.jit
def negative_begin_bit(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, begin_bit=-1)


@cuda.jit
def values_of_another_extent(x, y):
    keys = cuda.local.array(2, np.uint32)
    values = cuda.local.array(3, np.int32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, values=values)


@cuda.jit
def zero_radix_bits(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, radix_bits=0)


@cuda.jit
def runtime_descending(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, descending=x[1] > 0)


@cuda.jit
def reversed_bit_range(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, begin_bit=8, end_bit=4)


@cuda.jit
def float_end_bit(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, end_bit=y[0] * 0.5)


@cuda.jit
def bad_output(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, output="warp_striped")


@cuda.jit
def float_indices(x, y):
    keys = cuda.local.array(2, np.uint32)
    index = cuda.local.array(2, np.float32)
    keys[0] = x[0]
    coop.block.argsort(keys, index)


@cuda.jit
def float_k(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.top_k(keys, x, k=1.5)


@cuda.jit
def out_values_without_values(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.top_k(keys, x, k=3, out_values=y)


@cuda.jit
def out_keys_of_another_type(x, y):
    keys = cuda.local.array(2, np.uint32)
    keys[0] = x[0]
    coop.block.top_k(keys, y, k=3)


@cuda.jit
def rank_prefix_of_wrong_size(x, y):
    keys = cuda.local.array(2, np.uint32)
    ranks = cuda.local.array(2, np.int32)
    prefix = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.block.radix_rank(keys, ranks, digit_prefix=prefix, radix_bits=4)


@cuda.jit
def rank_ranks_of_int64(x, y):
    keys = cuda.local.array(2, np.uint32)
    ranks = cuda.local.array(2, np.int64)
    keys[0] = x[0]
    coop.block.radix_rank(keys, ranks, radix_bits=4)


@cuda.jit
def rank_too_many_bits(x, y):
    keys = cuda.local.array(2, np.uint32)
    ranks = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.block.radix_rank(keys, ranks, radix_bits=9)


U32, I64 = types.uint32[::1], types.int64[::1]


@pytest.mark.parametrize(
    ("kernel", "sig", "pattern"),
    [
        (bool_keys, (types.int32[::1], I64), r"keys= has type array\(bool, 1d, C\); expected a value or an array of"),
        (end_bit_too_large, (U32, I64), r"end_bit=40 is out of range; it must be between 0 and 32"),
        (negative_begin_bit, (U32, I64), r"begin_bit=-1 is out of range; it must be between 0 and 32"),
        (values_of_another_extent, (U32, I64), r"values= has 3 items but .*items_per_thread has 2"),
        (zero_radix_bits, (U32, I64), r"radix_bits=0 is out of range; it must be between 1 and 16"),
        (runtime_descending, (U32, I64), r"descending= must be a compile-time constant"),
        (reversed_bit_range, (U32, I64), r"end_bit=4 is below begin_bit=8; it must be at least begin_bit"),
        (float_end_bit, (U32, I64), r"end_bit= holds float64; it must hold signed integer or unsigned integer values"),
        (bad_output, (U32, I64), r"output=.*warp_striped"),
        (float_indices, (U32, I64), r"indices= holds float32; it must hold signed integer or unsigned integer"),
        (float_k, (U32, I64), r"k= holds float64; it must hold signed integer or unsigned integer values"),
        (out_values_without_values, (U32, I64), r"top_k\(\) at .*no form takes the arguments \(keys\[\], out_keys, k, "
         r"out_values, offset\); the forms are \(keys\[\], out_keys, k, offset\)"),
        (out_keys_of_another_type, (U32, I64), r"out_keys= holds int64 but must hold uint32 \(as keys= does\)"),
        (rank_prefix_of_wrong_size, (U32, I64), r"digit_prefix= has 2 items, but with radix_bits=4 on 64 threads"),
        (rank_ranks_of_int64, (U32, I64), r"ranks= .*int32"),
        (rank_too_many_bits, (U32, I64), r"radix_bits=9 with algorithm='basic' on 64 threads needs more than the "
         r"48 KiB"),
    ],
    ids=lambda v: v.py_func.__name__ if hasattr(v, "py_func") else None,
)
def test_misuse_is_a_usage_error(kernel, sig, pattern: str) -> None:
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=(64,))
    message = str(info.value)
    assert re.search(pattern, message), message
    assert "test_family_block_radix_sort.py:" in message
