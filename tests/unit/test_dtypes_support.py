"""The primitive x dtype support table is derived from the specs (``_specs._support.support_matrix``)."""

from __future__ import annotations

from cuda_coop._dsl._primitive import all_public_primitives
from cuda_coop._specs._support import support_matrix
from cuda_coop._specs._types import DSL_DTYPES


def _cells() -> dict[tuple[str, str], object]:
    return {(r.primitive, r.dtype): r for r in support_matrix()}


def test_every_public_primitive_and_dtype_has_one_row() -> None:
    rows = support_matrix()
    names = {p.name for p in all_public_primitives()}
    assert {r.primitive for r in rows} == names
    assert len(rows) == len(names) * len(DSL_DTYPES) == len({(r.primitive, r.dtype) for r in rows})


def test_half_and_complex_cells_follow_the_kinds() -> None:
    cells = _cells()
    for dtype in ("float16", "bfloat16", "complex64", "complex128"):
        assert cells["block.sum", dtype].supported
        assert cells["block.load", dtype].supported
        assert cells["warp.inclusive_sum", dtype].supported
        assert not cells["block.histogram", dtype].supported
        assert "integers" in cells["block.histogram", dtype].note
    assert cells["block.radix_sort", "float16"].supported
    assert not cells["block.radix_sort", "complex128"].supported


def test_operator_notes() -> None:
    cells = _cells()
    assert "min, max" in cells["block.reduce", "complex64"].note
    assert "min" not in cells["block.reduce", "float16"].note and "&" in cells["block.reduce", "float16"].note
    assert cells["block.reduce", "int32"].note == ""
    assert cells["block.sum", "complex64"].note == ""  # no operator parameter
