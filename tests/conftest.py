"""Test tiers: a test's folder decides its marker (tests/<tier>/...).

- unit: host only; no compiler, no GPU.
- compile: needs the numba-cuda-mlir extra and NVRTC; compiles for sm_90 without a GPU.
- packaging: real wheel builds and real CMake runs.
- gpu: launches kernels; skipped (with the reason) where no GPU is visible.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import warnings
from pathlib import Path

import pytest

# numba-cuda-mlir 0.5.x emits a NumPy DeprecationWarning while importing (np.timedelta64("nat")
# on NumPy >= 2.3); import it once here, before pytest turns warnings into errors per test.
with warnings.catch_warnings(), contextlib.suppress(ImportError):  # the host tiers may lack the extra
    warnings.simplefilter("ignore", DeprecationWarning)
    import numba_cuda_mlir  # noqa: F401

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
