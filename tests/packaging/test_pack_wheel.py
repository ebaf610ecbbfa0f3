"""The example library of docs/packs.rst ships its kernels precompiled in its wheel (examples/pack_library).

Its build (``python -m cuda.coop precompile``, then ``pip wheel``) runs offline, with no build isolation;
the wheel is installed into a fresh virtual environment that sees this one's packages (cuda-coop and the
CUDA wheels) through a ``.pth`` file, and a process there, with no pack configured and the cache off,
finds the pack through the ``cuda_coop.packs`` entry point: no NVRTC and no nvJitLink call.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.helpers import requires
from tests.helpers.packs import child_env, require_numba_cuda_mlir

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "pack_library"

SCRIPT = r"""
import json
from tests.helpers.link_log import count_nvjitlink, record_links, record_served
links, nvjitlink, served = record_links(), count_nvjitlink(), record_served()
from cuda.coop._provider._nvrtc import default_compiler
from cuda.coop.numba_mlir import compile_kernel
from coop_pack_example import kernels
for kernel, signature, block in kernels.cuda_coop_precompile:
    compile_kernel(kernel, signature, block=block, arch="sm_90")
print(json.dumps({"nvrtc": default_compiler().calls, "nvjitlink": nvjitlink[0], "links": links, "served": served}))
"""


@pytest.fixture(autouse=True)
def _requirements() -> None:
    require_numba_cuda_mlir()
    import setuptools

    if tuple(int(p) for p in setuptools.__version__.split(".")[:2]) < (70, 1):
        requires.missing(f"setuptools {setuptools.__version__} cannot build a wheel by itself: install the test extra")


def _env(tmp_path: Path) -> dict[str, str]:
    return {k: v for k, v in child_env(tmp_path).items() if not k.startswith("PYTHON")}


def _run(args: list[str], env: dict[str, str], cwd: Path) -> str:
    proc = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_the_example_library_ships_its_pack_in_its_wheel(tmp_path: Path) -> None:
    lib = shutil.copytree(EXAMPLE, tmp_path / "lib", ignore=shutil.ignore_patterns("coop_pack", "dist", "build",
                                                                                   "*.egg-info", "__pycache__"))
    env = _env(tmp_path)
    pack = lib / "src" / "coop_pack_example" / "coop_pack"
    _run([sys.executable, "-m", "cuda.coop", "precompile", "coop_pack_example.kernels", "--arch", "sm_90",
          "--out", str(pack)], {**env, "PYTHONPATH": str(lib / "src")}, lib)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
          "-w", str(tmp_path / "dist"), str(lib)], env, tmp_path)
    [wheel] = (tmp_path / "dist").glob("coop_pack_example-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        [points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert "[cuda_coop.packs]\ncoop-pack-example = coop_pack_example:PACK" in zf.read(points).decode()
    manifest = json.loads((pack / "manifest.json").read_text())
    assert {f"coop_pack_example/coop_pack/{e['file']}" for e in manifest["entries"]} | {
        "coop_pack_example/coop_pack/manifest.json"} <= names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env,
                     tmp_path).strip())
    ours = sysconfig.get_paths()["purelib"]  # cuda-coop, numba-cuda-mlir and the CUDA wheels, as installed here
    (site / "this_repo_venv.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    # cuda-pathfinder looks for the CUDA wheels' libraries in the venv's own site-packages only.
    (site / "nvidia").symlink_to(Path(ours) / "nvidia", target_is_directory=True)
    _run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
          str(wheel)], env, tmp_path)

    result = json.loads(_run([str(python), "-c", SCRIPT], env, REPO).strip().splitlines()[-1])  # for tests.helpers
    installed = site / "coop_pack_example" / "coop_pack"
    assert result == {"nvrtc": 0, "nvjitlink": 0, "links": ["pack hit", "pack hit"], "served": [str(installed)] * 4}

    report = json.loads(_run([str(python), "-m", "cuda.coop", "--json"], env, tmp_path))
    [listed] = report["packs"]["packs"]
    assert listed["path"] == str(installed) and listed["state"] == "usable"
    assert listed["origin"] == "entry point 'coop-pack-example' of coop-pack-example"
    assert [e["state"] for e in listed["entries"]] == ["usable"] * 4
