"""benchmarks/kernel_compile.py: its parsing of the ``cuda.coop`` log lines, and one compile-only run (no GPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "kernel_compile.py"


def _bench() -> Any:
    return load_script(SCRIPT, "cuda_coop_kernel_compile_benchmark")


def test_parse_lines_reads_the_planner_provider_link_nvrtc_and_pch_lines() -> None:
    bench = _bench()
    lines = [
        (10.0, "cuda.coop: planned _kernels.<locals>.sum_i32 in 0.125 s"),
        (11.0, "cuda.coop: NVRTC cuda_coop_0123456789abcdef.cu in 0.750 s (pch=True): -arch=sm_90 -rdc=true"),
        (11.5, "cuda.coop: provider 0123456789abcdef: compiled in 1.000 s"),
        (12.0, "cuda.coop: provider fedcba9876543210: cache hit in 0.040 s"),
        (12.1, "cuda.coop: kernel link 0123456789abcdef: linked and cached in 0.050 s"),
        (12.2, "cuda.coop: kernel link fedcba9876543210: cache hit in 0.001 s"),
        (12.5, "cuda.coop: precompiled header /tmp/cuda-coop-pch-x/k.pch ready: ok=False"),
        (12.6, "cuda.coop: waited 0.125 s for precompiled header /tmp/cuda-coop-pch-x/k.pch: ready=True"),
        (13.0, "cuda.coop: cache entry /x is unusable (short, 3 bytes); removing it"),
    ]
    parsed = bench.parse_lines(lines)
    assert parsed["planner"] == [(10.0 - 0.125, 10.0)]
    assert parsed["nvrtc"] == [(11.0 - 0.75, 11.0)]
    assert parsed["pch"] == [True]
    assert parsed["provider"] == [(10.5, 11.5), (12.0 - 0.04, 12.0)]
    assert parsed["origins"] == ["nvrtc", "cache"]
    assert parsed["links"] == ["nvjitlink", "cache"]
    assert parsed["pch_ready"] == [False]
    assert parsed["wait"] == [0.125]


def test_parse_lines_reads_pack_hits_and_links_without_the_cache() -> None:
    bench = _bench()
    lines = [
        (1.0, "cuda.coop: provider 0123456789abcdef: pack hit in 0.040 s (/packs/lib)"),
        (1.2, "cuda.coop: kernel link 0123456789abcdef: pack hit in 0.002 s (/packs/lib)"),
        (2.0, "cuda.coop: provider fedcba9876543210: compiled in 1.000 s"),
        (2.3, "cuda.coop: kernel link fedcba9876543210: linked in 0.200 s"),
    ]
    parsed = bench.parse_lines(lines)
    assert parsed["provider"] == [(1.0 - 0.04, 1.0), (1.0, 2.0)]
    assert parsed["origins"] == ["pack", "nvrtc"] and parsed["links"] == ["pack", "nvjitlink"]


def test_exclusive_subtracts_the_union_of_nested_and_overlapping_intervals() -> None:
    bench = _bench()
    assert bench.exclusive([(0.0, 10.0)]) == 10.0
    assert bench.exclusive([(0.0, 4.0), (2.0, 6.0)]) == 6.0  # overlapping: counted once
    assert bench.exclusive([(0.0, 10.0)], [(1.0, 3.0), (2.0, 4.0), (9.0, 12.0)]) == pytest.approx(6.0)
    assert bench.exclusive([(0.0, 1.0)], [(5.0, 6.0)]) == 1.0


def test_breakdown_attributes_every_second_once() -> None:
    """Provider inside the backend pass, NVVM and nvJitLink after it: the parts and ``other`` sum to the total."""
    bench = _bench()
    raw = {
        "lines": [(1.1, "cuda.coop: planned k in 0.100 s"),
                  (3.0, "cuda.coop: NVRTC cuda_coop_ab.cu in 1.500 s (pch=False): -arch=sm_90"),
                  (3.0, "cuda.coop: provider ab: compiled in 1.600 s")],
        "passes": [("post_inline_whole_function_planners", 1.0, 1.1), ("mlir_type_inference", 1.1, 1.3),
                   ("mlir_backend", 1.3, 3.6)],
        "nvvm": [(3.05, 3.15)],
        "nvjitlink": [(3.2, 3.5)],
    }
    row = bench.breakdown(4.0, raw)
    assert row["planner"] == pytest.approx(0.1)
    assert row["provider"] == pytest.approx(1.6) and row["nvrtc"] == pytest.approx(1.5)
    assert row["pch"] is False and row["origins"] == ["nvrtc"]
    assert row["frontend"] == pytest.approx(0.2)  # both frontend passes less the planner inside the first
    assert row["nvvm"] == pytest.approx(0.1) and row["nvjitlink"] == pytest.approx(0.3)
    assert row["lowering"] == pytest.approx(2.3 - 1.6 - 0.1 - 0.3)
    parts = sum(row[k] for k in ("planner", "provider", "frontend", "lowering", "nvvm", "nvjitlink"))
    assert parts + row["other"] == pytest.approx(4.0)
    assert row["other"] == pytest.approx(4.0 - 2.6)


def test_a_kernel_from_the_link_cache_has_no_nvjitlink_time() -> None:
    bench = _bench()
    raw = {"lines": [(2.0, "cuda.coop: kernel link ab: cache hit in 0.001 s")], "passes": [], "nvvm": [],
           "nvjitlink": []}
    row = bench.breakdown(0.05, raw)
    assert row["nvjitlink"] is None and row["links"] == ["cache"]


def test_breakdown_without_the_wrapped_calls_leaves_their_columns_empty() -> None:
    bench = _bench()
    row = bench.breakdown(0.5, {"lines": [], "passes": [], "nvvm": None, "nvjitlink": None})
    assert row["nvvm"] is None and row["nvjitlink"] is None and row["planner"] is None
    assert row["other"] == 0.5


@pytest.mark.skipif(not SCRIPT.is_file(), reason="benchmarks/ is not in this checkout")
def test_compile_only_run(tmp_path: Path) -> None:
    """Two kernels, one repetition, compile-only: cold compiles, warm cache hits, no recompile for a new grid."""
    pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")
    out = tmp_path / "figures.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--compile-only", "--reps", "1", "--kernels", "2", "--json", str(out)],
        env=env, capture_output=True, text=True, check=False, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "COMPILE-ONLY" in proc.stdout and "were NOT measured" in proc.stdout, proc.stdout
    summary = json.loads(out.read_text())["summary"]
    assert summary["gpu"] is False and summary["context"] is None
    cold, warm = summary["cold"], summary["warm"]
    assert [r["kernel"] for r in cold] == [r["kernel"] for r in warm] == ["sum_i32", "scan_f32"]
    for row in cold:
        assert row["origins"] == ["nvrtc"] and row["links"] == ["nvjitlink"] and row["compiles"] == 1, row
        assert row["nvjitlink"] > 0, row
        assert 0 < row["nvrtc"] <= row["provider"] < row["total"], row
        assert row["planner"] is not None and row["frontend"] is not None and row["lowering"] is not None, row
    for row in warm:
        assert row["origins"] == ["cache"] and row["nvrtc"] is None and row["compiles"] == 1, row
        assert row["links"] == ["cache"] and row["nvjitlink"] is None, row  # no NVRTC, no nvJitLink
    assert "(cache hits;" in proc.stdout, proc.stdout
    for row in summary["new_grid"]:
        assert row["compiles"] == 0 and row.get("planner") is None, row
    assert summary["new_block_compiles"] == 1
    assert summary["pch_builds"] == [1]  # the default compiler starts the PCH build with its first compile
    # A new process on that cache compiles new providers with the PCH the cold process kept there.
    assert summary["pch_kept"] == [1] and [r["kernel"] for r in summary["kept"]] == ["sum_i32", "scan_f32"]
    for row in summary["kept"]:
        assert row["origins"] == ["nvrtc"] and row["pch"] == [True] and row["compiles"] == 1, row
    assert all(isinstance(summary["exit"][k], float) for k in ("cold", "pch_started", "warm", "baseline"))


@pytest.mark.skipif(not SCRIPT.is_file(), reason="benchmarks/ is not in this checkout")
def test_compile_only_pack_run(tmp_path: Path) -> None:
    """--pack: two kernels from a pack built in the same repetition, in a process with the cache off."""
    from tests.helpers.packs import require_numba_cuda_mlir

    require_numba_cuda_mlir()
    out = tmp_path / "figures.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--pack", "--compile-only", "--reps", "1", "--kernels", "2", "--json", str(out)],
        env=env, capture_output=True, text=True, check=False, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads(out.read_text())["summary"]
    assert summary["mode"] == "pack" and summary["plain_again"] > 0
    assert [r["kernel"] for r in summary["pack"]] == ["sum_i32", "scan_f32"]
    for row in summary["pack"]:
        assert row["origins"] == ["pack"] and row["links"] == ["pack"] and row["nvrtc"] is None, row
        assert row["nvjitlink"] is None, row  # no NVRTC, no nvJitLink
    assert "x plain" in proc.stdout and "(pack hits)" in proc.stdout, proc.stdout
