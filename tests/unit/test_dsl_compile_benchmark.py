"""benchmarks/dsl_compile.py: its arguments, the DSLs' alternation and the summary's spreads and ratios (no compile)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "dsl_compile.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script(SCRIPT, "cuda_coop_dsl_compile_benchmark")


def test_dsl_argument(bench: ModuleType) -> None:
    assert bench.parse_args([]).dsls == ["numba_mlir", "numba_cuda"]
    assert bench.parse_args(["--dsl", "numba_cuda"]).dsls == ["numba_cuda"]
    assert bench.parse_args(["--dsl", "both", "--reps", "2"]).reps == 2
    for bad in (["--dsl", "triton"], ["--reps", "0"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)


def test_the_dsls_alternate(bench: ModuleType) -> None:
    firsts = [bench.order(rep, bench.DSLS)[0] for rep in range(4)]
    assert firsts == ["numba_mlir", "numba_cuda", "numba_mlir", "numba_cuda"]
    assert bench.order(3, ["numba_cuda"]) == ["numba_cuda"]


def test_spread_and_ratio(bench: ModuleType) -> None:
    assert bench.spread([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0}
    assert bench.ratio(3.0, 2.0) == 1.5
    assert bench.ratio(None, 2.0) is None and bench.ratio(1.0, 0.0) is None


def _process(scale: float) -> dict[str, Any]:
    kernels = [{"kernel": k, "wall": scale * (i + 1), "cpu": scale * (i + 1) / 2, "provider": 0.1 * (i + 1),
                "own": scale * (i + 1) - 0.1 * (i + 1), "wait": 0.0, "origins": ["cache"], "links": ["nvjitlink"]}
               for i, k in enumerate(("tile_sums", "tile_sort", "warp_sum"))]
    return {"import": {"wall": scale, "cpu": scale}, "kernels": kernels}


def test_summary_gives_medians_and_cuda_over_mlir(bench: ModuleType) -> None:
    runs = [{"numba_mlir": {p: _process(1.0 + rep) for p in bench.PHASES},
             "numba_cuda": {p: _process(2.0 * (1.0 + rep)) for p in bench.PHASES}} for rep in range(3)]
    summary = bench.summarize(runs)
    mlir = summary["rows"]["numba_mlir"]
    assert mlir["cold tile_sums"]["wall"] == {"median": 2.0, "min": 1.0, "max": 3.0}
    assert mlir["hit warp_sum"]["wall"]["median"] == 6.0
    assert summary["ratios"]["import"] == {"wall": 2.0, "cpu": 2.0}
    assert summary["ratios"]["warm_providers tile_sort"]["wall"] == pytest.approx(2.0)
    assert summary["ratios"]["cold tile_sums"]["provider"] == pytest.approx(1.0)
    assert summary["ratios"]["cold tile_sums"]["wait"] is None  # no wait on either side
    assert mlir["hit import + tile_sums"]["wall"]["median"] == pytest.approx(2.0 + 2.0)
    text = bench.table(summary)
    assert "cuda/mlir" in text and "2.00" in text and "warm_providers tile_sort" in text


def test_summary_of_one_dsl_has_no_ratios(bench: ModuleType) -> None:
    runs = [{"numba_cuda": {p: _process(1.0) for p in bench.PHASES}}]
    summary = bench.summarize(runs)
    assert summary["dsls"] == ["numba_cuda"] and "ratios" not in summary
    assert "cuda/mlir" not in bench.table(summary)
