"""With the backend active, ``cache=True`` kernels write nothing to numba-cuda-mlir's cache directory.

numba-cuda-mlir keeps its ``cache=True`` disk cache under ``NUMBA_CACHE_DIR`` (here a temporary
folder). The control process imports cuda.coop with automatic activation off and compiles a plain
``cache=True`` kernel: numba-cuda-mlir writes its index and data files. The process under test
activates the backend and compiles the same plain kernel and a kernel calling cuda.coop: nothing is
written. Both compile for sm_90 without a GPU, each in a fresh interpreter (activation is per process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

SCRIPT = """
import json, os, sys, warnings
import numpy as np
from numba_cuda_mlir import cuda, tools
from numba_cuda_mlir.numba_cuda import types
import cuda.coop as coop

active = sys.argv[1] == "active"
if active:
    coop.register("numba_mlir")
tools._cached_cc = (9, 0)  # no GPU: compile for sm_90
recorder = warnings.catch_warnings(record=True)
caught = recorder.__enter__()
warnings.simplefilter("always")

@cuda.jit(cache=True)
def plain(x):
    x[0] = 1.0

@cuda.jit(cache=True)
def tile_sum(x, out):
    items = cuda.local.array(4, np.float32)
    coop.block.load(x, items, algorithm="transpose")
    total = coop.block.sum(items)
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = total

plain.compile((types.float32[::1],))
if active:
    from cuda.coop.numba_mlir import compile_kernel
    compile_kernel(tile_sum, (types.float32[::1], types.float32[::1]), block=128)
recorder.__exit__(None, None, None)
root = os.environ["NUMBA_CACHE_DIR"]
print(json.dumps({
    "active": coop.backend_status()["numba_mlir"].active,
    "files": sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs),
    "warnings": [type(w.message).__name__ for w in caught],
}))
"""


def _run(mode: str, cache_dir: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    env.update(NUMBA_CACHE_DIR=str(cache_dir), CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="1")
    script = cache_dir.parent / "cached_kernels.py"  # numba caches only functions defined in a file
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True, env=env,
                          check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_cache_true_writes_without_the_backend(tmp_path: Path) -> None:
    """The control: numba-cuda-mlir's disk cache does write here when cuda.coop is not active."""
    got = _run("inactive", tmp_path / "numba-cache")
    assert got["active"] is False
    files = got["files"]
    assert isinstance(files, list) and any(f.endswith(".nbi") for f in files), files


def test_cache_true_writes_nothing_with_the_backend_active(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    got = _run("active", cache)
    assert got["active"] is True
    assert got["files"] == [], got["files"]
    assert "CacheDisabledWarning" in got["warnings"]  # the one-time warning says so
