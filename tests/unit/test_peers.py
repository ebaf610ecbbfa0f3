"""benchmarks/peers.py's rules, with fake implementations and a fake timer (no GPU): every implementation is checked
before it is timed and a wrong or failing one is never timed nor the row's peer; the peer is the fastest correct
one; a launch that waits for the GPU is timed without the hold; samples are interleaved; peers without an
implementation are named with the reason; the rows cover issue 41's tasks."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from tests.helpers.scripts import load_script

pytest.importorskip("numba_cuda_mlir", reason="peers.py imports the recipes, which need numba-cuda-mlir")

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def peers() -> ModuleType:
    return load_script(BENCHMARKS / "peers.py", "_bench_peers")


class FakeTimer:
    """Fixed GPU times per launch; records which sampling each launch got, in order."""

    def __init__(self, ms: dict[Callable[[], None], float], syncing: frozenset[Callable[[], None]] = frozenset()):
        self.ms, self.syncing, self.calls = ms, syncing, []  # type: ignore[var-annotated]

    def sample(self, launch: Callable[[], None]) -> tuple[float, float]:
        self.calls.append(("held", launch))
        return self.ms[launch], 1.0

    def sample_unheld(self, launch: Callable[[], None]) -> tuple[float, float]:
        self.calls.append(("unheld", launch))
        return self.ms[launch], 1.0

    def holds_host(self, launch: Callable[[], None]) -> bool:
        return launch in self.syncing


class Stream:
    def sync(self) -> None:
        pass


def _setup(peers: ModuleType, outputs: dict[str, Any], missing: dict[str, str]) -> tuple[Any, dict[str, Any]]:
    """A Setup whose implementation ``name`` returns ``outputs[name]`` (an exception is raised by its launch)."""
    import cuda.coop as coop

    env = peers.sys.modules["_peers_env"]
    launches: dict[str, Any] = {}
    impls = {}
    for name, value in outputs.items():
        def launch(value: Any = value) -> None:
            if isinstance(value, Exception):
                raise value
        launches[name] = launch
        impls[name] = env.Impl(launch, lambda value=value: (np.array([value]),))
    pick, alt = coop.RowShape(threads=128, items_per_thread=8), coop.RowShape(threads=64, items_per_thread=16)
    setup = env.Setup(impls, missing, lambda out: "ok" if out[0][0] == 7 else f"wrong: {out[0][0]}", 1_000_000,
                      pick, [alt], {"load float32": "transpose", "store float32": "transpose"})
    return setup, launches


def _run(peers: ModuleType, monkeypatch: pytest.MonkeyPatch, setup: Any, timer: FakeTimer, check_only: bool = False
         ) -> dict[str, Any]:
    monkeypatch.setattr(peers, "cuda", types.SimpleNamespace(synchronize=lambda: None))
    task = peers.Task("row softmax", "4x1000 float32", lambda env, rng: setup)
    return peers.run_task(task, None, timer, Stream(), 20, check_only)


def test_a_wrong_or_failing_result_is_never_timed_nor_the_peer(peers: ModuleType,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    coop = peers.COOP
    outputs = {coop: 7, f"{coop} 64x16": 7, f"{coop} load=vectorize": 7, f"{coop} load=transpose": 7,
               "torch.softmax": 8, "triton softmax nw=4": 7, "triton softmax nw=8": 7, "cupy.x": RuntimeError("boom")}
    setup, launches = _setup(peers, outputs, {"cupy": "n/a: CuPy has no fused softmax"})
    times = {coop: 2.0, f"{coop} 64x16": 1.5, f"{coop} load=vectorize": 1.8, f"{coop} load=transpose": 2.2,
             "torch.softmax": 0.1, "triton softmax nw=4": 1.0, "triton softmax nw=8": 1.2, "cupy.x": 0.01}
    timer = FakeTimer({launches[n]: t for n, t in times.items()})
    row = _run(peers, monkeypatch, setup, timer)
    assert row["check"]["torch.softmax"] == "wrong: 8" and row["check"]["cupy.x"].startswith("error: RuntimeError")
    assert row["check"]["cupy"] == "n/a: CuPy has no fused softmax" and row["check"][coop] == "ok"
    timed = {launch for _, launch in timer.calls}
    assert launches["torch.softmax"] not in timed and launches["cupy.x"] not in timed
    assert (row["peer"], row["peer_ms"], row["coop_ms"], row["ratio"]) == ("triton softmax nw=4", 1.0, 2.0, 2.0)
    assert row["shapes_ms"] == {"128x8": 2.0, "64x16": 1.5} and row["best_shape"] == "64x16"
    assert row["loads_ms"] == {"auto": 2.0, "vectorize": 1.8, "transpose": 2.2}
    assert row["gbps"] == pytest.approx(1_000_000 / 2e-3 / 1e9) and row["auto"]["load float32"] == "transpose"
    assert row["host_sync"] == []


def test_every_correct_implementation_is_sampled_reps_times_interleaved(peers: ModuleType,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    coop = peers.COOP
    names = [coop, f"{coop} 64x16", "torch.bincount", "triton h nw=4"]
    setup, launches = _setup(peers, dict.fromkeys(names, 7), {})
    timer = FakeTimer({launches[n]: 1.0 for n in names}, syncing=frozenset({launches["torch.bincount"]}))
    row = _run(peers, monkeypatch, setup, timer)
    assert row["host_sync"] == ["torch.bincount"]
    for name in names:
        kinds = [kind for kind, launch in timer.calls if launch is launches[name]]
        assert len(kinds) == 20 and set(kinds) == {"unheld" if name == "torch.bincount" else "held"}, name
    firsts = [timer.calls[k * len(names)][1] for k in range(len(names))]  # each round starts with the next one
    assert firsts == [launches[n] for n in names]


def test_check_only_checks_and_times_nothing(peers: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    setup, _ = _setup(peers, {peers.COOP: 7, "torch.softmax": 9}, {"triton": "absent: no triton"})
    timer = FakeTimer({})
    row = _run(peers, monkeypatch, setup, timer, check_only=True)
    assert timer.calls == [] and "coop_ms" not in row
    assert row["check"] == {"triton": "absent: no triton", peers.COOP: "ok", "torch.softmax": "wrong: 9"}
    assert peers._failed(row, check_only=True) and not peers._failed(row, check_only=False)


def test_a_wrong_cuda_coop_result_fails_the_run_and_has_no_ratio(peers: ModuleType,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    setup, launches = _setup(peers, {peers.COOP: 3, "torch.softmax": 7}, {})
    row = _run(peers, monkeypatch, setup, FakeTimer({launches["torch.softmax"]: 1.0}))
    assert row["coop_ms"] is None and "ratio" not in row and row["peer"] == "torch.softmax"
    assert peers._failed(row, check_only=False)


def test_a_task_that_cannot_be_built_is_a_row_with_its_error(peers: ModuleType,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peers, "cuda", types.SimpleNamespace(synchronize=lambda: None))

    def build(env: Any, rng: Any) -> Any:
        raise MemoryError("out of device memory")

    row = peers.run_task(peers.Task("row sort", "1x1 float32 keys", build), None, FakeTimer({}), Stream(), 20, False)
    assert row["error"] == "MemoryError: out of device memory" and peers._failed(row, check_only=False)


ISSUE_TASKS = {"row top-k", "row softmax", "row layer norm", "row argmax", "row argmin", "row cumsum", "row sort",
               "byte histogram", "whole-array sum"}


def test_the_rows_are_issue_41_s_tasks_and_every_task_has_a_quick_and_a_check_row(peers: ModuleType) -> None:
    tasks = peers.sys.modules["_peers_tasks"].tasks
    full, check = tasks(), tasks(check_only=True)
    assert {t.task for t in full} == ISSUE_TASKS == {t.task for t in check}
    assert len({t.id for t in full}) == len(full) and len({t.seed for t in full}) == len(full)
    quick = {t.task for t in full if t.quick}
    assert quick >= ISSUE_TASKS - {"row argmin"}, "each task (argmax standing for argmin) in --quick"
    sizes = " ".join(t.size for t in full)
    for needed in ("16384x1024 float32 k=8", "16384x1024 float32 k=32", "4096x4096 float32 k=8", "k=1 ", "k=64",
                   "bfloat16", "float16", "65536x1024 int32", "pairs", "keys", "268435456 uint8"):
        assert needed in sizes + " ", needed
    assert all("1000" in t.size or "100003" in t.size or "20000" in t.size for t in check)


def test_neighbours_are_the_valid_shapes_around_the_pick(peers: ModuleType) -> None:
    import cuda.coop as coop

    env = peers.sys.modules["_peers_env"]
    shape = coop.RowShape(threads=512, items_per_thread=8)
    assert [str(s) for s in env.neighbours(shape)] == ["256x16", "1024x4", "256x8"]
    assert [str(s) for s in env.neighbours(coop.RowShape(threads=1024, items_per_thread=1))] == ["512x2", "512x1"]
    assert [str(s) for s in env.neighbours(shape, lambda s: s.tile >= 4096)] == ["256x16", "1024x4"]


def test_auto_picks_names_what_auto_binds_for_the_recipe_s_loads(peers: ModuleType) -> None:
    import cuda.coop as coop
    from cuda.coop._specs import BlockLoadAlgorithm

    env = peers.sys.modules["_peers_env"]
    picks = env.auto_picks(coop.RowShape(threads=512, items_per_thread=8), {"float32": "float32", "int32": "int32"})
    assert set(picks) == {"load float32", "store float32", "load int32", "store int32"}
    assert set(picks.values()) <= {a.short_name for a in BlockLoadAlgorithm}  # loads and stores share the names


def test_every_task_belongs_to_a_recipe_of_the_gallery(peers: ModuleType) -> None:
    """The docs find a recipe's rows by task name (docs/_ext/coop_peers.py): a task renamed here shows."""
    sys.path.insert(0, str(BENCHMARKS.parent / "docs" / "_ext"))
    import coop_peers

    named = {t for tasks in coop_peers.RECIPE_TASKS.values() for t in tasks}
    assert {t.task for t in peers.sys.modules["_peers_tasks"].tasks()} == named


def test_a_launch_that_fails_while_timed_is_the_row_s_error(peers: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    setup, launches = _setup(peers, {peers.COOP: 7, "torch.softmax": 7}, {})
    timer = FakeTimer({launches[peers.COOP]: 1.0})           # torch.softmax's sample raises KeyError
    row = _run(peers, monkeypatch, setup, timer)
    assert row["error"].startswith("while timing: KeyError") and row["check"]["torch.softmax"] == "ok"
    assert peers._failed(row, check_only=False)
