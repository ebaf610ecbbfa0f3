"""The committed comparison with PyTorch, Triton and CuPy (benchmarks/results/peers.json, from benchmarks/peers.py):
its plot and table are drawn from it, each row's peer is the fastest correct peer, and the performance page and the
recipe gallery say what it holds. Without a committed JSON, the page says that nothing has been measured, and nothing
else; the drawing and the page's text are checked on a synthetic result (made here, never committed)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import coop_peers  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
JSON = RESULTS / "peers.json"


@pytest.fixture(scope="module")
def plot() -> ModuleType:
    return load_script(ROOT / "benchmarks" / "peers_plot.py", "_bench_peers_plot")


def synthetic() -> dict[str, Any]:
    """A made-up result in peers.json's format (the figures mean nothing)."""
    def row(task: str, size: str, coop_ms: float, peer: str, peer_ms: float, **more: Any) -> dict[str, Any]:
        return {"task": task, "size": size, "seed": 1, "coop_ms": coop_ms, "peer": peer, "peer_ms": peer_ms,
                "ratio": coop_ms / peer_ms, "bytes": 10**8, "gbps": 10**8 / (coop_ms * 1e-3) / 1e9,
                "copy_fraction": 0.5, "shape": "128x8", "best_shape": "128x8", "shapes_ms": {"128x8": coop_ms},
                "loads_ms": {"auto": coop_ms, "vectorize": coop_ms * 0.9}, "auto": {"load float32": "transpose"},
                "check": {"cuda-coop": "ok", peer: "ok", "cupy": "n/a: CuPy has no top-k"},
                "ms": {"cuda-coop": coop_ms, peer: peer_ms}, "host_sync": [], **more}

    return {"device": "Synthetic GPU", "date": "2000-01-01T00:00:00+00:00", "reps": 20, "batch": 10,
            "copy_gbps": 4000.0, "check_only": False,
            "versions": {"cuda_coop": "0", "torch": "0", "triton": "0", "cupy": "absent: cupy does not import",
                         "python": "3"},
            "rows": [row("row top-k", "16x1024 float32 k=8", 2.0, "torch.topk", 1.0),
                     row("row argmax", "16x1024 float32", 1.0, "triton tl.max nw=4", 2.0,
                         best_shape="64x16", shapes_ms={"128x8": 1.0, "64x16": 0.5}),
                     {"task": "row sort", "size": "16x1024 float32 keys", "error": "RuntimeError: x"}]}


def test_plot_and_table_are_drawn_from_the_committed_json(plot: ModuleType) -> None:
    result = coop_peers.committed()
    if result is None:  # nothing measured: no figure or table drawn from a result that is not there
        assert not (RESULTS / "peers.svg").exists() and not (RESULTS / "peers.csv").exists()
        return
    assert (RESULTS / "peers.svg").read_text() == plot.svg(result), "run: python benchmarks/peers_plot.py"
    assert (RESULTS / "peers.csv").read_text() == plot.table(result), "run: python benchmarks/peers_plot.py"


def test_each_committed_row_was_checked_and_names_the_fastest_correct_peer() -> None:
    result = coop_peers.committed()
    if result is None:
        assert not JSON.exists()
        return
    assert not result["check_only"] and result["reps"] >= 20 and result["copy_gbps"] > 0
    assert result["device"] and result["date"] and {"cuda_coop", "torch", "triton", "cupy"} <= set(result["versions"])
    for row in result["rows"]:
        assert "error" not in row, row
        assert row["check"]["cuda-coop"] == "ok", row["task"]
        timed = {name for name, verdict in row["check"].items() if verdict == "ok"}
        assert set(row["ms"]) == timed, "every correct implementation timed, and only those"
        peers = {name: ms for name, ms in row["ms"].items() if not name.startswith("cuda-coop")}
        if peers:
            assert row["peer"] == min(peers, key=peers.__getitem__) and row["peer_ms"] == peers[row["peer"]]
            assert row["ratio"] == pytest.approx(row["coop_ms"] / row["peer_ms"])


def test_the_page_says_not_measured_and_nothing_else_without_a_json() -> None:
    assert coop_peers.comparison_lines(None) == [coop_peers.NOT_MEASURED]
    assert "not been measured" in coop_peers.NOT_MEASURED
    assert (coop_peers.committed() is None) == (not JSON.is_file())


def test_the_page_shows_a_result_s_plot_table_rule_and_missing_peers(
    plot: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = synthetic()
    (tmp_path / "peers.csv").write_text(plot.table(result))
    monkeypatch.setattr(coop_peers, "RESULTS", tmp_path)
    lines = "\n".join(coop_peers.comparison_lines(result))
    assert "Synthetic GPU on 2000-01-01" in lines and "4000 GB/s" in lines and "median of 20 samples" in lines
    assert ".. image:: /../benchmarks/results/peers.svg" in lines
    assert ".. csv-table::" in lines and "   row top-k,16x1024 float32 k=8,2.0000,torch.topk," in lines  # peers.csv
    assert "at most 1.0 in 1 of the 2 rows" in lines
    assert "fastest of those timed (its neighbours: half and twice the threads) in 1 of 2 rows" in lines
    assert "row argmax 16x1024 float32, 64x16 at 0.500 of 128x8's time" in lines
    assert "vectorize was at least 2% faster in 2 of 2 rows" in lines
    assert "``cupy``: n/a: CuPy has no top-k (row argmax, row top-k)" in lines


def test_the_svg_and_csv_show_every_row(plot: ModuleType) -> None:
    result = synthetic()
    drawing, table = plot.svg(result), plot.table(result)
    assert drawing.count("<rect") == 2 and "2.00 vs torch.topk" in drawing and "0.50 vs triton tl.max nw=4" in drawing
    assert "RuntimeError: x" in drawing
    lines = table.splitlines()
    assert lines[0].split(",")[:6] == ["task", "size", "cuda-coop ms", "fastest correct peer", "peer ms", "ratio"]
    assert lines[1].startswith("row top-k,16x1024 float32 k=8,2.0000,torch.topk,1.0000,2.000,")
    assert lines[1].endswith(",128x8,128x8,transpose,0.900")
    assert lines[3].startswith("row sort,16x1024 float32 keys,error")
    changed = copy.deepcopy(result)
    changed["rows"][0]["ratio"] = 0.25
    assert plot.svg(changed) != drawing, "the drawing follows the figures"


def test_the_gallery_shows_every_recipe_with_its_ratios() -> None:
    recipes = sorted(p.stem for p in coop_peers.RECIPES_DIR.glob("*.py"))
    assert set(recipes) == set(coop_peers.RECIPE_TASKS)
    unmeasured = "\n".join(coop_peers.gallery_lines(None))
    for stem in recipes:
        assert f".. literalinclude:: /../examples/recipes/{stem}.py" in unmeasured
    assert unmeasured.count("Not measured yet") == len(recipes)
    measured = "\n".join(coop_peers.gallery_lines(synthetic()))
    assert "- row top-k, 16x1024 float32 k=8: **2.00** against ``torch.topk`` (2.0000 ms and 1.0000 ms)" in measured
    assert "- row sort, 16x1024 float32 keys: no ratio (RuntimeError: x)" in measured
    assert measured.count("Not in the committed comparison") == len(recipes) - 3
