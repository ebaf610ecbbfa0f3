"""compute-sanitizer finds nothing in one kernel per primitive family (load/store, reduce, scan,
warp reduce, warp scan): memcheck 0 errors, racecheck 0 hazards, synccheck 0 errors.

Each tool runs ``tests/gpu/_sanitizer_kernels.py`` in a subprocess; the script checks its results
against NumPy and prints ``ALL OK``. compute-sanitizer comes from PATH, ``$CUDA_HOME/bin`` or
``/usr/local/cuda/bin``; without it these tests fail (a GPU run that cannot sanitize is not green).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("load_store", "reduce", "scan", "warp_reduce", "warp_scan")


def _sanitizer() -> str:
    found = shutil.which("compute-sanitizer")
    candidates = [Path(os.environ[v]) / "bin" / "compute-sanitizer" for v in ("CUDA_HOME", "CUDA_PATH")
                  if os.environ.get(v)]
    candidates.append(Path("/usr/local/cuda/bin/compute-sanitizer"))
    for path in [Path(found)] if found else candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    pytest.fail(f"compute-sanitizer not found on PATH nor at {[str(c) for c in candidates]}; install the CUDA "
                "toolkit's compute-sanitizer or put it on PATH")


def summary_counts(tool: str, output: str) -> dict[str, int]:
    """The counts of compute-sanitizer's final summary line for ``tool``."""
    if tool == "racecheck":
        m = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", output)
        if m is None:
            raise AssertionError(f"no RACECHECK SUMMARY in the output:\n{output[-4000:]}")
        return {"hazards": int(m[1]), "errors": int(m[2]), "warnings": int(m[3])}
    m = re.search(r"ERROR SUMMARY: (\d+) errors?", output)
    if m is None:
        raise AssertionError(f"no ERROR SUMMARY in the output:\n{output[-4000:]}")
    return {"errors": int(m[1])}


def test_summary_parser() -> None:
    """The parser reads both summary forms, and a nonzero count is seen."""
    assert summary_counts("memcheck", "========= ERROR SUMMARY: 2 errors\n") == {"errors": 2}
    line = "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
    assert summary_counts("racecheck", line) == {"hazards": 1, "errors": 1, "warnings": 0}
    with pytest.raises(AssertionError):
        summary_counts("synccheck", "no summary")


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    command = [_sanitizer(), "--tool", tool, "--target-processes", "all", sys.executable, "-m",
               "tests.gpu._sanitizer_kernels"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=540, check=False)
    # Seen on the H200: under compute-sanitizer the spaces of the script's lines arrived as NUL bytes.
    output = (result.stdout + result.stderr).replace("\x00", " ")
    assert "ALL OK" in output, f"the kernels did not all run correctly under {tool}:\n{output[-6000:]}"
    for family in FAMILIES:
        assert output.count(f"OK {family} ") == 2, f"{family} did not run on both blocks:\n{output[-6000:]}"
    counts = summary_counts(tool, output)
    assert not any(counts.values()), f"{tool}: {counts}\n{output[-6000:]}"
    assert result.returncode == 0, f"exit status {result.returncode}:\n{output[-6000:]}"
