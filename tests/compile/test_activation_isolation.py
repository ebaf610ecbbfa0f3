"""Activating cuda.coop leaves kernels without cuda-coop calls as they were (compile tier, no GPU).

Each process runs ordinary numba-cuda-mlir kernels (tests/helpers/isolation.py) compiled for sm_90,
one without cuda.coop, one with it active. The native launcher is replaced by a recorder, so a
launch reports its path: numba-cuda-mlir's own (``native``) or the Python pre-launch compile that a
registered planner used to switch on for every kernel (issue 16: ``*args`` kernels then failed with
"kernel precompilation completed without publishing a matching overload", and argument errors became
compile errors). Both processes must give the same outcome, compiles and path for every kernel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop import block as coop_block
from cuda.coop.block import sum as block_sum
from cuda.coop.numba_mlir import compile_kernel
from tests.helpers import isolation

REPO = Path(__file__).resolve().parents[2]
CASES = isolation.default_cases("plain", "compile")
VARARGS = [c for c in CASES if c.startswith("varargs") and c != "varargs_device"]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"}


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    return {mode: isolation.report(mode, "compile") for mode in ("plain", "coop")}


@pytest.mark.parametrize("case", CASES)
def test_same_outcome_path_and_compiles(reports: dict[str, dict[str, Any]], case: str) -> None:
    plain, coop = reports["plain"][case], reports["coop"][case]
    assert coop["outcome"] == plain["outcome"]
    assert coop["paths"] == plain["paths"]
    assert coop["compiles"] == plain["compiles"]  # includes planner IR repairs: none in either process
    assert "prelaunch" not in coop["paths"]


@pytest.mark.parametrize("case", VARARGS)
def test_varargs_kernels_compile_for_sm90_with_coop_active(reports: dict[str, dict[str, Any]], case: str) -> None:
    coop = reports["coop"][case]
    assert coop["outcome"] == ["ok", None]
    assert coop["paths"][0] == "native"
    assert any(p.startswith("callback _Z") and p.endswith("cubin=True") for p in coop["paths"]), coop["paths"]


def test_enum_kernels_with_coop_active(reports: dict[str, dict[str, Any]]) -> None:
    assert reports["coop"]["enum"]["outcome"] == ["ok", None]
    # numba-cuda-mlir 0.5.4 cannot compile an Enum with tuple values (an MLIR binding error at compile
    # time); on a GPU its native launcher rejects the argument first. Same path, so the same error.
    outcome = reports["coop"]["enum_tuple_values"]["outcome"]
    assert outcome[:2] == ["error", "TypeError"]
    assert reports["coop"]["enum_tuple_values"]["paths"] == ["native"]


def test_no_recompile_for_a_new_grid(reports: dict[str, dict[str, Any]]) -> None:
    for mode in ("plain", "coop"):
        grids = reports[mode]["grids"]
        assert grids["compiles"] == {"trivial": 1, "grid2_kernel": 1, "grid3_kernel": 1}
        assert grids["outcome"][1]["trivial"] == {
            "overloads": 1,
            "launch_specialised": 0,
            "requires_launch_config": False,
        }


def test_kernel_with_a_primitive_is_still_launch_specialised() -> None:
    """The first launch now takes the native path; the planner's request marks the kernel launch-specialised."""
    report = isolation.report("coop", "compile", ["coop_kernel"])["coop_kernel"]
    assert report["outcome"][0] == "ok", report["outcome"]
    assert report["outcome"][1]["block_sums"] == {
        "overloads": 0,
        "launch_specialised": 2,
        "requires_launch_config": True,
    }
    assert report["compiles"]["block_sums"] == 2  # blocks 128 and 64; the repeated launch reuses its compile
    assert report["compiles"]["ir repairs"] >= 2  # the planner ran on both compiles
    assert report["paths"][0] == "native" and "prelaunch" in report["paths"]


FOREIGN = r"""
import json, warnings
warnings.simplefilter("ignore")
from numba_cuda_mlir import extending, tools
from numba_cuda_mlir._whole_function_planners import _planner_registry as registry
import cuda.coop.numba_mlir
tools._cached_cc = (9, 0)  # no GPU: compile for sm_90
seen = []
only_ours = registry.has_planners

class Foreign(extending.WholeFunctionPlanner):
    def run(self):
        seen.append(self.state.func_ir.func_id.func_name)
        return False

extending.register_planner(Foreign)
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

@cuda.jit
def plain(x):
    x[0] = 1.0

plain.compile((types.float32[::1],))
print(json.dumps({"only_ours": only_ours, "with_foreign": registry.has_planners, "seen": seen}))
"""


def test_other_planners_keep_numba_cuda_mlir_behaviour() -> None:
    """Only cuda-coop's planner is isolated: a foreign planner still sees every kernel and the pre-launch path."""
    proc = subprocess.run(
        [sys.executable, "-c", FOREIGN], cwd=REPO, env=_env(), capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"only_ours": False, "with_foreign": True, "seen": ["plain"]}


# --- the pre-scan that keeps the planner out of kernels without primitives finds every spelling -------

I32 = types.int32[::1]


@cuda.jit
def via_module(x, out):  # type: ignore[no-untyped-def]
    out[cuda.blockIdx.x] = coop.block.sum(x[cuda.grid(1)])


@cuda.jit
def via_stub(x, out):  # type: ignore[no-untyped-def]
    out[cuda.blockIdx.x] = block_sum(x[cuda.grid(1)])


@cuda.jit
def via_alias(x, out):  # type: ignore[no-untyped-def]
    f = coop.block.sum
    out[cuda.blockIdx.x] = f(x[cuda.grid(1)])


@cuda.jit
def via_submodule(x, out):  # type: ignore[no-untyped-def]
    out[cuda.blockIdx.x] = coop_block.sum(x[cuda.grid(1)])


def _closure() -> Any:
    f = coop.block.sum

    @cuda.jit
    def via_closure(x, out):  # type: ignore[no-untyped-def]
        out[cuda.blockIdx.x] = f(x[cuda.grid(1)])

    return via_closure


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Each run of cuda-coop's planner from now on: the kernel's name, and whether it rewrote the kernel."""
    from cuda.coop.numba_mlir._planner import CoopPlanner

    runs: list[tuple[str, bool]] = []
    run = CoopPlanner.run

    def recorded(self: CoopPlanner) -> bool:
        changed = run(self)
        runs.append((self.state.func_ir.func_id.func_name, changed))
        return changed

    monkeypatch.setattr(CoopPlanner, "run", recorded)
    return runs


@pytest.mark.parametrize(
    "kernel",
    [via_module, via_stub, via_alias, via_submodule, _closure()],
    ids=["module", "stub", "alias", "submodule", "closure"],
)
def test_every_spelling_of_a_primitive_reaches_the_planner(kernel: Any, planned: list[tuple[str, bool]]) -> None:
    compiled = compile_kernel(kernel, (I32, I32), block=(128,))
    assert ".entry" in compiled.ptx
    assert (kernel.py_func.__name__, True) in planned, f"the planner did not rewrite the kernel: {planned}"


def test_a_kernel_that_only_calls_uniform_reaches_the_planner(planned: list[tuple[str, bool]]) -> None:
    """``coop.uniform`` alone is rewritten by the planner too (no launch needed): the pre-scan lets it run."""
    from cuda.coop.numba_mlir import _seams

    @cuda.jit
    def only_uniform(x, out):  # type: ignore[no-untyped-def]
        if coop.uniform(x[0] > 0):
            out[0] = x[0]

    with _seams.assumed_compute_capability((9, 0)):
        only_uniform.compile((types.float32[::1], types.float32[::1]))
    assert planned == [("only_uniform", True)], "the planner did not rewrite coop.uniform"
