"""``coop.block.top_k``'s algorithms through real NVRTC and the numba-cuda-mlir DSL, for sm_90 (no GPU).

CCCL's ``cub::detail::block_topk`` lives in CUB's ``detail`` namespace, with no stability promise between CCCL
releases: the declarations ``include/cuda_coop/specializations/block_top_k_air.cuh`` relies on are pinned here, so a
CCCL upgrade that changes them turns this red (tests/gpu/test_block_top_k_algorithms.py pins the behaviour, "air"
bit for bit against "radix_sort"). Every algorithm x key type (float16, bfloat16, 64-bit...) x keys/pairs x largest
x full/partial tile compiles to LTO-IR; the GPU tier's kernels, a covering subset with the algorithm axis, compile
inlined; "air" on a 2-D or 3-D block is a UsageError naming the call, and "auto" there is the radix sort.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain, compile_options
from cuda.coop._specs import DEFAULT, Request
from cuda.coop._specs.block_top_k import BlockTopKAlgorithm
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_block_top_k as sanitizer
from tests.gpu import test_block_top_k_algorithms as gpu
from tests.helpers.nvrtc import LTOIR_MAGIC, compile_requests
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import covering, missing_values

KEYS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32",
        "float64")

DECLARATIONS = r"""
#include <cub/block/block_topk.cuh>
#include <cuda/std/type_traits>

// What cuda_coop::detail::BlockTopKAir uses of CCCL's cub::detail::block_topk, pinned.
template <class K, int T, int N>
struct Pinned
{
  using TopK = cub::detail::block_topk<K, T, N>;
  using Keys = void (TopK::*)(K (&)[N], int, int);
  static_assert(::cuda::std::is_same_v<decltype(&TopK::template max_keys<true>), Keys>, "max_keys<true>(keys, k, n)");
  static_assert(::cuda::std::is_same_v<decltype(&TopK::template min_keys<true>), Keys>, "min_keys<true>(keys, k, n)");
  static_assert(::cuda::std::is_constructible_v<TopK, typename TopK::TempStorage&>, "block_topk(TempStorage&)");
  static_assert(::cuda::std::is_trivially_default_constructible_v<typename TopK::TempStorage>,
                "TempStorage may live in a union");
  // The specialization it wraps: 8-bit digits, keys in registers, threads numbered by threadIdx.x alone.
  using Air = cub::detail::block_topk_air<K, T, N>;
  static_assert(sizeof(typename TopK::TempStorage) == sizeof(typename Air::TempStorage), "one AIR select");
};
template struct Pinned<float, 128, 4>;
template struct Pinned<__half, 33, 3>;
template struct Pinned<__nv_bfloat16, 1, 1>;
template struct Pinned<unsigned long long, 1024, 2>;
template struct Pinned<signed char, 256, 16>;
"""


def test_the_declarations_air_relies_on_are_cccls(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    source = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + DECLARATIONS
    result = compiler.compile(source, compile_options(toolchain, "sm_90"), name="pinned_block_topk.cu")
    assert result.ltoir is not None, result.log


def test_the_air_header_still_says_what_is_relied_on(toolchain: Toolchain) -> None:
    """The documented contract of block_topk_air that cuda-coop's ordering step builds on, in CCCL's own words:
    blocked in and out, the selected items in the first min(k, valid_items) slots, threads by threadIdx.x."""
    root = next(r for r in toolchain.cccl_include_roots if (r / "cub" / "block" / "block_topk.cuh").is_file())
    text = " ".join((root / "cub/block/specializations/block_topk_air.cuh").read_text().split())
    assert "The selected items are returned in the tile's first `min(k, valid_items)` slots." in text
    assert "linear_tid(RowMajorTid(ThreadsPerBlock, 1, 1))" in text
    assert "expand_k_to_include_ties = false" in text


def _requests() -> list[Request]:
    """Every key type once per algorithm, keys and pairs, largest and smallest, full and partial tiles."""
    result = []
    for n, key in enumerate(KEYS):
        for a, algorithm in enumerate(BlockTopKAlgorithm):
            m = n + a
            overload = ("keys", "pairs", "keys_valid", "pairs_valid")[m % 4]
            params: dict[str, object] = {"dtype": key, "items_per_thread": (1, 3, 4, 8)[m % 4], "largest": m % 2 == 0,
                                         "algorithm": algorithm.short_name, "offset": DEFAULT,
                                         "count_type": ("int32", "uint64", "int16")[m % 3]}
            if "pairs" in overload:
                params["value_type"] = ("float64", "int32", "uint8", "bfloat16")[n % 4]
            result.append(Request("block_top_k", "top_k", overload, **params))
    return result


@pytest.mark.parametrize("block", [(128,), (33,)], ids=["128", "33"])
def test_every_algorithm_and_key_type_compiles_with_nvrtc(
    block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    p = compile_requests(_requests(), toolchain, compiler, block)
    assert p.ltoir().startswith(LTOIR_MAGIC)
    for member in BlockTopKAlgorithm:
        assert f", {member}>;" in p.source, member


COVERING = covering(gpu.CASES, "algorithm", "values", "block", "ipt", "partial", "largest", "count_type",
                    lambda c: c.key_bytes, lambda c: c.dtype == "bfloat16")
"""A covering subset of the GPU tier's kernels: every algorithm, value type, block, items per thread, key width..."""


def test_the_subset_covers_the_gpu_tiers_axes() -> None:
    assert not missing_values(COVERING, gpu.CASES, "algorithm", "values", "block", "ipt", "partial", "largest",
                              "count_type")
    assert len(COVERING) <= 10, "keep the compile tier small: the GPU tier compiles the rest"


@pytest.mark.parametrize("case", COVERING, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile(case: gpu.Case) -> None:
    """Inlined (no CALL); local memory only for register spills."""
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)
    assert_inlined(compiled, spills=True)


@pytest.mark.parametrize("block", sanitizer.BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_sanitizer_kernel_compiles(block: tuple[int, int, int]) -> None:
    """tests/gpu/_sanitizer_block_top_k.py's kernel ("air" and "air_or_radix_sort" sharing storage) compiles."""
    f32, i32 = types.float32[::1], types.int32[::1]
    assert_inlined(compile_kernel(sanitizer.kernel_for(block[0]), (f32, f32, i32, f32, f32), block=block), spills=True)


@cuda.jit
def air_top_k(x, y):
    keys = cuda.local.array(2, np.float32)
    keys[0] = x[0]
    keys[1] = x[1]
    coop.block.top_k(keys, y, k=2, algorithm="air")


@cuda.jit
def auto_top_k(x, y):
    keys = cuda.local.array(2, np.float32)
    keys[0] = x[0]
    keys[1] = x[1]
    coop.block.top_k(keys, y, k=2)


F32 = types.float32[::1]


@pytest.mark.parametrize("block", [(16, 8, 1), (4, 4, 4)], ids=["16x8", "4x4x4"])
def test_air_on_a_multi_dimensional_block_is_refused(block: tuple[int, int, int]) -> None:
    with pytest.raises(UsageError) as info:
        compile_kernel(air_top_k, (F32, F32), block=block)
    message = str(info.value)
    assert re.search(r"top_k\(\) at .*test_block_top_k_air\.py:\d+: .*algorithm='air' needs a 1-D block: CCCL's AIR "
                     r"select .* threadIdx\.x alone.*use algorithm='radix_sort'", message), message


def test_auto_on_a_multi_dimensional_block_compiles_the_radix_sort() -> None:
    compiled = compile_kernel(auto_top_k, (F32, F32), block=(16, 8, 1))
    assert compiled.sass()
