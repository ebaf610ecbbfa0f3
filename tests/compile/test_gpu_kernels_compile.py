"""The GPU tier's kernels compile for sm_90 without a GPU (compile tier).

A representative subset of each GPU matrix (every block shape, every load/store, reduce and
scan algorithm, every dtype, every operator) goes through ``compile_kernel`` with the kernel
builders the GPU tests launch, so a typo or a refused combination in them shows up here, in CI.
The refusals of ``tests/gpu/test_refusals.py`` are checked here too.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_kernels, test_block_matrix, test_operator_matrix, test_refusals, test_warp_matrix
from tests.gpu._data import DTYPES


def _spread(cases: list, keys) -> list:
    """The first case for each distinct key (keys: functions of a case), in order."""
    seen: set = set()
    picked = []
    for case in cases:
        new = {(i, key(case)) for i, key in enumerate(keys)} - seen
        if new:
            seen |= new
            picked.append(case)
    return picked


BLOCK_CASES = _spread(test_block_matrix.CASES[::7], (lambda c: c.block, lambda c: c.ls, lambda c: c.reduce,
                                                    lambda c: c.scan, lambda c: c.dtype))
WARP_CASES = _spread(test_warp_matrix.CASES[::3], (lambda c: c.width, lambda c: c.block))
OPERATOR_CASES = _spread(test_operator_matrix.CASES, (lambda c: c.op, lambda c: c.reduce))


def test_subsets_cover_the_matrices() -> None:
    assert {c.block for c in BLOCK_CASES} == set(test_block_matrix.BLOCKS)
    assert {c.ls for c in BLOCK_CASES} == set(test_block_matrix.LOAD_STORE)
    assert {c.dtype for c in BLOCK_CASES} == set(DTYPES)
    assert {c.reduce for c in BLOCK_CASES} >= {"raking", "raking_commutative_only", "warp_reductions",
                                                "warp_reductions_nondeterministic"}
    assert {c.op for c in OPERATOR_CASES} == {"+", "*", "&", "|", "^", "min", "max"}
    assert {c.width for c in WARP_CASES} == set(test_warp_matrix.WIDTHS)


@pytest.mark.parametrize("case", BLOCK_CASES, ids=lambda c: c.id)
def test_block_matrix_kernel_compiles(case) -> None:
    compiled = compile_kernel(test_block_matrix.make_kernel(case), test_block_matrix.signature(case),
                              block=case.block, grid=test_block_matrix.TILES)
    assert compiled.cubin


@pytest.mark.parametrize("case", WARP_CASES, ids=lambda c: c.id)
def test_warp_matrix_kernel_compiles(case) -> None:
    compiled = compile_kernel(test_warp_matrix.make_kernel(case), test_warp_matrix.signature(case),
                              block=case.block, grid=test_warp_matrix.GRID)
    assert compiled.cubin


@pytest.mark.parametrize("case", OPERATOR_CASES, ids=lambda c: c.id)
def test_operator_matrix_kernel_compiles(case) -> None:
    compiled = compile_kernel(test_operator_matrix.make_kernel(case), test_operator_matrix.signature(case),
                              block=case.block, grid=test_operator_matrix.GRID)
    assert compiled.cubin


@pytest.mark.parametrize("r", test_refusals.REFUSALS, ids=lambda r: r.id)
def test_refused_at_compile(r) -> None:
    with pytest.raises(UsageError) as info:
        compile_kernel(test_refusals.make_kernel(r), test_refusals.signature(), block=r.block)
    test_refusals.check_refusal(info.value, r)


@pytest.mark.parametrize("r", test_refusals.REFUSALS[-5:], ids=lambda r: r.id)
def test_refusal_speaks_public_names(r) -> None:
    with pytest.raises(UsageError) as info:
        compile_kernel(test_refusals.make_kernel(r), test_refusals.signature(), block=r.block)
    test_refusals.check_public_spelling(info.value, r)


def test_refusal_kernels_compile_where_allowed() -> None:
    """On a 64-thread block the same kernels compile: only the block shape was refused."""
    for r in {(r.primitive, r.value): r for r in test_refusals.REFUSALS}.values():
        assert compile_kernel(test_refusals.make_kernel(r), test_refusals.signature(), block=64).cubin, r.id


@pytest.mark.parametrize("block", _sanitizer_kernels.BLOCKS, ids=str)
def test_sanitizer_kernels_compile(block) -> None:
    from numba_cuda_mlir.numba_cuda import types

    i32 = types.int32[::1]
    *kernels, _width = _sanitizer_kernels._kernels(block[0] * block[1] * block[2])
    signatures = ((i32, i32, i32, types.int64), (i32, i32), (i32, i32, i32), (i32, i32), (i32, i32))
    for kernel, sig in zip(kernels, signatures, strict=True):
        assert compile_kernel(kernel, sig, block=block, grid=2).cubin


def test_checks_catch_truncation_and_signedness(rng: np.random.Generator) -> None:
    """The GPU tier's comparisons fail on the mistakes its inputs are drawn to expose."""
    from tests.gpu._data import abs_terms, assert_matches, random_values, reduce_ref, scan_ref

    x64 = random_values(rng, "uint64", 256)
    assert (x64 > 2**32).mean() > 0.9 and (x64 > 2**63).mean() > 0.3
    i32 = random_values(rng, "int32", 256)
    assert (i32 < 0).mean() > 0.3
    total = reduce_ref("+", x64.reshape(4, 64))
    with pytest.raises(AssertionError):  # a 32-bit truncation
        assert_matches(total & np.uint64(0xFFFFFFFF), total, "+", None, 1, "truncated")
    with pytest.raises(AssertionError):  # a signed/unsigned slip in max
        signed_max = reduce_ref("max", i32.view(np.uint32).reshape(4, 64)).view(np.int32)
        assert_matches(signed_max, reduce_ref("max", i32.reshape(4, 64)), "max", None, 1, "signedness")
    f = random_values(rng, "float64", 1024).reshape(4, 256)
    exact = scan_ref("+", f)
    assert_matches(exact.astype(np.float64), exact, "+", abs_terms("+", f, scan=True), 12, "exact")
    with pytest.raises(AssertionError):  # computed in float32
        assert_matches(exact.astype(np.float32).astype(np.float64), exact, "+", abs_terms("+", f, scan=True), 12, "f32")
    with pytest.raises(AssertionError):  # one item dropped
        dropped = scan_ref("+", f[:, 1:])
        assert_matches(dropped, exact[:, 1:], "+", abs_terms("+", f[:, 1:], scan=True), 12, "dropped")


@pytest.mark.parametrize("big_type", ["int64", "uint64"])
def test_counts_kernel_compiles(big_type: str) -> None:
    from numba_cuda_mlir.numba_cuda import types

    from tests.gpu import test_counts

    s = types.uint64
    sig = (s[::1], getattr(types, big_type), s, s[::1], s[::1], s[::1])
    assert compile_kernel(test_counts.make_kernel("uint64", 64), sig, block=64, grid=2).cubin
