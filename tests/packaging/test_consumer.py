"""A CUDA C++ project finds the bundled CCCL with find_package and compiles against it (nvcc).

The consumer's static_assert compares CCCL_VERSION in the headers it compiled against with the
version of the package CMake found; the CUDA toolkit's own CCCL (older) must not win. The same project
compiles cuda-coop's own headers (``cuda_coop/*.cuh`` in the bundle), every class instantiated
(``consumer/coop_headers.cu``), and each header compiles alone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cuda.coop import header_bundle
from tests.helpers import requires

CONSUMER = Path(__file__).parent / "consumer"


def _nvcc() -> Path:
    return Path(requires.nvcc("the C++ consumer"))


def _build(tmp_path: Path, cccl_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "consumer"
    shutil.copytree(CONSUMER, project)
    env = {**os.environ, "CUDACXX": str(_nvcc()), "BUILD_DIR": str(tmp_path / "build")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("CCCL_DIR", None)
    if cccl_dir is not None:
        env["CCCL_DIR"] = str(cccl_dir)
    return subprocess.run(["bash", "build.sh"], cwd=project, env=env, capture_output=True, text=True, check=False)


def _include_flags(tmp_path: Path) -> str:
    flags = tmp_path / "build" / "CMakeFiles" / "consumer.dir"
    return "".join(p.read_text() for p in flags.iterdir() if p.name in {"includes_CUDA.rsp", "flags.make"})


def _toolkit_cccl_version(nvcc: Path) -> int | None:
    root = nvcc.parent.parent / "include"
    for base in (root / "cccl", root):
        header = base / "cuda" / "std" / "__cccl" / "version.h"
        if header.is_file() and (m := re.search(r"#define CCCL_VERSION (\d+)", header.read_text())):
            return int(m.group(1))
    return None


def test_installed_bundle(tmp_path: Path) -> None:
    proc = _build(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert str(header_bundle().include_dir) in _include_flags(tmp_path)
    assert list((tmp_path / "build").rglob("coop_headers.cu.o")), "cuda-coop's headers were compiled"


def _own_headers() -> list[str]:
    include = header_bundle().include_dir
    return sorted(str(p.relative_to(include)) for p in (include / "cuda_coop").rglob("*.cuh"))


def _public_headers() -> list[str]:
    """The headers a C++ project includes (``detail/`` and ``specializations/`` are included by them)."""
    return [h for h in _own_headers() if "/detail/" not in h and "/specializations/" not in h]


def test_consumer_instantiates_every_composition() -> None:
    """coop_headers.cu includes every public cuda_coop header of the bundle, which are the repository's."""
    source = (CONSUMER / "coop_headers.cu").read_text()
    public = _public_headers()
    assert public and all(f"#include <{h}>" in source for h in public)
    repo = Path(__file__).resolve().parents[2] / "include"
    assert [str(p.relative_to(repo)) for p in sorted((repo / "cuda_coop").rglob("*.cuh"))] == _own_headers()
    for header in _own_headers():
        assert (header_bundle().include_dir / header).read_bytes() == (repo / header).read_bytes(), header


def test_each_own_header_compiles_alone(tmp_path: Path) -> None:
    """Every public cuda_coop/ header of the bundle is self-contained: a translation unit of it alone compiles with
    nvcc against the bundle's CCCL (asserted, the toolkit's comes first otherwise)."""
    nvcc, include = _nvcc(), header_bundle().include_dir
    number = int(re.search(r"#define CCCL_VERSION (\d+)", (include / "cuda/std/__cccl/version.h").read_text())[1])

    def compile_alone(header: str) -> subprocess.CompletedProcess[str]:
        source = tmp_path / (header.replace("/", "_") + ".cu")
        source.write_text(f"#include <{header}>\n#include <cuda/std/version>\n"
                          f'static_assert(CCCL_VERSION == {number}, "not the bundle\'s CCCL");\n')
        return subprocess.run([str(nvcc), "-arch=sm_90", "-std=c++17", f"-I{include}", "-fdevice-syntax-only", "-c",
                               str(source), "-o", str(source.with_suffix(".o"))],
                              capture_output=True, text=True, check=False)

    with ThreadPoolExecutor(2) as pool:
        for header, proc in zip(_public_headers(), pool.map(compile_alone, _public_headers()), strict=True):
            assert proc.returncode == 0, f"{header}:\n{proc.stdout}{proc.stderr}"


def test_relocated_bundle(tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere" / "bundle"
    shutil.copytree(header_bundle().root, moved)
    proc = _build(tmp_path, cccl_dir=moved / "lib" / "cmake" / "cccl")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    flags = _include_flags(tmp_path)
    assert str(moved / "include") in flags
    assert str(header_bundle().include_dir) not in flags


def test_toolkit_cccl_would_fail_the_check(tmp_path: Path) -> None:
    """Control: without the bundle on the include path nvcc uses the toolkit's CCCL and the check fires."""
    nvcc = _nvcc()
    version = header_bundle().provenance.cccl_version
    major, minor, patch = (int(x) for x in version.split("."))
    proc = subprocess.run(
        [str(nvcc), "-arch=sm_90", "-c", str(CONSUMER / "consumer.cu"), "-o", str(tmp_path / "c.o"),
         f"-DFOUND_CCCL_VERSION={major * 1000000 + minor * 1000 + patch}"],
        capture_output=True, text=True, check=False,
    )
    if _toolkit_cccl_version(nvcc) == major * 1000000 + minor * 1000 + patch:
        pytest.skip("the CUDA toolkit ships the same CCCL version as the bundle: no control possible")
    assert proc.returncode != 0
    assert "static assertion failed" in proc.stdout + proc.stderr
