"""Run Numba-CUDA-MLIR's own test suite with and without cuda-coop active, and compare the outcomes.

    python scripts/numba_cuda_mlir_tests.py TESTS_ROOT [--workers 7] [--deadline S] [--out DIR] [-- PYTEST_ARGS...]

``TESTS_ROOT`` holds Numba-CUDA-MLIR's ``tests/`` and ``pyproject.toml`` at one release tag, for
instance ``git archive v0.5.0 tests pyproject.toml | tar -x -C TESTS_ROOT`` in its repository. Both runs
start at once, each with ``--workers`` pytest-xdist workers and the same arguments; the only difference is
``-p cuda.coop`` (importing cuda.coop activates its integration). Needs a GPU. A run still going after
``--deadline`` seconds is interrupted (SIGINT: pytest writes what finished) and the comparison says so.

Prints each run's counts per outcome and every test whose outcome differs, and writes both JUnit
files and ``summary.json`` to ``--out``. Exits 0 when both runs finished (whatever their outcomes: the
differences are the result), 2 when a run could not start or left no JUnit file.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

RUNS = {"without": [], "with": ["-p", "cuda.coop"]}
_PROBE = "import numba_cuda_mlir, cuda.coop; print(numba_cuda_mlir.__version__, cuda.coop.__version__)"


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="directory holding Numba-CUDA-MLIR's tests/ and pyproject.toml")
    ap.add_argument("--workers", type=int, default=7, help="pytest-xdist workers per run (default 7)")
    ap.add_argument("--deadline", type=float, default=540.0, help="seconds before both runs are interrupted")
    ap.add_argument("--out", type=Path, default=Path("numba-cuda-mlir-tests"), help="where results go")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    if not (root / "tests").is_dir() or not (root / "pyproject.toml").is_file():
        print(f"error: {root} must hold Numba-CUDA-MLIR's tests/ and pyproject.toml (see --help)", file=sys.stderr)
        return 2
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    versions = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=False)
    print(f"numba-cuda-mlir, cuda-coop: {versions.stdout.strip() or versions.stderr.strip()}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    procs = {}
    for name, extra in RUNS.items():
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "tests",
            "-q",
            "-n",
            str(args.workers),
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            f"--junitxml={out / f'{name}.xml'}",
            *extra,
            *args.pytest_args,
        ]
        print(f"{name}: {' '.join(cmd)}", flush=True)
        log = (out / f"{name}.log").open("w")
        procs[name] = (subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT), log)
    deadline = time.monotonic() + args.deadline
    interrupted = []
    for name, (proc, _) in procs.items():
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            interrupted.append(name)
            proc.send_signal(signal.SIGINT)
    results: dict[str, dict[str, str]] = {}
    for name, (proc, log) in procs.items():
        rc = proc.wait()
        log.close()
        if name in interrupted:
            print(f"warning: the {name} run was interrupted after {args.deadline:.0f} s: its counts are partial")
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
    tests = sorted(set(results["without"]) | set(results["with"]))
    differ = {
        t: (results["without"].get(t, "absent"), results["with"].get(t, "absent"))
        for t in tests
        if results["without"].get(t) != results["with"].get(t)
    }
    print(f"{len(differ)} tests differ (without -> with):")
    for test, (a, b) in differ.items():
        print(f"  {test}: {a} -> {b}")
    summary = {
        "versions": versions.stdout.strip(),
        "interrupted": interrupted,
        "counts": {name: dict(collections.Counter(r.values())) for name, r in results.items()},
        "differ": {t: list(v) for t, v in differ.items()},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
