"""CCCL root selection: CUDA_COOP_CCCL_ROOT → source checkout → installed bundle; never a fallback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cuda.coop import _cccl, header_bundle
from cuda.coop._cccl import resolve_cccl_root
from cuda.coop.errors import ConfigurationError

VAR = "CUDA_COOP_CCCL_ROOT"
VERSION_H = "#ifndef X\n#define CCCL_VERSION {number}\n#define CCCL_MAJOR_VERSION (CCCL_VERSION / 1000000)\n#endif\n"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(VAR, raising=False)
    _cccl._reset_for_tests()
    yield
    _cccl._reset_for_tests()


def _touch(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_checkout(root: Path, number: int = 3_007_001) -> Path:
    _touch(root / "cub" / "cub" / "version.cuh")
    _touch(root / "thrust" / "thrust" / "version.h")
    _touch(root / "libcudacxx" / "include" / "cuda" / "std" / "__cccl" / "version.h", VERSION_H.format(number=number))
    return root


PROVENANCE = (
    '{"schema": 1, "cccl_version": "3.5.2", "source_kind": "package", "source_revision": "unknown", '
    '"revision_note": "test"}'
)


def make_include(root: Path, number: int = 3_005_002) -> Path:
    """``root/include/{cub,thrust,cuda,nv}``: what a toolkit or any CCCL install has."""
    _touch(root / "include" / "cub" / "version.cuh")
    _touch(root / "include" / "thrust" / "version.h")
    _touch(root / "include" / "cuda" / "std" / "__cccl" / "version.h", VERSION_H.format(number=number))
    _touch(root / "include" / "nv" / "target")
    return root


def make_bundle(root: Path, number: int = 3_005_002) -> Path:
    """A cuda-coop header bundle: the include tree plus what only a bundle has."""
    make_include(root, number)
    _touch(root / "provenance.json", PROVENANCE)
    _touch(root / "lib" / "cmake" / "cccl" / "cccl-config.cmake", "# CCCL package\n")
    return root


@pytest.fixture
def plain_package(tmp_path: Path) -> Path:
    """A package directory with no CCCL checkout above it."""
    package = tmp_path / "plain" / "cuda_coop"
    package.mkdir(parents=True)
    return package


# --- CUDA_COOP_CCCL_ROOT ------------------------------------------------------------------------


def test_env_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, plain_package: Path) -> None:
    root = make_checkout(tmp_path / "cccl")
    monkeypatch.setenv(VAR, str(root))
    got = resolve_cccl_root(package_dir=plain_package)
    assert got.origin == "CUDA_COOP_CCCL_ROOT"
    assert got.path == root
    assert got.include_roots == (root / "cub", root / "thrust", root / "libcudacxx" / "include")
    assert (got.version, got.version_number) == ("3.7.1", 3_007_001)


def test_env_bundle(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, plain_package: Path) -> None:
    root = make_bundle(tmp_path / "bundle")
    monkeypatch.setenv(VAR, str(root))
    got = resolve_cccl_root(package_dir=plain_package)
    assert (got.origin, got.path, got.include_roots) == ("CUDA_COOP_CCCL_ROOT", root, (root / "include",))
    assert (got.version, got.version_number) == ("3.5.2", 3_005_002)


def test_env_relative_path_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    make_bundle(tmp_path / "bundle")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(VAR, "bundle")
    with pytest.raises(ConfigurationError, match=r"CUDA_COOP_CCCL_ROOT='bundle' is a relative path.*absolute"):
        resolve_cccl_root()


def test_env_tilde_is_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, plain_package: Path) -> None:
    make_bundle(tmp_path / "home" / "bundle")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv(VAR, "~/bundle")
    assert resolve_cccl_root(package_dir=plain_package).path == tmp_path / "home" / "bundle"


def test_env_beats_checkout_and_bundle(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    checkout = make_checkout(tmp_path / "checkout")
    package = checkout / "python" / "cuda_coop"
    package.mkdir(parents=True)
    chosen = make_bundle(tmp_path / "bundle")
    monkeypatch.setenv(VAR, str(chosen))
    assert resolve_cccl_root(package_dir=package).path == chosen


def test_env_is_read_for_every_call(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, plain_package: Path) -> None:
    first, second = make_bundle(tmp_path / "one"), make_checkout(tmp_path / "two")
    monkeypatch.setenv(VAR, str(first))
    assert resolve_cccl_root(package_dir=plain_package).path == first
    monkeypatch.setenv(VAR, str(second))
    assert resolve_cccl_root(package_dir=plain_package).path == second
    monkeypatch.delenv(VAR)
    assert resolve_cccl_root(package_dir=plain_package).origin == "header bundle"


def test_empty_env_means_unset(monkeypatch: pytest.MonkeyPatch, plain_package: Path) -> None:
    monkeypatch.setenv(VAR, "")
    assert resolve_cccl_root(package_dir=plain_package).origin == "header bundle"


def _invalid(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: Path) -> ConfigurationError:
    """Set VAR to ``value`` where a checkout and a bundle are also available: still an error."""
    checkout = make_checkout(tmp_path / "checkout")
    package = checkout / "python" / "cuda_coop"
    package.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv(VAR, str(value))
    with pytest.raises(ConfigurationError) as info:
        resolve_cccl_root(package_dir=package)
    message = str(info.value)
    assert VAR in message and str(value) in message
    assert "cub/cub/version.cuh" in message and "provenance.json" in message  # what a valid root is
    assert "toolkit" not in message.split("; set ", 1)[-1].lower().replace("cuda_coop", "")  # never the fix
    return info.value


def test_env_missing_dir_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert "does not exist" in str(_invalid(monkeypatch, tmp_path, tmp_path / "missing"))


def test_env_dir_without_cub_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    error = _invalid(monkeypatch, tmp_path, tmp_path / "empty")
    assert "neither a CCCL source checkout" in str(error)


def test_env_file_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _touch(tmp_path / "a-file")
    assert "is a file, not a directory" in str(_invalid(monkeypatch, tmp_path, tmp_path / "a-file"))


def test_env_incomplete_checkout_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = make_checkout(tmp_path / "partial")
    (root / "thrust" / "thrust" / "version.h").unlink()
    error = _invalid(monkeypatch, tmp_path, root)
    assert "incomplete" in str(error) and "thrust/version.h" in str(error)


def test_env_unreadable_version_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = make_bundle(tmp_path / "bundle")
    (root / "include" / "cuda" / "std" / "__cccl" / "version.h").write_text("/* no version */\n")
    assert "cannot read CCCL_VERSION" in str(_invalid(monkeypatch, tmp_path, root))


def test_env_include_dir_gets_a_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = make_bundle(tmp_path / "bundle")
    error = _invalid(monkeypatch, tmp_path, root / "include")
    assert f"use the bundle folder {root}" in str(error)


@pytest.mark.parametrize("lacking", ["provenance.json", "lib/cmake/cccl/cccl-config.cmake", "both"])
def test_env_folder_with_only_include_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lacking: str) -> None:
    """include/{cub,thrust,cuda,nv} alone (a toolkit, a CCCL install) is not a bundle."""
    root = make_bundle(tmp_path / "not-a-bundle")
    for rel in (["provenance.json", "lib/cmake/cccl/cccl-config.cmake"] if lacking == "both" else [lacking]):
        (root / rel).unlink()
    error = str(_invalid(monkeypatch, tmp_path, root))
    assert "neither a CCCL source checkout nor a cuda-coop header bundle" in error
    assert "never compiles against" in error


def test_env_toolkit_layout_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A CUDA toolkit root: include/{cub,thrust,cuda,nv}, lib64/cmake/cccl, no provenance."""
    root = make_include(tmp_path / "cuda-13.0")
    _touch(root / "include" / "cuda_runtime.h")
    _touch(root / "lib64" / "cmake" / "cccl" / "cccl-config.cmake")
    _touch(root / "bin" / "nvcc")
    _invalid(monkeypatch, tmp_path, root)


def test_env_real_toolkit_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    toolkit = Path("/usr/local/cuda")
    if not any((toolkit / "include" / sub / "cub" / "version.cuh").is_file() for sub in ("", "cccl")):
        pytest.skip("no CUDA toolkit with CUB at /usr/local/cuda on this machine")
    _invalid(monkeypatch, tmp_path, toolkit)


def test_env_damaged_provenance_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = make_bundle(tmp_path / "bundle")
    (root / "provenance.json").write_text("{}")
    assert "is damaged" in str(_invalid(monkeypatch, tmp_path, root))


def test_env_real_bundle_and_real_checkout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, plain_package: Path
) -> None:
    from tests.helpers.cccl_checkout import lay_out_checkout

    bundle = header_bundle()
    monkeypatch.setenv(VAR, str(bundle.root))
    got = resolve_cccl_root(package_dir=plain_package)
    assert (got.origin, got.include_roots) == ("CUDA_COOP_CCCL_ROOT", (bundle.include_dir.resolve(),))
    checkout = lay_out_checkout(tmp_path / "cccl")
    monkeypatch.setenv(VAR, str(checkout))
    got = resolve_cccl_root(package_dir=plain_package)
    assert got.include_roots[0] == checkout / "cub" and got.version == bundle.provenance.cccl_version


# --- source checkout and bundle -----------------------------------------------------------------


def test_source_checkout_beats_bundle(tmp_path: Path) -> None:
    root = make_checkout(tmp_path / "cccl", number=3_008_000)
    package = root / "python" / "cuda_cccl" / "cuda" / "coop"
    package.mkdir(parents=True)
    got = resolve_cccl_root(package_dir=package)
    assert (got.origin, got.path, got.version) == ("source checkout", root, "3.8.0")
    assert got.include_roots[0] == root / "cub"


def test_installed_package_does_not_walk_into_a_checkout(tmp_path: Path) -> None:
    root = make_checkout(tmp_path / "cccl")
    package = root / ".venv" / "lib" / "python3.11" / "site-packages" / "cuda" / "coop"
    package.mkdir(parents=True)
    assert resolve_cccl_root(package_dir=package).origin == "header bundle"


def test_incomplete_source_checkout_is_an_error(tmp_path: Path) -> None:
    root = make_checkout(tmp_path / "cccl")
    (root / "libcudacxx" / "include" / "cuda" / "std" / "__cccl" / "version.h").unlink()
    package = root / "python"
    package.mkdir()
    with pytest.raises(ConfigurationError, match=r"incomplete.*CUDA_COOP_CCCL_ROOT"):
        resolve_cccl_root(package_dir=package)


def test_installed_bundle_is_the_last_resort(plain_package: Path) -> None:
    got = resolve_cccl_root(package_dir=plain_package)
    bundle = header_bundle()
    assert (got.origin, got.path, got.include_roots) == ("header bundle", bundle.root, (bundle.include_dir,))
    assert got.version == bundle.provenance.cccl_version
    assert got.version_number // 1_000_000 >= 2


def test_this_checkout_is_not_a_cccl_checkout() -> None:
    """cuda-coop's own repository holds no CUB, so a plain call gives the installed bundle."""
    assert resolve_cccl_root().origin == "header bundle"


def test_toolkit_cub_is_never_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A CUDA toolkit's include dir (cub/ and cuda/ directly inside) is not a valid root."""
    toolkit_include = tmp_path / "cuda" / "include"
    _touch(toolkit_include / "cub" / "version.cuh")
    _touch(toolkit_include / "thrust" / "version.h")
    _touch(toolkit_include / "cuda_runtime.h")
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "cuda"))
    got = resolve_cccl_root()
    assert all(not root.is_relative_to(tmp_path) for root in got.include_roots)
