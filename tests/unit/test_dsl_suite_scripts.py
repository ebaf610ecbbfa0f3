"""scripts/numba_cuda_mlir_tests.py and scripts/numba_cuda_tests.py (over scripts/_suite_compare.py): JUnit
outcomes, the comparison, the two runs' commands, and a suite they cannot use.

The real runs need a GPU and the DSL's test suite; the numba-cuda-mlir counts are in docs/known_issues.rst.
Here pytest is replaced by a fake that writes a JUnit file per run, so the comparison itself can fail.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.scripts import load_script

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
SCRIPT = SCRIPTS / "numba_cuda_mlir_tests.py"

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.test_a" name="test_ok"/>
<testcase classname="tests.test_a" name="test_bad"><failure message="x"/></testcase>
<testcase classname="tests.test_b" name="test_skip"><skipped message="why"/></testcase>
<testcase classname="tests.test_b" name="test_err"><error message="boom"/></testcase>
{extra}
</testsuite></testsuites>
"""


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script(SCRIPT, "numba_cuda_mlir_tests")


@pytest.fixture(scope="module")
def numba_cuda_script() -> ModuleType:
    return load_script(SCRIPTS / "numba_cuda_tests.py", "numba_cuda_tests")


def test_outcomes_reads_each_testcase(script: ModuleType, tmp_path: Path) -> None:
    junit = tmp_path / "r.xml"
    junit.write_text(JUNIT.format(extra=""))
    assert script.outcomes(junit) == {
        "tests.test_a::test_ok": "passed",
        "tests.test_a::test_bad": "failed",
        "tests.test_b::test_skip": "skipped",
        "tests.test_b::test_err": "error",
    }


def test_a_root_without_the_suite_is_refused(
    script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert script.main([str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "must hold Numba-CUDA-MLIR's tests/ and pyproject.toml" in capsys.readouterr().err


def _fake_pytest(
    script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[list[str]]:
    """pytest replaced by a script writing the JUnit file it is given; the commands it was started with."""
    with_coop = '<testcase classname="tests.test_c" name="test_cache"><failure message="no files"/></testcase>'
    without = '<testcase classname="tests.test_c" name="test_cache"/>'
    fake = tmp_path / "fake_python.py"  # stands for "python -m pytest ...": writes the JUnit file it is given
    fake.write_text(textwrap.dedent(f"""
        import sys
        if sys.argv[1] == "-c":
            print("0.5.4 0.1.0")
            sys.exit(0)
        junit = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--junitxml="))
        extra = {with_coop!r} if any(a.startswith("cuda.coop") for a in sys.argv) else {without!r}
        open(junit, "w").write({JUNIT!r}.format(extra=extra))
        sys.exit(1)
    """))
    real = script.subprocess.Popen
    started: list[list[str]] = []

    def popen(cmd: list[str], **kw: object) -> object:
        started.append(cmd)
        return real([sys.executable, str(fake), *cmd[3:]], **kw)

    def run(cmd: list[str], **kw: object) -> object:
        return script.subprocess.CompletedProcess(cmd, 0, stdout="0.5.4 0.1.0\n", stderr="")

    monkeypatch.setattr(script.subprocess, "Popen", popen)
    monkeypatch.setattr(script.subprocess, "run", run)
    return started


def _assert_compared(printed: str, tmp_path: Path) -> None:
    assert "1 tests differ" in printed and "tests.test_c::test_cache: passed -> failed" in printed
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["differ"] == {"tests.test_c::test_cache": ["passed", "failed"]}
    assert summary["counts"]["with"] == {"passed": 1, "failed": 2, "skipped": 1, "error": 1}
    assert summary["interrupted"] == []


def test_the_runs_are_compared_test_by_test(
    script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "suite"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    started = _fake_pytest(script, tmp_path, monkeypatch)
    assert script.main([str(root), "--out", str(tmp_path / "out")]) == 0
    _assert_compared(capsys.readouterr().out, tmp_path)
    without, with_ = started
    assert with_[len(without) - 1:-1] == ["-p", "cuda.coop"]  # the only difference, before --junitxml


def test_numba_cudas_suite_runs_with_and_without_the_integration(
    numba_cuda_script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    suite = tmp_path / "numba_cuda" / "numba" / "cuda" / "tests"
    for module in numba_cuda_script.SUBSET:
        path = suite / (module.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    (suite / "__init__.py").write_text("")
    monkeypatch.setattr(numba_cuda_script, "suite_dir", lambda: suite)
    started = _fake_pytest(numba_cuda_script, tmp_path, monkeypatch)
    assert numba_cuda_script.main(["--subset", "--out", str(tmp_path / "out")]) == 0
    _assert_compared(capsys.readouterr().out, tmp_path)
    without, with_ = started
    assert with_[len(without) - 1:-1] == ["-p", "cuda.coop.numba_cuda"]
    assert [a for a in without if a.startswith("numba.cuda.tests.")] == [
        f"numba.cuda.tests.{m}" for m in numba_cuda_script.SUBSET]
    (suite / "cudapy" / "test_caching.py").unlink()
    assert numba_cuda_script.main(["--subset", "--out", str(tmp_path / "out")]) == 2
    assert "has no cudapy.test_caching: update SUBSET" in capsys.readouterr().err


def test_the_subset_is_in_the_installed_numba_cuda(numba_cuda_script: ModuleType) -> None:
    """Every module ``--subset`` names exists in the numba-cuda the extras install (found without importing it)."""
    suite = numba_cuda_script.suite_dir()
    if suite is None:
        from tests.helpers import requires

        requires.missing("numba-cuda is not installed (pip install cuda-coop[numba-cuda-cu13])")
    missing = [m for m in numba_cuda_script.SUBSET if not (suite / (m.replace(".", "/") + ".py")).is_file()]
    assert not missing
