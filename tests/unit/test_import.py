"""``import cuda.coop`` stays cheap: no CUDA Python package, no numba, no NVRTC."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("cuda.bindings", "cuda.core", "cuda.pathfinder", "numba", "numba_cuda_mlir")
CONFIG_MODULES = (
    "cuda.coop._env",
    "cuda.coop._cache_dir",
    "cuda.coop._cccl",
    "cuda.coop._cuda_headers",
    "cuda.coop._toolkit",
    "cuda.coop._identity",
    "cuda.coop._cli",
)


def _loaded_after(statement: str) -> dict[str, list[str]]:
    code = (
        "import sys, json\n"
        f"{statement}\n"
        "mods = sorted(m for m in sys.modules if m.split('.')[0] in {'numba', 'numba_cuda_mlir'}"
        " or m.startswith(('cuda.bindings', 'cuda.core', 'cuda.pathfinder')))\n"
        "libs = [l for l in open('/proc/self/maps').read().split() if 'nvrtc' in l or 'nvJitLink' in l]"
        " if sys.platform == 'linux' else []\n"
        "print(json.dumps({'modules': mods, 'libraries': sorted(set(libs))}))\n"
    )
    env = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1"}
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout)


def test_import_cuda_coop_is_cheap() -> None:
    loaded = _loaded_after("import cuda.coop")
    assert loaded == {"modules": [], "libraries": []}


@pytest.mark.parametrize("module", CONFIG_MODULES)
def test_configuration_modules_import_nothing_heavy(module: str) -> None:
    loaded = _loaded_after(f"import {module}")
    assert loaded == {"modules": [], "libraries": []}, f"{module} imports {loaded} at import time"
    assert not any(m.startswith(HEAVY) for m in loaded["modules"])


def test_activating_the_integrations_loads_no_compiler_library() -> None:
    """With the DSLs installed, ``import cuda.coop`` activates them but loads no NVRTC, nvJitLink or libNVVM: the
    toolkit is resolved (a conda environment's first) when cuda-coop first compiles; a library loaded earlier would
    win."""
    code = (
        "import re, json, sys\n"
        "import cuda.coop as coop\n"
        "maps = open('/proc/self/maps').read() if sys.platform == 'linux' else ''\n"
        "print(json.dumps({'active': sorted(n for n, s in coop.backend_status().items() if s.active),\n"
        "                  'libraries': sorted(set(re.findall(r'lib(?:nvrtc|nvJitLink|nvvm)[^/\\\\s]*', maps)))}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    out = json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                    env=env).stdout)
    assert out["libraries"] == [], out
