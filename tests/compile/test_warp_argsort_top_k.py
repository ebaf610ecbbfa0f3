"""``coop.warp.argsort`` / ``coop.warp.top_k`` through real NVRTC and through the numba-cuda-mlir DSL, for sm_90
(no GPU).

Every overload x direction x algorithm x key dtype (float16 and bfloat16 included) x logical warp compiles to
LTO-IR; the GPU tier's kernels (tests/gpu/test_warp_argsort_top_k.py) compile inlined and cover its axes; misuse
(a logical warp that is not a power of two or does not divide the block, complex or bool keys, float indices, a
lane-dependent ``k``/``offset``) is a UsageError naming the argument and the call's file:line.
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
from cuda.coop._specs import DEFAULT, Request
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_ranking as ranking_sanitizer
from tests.gpu import test_warp_argsort_top_k as gpu
from tests.helpers.nvrtc import compile_requests
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import covering

KEYS = ("int8", "uint16", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32", "float64")
WARPS = (32, 16, 8, 4, 2, 1)


def _requests() -> list[Request]:
    result = []
    for n, key in enumerate(KEYS):
        common = {"dtype": key, "items_per_thread": (1, 4, 3, 8)[n % 4], "threads": WARPS[n % len(WARPS)]}
        for flag in (False, True):
            common["algorithm"] = ("merge_sort", "bitonic")[(n + flag) % 2]  # each key type with both
            result.append(Request("warp_argsort", "argsort", "pairs", descending=flag, base=DEFAULT,
                                  index_type=("int32", "int64", "uint32", "uint16")[n % 4], **common))
            pairs = {"value_type": ("float64", "int32", "bfloat16", "uint8")[n % 4]} if flag != (n % 2 == 0) else {}
            result.append(Request("warp_top_k", "top_k", "pairs" if pairs else "keys", largest=flag, offset=DEFAULT,
                                  count_type=("int32", "int64", "uint16")[n % 3], **pairs, **common))
    return result


@pytest.mark.parametrize("block", [(64,), (16, 8)], ids=["64", "16x8"])
def test_every_overload_direction_and_key_type_compiles_with_nvrtc(
    block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """One provider (one NVRTC call) per block shape holding every combination."""
    p = compile_requests(_requests(), toolchain, compiler, block)
    for name in (".Argsort(", ".ArgsortDescending(", ".TopKLargest(", ".TopKSmallest(",
                 "cuda_coop::WarpArgsort<__half, 3, 32, unsigned int, cuda_coop::WARP_SORT_MERGE_SORT>",
                 "cuda_coop::WarpArgsort<__half, 3, 32, unsigned int, cuda_coop::WARP_SORT_BITONIC>",
                 "cuda_coop::WarpTopK<__nv_bfloat16, 8, 16, "):
        assert name in p.source, name
    for spec in ("warp_argsort", "warp_top_k"):
        forms = {(dict(r.params)["algorithm"], dict(r.params)["dtype"]) for r in _requests() if r.primitive == spec}
        assert forms == {(a, k) for a in ("merge_sort", "bitonic") for k in KEYS}, spec
    assert p.source.count("#include <cuda_coop/warp_top_k.cuh>") == 1  # the compositions' C++ is their headers


COVERING = covering(gpu.CASES, "dtype", "threads", "ipt", "block", "descending", "largest", "values", "index_type",
                    "algorithm")
"""Every value of every axis of the GPU tier's warp argsort / top-k kernels."""


@pytest.mark.parametrize("case", COVERING, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile(case: gpu.Case) -> None:
    """Inlined (no CALL); local memory only for register spills (the float64 x 8 items kernels keep four arrays
    live across the argsort), never for the sort's arrays themselves."""
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)
    assert_inlined(compiled, spills=True)
    assert "call." not in compiled.ptx


def test_gpu_tier_covers_every_axis(rng: np.random.Generator) -> None:
    gpu.test_cases_cover_every_axis()
    gpu.test_reference_matches_numpy(rng)


# --- misuse ------------------------------------------------------------------------------------------------------


@cuda.jit
def three_lanes(x, y):
    keys = cuda.local.array(2, np.int32)
    idx = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.argsort(keys, idx, threads=3)


@cuda.jit
def warp_of_32_in_33(x, y):
    keys = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.top_k(keys, x, k=1, threads=32)


@cuda.jit
def complex_keys(x, y):
    keys = cuda.local.array(2, np.complex64)
    idx = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.argsort(keys, idx)


@cuda.jit
def float_indices(x, y):
    keys = cuda.local.array(2, np.int32)
    idx = cuda.local.array(2, np.float32)
    keys[0] = x[0]
    coop.warp.argsort(keys, idx)


@cuda.jit
def runtime_descending(x, y):
    keys = cuda.local.array(2, np.int32)
    idx = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.argsort(keys, idx, descending=x[1] > 0)


@cuda.jit
def lane_dependent_offset(x, y):
    keys = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.top_k(keys, x, k=1, offset=cuda.threadIdx.x * 2)


@cuda.jit
def lane_dependent_k(x, y):
    keys = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.top_k(keys, x, k=cuda.threadIdx.x % 3)


@cuda.jit
def out_values_without_values(x, y):
    keys = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.top_k(keys, x, k=1, out_values=y)


@cuda.jit
def out_keys_of_another_type(x, y):
    keys = cuda.local.array(2, np.int32)
    keys[0] = x[0]
    coop.warp.top_k(keys, y, k=1)


I32, I64, C64 = types.int32[::1], types.int64[::1], types.complex64[::1]


@pytest.mark.parametrize(
    ("kernel", "sig", "block", "pattern"),
    [
        (three_lanes, (I32, I64), (66,), r"threads=3 must be a power of two up to 32 that divides the block size"),
        (warp_of_32_in_33, (I32, I64), (33,), r"threads=32 must be a power of two up to 32 that divides the block "
         r"size \(33 threads"),
        (complex_keys, (C64, I64), (64,), r"keys= .*complex64"),
        (float_indices, (I32, I64), (64,), r"indices= holds float32; it must hold signed integer or unsigned integer"),
        (runtime_descending, (I32, I64), (64,), r"descending= must be a compile-time constant"),
        (lane_dependent_offset, (I32, I64), (64,), r"offset="),
        (lane_dependent_k, (I32, I64), (64,), r"k="),
        (out_values_without_values, (I32, I64), (64,), r"top_k\(\) at .*no form takes the arguments"),
        (out_keys_of_another_type, (I32, I64), (64,), r"out_keys= holds int64 but must hold int32 \(as keys= does\)"),
    ],
    ids=lambda v: v.py_func.__name__ if hasattr(v, "py_func") else None,
)
def test_misuse_is_a_usage_error(kernel, sig, block, pattern: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=block)
    message = str(info.value)
    assert re.search(pattern, message), message
    assert "test_warp_argsort_top_k.py:" in message


@pytest.mark.parametrize("block", ranking_sanitizer.BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_ranking_sanitizer_kernel_compiles(block: tuple[int, int, int]) -> None:
    """tests/gpu/_sanitizer_ranking.py's kernel (radix_rank, warp top_k and argsort) compiles with no CALL."""
    i32, f32 = types.int32[::1], types.float32[::1]
    sig = (i32, f32, i32, i32, i32, i32, f32, i32, f32, i32, f32, i32)
    assert_inlined(compile_kernel(ranking_sanitizer.kernel_for(block), sig, block=block), local=True)
