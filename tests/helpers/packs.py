"""What the precompiled-pack tests share: the requirement, and a child process's environment."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from tests.helpers import requires

__all__ = ["child_env", "require_numba_cuda_mlir"]


def require_numba_cuda_mlir() -> None:
    """Skip (fail under ``CI=true``) without numba-cuda-mlir; call it in a fixture."""
    if importlib.util.find_spec("numba_cuda_mlir") is None:
        requires.missing("numba_cuda_mlir is not installed: install the numba-cuda-mlir extra")


def child_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This environment without any ``CUDA_COOP_*`` variable (so the persistent cache is off), the cache home
    under ``tmp_path``, ``PYTHONHASHSEED=0`` and ``extra``.

    The hash seed is fixed because numba-cuda 0.30 lowers some kernels in an order that follows Python's string
    hashing, and a pack's linked kernel serves only the same kernel code (docs/configuration.rst, "Precompiled
    packs"); a test that varies it says so."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    env.update({"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYTHONHASHSEED": "0", **extra})
    return env
