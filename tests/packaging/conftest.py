"""The packaging tier's shared fixtures.

``site``: the documentation, built once per test session (``sphinx -W``, nitpicky, about a minute on two cores)
into a temporary folder, for every test that reads the built pages. Tests that use it are put in one
pytest-xdist group (``tests/conftest.py``), so a parallel run builds the site once, on one worker: the build
also writes the generated family pages into ``docs/families``, which two builds at once would race on.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import requires

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built HTML site (its folder)."""
    for module in ("sphinx", "furo", "numba_cuda_mlir"):
        if importlib.util.find_spec(module) is None:
            requires.missing(f"{module} is not installed: install the docs extra (pip install 'cuda-coop[docs]')")
    out = tmp_path_factory.mktemp("docs")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-E", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out / "html"
