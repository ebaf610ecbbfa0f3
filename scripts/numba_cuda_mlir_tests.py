"""Run Numba-CUDA-MLIR's own test suite with and without cuda-coop active, and compare the outcomes.

    python scripts/numba_cuda_mlir_tests.py TESTS_ROOT [--workers 7] [--deadline S] [--out DIR] [-- PYTEST_ARGS...]

``TESTS_ROOT`` holds Numba-CUDA-MLIR's ``tests/`` and ``pyproject.toml`` at one release tag, for
instance ``git archive v0.5.0 tests pyproject.toml | tar -x -C TESTS_ROOT`` in its repository. Both runs
start at once, each with ``--workers`` pytest-xdist workers and the same arguments; the only difference is
``-p cuda.coop`` (importing cuda.coop activates its integration). Needs a GPU. A run still going after
``--deadline`` seconds is interrupted (SIGINT: pytest writes what finished) and the comparison says so.

Prints each run's counts per outcome and every test whose outcome differs, and writes both JUnit
files and ``summary.json`` to ``--out`` (``_suite_compare.py``). Exits 0 when both runs finished (whatever
their outcomes: the differences are the result), 2 when a run could not start or left no JUnit file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _suite_compare import compare, outcomes

__all__ = ["RUNS", "main", "outcomes"]

RUNS = {"without": [], "with": ["-p", "cuda.coop"]}
_PROBE = "import numba_cuda_mlir, cuda.coop; print(numba_cuda_mlir.__version__, cuda.coop.__version__)"


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
    versions = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=False)
    print(f"numba-cuda-mlir, cuda-coop: {versions.stdout.strip() or versions.stderr.strip()}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    base = [sys.executable, "-m", "pytest", "tests", "-q", "-n", str(args.workers), "-p", "no:cacheprovider",
            "-o", "addopts="]
    runs = {name: [*base, *extra, *args.pytest_args] for name, extra in RUNS.items()}
    return compare(runs, cwd=root, env=env, out=args.out.resolve(), deadline=args.deadline,
                   versions=versions.stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
