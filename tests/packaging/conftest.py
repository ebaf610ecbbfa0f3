"""The packaging tier's shared fixtures.

``site``: the documentation, built once per test run (``sphinx -W``, nitpicky, 15-20 s on two cores) for every
test that reads the built pages. Under pytest-xdist the workers share one build: the first worker to ask builds
it into the run's common temporary folder while holding a lock, the others wait for it and read it (a failed
build is reported to every test that asked, with Sphinx's output). One build also means one writer of the
generated family pages in ``docs/families``, which two builds at once would race on.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import requires

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` between the processes of this run (POSIX ``flock``; none elsewhere)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: each worker builds its own site
        yield
        return
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built HTML site (its folder)."""
    for module in ("sphinx", "furo", "numba_cuda_mlir"):
        if importlib.util.find_spec(module) is None:
            requires.missing(f"{module} is not installed: install the docs extra (pip install 'cuda-coop[docs]')")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base  # xdist: <run>/popen-gwN
    out, failed = shared / "docs-site", shared / "docs-site.failed"
    with _locked(shared / "docs-site.lock"):
        if not (out / "html" / "index.html").is_file() and not failed.is_file():
            proc = subprocess.run(
                [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-E", "-q", "-b", "html",
                 "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
                capture_output=True, text=True, check=False,
            )
            if proc.returncode != 0:
                failed.write_text(proc.stdout + proc.stderr)
    assert not failed.is_file(), failed.read_text()
    return out / "html"
