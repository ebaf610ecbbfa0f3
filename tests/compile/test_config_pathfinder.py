"""CUDA include selection with the real cuda-pathfinder, in temporary environments.

Each check runs in a fresh interpreter of a temporary virtual environment whose site-packages holds
only cuda-pathfinder and cuda-coop (linked from this environment), so that pathfinder finds no NVIDIA
wheel and the page's later steps are reached. The header folders are copies of the NVIDIA wheel's
real CUDA headers.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import cuda.coop
from cuda.coop._env import VARIABLES

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the layouts built here are Linux's")


def _wheel_include() -> Path:
    spec = importlib.util.find_spec("nvidia")
    for base in [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []:
        for include in (base / "cu13" / "include", base / "cuda_runtime" / "include"):
            if (include / "cuda_runtime.h").is_file():
                return include
    pytest.skip("needs the NVIDIA CUDA runtime headers wheel of the numba-cuda-mlir extra")


@pytest.fixture(scope="module")
def bare_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with cuda-pathfinder and cuda-coop only (no NVIDIA wheels); returns its python."""
    pathfinder = importlib.util.find_spec("cuda.pathfinder")
    if pathfinder is None or pathfinder.origin is None:
        pytest.skip("needs cuda-pathfinder (numba-cuda-mlir extra)")
    root = tmp_path_factory.mktemp("bare-env")
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "cuda").mkdir()
    (site / "cuda" / "pathfinder").symlink_to(Path(pathfinder.origin).parent)
    (site / "cuda" / "coop").symlink_to(Path(cuda.coop.__file__).parent)
    return python


@pytest.fixture(scope="module")
def toolkits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three toolkit roots, each with a real copy of the CUDA headers under include/."""
    base = tmp_path_factory.mktemp("toolkits")
    include = _wheel_include()
    roots = {}
    for name in ("path", "home", "root", "path2"):
        roots[name] = base / f"cuda-{name}"
        shutil.copytree(include, roots[name] / "include")
    return roots


RESOLVE = """
import json, os, sys
from cuda.coop._cuda_headers import resolve_cuda_include
from cuda.coop.errors import HeaderResolutionError
out = []
for step in json.loads(sys.argv[1]):
    for name in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"):
        os.environ.pop(name, None)
    os.environ.update(step)
    try:
        got = resolve_cuda_include()
        out.append([str(got.path), got.origin])
    except HeaderResolutionError as exc:
        out.append([None, str(exc)])
print(json.dumps(out))
"""


def _resolve(python: Path, steps: list[dict[str, str]]) -> list[list[str | None]]:
    env = {k: v for k, v in os.environ.items() if k not in {v.name for v in VARIABLES}}
    env["CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"] = "1"
    done = subprocess.run([str(python), "-c", RESOLVE, json.dumps(steps)], capture_output=True, text=True,
                          env=env, check=False)
    assert done.returncode == 0, done.stderr
    result: list[list[str | None]] = json.loads(done.stdout)
    return result


def test_pathfinder_finds_the_wheel_headers_first(toolkits: dict[str, Path]) -> None:
    """In this environment (NVIDIA wheels installed) the real pathfinder answers before CUDA_PATH."""
    got = _resolve(Path(sys.executable), [{"CUDA_PATH": str(toolkits["path"])}])
    assert got == [[str(_wheel_include()), "cuda-pathfinder (site-packages)"]]


def test_each_new_resolution_rereads_the_variables_and_labels_them(
    bare_env: Path, toolkits: dict[str, Path]
) -> None:
    """One process: CUDA_PATH, a changed CUDA_PATH, then CUDA_HOME, then CUDA_ROOT, each seen and named."""
    steps = [
        {"CUDA_PATH": str(toolkits["path"]), "CUDA_HOME": str(toolkits["home"])},
        {"CUDA_PATH": str(toolkits["path2"])},
        {"CUDA_HOME": str(toolkits["home"]), "CUDA_ROOT": str(toolkits["root"])},
        {"CUDA_ROOT": str(toolkits["root"])},
    ]
    got = _resolve(bare_env, steps)
    assert got == [
        [str(toolkits["path"] / "include"), "CUDA_PATH"],
        [str(toolkits["path2"] / "include"), "CUDA_PATH"],
        [str(toolkits["home"] / "include"), "CUDA_HOME"],
        [str(toolkits["root"] / "include"), "CUDA_ROOT"],
    ]


def test_cuda_root_comes_before_any_system_toolkit(bare_env: Path, toolkits: dict[str, Path]) -> None:
    """pathfinder's loader probe and system-directory glob never pre-empt CUDA_ROOT or /usr/local/cuda."""
    got = _resolve(bare_env, [{"CUDA_ROOT": str(toolkits["root"])}, {}])
    assert got[0] == [str(toolkits["root"] / "include"), "CUDA_ROOT"]
    if (Path("/usr/local/cuda/include") / "cuda_runtime.h").is_file():
        assert got[1] == ["/usr/local/cuda/include", "/usr/local/cuda"]
    else:
        assert got[1][0] is None and "cuda-pathfinder" in str(got[1][1])


def test_relative_and_empty_values_are_rejected_candidates(bare_env: Path, toolkits: dict[str, Path]) -> None:
    got = _resolve(bare_env, [{"CUDA_PATH": "relative/cuda", "CUDA_HOME": "", "CUDA_ROOT": str(toolkits["root"])}])
    assert got == [[str(toolkits["root"] / "include"), "CUDA_ROOT"]]
