"""Run numba-cuda's own test suite with and without cuda-coop's numba-cuda integration active, and compare them.

    python scripts/numba_cuda_tests.py [--subset] [--workers 7] [--deadline S] [--out DIR] [-- PYTEST_ARGS...]

The suite is the one numba-cuda's wheel ships (``numba.cuda.tests``, unittest classes pytest runs with
``--pyargs``), so it is the installed release's. Both runs start at once from an empty working directory,
each with ``--workers`` pytest-xdist workers, the same arguments and CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION
set (so that ``import cuda.coop`` activates nothing by itself); the only difference is
``-p cuda.coop.numba_cuda``, whose import activates the integration. ``--subset`` runs only the modules about
compiling and launching kernels, caching and extensions (:data:`SUBSET`), for when the whole suite does not
fit the device time. Needs a GPU. A run still going after ``--deadline`` seconds is interrupted and the
comparison says so; results go to ``--out`` (``_suite_compare.py``). Exits 0 when both runs finished, 2 when
numba-cuda's suite is not installed or a run left no JUnit file.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _suite_compare import compare, outcomes

__all__ = ["RUNS", "SUBSET", "main", "outcomes", "suite_dir"]

RUNS = {"without": [], "with": ["-p", "cuda.coop.numba_cuda"]}
SUBSET = (
    "cudapy.test_compiler",
    "cudapy.test_dispatcher",
    "cudapy.test_launch_config_sensitive",
    "cudapy.test_caching",
    "cudapy.test_device_func",
    "cudapy.test_inline",
    "cudapy.test_extending",
    "cudapy.test_extending_types",
    "cudadrv.test_linker",
    "cudadrv.test_linkable_code",
    "cudadrv.test_nvjitlink",
)
"""The modules of ``numba.cuda.tests`` that ``--subset`` runs: kernel compilation and launch (dispatcher, launch
configuration, device functions, inlining), the disk cache, extensions (typing, lowering) and linking."""
_PROBE = "import numba_cuda, cuda.coop; print(numba_cuda.__version__, cuda.coop.__version__)"


def suite_dir() -> Path | None:
    """The folder of the installed numba-cuda's test suite (``numba/cuda/tests``), found without importing it."""
    spec = importlib.util.find_spec("numba_cuda")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    tests = Path(locations[0]) / "numba" / "cuda" / "tests" if locations else None
    return tests if tests is not None and (tests / "__init__.py").is_file() else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--subset", action="store_true", help="only the modules of SUBSET (see the module docstring)")
    ap.add_argument("--workers", type=int, default=7, help="pytest-xdist workers per run (default 7)")
    ap.add_argument("--deadline", type=float, default=540.0, help="seconds before both runs are interrupted")
    ap.add_argument("--out", type=Path, default=Path("numba-cuda-tests"), help="where results go")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = ap.parse_args(argv)
    tests = suite_dir()
    if tests is None:
        print("error: numba-cuda's test suite (numba/cuda/tests) is not installed: pip install "
              '"cuda-coop[numba-cuda-cu13]"', file=sys.stderr)
        return 2
    missing = [m for m in SUBSET if not (tests / (m.replace(".", "/") + ".py")).is_file()] if args.subset else []
    if missing:
        print(f"error: this numba-cuda's suite has no {', '.join(missing)}: update SUBSET", file=sys.stderr)
        return 2
    targets = [f"numba.cuda.tests.{m}" for m in SUBSET] if args.subset else ["numba.cuda.tests"]
    versions = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=False)
    print(f"numba-cuda, cuda-coop: {versions.stdout.strip() or versions.stderr.strip()}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    env["CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"] = "1"
    base = [sys.executable, "-m", "pytest", "--pyargs", *targets, "-q", "-n", str(args.workers),
            "-p", "no:cacheprovider", "-o", "addopts="]
    runs = {name: [*base, *extra, *args.pytest_args] for name, extra in RUNS.items()}
    with tempfile.TemporaryDirectory(prefix="numba-cuda-tests-") as cwd:  # no conftest or pyproject of ours
        return compare(runs, cwd=Path(cwd), env=env, out=args.out.resolve(), deadline=args.deadline,
                       versions=versions.stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
