"""What a test needs from its machine: skipped where it is missing, a failure in CI.

A run with ``CI=true`` must not go green by skipping: a broken install that loses numba-cuda-mlir, nvcc or
the docs extra would otherwise turn hundreds of tests into skips. ``tests/conftest.py`` turns every skip of
a CI run (``pytest.skip``, ``pytest.importorskip`` at module level included) into a failure; these helpers
say what is missing and how to get it.

    nvcc = requires.nvcc("the CUB twins")      # in a fixture or a test
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

__all__ = ["in_ci", "missing", "nvcc"]


def in_ci() -> bool:
    """Whether this run is CI's (``CI=true``), where nothing may be skipped."""
    return os.environ.get("CI", "").strip().lower() == "true"


def missing(message: str) -> NoReturn:
    """Skip (fail under ``CI=true``) because something the test needs is missing; ``message`` says what."""
    if in_ci():
        pytest.fail(f"{message} (CI=true: a missing requirement fails the run instead of skipping)", pytrace=False)
    pytest.skip(message)


def nvcc(purpose: str) -> str:
    """The path of nvcc (PATH, then /usr/local/cuda/bin); missing, skipped, and a failure under ``CI=true``."""
    found = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not Path(found).is_file():
        missing(f"nvcc is not installed (not on PATH, not /usr/local/cuda/bin/nvcc): {purpose} need(s) it")
    return found
