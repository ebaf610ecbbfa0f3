"""CUDA include resolution: conda → cuda-pathfinder → CUDA_PATH → CUDA_HOME → CUDA_ROOT → /usr/local (POSIX)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cuda.coop import _cuda_headers
from cuda.coop._cuda_headers import resolve_cuda_include
from cuda.coop.errors import HeaderResolutionError

VARS = ("CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME", "CUDA_ROOT")


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in VARS:
        monkeypatch.delenv(name, raising=False)
    # The POSIX fallback is a real path on this machine; tests point it at a fake one.
    monkeypatch.setattr(_cuda_headers, "_POSIX_FALLBACK", tmp_path / "usr-local-cuda" / "include")
    _cuda_headers._reset_for_tests()
    yield
    _cuda_headers._reset_for_tests()


def headers(include: Path, version: int = 13050, *, runtime_api_only: bool = False) -> Path:
    include.mkdir(parents=True, exist_ok=True)
    (include / "cuda_runtime.h").write_text("#include <cuda_runtime_api.h>\n")
    (include / "cuda_runtime_api.h").write_text(f"#define CUDART_VERSION  {version}\n")
    if not runtime_api_only:
        (include / "cuda.h").write_text(f"#pragma once\n#define CUDA_VERSION {version}\n")
    return include


def nothing(_: str) -> tuple[str | None, str]:
    return None, "found nothing"


def finder(path: Path) -> _cuda_headers.HeaderFinder:
    def find(libname: str) -> tuple[str | None, str]:
        assert libname == "cudart"
        return str(path), "site-packages"

    return find


@pytest.fixture
def toolkit_roots(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Path]:
    """CUDA_PATH, CUDA_HOME and CUDA_ROOT each set to a valid toolkit root."""
    roots = {}
    for i, name in enumerate(("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT")):
        roots[name] = tmp_path / name.lower()
        headers(roots[name] / "include", 13000 + 10 * i)
        monkeypatch.setenv(name, str(roots[name]))
    return roots


def test_cuda_path_before_cuda_home_before_cuda_root(
    monkeypatch: pytest.MonkeyPatch, toolkit_roots: dict[str, Path]
) -> None:
    got = resolve_cuda_include(platform="linux", find_header_dir=nothing)
    assert (got.path, got.origin, got.cuda_version) == (toolkit_roots["CUDA_PATH"] / "include", "CUDA_PATH", (13, 0))
    monkeypatch.delenv("CUDA_PATH")
    got = resolve_cuda_include(platform="linux", find_header_dir=nothing)
    assert (got.origin, got.cuda_version) == ("CUDA_HOME", (13, 1))
    monkeypatch.delenv("CUDA_HOME")
    got = resolve_cuda_include(platform="linux", find_header_dir=nothing)
    assert (got.origin, got.cuda_version) == ("CUDA_ROOT", (13, 2))


def test_invalid_root_variable_is_skipped_and_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, toolkit_roots: dict[str, Path]
) -> None:
    (tmp_path / "no-headers" / "include").mkdir(parents=True)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "no-headers"))
    assert resolve_cuda_include(platform="linux", find_header_dir=nothing).origin == "CUDA_HOME"


def test_pathfinder_before_root_variables(tmp_path: Path, toolkit_roots: dict[str, Path]) -> None:
    wheel = headers(tmp_path / "site-packages" / "nvidia" / "cu13" / "include", 13050)
    got = resolve_cuda_include(platform="linux", find_header_dir=finder(wheel))
    assert (got.path, got.origin, got.cuda_version) == (wheel, "cuda-pathfinder (site-packages)", (13, 5))


def test_invalid_pathfinder_answer_falls_through(tmp_path: Path, toolkit_roots: dict[str, Path]) -> None:
    (tmp_path / "empty").mkdir()
    assert resolve_cuda_include(platform="linux", find_header_dir=finder(tmp_path / "empty")).origin == "CUDA_PATH"


def test_conda_before_pathfinder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, toolkit_roots: dict[str, Path]
) -> None:
    prefix = tmp_path / "env"
    conda = headers(prefix / "targets" / "x86_64-linux" / "include", 12080)
    wheel = headers(tmp_path / "wheel" / "include", 13050)
    monkeypatch.setenv("CONDA_PREFIX", str(prefix))
    got = resolve_cuda_include(platform="linux", find_header_dir=finder(wheel))
    assert (got.path, got.origin, got.cuda_version, got.conda_prefix) == (
        conda,
        "conda environment",
        (12, 8),
        prefix,
    )


def test_conda_without_cuda_is_not_a_cuda_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, toolkit_roots: dict[str, Path]
) -> None:
    (tmp_path / "env" / "include").mkdir(parents=True)
    monkeypatch.setenv("CONDA_PREFIX", str(tmp_path / "env"))
    wheel = headers(tmp_path / "wheel" / "include")
    got = resolve_cuda_include(platform="linux", find_header_dir=finder(wheel))
    assert got.origin == "cuda-pathfinder (site-packages)" and got.conda_prefix is None


def test_conda_prefers_the_host_target(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import platform

    host = _cuda_headers._HOST_TARGETS.get(platform.machine().lower())
    if host is None:
        pytest.skip(f"no conda target name known for {platform.machine()}")
    prefix = tmp_path / "env"
    for target in ("aaa-cross", host, "zzz-cross"):
        headers(prefix / "targets" / target / "include")
    monkeypatch.setenv("CONDA_PREFIX", str(prefix))
    assert resolve_cuda_include(platform="linux", find_header_dir=nothing).path.parent.name == host


def test_conda_windows_layout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    include = headers(prefix / "Library" / "include")
    monkeypatch.setenv("CONDA_PREFIX", str(prefix))
    assert resolve_cuda_include(platform="win32", find_header_dir=nothing).path == include


def test_usr_local_cuda_is_last_on_posix(tmp_path: Path, toolkit_roots: dict[str, Path]) -> None:
    fallback = headers(_cuda_headers._POSIX_FALLBACK, 13000)
    assert resolve_cuda_include(platform="linux", find_header_dir=nothing).origin == "CUDA_PATH"
    for root in toolkit_roots.values():
        (root / "include" / "cuda_runtime.h").unlink()
    got = resolve_cuda_include(platform="linux", find_header_dir=nothing)
    assert (got.path, got.origin) == (fallback, "/usr/local/cuda")


def test_usr_local_cuda_is_never_tried_on_windows() -> None:
    headers(_cuda_headers._POSIX_FALLBACK)
    with pytest.raises(HeaderResolutionError) as info:
        resolve_cuda_include(platform="win32", find_header_dir=nothing)
    assert all("/usr/local" not in origin for origin, _ in info.value.tried)


def test_nothing_found_lists_every_candidate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CONDA_PREFIX", str(tmp_path / "env"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(HeaderResolutionError) as info:
        resolve_cuda_include(platform="linux", find_header_dir=nothing)
    origins = [origin for origin, _ in info.value.tried]
    assert origins == [
        f"CONDA_PREFIX={tmp_path / 'env'}",
        "cuda-pathfinder",
        "CUDA_PATH",
        f"CUDA_HOME={tmp_path / 'nowhere'}",
        "CUDA_ROOT",
        "/usr/local/cuda",
    ]
    message = str(info.value)
    assert "cuda_runtime.h" in message and "CUDA_PATH" in message and "pip install" in message
    assert str(tmp_path / "nowhere" / "include") in message


def test_version_from_cuda_runtime_api(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    headers(tmp_path / "tk" / "include", 12060, runtime_api_only=True)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "tk"))
    assert resolve_cuda_include(platform="linux", find_header_dir=nothing).cuda_version == (12, 6)


def test_headers_without_a_version_are_rejected(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    include = tmp_path / "tk" / "include"
    include.mkdir(parents=True)
    (include / "cuda_runtime.h").write_text("")
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "tk"))
    with pytest.raises(HeaderResolutionError, match="declares no CUDA_VERSION"):
        resolve_cuda_include(platform="linux", find_header_dir=nothing)


def test_variables_are_read_for_every_call(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    headers(tmp_path / "a" / "include", 12080)
    headers(tmp_path / "b" / "include", 13000)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "a"))
    assert resolve_cuda_include(platform="linux", find_header_dir=nothing).cuda_version == (12, 8)
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "b"))
    assert resolve_cuda_include(platform="linux", find_header_dir=nothing).cuda_version == (13, 0)
