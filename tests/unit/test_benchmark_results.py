"""The committed benchmark results: the plot and table are drawn from the committed JSON, and the JSON
covers the suite as it is defined (a family added to benchmarks/suite.py without a measurement shows)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results" / "suite.json"


def _checks_of(row: dict) -> list[bool]:  # type: ignore[type-arg]
    return [row["cub_ok"], row["coop_ok"], *row.get("explicit_ok", {}).values(), *row.get("twin_ok", {}).values()]


def _module(name: str) -> ModuleType:
    return load_script(ROOT / "benchmarks" / f"{name}.py", f"_bench_{name}")


def test_plot_and_table_are_drawn_from_the_committed_json() -> None:
    plot = _module("plot")
    result = json.loads(RESULTS.read_text())
    assert RESULTS.with_suffix(".svg").read_text() == plot.svg(result), "run: python benchmarks/plot.py"
    assert RESULTS.with_suffix(".csv").read_text() == plot.table(result), "run: python benchmarks/plot.py"
    assert plot.parity_rows(result), "the committed run timed no algorithm on both sides (suite.py --no-explicit)"
    parity = RESULTS.with_name("suite_parity.svg").read_text()
    assert parity == plot.parity_svg(result), "run: python benchmarks/plot.py"


def test_every_result_was_checked_and_names_its_machine() -> None:
    result = json.loads(RESULTS.read_text())
    assert result["device"] and result["date"] and result["rows"]
    assert all(r["cub_ok"] and r["coop_ok"] and all(r.get("explicit_ok", {}).values())
               and all(r.get("twin_ok", {}).values()) for r in result["rows"])


def test_every_row_records_both_launch_calls_and_the_summary_is_the_rows() -> None:
    """Each row has the host cost of one launch call of each kernel; the summary is recomputed from the rows."""
    pytest.importorskip("numba_cuda_mlir")
    suite = _module("suite")
    result = json.loads(RESULTS.read_text())
    assert all(r["coop_launch_us"] > 0 and r["cub_launch_us"] > 0 for r in result["rows"])
    assert result["summary"] == pytest.approx(suite._summary(result["rows"]))


def test_auto_was_timed_against_every_algorithm_it_may_pick() -> None:
    """Where a case leaves ``algorithm`` to auto, each algorithm auto may pick was timed as an explicit choice."""
    pytest.importorskip("numba_cuda_mlir")
    suite = _module("suite")
    from cuda.coop._specs import _auto

    rows = {r["case"]: r for r in json.loads(RESULTS.read_text())["rows"]}
    for c in suite.cases():
        table = suite.FAMILIES[c.family].auto
        if table is None or c.name not in rows:
            continue
        row = rows[c.name]
        assert set(_auto.candidates(table)) <= set(row["explicit_ms"]), c.name
        best = min(row["explicit_ms"][a] for a in _auto.candidates(table))
        assert row["auto_vs_best"] == pytest.approx(row["coop_ms"] / best), c.name


def test_every_algorithm_was_timed_against_a_twin_with_the_same_algorithm() -> None:
    """Codegen parity apart from the choice of algorithm: every algorithm CUB accepts for a reduce or scan case, on
    both sides, checked; the ratios are the explicit kernel's time over its twin's; the summary is the rows'."""
    pytest.importorskip("numba_cuda_mlir")
    suite = _module("suite")
    result = json.loads(RESULTS.read_text())
    assert result["summary"] == pytest.approx(suite._summary(result["rows"]))
    assert all(all(_checks_of(r)) for r in result["rows"])
    rows = {r["case"]: r for r in result["rows"]}
    parity_cases = [c for c in suite.cases() if suite.FAMILIES[c.family].parity and c.family not in suite.PENDING]
    assert parity_cases and all(c.name in rows for c in parity_cases)
    for c in parity_cases:
        row = rows[c.name]
        assert set(row["same_algorithm"]) == set(suite.parity_algorithms(c)), c.name
        assert all(row["twin_ok"].values()), c.name
        for alg, ratio in row["same_algorithm"].items():
            assert ratio == pytest.approx(row["explicit_ms"][alg] / row["twin_ms"][alg]), (c.name, alg)


def test_the_json_covers_every_suite_case() -> None:
    """Every case was measured, but those of families added without a GPU (``suite.PENDING``), which stay listed
    there only until a committed run has them."""
    pytest.importorskip("numba_cuda_mlir")
    suite = _module("suite")
    rows = json.loads(RESULTS.read_text())["rows"]
    measured = {r["case"] for r in rows}
    missing = [c.name for c in suite.cases() if c.name not in measured and c.family not in suite.PENDING]
    assert not missing, f"cases without a committed measurement (run benchmarks/suite.py on a GPU): {missing}"
    assert set(suite.FAMILIES) >= suite.PENDING, "a pending family that the suite does not have"
    stale = sorted({r["family"] for r in rows} & suite.PENDING)
    assert not stale, f"measured families still marked pending in benchmarks/suite.py: {stale}; empty PENDING"


def test_resume_keeps_the_selected_rows_of_a_run_with_the_same_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``suite.py --resume``: the committed JSON stands in for an interrupted run (the device is faked)."""
    pytest.importorskip("numba_cuda_mlir")
    import types as pytypes

    suite = _module("suite")
    result = json.loads(RESULTS.read_text())
    device = pytypes.SimpleNamespace(name=result["device"].encode())
    monkeypatch.setattr(suite, "cuda", pytypes.SimpleNamespace(get_current_device=lambda: device))
    monkeypatch.setattr(suite.coop, "__version__", result["cuda_coop"])
    path = tmp_path / "suite.json"
    assert suite._resumed(path, suite.cases(), result["reps"]) == []  # nothing written yet
    path.write_text(RESULTS.read_text())
    selected = [c for c in suite.cases() if c.family == "scan"]
    kept = suite._resumed(path, selected, result["reps"])
    assert [r["case"] for r in kept] == [r["case"] for r in result["rows"] if r["family"] == "scan"] and kept
    with pytest.raises(SystemExit, match="other settings"):
        suite._resumed(path, selected, result["reps"] + 1)
