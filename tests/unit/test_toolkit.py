"""Toolkit selection and compatibility, with a fake library backend (no NVRTC is loaded here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cuda.coop._cuda_headers import CudaInclude
from cuda.coop._toolkit import Library, Toolkit, resolve_toolkit
from cuda.coop.errors import ToolkitMismatchError, ToolkitNotFoundError
from tests.helpers.fakes import FakeBackend


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF")
    return path


def include(path: Path, version: tuple[int, int] = (13, 5), conda: Path | None = None) -> CudaInclude:
    origin = "conda environment" if conda else "cuda-pathfinder (site-packages)"
    return CudaInclude(path=path, origin=origin, cuda_version=version, conda_prefix=conda)


def wheel_libs(
    root: Path, nvrtc: tuple[int, int] = (13, 5), builtins: tuple[int, int] | None = None
) -> dict[str, Path]:
    lib = root / "nvidia" / "cu13" / "lib"
    b = builtins or nvrtc
    touch(lib / f"libnvrtc-builtins.so.{b[0]}.{b[1]}")
    return {"nvrtc": touch(lib / f"libnvrtc.so.{nvrtc[0]}"), "nvJitLink": touch(lib / f"libnvJitLink.so.{nvrtc[0]}")}


def backend(paths: dict[str, Path], nvrtc: tuple[int, int] = (13, 5), link: tuple[int, int] = (13, 5)) -> FakeBackend:
    return FakeBackend(paths=paths, versions={"nvrtc": nvrtc, "nvJitLink": link})


def test_consistent_wheel_toolkit(tmp_path: Path) -> None:
    paths = wheel_libs(tmp_path)
    tk = resolve_toolkit(platform="linux", backend=backend(paths), cuda_include=include(tmp_path / "inc"))
    assert tk.nvrtc.path == paths["nvrtc"] and tk.nvrtc.version == (13, 5)
    assert tk.nvrtc.origin == "cuda-pathfinder (site-packages)"
    assert tk.nvrtc_builtins.path == paths["nvrtc"].parent / "libnvrtc-builtins.so.13.5"
    assert tk.nvrtc_builtins.version == (13, 5)
    assert tk.nvjitlink.path == paths["nvJitLink"]


def test_newer_nvjitlink_is_fine(tmp_path: Path) -> None:
    paths = wheel_libs(tmp_path)
    tk = resolve_toolkit(platform="linux", backend=backend(paths, link=(13, 6)), cuda_include=include(tmp_path))
    assert tk.nvjitlink.version == (13, 6)


def _mismatch(tmp_path: Path, **kwargs: object) -> str:
    paths = wheel_libs(tmp_path, builtins=kwargs.pop("builtins", None))  # type: ignore[arg-type]
    inc = include(tmp_path / "inc", kwargs.pop("headers", (13, 5)))  # type: ignore[arg-type]
    with pytest.raises(ToolkitMismatchError) as info:
        resolve_toolkit(platform="linux", backend=backend(paths, **kwargs), cuda_include=inc)  # type: ignore[arg-type]
    message = str(info.value)
    for label in ("CUDA headers", "NVRTC", "nvrtc-builtins", "nvJitLink"):
        assert label in message
    assert str(paths["nvrtc"]) in message and str(paths["nvJitLink"]) in message and str(inc.path) in message
    assert "fix:" in message
    return message


def test_headers_of_another_major(tmp_path: Path) -> None:
    message = _mismatch(tmp_path, headers=(12, 8))
    assert "NVRTC 13.5 and the CUDA 12.8 headers differ in major" in message


def test_headers_newer_than_nvrtc(tmp_path: Path) -> None:
    message = _mismatch(tmp_path, headers=(13, 9))
    assert "the CUDA 13.9 headers are newer than NVRTC 13.5" in message


@pytest.mark.parametrize("headers", [(13, 0), (13, 5)])
def test_headers_not_newer_than_nvrtc_are_fine(tmp_path: Path, headers: tuple[int, int]) -> None:
    paths = wheel_libs(tmp_path)
    tk = resolve_toolkit(platform="linux", backend=backend(paths), cuda_include=include(tmp_path, headers))
    assert tk.cuda_include.cuda_version == headers


def test_older_nvjitlink(tmp_path: Path) -> None:
    assert "nvJitLink 13.0 is older than NVRTC 13.5" in _mismatch(tmp_path, link=(13, 0))


def test_nvjitlink_of_another_major(tmp_path: Path) -> None:
    assert "nvJitLink 12.9 and NVRTC 13.5 differ in major" in _mismatch(tmp_path, link=(12, 9))


def test_builtins_of_another_version(tmp_path: Path) -> None:
    message = _mismatch(tmp_path, builtins=(13, 0))
    assert "nvrtc-builtins 13.0 is not NVRTC 13.5's" in message and "libnvrtc-builtins.so.13.0" in message


def test_missing_builtins(tmp_path: Path) -> None:
    paths = wheel_libs(tmp_path)
    (paths["nvrtc"].parent / "libnvrtc-builtins.so.13.5").unlink()
    with pytest.raises(ToolkitNotFoundError, match=r"needs libnvrtc-builtins\.so\.13\.5"):
        resolve_toolkit(platform="linux", backend=backend(paths), cuda_include=include(tmp_path))


def test_builtins_beside_the_real_file_of_a_symlink(tmp_path: Path) -> None:
    real = wheel_libs(tmp_path / "real")
    link = tmp_path / "lib" / "libnvrtc.so.13"
    link.parent.mkdir()
    link.symlink_to(real["nvrtc"])
    paths = {"nvrtc": link, "nvJitLink": real["nvJitLink"]}
    tk = resolve_toolkit(platform="linux", backend=backend(paths), cuda_include=include(tmp_path))
    assert tk.nvrtc_builtins.path.parent == real["nvrtc"].parent


def test_windows_names(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    paths = {"nvrtc": touch(bin_dir / "nvrtc64_130_0.dll"), "nvJitLink": touch(bin_dir / "nvJitLink_130_0.dll")}
    touch(bin_dir / "nvrtc-builtins64_135.dll")
    tk = resolve_toolkit(platform="win32", backend=backend(paths), cuda_include=include(tmp_path))
    assert tk.nvrtc_builtins.path.name == "nvrtc-builtins64_135.dll" and tk.nvrtc_builtins.version == (13, 5)


def test_windows_builtins_version_from_file_name(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    paths = {"nvrtc": touch(bin_dir / "nvrtc64_120_0.dll"), "nvJitLink": touch(bin_dir / "nvJitLink_120_0.dll")}
    touch(bin_dir / "nvrtc-builtins64_126.dll")
    with pytest.raises(ToolkitMismatchError, match=r"nvrtc-builtins 12\.6 is not NVRTC 12\.8's"):
        resolve_toolkit(
            platform="win32", backend=backend(paths, (12, 8), (12, 8)), cuda_include=include(tmp_path, (12, 8))
        )


# --- conda environments -------------------------------------------------------------------------


def conda_env(prefix: Path, major: int = 13, minor: int = 5) -> CudaInclude:
    touch(prefix / "lib" / f"libnvrtc.so.{major}")
    touch(prefix / "lib" / f"libnvrtc-builtins.so.{major}.{minor}")
    touch(prefix / "lib" / f"libnvJitLink.so.{major}")
    return include(prefix / "targets" / "x86_64-linux" / "include", (major, minor), conda=prefix)


def test_conda_libraries_are_preloaded_and_used(tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    inc = conda_env(prefix)
    fake = backend(wheel_libs(tmp_path / "wheels"))
    tk = resolve_toolkit(platform="linux", backend=fake, cuda_include=inc)
    assert fake.binds == [
        ("nvrtc", prefix / "lib" / "libnvrtc.so.13"),
        ("nvJitLink", prefix / "lib" / "libnvJitLink.so.13"),
    ]
    assert tk.nvrtc.path == prefix / "lib" / "libnvrtc.so.13" and tk.nvrtc.origin == "conda environment"
    assert tk.nvrtc_builtins.path == prefix / "lib" / "libnvrtc-builtins.so.13.5"
    assert tk.nvjitlink.origin == "conda environment"


def test_conda_prefers_the_headers_major(tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    touch(prefix / "lib" / "libnvrtc.so.13")
    touch(prefix / "lib" / "libnvJitLink.so.13")
    inc = conda_env(prefix, 12, 8)
    fake = backend({}, (12, 8), (12, 8))
    tk = resolve_toolkit(platform="linux", backend=fake, cuda_include=inc)
    assert tk.nvrtc.path.name == "libnvrtc.so.12" and tk.nvjitlink.path.name == "libnvJitLink.so.12"


def test_conda_libraries_in_targets_dir(tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    lib = prefix / "targets" / "x86_64-linux" / "lib"
    touch(lib / "libnvrtc.so.13")
    touch(lib / "libnvrtc-builtins.so.13.5")
    touch(lib / "libnvJitLink.so.13")
    inc = include(prefix / "targets" / "x86_64-linux" / "include", conda=prefix)
    tk = resolve_toolkit(platform="linux", backend=backend({}), cuda_include=inc)
    assert tk.nvrtc.path == lib / "libnvrtc.so.13"


def test_conda_library_already_bound_elsewhere_is_reported_not_refused(tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    inc = conda_env(prefix)
    wheels = wheel_libs(tmp_path / "wheels")
    fake = backend(wheels)
    fake.preload_wins = False  # something loaded the wheel's copy before cuda.coop could choose
    tk = resolve_toolkit(platform="linux", backend=fake, cuda_include=inc)
    conda_nvrtc = prefix / "lib" / "libnvrtc.so.13"
    assert tk.nvrtc.path == wheels["nvrtc"]
    assert f"NVRTC in use is {wheels['nvrtc']}, not the conda environment's {conda_nvrtc}" in tk.notes[0]
    assert any(f"is not from the conda environment {prefix}" in note for note in tk.notes)


def test_conda_without_libraries_may_use_libraries_from_elsewhere(tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    inc = include(prefix / "targets" / "x86_64-linux" / "include", conda=prefix)
    inside = wheel_libs(prefix / "lib" / "python3.11" / "site-packages")
    tk = resolve_toolkit(platform="linux", backend=backend(inside), cuda_include=inc)
    assert tk.nvrtc.path == inside["nvrtc"] and tk.notes == ()
    outside = wheel_libs(tmp_path / "elsewhere")
    tk = resolve_toolkit(platform="linux", backend=backend(outside), cuda_include=inc)
    assert tk.nvrtc.path == outside["nvrtc"]
    assert [n.split(" ", 1)[0] for n in tk.notes] == ["NVRTC", "nvrtc-builtins", "nvJitLink"]


def test_conda_rule_is_the_version_rule(tmp_path: Path) -> None:
    """Inside conda, a version mix is still an error, and says where each piece comes from."""
    prefix = tmp_path / "env"
    inc = include(prefix / "targets" / "x86_64-linux" / "include", (13, 9), conda=prefix)
    outside = wheel_libs(tmp_path / "elsewhere")
    with pytest.raises(ToolkitMismatchError) as info:
        resolve_toolkit(platform="linux", backend=backend(outside), cuda_include=inc)
    message = str(info.value)
    assert "the CUDA 13.9 headers are newer than NVRTC 13.5" in message
    assert "not an error by itself" in message and "is not from the conda environment" in message


def test_conda_windows_layout(tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    bin_dir = prefix / "Library" / "bin"
    touch(bin_dir / "nvrtc64_130_0.dll")
    touch(bin_dir / "nvrtc-builtins64_135.dll")
    touch(bin_dir / "nvJitLink_130_0.dll")
    inc = include(prefix / "Library" / "include", conda=prefix)
    tk = resolve_toolkit(platform="win32", backend=backend({}), cuda_include=inc)
    assert tk.nvrtc.path == bin_dir / "nvrtc64_130_0.dll" and tk.nvjitlink.origin == "conda environment"


# --- identity -----------------------------------------------------------------------------------


def _toolkit(paths: dict[str, Path], tmp_path: Path) -> Toolkit:
    return resolve_toolkit(platform="linux", backend=backend(paths), cuda_include=include(tmp_path))


def test_identity_is_stable(tmp_path: Path) -> None:
    paths = wheel_libs(tmp_path)
    assert _toolkit(paths, tmp_path).identity == _toolkit(paths, tmp_path).identity


def test_identity_changes_when_a_library_changes(tmp_path: Path) -> None:
    paths = wheel_libs(tmp_path)
    before = _toolkit(paths, tmp_path)
    st = before.nvjitlink.path.stat()
    os.utime(before.nvjitlink.path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert _toolkit(paths, tmp_path).identity != before.identity


def test_library_positional_fields() -> None:
    lib = Library(Path("/x/libnvrtc.so.13"), (13, 5))
    assert (lib.path, lib.version) == (Path("/x/libnvrtc.so.13"), (13, 5))


def test_missing_pathfinder_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "cuda.pathfinder", None)
    with pytest.raises(ToolkitNotFoundError, match=r"cuda-pathfinder is not installed.*pip install"):
        resolve_toolkit(platform="linux", cuda_include=include(tmp_path))
