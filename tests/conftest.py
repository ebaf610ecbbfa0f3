"""Test tiers: a test's folder decides its marker (tests/<tier>/...).

- unit: host only; no compiler, no GPU.
- compile: needs the numba-cuda-mlir extra and NVRTC; compiles for sm_90 without a GPU.
- packaging: real wheel builds and real CMake runs.
- gpu: launches kernels. Selecting GPU tests where no GPU is usable is an error at collection
  (a run that skipped them all would look green), unless the run allows it: with
  ``CUDA_COOP_TEST_ALLOW_NO_GPU`` truthy or ``CI=true`` they are skipped with the reason.
  Deselect them with ``-m "not gpu"``.

Under ``CI=true`` nothing else may skip: a skipped test or module (a missing extra, tool or file) is
reported as a failure with its reason (``tests/helpers/requires.py``), so a broken install cannot turn
the compile tier into a green run of skips.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers import golden_update, requires, seed

if TYPE_CHECKING:
    import numpy as np

# numba-cuda-mlir 0.5.x emits a NumPy DeprecationWarning while importing (np.timedelta64("nat")
# on NumPy >= 2.3); import it once here, before pytest turns warnings into errors per test.
with warnings.catch_warnings(), contextlib.suppress(ImportError):  # the host tiers may lack the extra
    warnings.simplefilter("ignore", DeprecationWarning)
    import numba_cuda_mlir  # noqa: F401

_TIERS = ("compile", "packaging", "gpu")
ALLOW_NO_GPU = "CUDA_COOP_TEST_ALLOW_NO_GPU"
_FALSY = ("", "0", "false", "no", "off")


def _truthy(value: str | None) -> bool:
    """cuda-coop's switch rule (``cuda.coop._env.truthy``), without importing the package under test."""
    return value is not None and value.strip().lower() not in _FALSY


@functools.cache
def _gpu_reason() -> str | None:
    """None when a CUDA GPU is usable, else why not."""
    if shutil.which("nvidia-smi") is None:
        return "no GPU: nvidia-smi is not on PATH"
    try:
        from cuda.core import Device  # type: ignore[import-not-found]

        Device(0).set_current()
    except Exception as exc:  # any failure here means: no usable GPU
        return f"no usable GPU: {type(exc).__name__}: {exc}"
    return None


def _allowed_without_gpu() -> str | None:
    """Why this run may skip GPU tests (None: it may not)."""
    if _truthy(os.environ.get(ALLOW_NO_GPU)):
        return f"{ALLOW_NO_GPU} is set"
    if requires.in_ci():
        return "CI=true (CI has no GPU; run `pytest -m gpu` on the device machine, see ../shared/device/README.md)"
    return None


@pytest.hookimpl(tryfirst=True)  # before -m selects by the markers added here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tier = Path(str(item.fspath)).parent.name
        if tier in _TIERS:
            item.add_marker(getattr(pytest.mark, tier))


_CACHE_HOMES: dict[str, str] = {}
_PER_RUN = ("CUDA_COOP_ENABLE_CACHE", "CUDA_COOP_SOURCE_DUMP_DIR", "CUDA_COOP_PACK_PATH")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(golden_update.OPTION, action="store_true", default=False,
                     help="rewrite the golden files from what the tests render, then compare (review the diff); "
                          "refused under CI=true (tests/helpers/golden_update.py)")


def pytest_configure(config: pytest.Config) -> None:
    golden_update.configure(config.getoption(golden_update.OPTION), os.environ)
    # Hermetic caches: each process of the run (each pytest-xdist worker) has a cache directory of its own, and
    # the caller's cache, dump and pack settings do not leak in; a test that wants them sets them (monkeypatch).
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    home = _CACHE_HOMES.setdefault(worker, tempfile.mkdtemp(prefix=f"cuda-coop-tests-{worker}-"))
    os.environ["XDG_CACHE_HOME"] = home
    for name in _PER_RUN:
        os.environ.pop(name, None)


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _CACHE_HOMES.values():
        shutil.rmtree(folder, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str:
    return f"random inputs: {seed.ENV}={seed.base_seed()} (tests/helpers/seed.py)"


def _ci_skip_message(report: pytest.CollectReport | pytest.TestReport) -> str | None:
    """Why a skip in a CI run is a failure (None: it is not a skip, the run is not CI's, or the test is GPU tier)."""
    if not report.skipped or hasattr(report, "wasxfail") or not requires.in_ci():
        return None
    if "gpu" in getattr(report, "keywords", {}):
        return None  # the GPU tier is skipped in CI by design (see pytest_collection_finish)
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    return f"skipped under CI=true, where nothing may be skipped: {reason}"


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """This test's random generator, from the run's seed (``tests/helpers/seed.py``); a failure reports the seed."""
    request.node.stash[_SEED] = base = seed.base_seed()
    return seed.generator(request.node.nodeid, base)


_SEED = pytest.StashKey[int]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if (message := _ci_skip_message(report)) is not None:
        report.outcome, report.longrepr = "failed", message
    if report.failed and (base := item.stash.get(_SEED, None)) is not None:
        report.sections.append(("random seed", seed.rerun_hint(item.nodeid, base)))
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    report = yield
    if (message := _ci_skip_message(report)) is not None:
        report.outcome, report.longrepr = "failed", message
    return report


def pytest_collection_finish(session: pytest.Session) -> None:
    """GPU tests selected without a usable GPU: skip them if the run allows it, else stop with the reason."""
    gpu_items = [item for item in session.items if item.get_closest_marker("gpu") is not None]
    if not gpu_items or (reason := _gpu_reason()) is None:
        return
    allowed = _allowed_without_gpu()
    if allowed is None:
        raise pytest.UsageError(
            f"{len(gpu_items)} GPU test(s) selected, but {reason}. Run them on a machine with a GPU, deselect them "
            f'with -m "not gpu", or set {ALLOW_NO_GPU}=1 to skip them.'
        )
    for item in gpu_items:
        item.add_marker(pytest.mark.skip(reason=f"{reason}; skipped because {allowed}"))
