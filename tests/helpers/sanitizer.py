"""The GPU tier's compute-sanitizer runs: a family's script under one tool, right results and nothing found.

Each family has a script (``tests/gpu/_sanitizer_<family>.py``, a module run with ``python -m``) that launches its
kernels, checks them against NumPy, prints ``OK <marker> ...`` per kernel and ``ALL OK`` at the end. Its random
inputs come from ``tests.helpers.seed.script_generator()``, seeded from the test's ``rng`` (``seed.child_env``):
a failure names that seed, and rerunning the test, or the script with it, repeats the data.

    @pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
    def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
        run_clean("tests.gpu._sanitizer_exchange", tool, "exchange", 2, rng=rng)

compute-sanitizer comes from PATH, ``$CUDA_HOME/bin``, ``$CUDA_PATH/bin`` or ``/usr/local/cuda/bin``; without it the
test fails (a GPU run that cannot sanitize is not green).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers import seed

if TYPE_CHECKING:
    import numpy as np

__all__ = ["ROOT", "Race", "find_sanitizer", "races", "run_clean", "summary_counts"]

ROOT = Path(__file__).resolve().parents[2]
"""The repository root: the scripts' working directory and the head of their ``PYTHONPATH``."""


def find_sanitizer() -> str:
    """The path of compute-sanitizer; a failure (not a skip) where there is none."""
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


@dataclass(frozen=True)
class Race:
    """One pair of racecheck's analysis report: ``<severity>: Race reported between <first> access at
    <function>+<pc>`` then ``and <second> access at <function>+<pc> [<hazards> hazards]`` (one header line may be
    followed by several ``and`` lines: one Race each)."""

    severity: str
    """``Error`` or ``Warning``."""
    first: str
    """The kind of the first access: ``Write`` or ``Read``."""
    first_function: str
    first_pc: int
    second: str
    second_function: str
    second_pc: int
    hazards: int


_ACCESS = r"(\w+) access at (.+?)\+0x([0-9a-fA-F]+)(?: in \S+)?"
_RACE_HEAD = re.compile(rf"^=+ (Error|Warning): Race reported between {_ACCESS}\s*$")
_RACE_PAIR = re.compile(rf"^=+\s+and {_ACCESS} \[(\d+) hazards?\]\s*$")


def races(output: str) -> list[Race]:
    """The pairs of racecheck's analysis report (its default ``--racecheck-report analysis``) in ``output``."""
    found: list[Race] = []
    head: re.Match[str] | None = None
    for line in output.splitlines():
        if match := _RACE_HEAD.match(line):
            head = match
        elif head is not None and (pair := _RACE_PAIR.match(line)):
            found.append(Race(head[1], head[2], head[3], int(head[4], 16), pair[1], pair[2], int(pair[3], 16),
                              int(pair[4])))
        else:
            head = None
    return found


def run_clean(
    module: str, tool: str, marker: str | Sequence[str], count: int, *, rng: np.random.Generator | None,
    timeout: float = 540, known_races: Callable[[list[Race]], None] | None = None,
) -> str:
    """Run ``python -m <module>`` under ``compute-sanitizer --tool <tool>`` and assert: it printed ``ALL OK``, ``count``
    lines ``OK <marker> `` (of each marker, given several), the tool's summary counts nothing, and it exited 0.
    The script's seed is drawn from ``rng``, the test's (None: its inputs are not random). Returns the output.

    ``known_races`` (racecheck only; a known issue of docs/known_issues.rst): the summary may count the races the
    report lists, no more, and ``known_races(races(output))`` asserts that they are exactly the known ones."""
    env = dict(os.environ) if rng is None else seed.child_env(rng)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    command = [find_sanitizer(), "--tool", tool, "--target-processes", "all", sys.executable, "-m", module]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    # Seen on the H200: under compute-sanitizer the spaces of the script's lines arrived as NUL bytes.
    output = (result.stdout + result.stderr).replace("\x00", " ")
    inputs = "" if rng is None else (f"\nthe script's inputs, again: {seed.ENV}={env[seed.ENV]} PYTHONPATH=. "
                                     f"compute-sanitizer --tool {tool} python -m {module}")
    assert "ALL OK" in output, (
        f"the kernels of {module} did not all run correctly under {tool}:\n{output[-6000:]}{inputs}"
    )
    for name in (marker,) if isinstance(marker, str) else marker:
        found = output.count(f"OK {name} ")
        assert found == count, f"{found} lines 'OK {name} ', not {count}:\n{output[-6000:]}{inputs}"
    counts = summary_counts(tool, output)
    if known_races is not None:
        assert tool == "racecheck", f"known_races is for racecheck, not {tool}"
        listed = races(output)
        errors = sum(race.severity == "Error" for race in listed)
        assert counts == {"hazards": len(listed), "errors": errors, "warnings": len(listed) - errors}, (
            f"{tool}: {counts}, but the report lists {listed}\n{output[-6000:]}{inputs}"
        )
        known_races(listed)
    else:
        assert not any(counts.values()), f"{tool}: {counts}\n{output[-6000:]}{inputs}"
    assert result.returncode == 0, f"exit status {result.returncode}:\n{output[-6000:]}{inputs}"
    return output
