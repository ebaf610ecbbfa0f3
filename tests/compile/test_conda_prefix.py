"""A conda-like prefix, built from the installed NVIDIA wheels' files, is preferred and used.

The prefix copies the wheels' CUDA headers to ``targets/<arch>-linux/include`` and NVRTC,
nvrtc-builtins and nvJitLink to ``lib/``, as conda-forge lays them out. Each check runs in a fresh
interpreter with ``CONDA_PREFIX`` set, because a process can bind only one NVRTC.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.coop._env import VARIABLES

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the conda layout built here is Linux's")

TARGETS = {"x86_64": "x86_64-linux", "aarch64": "sbsa-linux"}


def _wheel_files() -> tuple[Path, list[Path]]:
    """The NVIDIA wheels' CUDA include dir and (NVRTC, nvrtc-builtins, nvJitLink), or skip."""
    spec = importlib.util.find_spec("nvidia")
    bases = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    for base in bases:
        for include, lib_dirs in (
            (base / "cu13" / "include", [base / "cu13" / "lib"]),
            (base / "cuda_runtime" / "include", [base / "cuda_nvrtc" / "lib", base / "nvjitlink" / "lib"]),
        ):
            libs = [p for d in lib_dirs if d.is_dir() for p in d.iterdir()]
            wanted = [
                next((p for p in libs if re.fullmatch(pattern, p.name)), None)
                for pattern in (r"libnvrtc\.so\.\d+", r"libnvrtc-builtins\.so\.\d+\.\d+", r"libnvJitLink\.so\.\d+")
            ]
            if (include / "cuda_runtime.h").is_file() and all(wanted):
                return include, [p for p in wanted if p]
    pytest.skip("needs the NVIDIA wheels of the numba-cuda-mlir extra (nvidia-cuda-runtime, -nvrtc, nvjitlink)")


def make_prefix(prefix: Path, cuda_version: int | None = None, *, libraries: bool = True) -> Path:
    target = TARGETS.get(platform.machine())
    if target is None:
        pytest.skip(f"no conda target name known for {platform.machine()}")
    include, libs = _wheel_files()
    dest = prefix / "targets" / target / "include"
    shutil.copytree(include, dest)
    (prefix / "lib").mkdir(parents=True)
    for lib in libs if libraries else []:
        shutil.copy2(lib, prefix / "lib" / lib.name)
    if cuda_version is not None:
        for name, macro in (("cuda.h", "CUDA_VERSION"), ("cuda_runtime_api.h", "CUDART_VERSION")):
            path = dest / name
            text = re.sub(rf"(#define\s+{macro}\s+)\d+", rf"\g<1>{cuda_version}", path.read_text())
            path.write_text(text)
    return prefix


def run(code: str, prefix: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {v.name for v in VARIABLES}}
    env["CONDA_PREFIX"] = str(prefix)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)


COMPILE_AND_REPORT = """
import json, re
from cuda.coop._toolkit import resolve_toolkit
tk = resolve_toolkit()
from cuda.bindings import nvrtc
err, prog = nvrtc.nvrtcCreateProgram(b'extern "C" __global__ void k(int* p) { *p = 1; }', b"k.cu", 0, [], [])
(result,) = nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=compute_90"])
maps = open("/proc/self/maps").read()
print(json.dumps({
    "compiled": result == nvrtc.nvrtcResult.NVRTC_SUCCESS,
    "nvrtc": str(tk.nvrtc.path), "nvrtc_origin": tk.nvrtc.origin,
    "builtins": str(tk.nvrtc_builtins.path), "nvjitlink": str(tk.nvjitlink.path),
    "include": str(tk.cuda_include.path), "include_origin": tk.cuda_include.origin,
    "loaded": sorted(set(re.findall(r"/\\S*lib(?:nvrtc|nvJitLink)\\S*", maps))),
}))
"""


def test_conda_prefix_is_preferred_and_used(tmp_path: Path) -> None:
    prefix = make_prefix(tmp_path / "env")
    done = run(COMPILE_AND_REPORT, prefix)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["compiled"]
    assert got["include_origin"] == "conda environment" and got["nvrtc_origin"] == "conda environment"
    for key in ("nvrtc", "builtins", "nvjitlink", "include"):
        assert Path(got[key]).is_relative_to(prefix), (key, got[key])
    # What this process loaded and compiled with is the prefix's NVRTC, its builtins and nvJitLink.
    assert {Path(p).name for p in got["loaded"]} >= {Path(got[k]).name for k in ("nvrtc", "builtins", "nvjitlink")}
    assert all(Path(p).is_relative_to(prefix) for p in got["loaded"]), got["loaded"]


def test_diagnostics_in_a_conda_prefix(tmp_path: Path) -> None:
    prefix = make_prefix(tmp_path / "env")
    done = run("from cuda.coop._cli import main; raise SystemExit(main(['--json']))", prefix)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["cuda_include"]["origin"] == "conda environment"
    assert report["toolkit"]["compatible"] is True
    assert report["environment"]["CONDA_PREFIX"] == str(prefix)


def test_headers_of_another_major_are_a_mismatch(tmp_path: Path) -> None:
    nvrtc_name = _wheel_files()[1][0].name
    major = int(nvrtc_name.rsplit(".", 1)[1])
    other = 12 if major != 12 else 13
    prefix = make_prefix(tmp_path / "env", cuda_version=other * 1000 + 80)
    done = run("from cuda.coop._cli import main; raise SystemExit(main([]))", prefix)
    assert done.returncode == 1
    err = done.stderr
    assert "do not form one compatible toolkit" in err
    assert re.search(rf"CUDA headers\s+{other}\.8\s+" + re.escape(str(prefix)), err), err
    assert re.search(rf"NVRTC\s+{major}\.\d+\s+" + re.escape(str(prefix / "lib" / nvrtc_name)), err), err
    assert re.search(rf"nvJitLink\s+{major}\.\d+\s+" + re.escape(str(prefix / "lib")), err), err
    assert "differ in major" in err and "fix: " in err and "conda install" in err


def _nvrtc_version() -> tuple[int, int]:
    nvrtc = _wheel_files()[1][1].name  # libnvrtc-builtins.so.<major>.<minor>
    major, minor = nvrtc.rsplit(".", 2)[-2:]
    return int(major), int(minor)


def test_headers_newer_than_nvrtc_are_a_mismatch(tmp_path: Path) -> None:
    major, minor = _nvrtc_version()
    prefix = make_prefix(tmp_path / "env", cuda_version=major * 1000 + (minor + 1) * 10)
    done = run("from cuda.coop._cli import main; raise SystemExit(main([]))", prefix)
    assert done.returncode == 1
    assert f"the CUDA {major}.{minor + 1} headers are newer than NVRTC {major}.{minor}" in done.stderr, done.stderr


def test_headers_older_than_nvrtc_compile(tmp_path: Path) -> None:
    major, _ = _nvrtc_version()
    prefix = make_prefix(tmp_path / "env", cuda_version=major * 1000)
    done = run(COMPILE_AND_REPORT, prefix)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["compiled"]


def test_libraries_from_outside_the_conda_environment_are_reported_not_refused(tmp_path: Path) -> None:
    """Conda headers of NVRTC's exact version, NVRTC and nvJitLink from the wheels: compatible."""
    prefix = make_prefix(tmp_path / "env", libraries=False)
    done = run(COMPILE_AND_REPORT, prefix)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["compiled"] and got["include_origin"] == "conda environment"
    assert not Path(got["nvrtc"]).is_relative_to(prefix) and got["nvrtc_origin"].startswith("cuda-pathfinder")
    report = run("from cuda.coop._cli import main; raise SystemExit(main(['--json']))", prefix)
    assert report.returncode == 0, report.stderr
    toolkit = json.loads(report.stdout)["toolkit"]
    assert toolkit["compatible"] is True
    assert any(f"is not from the conda environment {prefix}" in note for note in toolkit["notes"])
    text = run("from cuda.coop._cli import main; raise SystemExit(main([]))", prefix)
    assert "not from the conda environment" in text.stdout, text.stdout
