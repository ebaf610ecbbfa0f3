"""The GPU tier's kernels compile for sm_90 without a GPU (compile tier).

A representative subset of each GPU matrix (every block shape, every load/store, reduce and
scan algorithm, every dtype, every operator) goes through ``compile_kernel`` with the kernel
builders the GPU tests launch, so a typo or a refused combination in them shows up here, in CI.
The refusals of ``tests/gpu/test_refusals.py`` are checked here too.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import test_block_matrix, test_operator_matrix, test_refusals, test_warp_matrix
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
