"""``python -m cuda.coop``: resolves everything on this machine; a broken root fails with the fix."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.coop import _cli
from cuda.coop._env import VARIABLES

NEEDS_TOOLKIT = pytest.mark.skipif(
    importlib.util.find_spec("cuda.bindings") is None or importlib.util.find_spec("cuda.pathfinder") is None,
    reason="needs the numba-cuda-mlir extra (cuda-bindings, cuda-pathfinder, NVRTC, nvJitLink)",
)


def run_cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {v.name for v in VARIABLES}}
    return subprocess.run(
        [sys.executable, "-m", "cuda.coop", *args], capture_output=True, text=True, env={**base, **env}, check=False
    )


@NEEDS_TOOLKIT
def test_resolves_everything_on_this_machine() -> None:
    done = run_cli()
    assert done.returncode == 0, done.stderr
    headings = ("CCCL used for compiling", "CUDA headers", "NVRTC", "nvrtc-builtins", "nvJitLink",
                "OK: builtins = NVRTC")
    for heading in headings:
        assert heading in done.stdout
    assert done.stderr == ""


@NEEDS_TOOLKIT
def test_json_report(tmp_path: Path) -> None:
    done = run_cli(
        "--json",
        CUDA_COOP_SOURCE_DUMP_DIR=str(tmp_path),
        CUDA_COOP_ENABLE_CACHE="yes",
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["problems"] == []
    assert report["cccl_root"]["origin"] == "header bundle"
    assert report["cccl_root"]["version"] == report["header_bundle"]["provenance"]["cccl_version"]
    assert report["own_headers"]["origin"] == "package"
    assert (Path(report["own_headers"]["include_root"]) / "cuda_coop" / "block_top_k.cuh").is_file()
    assert report["cuda_include"]["cuda_version"].split(".")[0] == report["toolkit"]["nvrtc"]["version"].split(".")[0]
    for key in ("nvrtc", "nvrtc_builtins", "nvjitlink"):
        assert Path(report["toolkit"][key]["path"]).is_file()
    assert report["toolkit"]["compatible"] is True and len(report["toolkit"]["identity"]) == 64
    assert report["cache"] == {
        "directory": str(tmp_path / "xdg" / "cccl" / "cuda-coop" / "providers"),  # where the entries live
        "base": str(tmp_path / "xdg" / "cccl"),
        "enabled": True,
        "problem": None,
        "entries": 0,
        "bytes": 0,
        "kernels": {"directory": str(tmp_path / "xdg" / "cccl" / "cuda-coop" / "kernels"), "entries": 0, "bytes": 0},
        "pch": {"directory": str(tmp_path / "xdg" / "cccl" / "cuda-coop" / "pch"), "entries": 0, "bytes": 0},
    }
    assert report["source_dump_dir"] == str(tmp_path)
    assert report["environment"] == {
        "CUDA_COOP_ENABLE_CACHE": "yes",
        "XDG_CACHE_HOME": str(tmp_path / "xdg"),
        "CUDA_COOP_SOURCE_DUMP_DIR": str(tmp_path),
    }


def test_broken_root_fails_with_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "missing"
    done = run_cli(CUDA_COOP_CCCL_ROOT=str(root))
    assert done.returncode == 1
    assert f"error: CUDA_COOP_CCCL_ROOT='{root}': {root} does not exist" in done.stderr
    assert "set CUDA_COOP_CCCL_ROOT to a CCCL source checkout" in done.stderr  # the fix
    assert f"CUDA_COOP_CCCL_ROOT={root}" in done.stdout  # listed among the variables set


@pytest.mark.parametrize("kind", ["file", "no-cub"])
def test_other_broken_roots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    root = tmp_path / kind
    if kind == "file":
        root.write_text("")
    else:
        root.mkdir()
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", str(root))
    assert _cli.main([]) == 1
    err = capsys.readouterr().err
    assert f"CUDA_COOP_CCCL_ROOT='{root}'" in err and "set CUDA_COOP_CCCL_ROOT to a CCCL source checkout" in err


def test_broken_root_in_json(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", str(tmp_path / "missing"))
    assert _cli.main(["--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["cccl_root"] is None
    assert any("CUDA_COOP_CCCL_ROOT" in p and "does not exist" in p for p in report["problems"])


def test_unresolvable_headers_say_how_to_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.coop.errors import HeaderResolutionError

    def fail() -> None:
        raise HeaderResolutionError("no CUDA include directory; set CUDA_PATH", [("CUDA_PATH", "not set")])

    monkeypatch.setattr(_cli, "resolve_cuda_include", fail)
    assert _cli.main([]) == 1
    captured = capsys.readouterr()
    assert "error: no CUDA include directory; set CUDA_PATH" in captured.err
    assert "CUDA_PATH: not set" in captured.err


def test_build_script_flags(capsys: pytest.CaptureFixture[str]) -> None:
    from cuda.coop import header_bundle

    assert _cli.main(["--include-dir"]) == 0
    assert capsys.readouterr().out.strip() == str(header_bundle().include_dir)
    assert _cli.main(["--cmake-dir"]) == 0
    assert capsys.readouterr().out.strip() == str(header_bundle().cmake_dir)
