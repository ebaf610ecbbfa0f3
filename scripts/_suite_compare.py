"""Run a DSL's own test suite with and without cuda-coop active, and compare the outcomes test by test.

What ``numba_cuda_mlir_tests.py`` and ``numba_cuda_tests.py`` share: both runs start at once, each with the
same pytest command but for the arguments that activate cuda-coop; a run still going after the deadline is
interrupted (SIGINT: pytest writes what finished) and the comparison says so. Prints each run's counts per
outcome and every test whose outcome differs, and writes both JUnit files, both logs and ``summary.json``
to the output folder. :func:`compare` returns 0 when both runs finished (whatever their outcomes: the
differences are the result), 2 when a run left no JUnit file.
"""

from __future__ import annotations

import collections
import json
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

__all__ = ["compare", "outcomes"]


def outcomes(junit: Path) -> dict[str, str]:
    """Test id -> passed, failed, error or skipped (xfail counts as skipped, as JUnit writes it)."""
    result: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        result[test] = (
            {"failure": "failed", "error": "error", "skipped": "skipped"}.get(kinds[0], "?") if kinds else "passed"
        )
    return result


def compare(
    runs: dict[str, list[str]], *, cwd: Path, env: dict[str, str], out: Path, deadline: float, versions: str
) -> int:
    """Start ``runs`` (name -> command, ``--junitxml`` added), wait for them until ``deadline`` seconds, compare."""
    out.mkdir(parents=True, exist_ok=True)
    procs = {}
    for name, command in runs.items():
        cmd = [*command, f"--junitxml={out / f'{name}.xml'}"]
        print(f"{name}: {' '.join(cmd)}", flush=True)
        log = (out / f"{name}.log").open("w")
        procs[name] = (subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT), log)
    end = time.monotonic() + deadline
    interrupted = []
    for name, (proc, _) in procs.items():
        try:
            proc.wait(timeout=max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            interrupted.append(name)
            proc.send_signal(signal.SIGINT)
    results: dict[str, dict[str, str]] = {}
    for name, (proc, log) in procs.items():
        rc = proc.wait()
        log.close()
        if name in interrupted:
            print(f"warning: the {name} run was interrupted after {deadline:.0f} s: its counts are partial")
        junit = out / f"{name}.xml"
        if not junit.is_file():
            print(f"error: the {name} run (exit {rc}) wrote no {junit}; see {out / f'{name}.log'}", file=sys.stderr)
            return 2
        results[name] = outcomes(junit)
        counts = collections.Counter(results[name].values())
        print(
            f"{name} cuda.coop (exit {rc}): {len(results[name])} tests, "
            + ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped"))
        )
    without, with_ = results["without"], results["with"]
    differ = {t: (without.get(t, "absent"), with_.get(t, "absent"))
              for t in sorted(set(without) | set(with_)) if without.get(t) != with_.get(t)}
    print(f"{len(differ)} tests differ (without -> with):")
    for test, (a, b) in differ.items():
        print(f"  {test}: {a} -> {b}")
    summary = {
        "versions": versions,
        "commands": runs,
        "interrupted": interrupted,
        "counts": {name: dict(collections.Counter(r.values())) for name, r in results.items()},
        "differ": {t: list(v) for t, v in differ.items()},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0
