"""Test tiers: a test's folder decides its marker (tests/<tier>/...).

- unit: host only; no compiler, no GPU.
- compile: needs the numba-cuda-mlir extra and NVRTC; compiles for sm_90 without a GPU.
- packaging: real wheel builds and real CMake runs.
- gpu: launches kernels; skipped (with the reason) where no GPU is visible.
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

import pytest

_TIERS = ("compile", "packaging", "gpu")


@functools.cache
def _gpu_reason() -> str | None:
    """None when a CUDA GPU is usable, else why not."""
    if os.environ.get("CI", "").lower() == "true":
        return "CI has no GPU; run `pytest -m gpu` on the device machine (see ../shared/device/README.md)"
    if shutil.which("nvidia-smi") is None:
        return "no GPU: nvidia-smi is not on PATH"
    try:
        from cuda.core import Device  # type: ignore[import-not-found]

        Device(0).set_current()
    except Exception as exc:  # any failure here means: no usable GPU
        return f"no usable GPU: {type(exc).__name__}: {exc}"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tier = Path(str(item.fspath)).parent.name
        if tier in _TIERS:
            item.add_marker(getattr(pytest.mark, tier))
        if tier == "gpu" and (reason := _gpu_reason()):
            item.add_marker(pytest.mark.skip(reason=reason))
