"""BlockAdjacentDifference, BlockDiscontinuity and BlockShuffle through numba-cuda-mlir for sm_90 (no GPU).

The GPU tier's kernel (tests/gpu/test_family_block_neighbours.py: every method and overload of the three
families in one kernel) compiles in 1-D, 2-D and 3-D blocks for every dtype and flag dtype, with the
wrappers inlined (no CALL, no local memory) and one NVRTC call for the kernel; misuse is a UsageError
naming the call, the argument and the fix.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import test_family_block_neighbours as gpu
from tests.gpu._data import DTYPES
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.refusal import refused
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import block_rank, covering

I32, F32 = types.int32[::1], types.float32[::1]


def _spread(cases: list[gpu.Case]) -> list[gpu.Case]:
    """The first case of each block shape, dtype, flag dtype and items per thread not seen yet, and every case of
    the 256- and 1024-thread blocks (one per items per thread)."""
    seen: set[tuple[int, object]] = set()
    picked = []
    for case in cases:
        keys = {(0, case.block), (1, case.dtype), (2, case.flag_type), (3, case.ipt)}
        if case.threads >= 256:
            keys.add((4, (case.block, case.ipt)))
        if keys - seen:
            seen |= keys
            picked.append(case)
    return picked


CASES = _spread(gpu.CASES)


def test_the_subset_covers_the_gpu_matrix() -> None:
    assert {c.block for c in CASES} == set(gpu.BLOCKS)
    assert {c.dtype for c in CASES} == set(DTYPES)
    assert {c.flag_type for c in CASES} == set(gpu.FLAG_TYPES)
    assert {c.ipt for c in CASES} == set(gpu.ITEMS)
    assert {(c.block, c.ipt) for c in CASES if c.threads >= 256} == {
        (b, i) for b in ((256, 1, 1), (1024, 1, 1)) for i in gpu.ITEMS}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gpu_kernel_compiles_inlined(case: gpu.Case, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block, grid=gpu.TILES)
    assert_inlined(compiled, spills=case.threads == 1024)  # 64 registers a thread at 1024 threads
    (source,) = tmp_path.glob("*.cu")  # one provider, one NVRTC translation unit, for the three families
    text = source.read_text()
    for cpp in ("cub::BlockAdjacentDifference<", "cub::BlockDiscontinuity<", "cub::BlockShuffle<",
                ".SubtractLeftPartialTile(", ".SubtractRightPartialTile(", ".FlagHeadsAndTails(", ".Rotate("):
        assert cpp in text


# --- misuse -----------------------------------------------------------------------------------------------


def _refused(kernel, *needles: str, sig=(F32, F32), block=(128,)) -> str:  # type: ignore[no-untyped-def]
    return refused(kernel, sig, *needles, block=block)


NUMBA_CUDA_CASES = covering(CASES, block_rank)
"""The same kernels' sources under numba-cuda: every block rank."""


@pytest.mark.parametrize("case", NUMBA_CUDA_CASES, ids=lambda c: c.id)
def test_gpu_kernel_compiles_inlined_under_numba_cuda(case: gpu.Case) -> None:
    kernel, sig = gpu.make_kernel(case, dsl=NUMBA_CUDA), gpu.signature(case, dsl=NUMBA_CUDA)
    compiled = NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block, grid=gpu.TILES)
    assert_inlined(compiled, spills=case.threads == 1024)


def test_floating_point_flags_are_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        flags = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.flag_heads(items, flags, "!=")  # call

    _refused(kernel, "flag_heads", "head_flags= holds float32; it must hold signed integer or unsigned")


def test_head_and_tail_flags_share_one_dtype() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        heads = cuda.local.array(4, np.int32)
        tails = cuda.local.array(4, np.uint8)
        coop.block.load(x, items)
        coop.block.flag_heads_and_tails(items, heads, tails, "!=")  # call

    _refused(kernel, "tail_flags=", "uint8", "int32")


def test_flags_need_the_items_extent() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        flags = cuda.local.array(3, np.int32)
        coop.block.load(x, items)
        coop.block.flag_tails(items, flags, "!=")  # call

    _refused(kernel, "flag_tails", "3 items")


def test_a_discontinuity_needs_a_predicate() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        flags = cuda.local.array(4, np.int32)
        coop.block.load(x, items)
        coop.block.flag_heads(items, flags, "+")  # call

    _refused(kernel, "op='+' is not a comparison")


def test_a_difference_needs_an_operator_returning_a_value() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.subtract_left(items, operator.lt)  # call

    _refused(kernel, "subtract_left", "is not a binary operator returning a value")


def test_a_predecessor_of_another_type_is_checked() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.int32)
        coop.block.load(x, items)
        coop.block.subtract_left(items, operator.sub, tile_predecessor_item=out[0])  # call

    _refused(kernel, "tile_predecessor_item=", "float32", sig=(I32, F32))


def test_an_offset_distance_is_an_exact_int32() -> None:
    @cuda.jit
    def kernel(x, out):
        d = cuda.threadIdx.x // 64  # an int64 variable: could not convert without loss
        out[0] = coop.block.shuffle_offset(x[cuda.threadIdx.x], distance=d)  # call

    _refused(kernel, "distance=", "int32")

    @cuda.jit
    def constant(x, out):
        out[cuda.threadIdx.x] = coop.block.shuffle_offset(x[cuda.threadIdx.x], distance=-3)

    assert compile_kernel(constant, (F32, F32), block=(128,)).cubin


def test_a_rotation_distance_is_an_integer() -> None:
    @cuda.jit
    def kernel(x, out):
        out[0] = coop.block.shuffle_rotate(x[cuda.threadIdx.x], distance=x[0])  # call

    _refused(kernel, "distance=", "integer")


def test_shuffle_up_needs_an_array() -> None:
    @cuda.jit
    def kernel(x, out):
        coop.block.shuffle_up(x[cuda.threadIdx.x])  # call

    _refused(kernel, "shuffle_up", "x[]")


def test_shuffle_offset_takes_one_value() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        out[0] = coop.block.shuffle_offset(items)  # call

    _refused(kernel, "shuffle_offset", "x=", "single float32 value")


def test_the_block_suffix_is_a_local_array() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.shuffle_up(items, block_suffix=out)  # call

    _refused(kernel, "block_suffix=", "cuda.local.array")


def test_a_partial_tile_needs_an_integer_count() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.subtract_right_partial_tile(items, operator.sub, valid_items=x[0])  # call

    _refused(kernel, "valid_items=", "integer")
