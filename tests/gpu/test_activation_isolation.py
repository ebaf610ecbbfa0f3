"""Activating cuda.coop leaves kernels without cuda-coop calls as they were (GPU tier, issue 16).

Ordinary numba-cuda-mlir kernels (tests/helpers/isolation.py: ``*args`` kernels, a ``*args`` device
function, ``*args`` with ``forall``, enums, records, tuples, device functions, atomics, shared, dynamic
shared and local arrays, a stream, several grids, scalars, a typing error) run in one process without
cuda.coop and in one with it active: same results, same errors (type and message), same compiles.
The launch-cost comparison is a benchmark (benchmarks/activation_overhead.py); here only its
non-timing fact: a kernel that calls no primitive is not recompiled for a new grid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from tests.helpers import isolation

CASES = isolation.default_cases("plain", "gpu")
N = isolation.N


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    return {mode: isolation.report(mode, "gpu") for mode in ("plain", "coop")}


@pytest.mark.parametrize("case", CASES)
def test_same_result_or_error_and_compiles(reports: dict[str, dict[str, Any]], case: str) -> None:
    plain, coop = reports["plain"][case], reports["coop"][case]
    assert coop["outcome"] == plain["outcome"]
    assert coop["compiles"] == plain["compiles"]  # includes planner IR repairs: none in either process


def _values(reports: dict[str, dict[str, Any]], case: str) -> Any:
    outcome = reports["coop"][case]["outcome"]
    assert outcome[0] == "ok", outcome
    return outcome[1]


def test_varargs_kernels_run_with_coop_active(reports: dict[str, dict[str, Any]]) -> None:
    i = np.arange(N, dtype=np.float64)
    expected = {
        "varargs_1": i + 1,
        "varargs_2": 2 * i + 3,
        "varargs_4": 4 * i + 10,
        "varargs_forall": 2 * i + 7,
        "varargs_mixed": i + 3.75,
        "varargs_to_device": (i + 2) * (i - 1) + i,
    }
    for case, values in expected.items():
        np.testing.assert_allclose(_values(reports, case)[0], values, err_msg=case)


def test_enum_kernels_with_coop_active(reports: dict[str, dict[str, Any]]) -> None:
    assert _values(reports, "enum")[0] == [130] * N  # the second launch: RED (1), LOW (3), no flags
    outcome = reports["coop"]["enum_tuple_values"]["outcome"]
    assert outcome[:2] == ["error", "TypeError"]
    assert "tuple values are not supported" in outcome[2]  # numba-cuda-mlir's own check, not an MLIR binding error


def test_no_recompile_for_a_new_grid(reports: dict[str, dict[str, Any]]) -> None:
    for mode in ("plain", "coop"):
        grids = reports[mode]["grids"]
        assert grids["compiles"] == {"trivial": 1, "grid2_kernel": 1, "grid3_kernel": 1}, mode
        state = {"overloads": 1, "launch_specialised": 0, "requires_launch_config": False}
        assert grids["outcome"][1]["trivial"] == state, mode
        one, two, three = grids["outcome"][1]["values"]
        assert one == list(range(N))
        assert two == [[x * 100 + y for y in range(6)] for x in range(8)]
        assert three == [[[x * 100 + y * 10 + z for z in range(5)] for y in range(3)] for x in range(4)]


def test_kernel_with_a_primitive_is_launch_specialised_from_its_first_launch() -> None:
    """Its first launch takes numba-cuda-mlir's native path now; results and specialisation are unchanged."""
    report = isolation.report("coop", "gpu", ["coop_kernel"])["coop_kernel"]
    assert report["outcome"][0] == "ok", report["outcome"]
    result = report["outcome"][1]
    assert result["values"] == [[64, 64, 64, 64]]  # the last launch: 4 blocks of 64 threads summing ones
    assert result["block_sums"] == {"overloads": 0, "launch_specialised": 2, "requires_launch_config": True}
    assert report["compiles"]["block_sums"] == 2
