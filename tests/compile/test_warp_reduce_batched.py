"""``coop.warp.reduce_batched`` / ``coop.warp.sum_batched`` through real NVRTC and the numba-cuda-mlir DSL, for sm_90
(no GPU).

Every item type x both forms x both arrangements x both methods compiles to LTO-IR in one provider; the GPU tier's
kernels (tests/gpu/test_warp_reduce_batched.py) compile inlined in a covering subset of its axes; the shuffle
algorithm uses no shared memory and no barrier, and CUB's ``redux.sync`` path is taken where it applies; misuse is a
UsageError naming the argument and the call's file:line.
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
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import test_warp_reduce_batched as gpu
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.nvrtc import compile_requests
from tests.helpers.refusal import refused
from tests.helpers.sass import assert_inlined, instructions
from tests.helpers.subset import covering, missing_values

ALL_TYPES = (*gpu.DTYPES[:8], "float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _requests() -> list[Request]:
    """Every item type, each with its own (threads, batches): both forms, arrangements and methods among them."""
    result = []
    for n, dtype in enumerate(ALL_TYPES):
        threads = gpu.WARPS[n % len(gpu.WARPS)]
        for batches in sorted({1, threads, 2 * threads + 1}):
            arrangement = ("blocked", "striped")[(n + batches) % 2]
            common = {"dtype": dtype, "batches": batches, "threads": threads, "arrangement": arrangement,
                      "sync_physical_warp": n % 3 == 0}
            op = "*" if dtype.startswith("complex") else ("max", "+", "fmin")[n % 3]
            array = {"outputs_per_thread": -(-batches // threads)}
            result.append(Request("warp_reduce_batched", "reduce_batched", "array", op=op, **array, **common))
            result.append(Request("warp_reduce_batched", "sum_batched", "array", **array, **common))
            if batches <= threads:
                result.append(Request("warp_reduce_batched", "reduce_batched", "one", op=op, **common))
                result.append(Request("warp_reduce_batched", "sum_batched", "one", **common))
    return result


def test_every_type_form_and_arrangement_compiles_with_nvrtc(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    """One provider (one NVRTC call) holding them all."""
    p = compile_requests(_requests(), toolchain, compiler, (64,))
    for name in (".Reduce(", ".Sum(", ".ReduceToBlocked(", ".ReduceToStriped(", ".SumToBlocked(", ".SumToStriped(",
                 "cub::WarpReduceBatched<__nv_bfloat16, ", "cub::WarpReduceBatched<signed char, 1, 1, true>",
                 "::cuda::std::complex<double>"):
        assert name in p.source, name


COVERING = covering(gpu.CASES, "dtype", "lanes", "shape", "block", "arrangement", "op", "sync", "one")
"""Every value of every axis of the GPU tier's kernels."""


def test_covering_subset_covers_the_gpu_axes() -> None:
    assert not missing_values(COVERING, gpu.CASES, "dtype", "lanes", "shape", "block", "arrangement", "op", "sync",
                              "one")
    assert len(COVERING) <= 16, len(COVERING)
    gpu.test_cases_cover_every_axis()
    gpu.test_model_on_a_hand_example()


@pytest.mark.parametrize("case", COVERING, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile(case: gpu.Case) -> None:
    """Inlined: no CALL, no local memory (the items and results stay in registers)."""
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)
    assert_inlined(compiled, spills=case.batches > 32)
    assert "call." not in compiled.ptx


NUMBA_CUDA_CASES = covering(COVERING, "arrangement", "sync", lambda c: c.dtype in ("float16", "bfloat16"))
"""The same kernels' sources under numba-cuda: every arrangement, with and without sync, half and other types."""


@pytest.mark.parametrize("case", NUMBA_CUDA_CASES, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile_under_numba_cuda(case: gpu.Case) -> None:
    kernel, sig = gpu.make_kernel(case, dsl=NUMBA_CUDA), gpu.signature(case, dsl=NUMBA_CUDA)
    compiled = NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block)
    assert_inlined(compiled, spills=case.batches > 32)


def _sass(threads: int, batches: int, dtype: type, op: str, sync: bool = False) -> list[str]:
    LW, B, T, OP, SYNC = threads, batches, dtype, op, sync
    M = -(-batches // threads)

    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x
        items = cuda.local.array(B, T)
        res = cuda.local.array(M, T)
        for b in range(B):
            items[b] = x[t * B + b]
        coop.warp.reduce_batched(items, OP, output=res, threads=LW, sync_physical_warp=SYNC)
        for i in range(M):
            out[t * M + i] = res[i]

    elem = getattr(types, np.dtype(dtype).name)[::1]
    return instructions(compile_kernel(kernel, (elem, elem), block=64).sass())


def test_shuffles_only_no_shared_memory_and_no_barrier() -> None:
    """CUB's WSPRO tree: ``log2(threads)`` rounds of butterfly shuffles for all the batches together (the batches a
    lane holds halve each round: 4 + 2 + 1 for 8 batches over 8 lanes), no shared memory, no barrier. With the logical
    warp's own lane mask (not a constant), the compiler adds a second copy of the shuffles for a diverged warp
    (``BRA.DIV`` to ``WARPSYNC.COLLECTIVE`` ones)."""
    sass = _sass(8, 8, np.float32, "+")
    assert len([i for i in sass if "SHFL.BFLY PT," in i]) == 4 + 2 + 1
    assert not [i for i in sass if re.search(r"\b(LDS|STS|BAR)\b", i)]


def test_redux_for_small_integers_in_whole_warps() -> None:
    """32 lanes, at most 8 batches, an integer of at most 32 bits and ``fmin`` (``cuda::minimum``): one
    ``REDUX`` per batch instead of the shuffle tree; NumPy's ``min`` (cuda-coop's own functor) keeps the tree."""
    redux = _sass(32, 4, np.int32, "fmin")
    assert len([i for i in redux if "REDUX" in i]) == 4 and not [i for i in redux if "SHFL" in i]
    tree = _sass(32, 4, np.int32, "min")
    assert not [i for i in tree if "REDUX" in i] and [i for i in tree if "SHFL.BFLY" in i]


def test_sync_physical_warp_shuffles_the_whole_warp() -> None:
    """``sync_physical_warp=True``: a logical warp of 8 lanes shuffles with the full mask, a constant, so the compiler
    needs no copy of the shuffles for a diverged warp: the 7 shuffles of the tree and nothing else."""
    sync = _sass(8, 8, np.float32, "+", sync=True)
    assert len([i for i in sync if "SHFL" in i]) == 4 + 2 + 1
    assert not [i for i in sync if "WARPSYNC" in i or "BRA.DIV" in i]


# --- misuse ------------------------------------------------------------------------------------------------------


@cuda.jit
def more_batches_than_lanes(x, y):
    items = cuda.local.array(9, np.float32)
    items[0] = x[0]
    y[0] = coop.warp.sum_batched(items, threads=8)  # call


@cuda.jit
def output_of_the_wrong_extent(x, y):
    items = cuda.local.array(9, np.float32)
    res = cuda.local.array(3, np.float32)
    items[0] = x[0]
    coop.warp.sum_batched(items, output=res, threads=8)  # call


@cuda.jit
def minus(x, y):
    items = cuda.local.array(4, np.float32)
    items[0] = x[0]
    y[0] = coop.warp.reduce_batched(items, "-")  # call


@cuda.jit
def sync_in_a_partial_warp(x, y):
    items = cuda.local.array(4, np.float32)
    items[0] = x[0]
    y[0] = coop.warp.sum_batched(items, threads=16, sync_physical_warp=True)  # call


@cuda.jit
def scalar_x(x, y):
    y[0] = coop.warp.sum_batched(x[0])  # call


@cuda.jit
def output_in_shared_memory(x, y):
    items = cuda.local.array(4, np.float32)
    res = cuda.shared.array(1, np.float32)
    items[0] = x[0]
    coop.warp.sum_batched(items, output=res)  # call


@cuda.jit
def complex_max(x, y):
    items = cuda.local.array(4, np.complex64)
    items[0] = x[0]
    y[0] = coop.warp.reduce_batched(items, "max")  # call


@cuda.jit
def unknown_arrangement(x, y):
    items = cuda.local.array(4, np.float32)
    items[0] = x[0]
    y[0] = coop.warp.sum_batched(items, arrangement="strided")  # call


@cuda.jit
def output_of_another_type(x, y):
    items = cuda.local.array(40, np.float32)
    res = cuda.local.array(2, np.float64)
    items[0] = x[0]
    coop.warp.sum_batched(items, output=res)  # call


@cuda.jit
def three_lanes(x, y):
    items = cuda.local.array(4, np.float32)
    items[0] = x[0]
    y[0] = coop.warp.sum_batched(items, threads=3)  # call


F32, C64 = types.float32[::1], types.complex64[::1]


@pytest.mark.parametrize(
    ("kernel", "sig", "block", "needles"),
    [
        (more_batches_than_lanes, (F32, F32), (64,), ("x= holds batches=9 items, more than the threads=8 lanes",
                                                      "pass output=, a cuda.local.array")),
        (output_of_the_wrong_extent, (F32, F32), (64,), ("output= has outputs_per_thread=3 items, but batches=9 over "
                                                         "threads=8 lanes give each lane ceil(batches / threads)",)),
        (minus, (F32, F32), (64,), ("op='-' is not associative",)),
        (sync_in_a_partial_warp, (F32, F32), (48,), ("sync_physical_warp=True syncs whole 32-lane hardware warps, but "
                                                     "the block (48, 1, 1) has 48 threads",)),
        (scalar_x, (F32, F32), (64,), ("sum_batched() at", "x[]")),
        (output_in_shared_memory, (F32, F32), (64,), ("output= must be this thread's own cuda.local.array",)),
        (complex_max, (C64, C64), (64,), ("op='max' needs ordered values, but the items are complex64",)),
        (unknown_arrangement, (F32, F32), (64,), ("arrangement='strided'", "'blocked', 'striped'",
                                                  "did you mean 'striped'?")),
        (output_of_another_type, (F32, F32), (64,), ("output= holds float64 but must hold float32",)),
        (three_lanes, (F32, F32), (66,), ("threads=3 must be a power of two up to 32 that divides the block size",)),
    ],
    ids=lambda v: v.py_func.__name__ if hasattr(v, "py_func") else None,
)
def test_misuse_is_refused_at_the_call(kernel, sig, block, needles: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    refused(kernel, sig, *needles, block=block)


def test_a_known_operator_that_is_not_commutative_is_refused() -> None:
    """Every known operator but '-' combining values is commutative; the spec's contract refuses '-' (as not
    associative first) and would refuse any other that is not commutative."""
    from cuda.coop._specs import KnownOp, bind
    from cuda.coop.errors import SpecError

    values = [op for op in KnownOp if not op.is_comparison]
    assert [op for op in values if not op.commutative] == [KnownOp.MINUS]
    with pytest.raises(SpecError, match="not associative"):
        bind(Request("warp_reduce_batched", "reduce_batched", "one", dtype="int32", batches=2, op="-"), (64,))
