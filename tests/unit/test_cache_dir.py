"""The cache directory rules of the seed (XDG_CACHE_HOME on POSIX, LOCALAPPDATA on Windows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuda.coop._cache_dir import cache_dir


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("LOCALAPPDATA", raising=False)
    return Path.home()


def test_xdg_unset(home: Path) -> None:
    assert cache_dir("linux") == home / ".cache" / "cccl"


def test_xdg_empty(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    assert cache_dir("linux") == home / ".cache" / "cccl"


@pytest.mark.parametrize("relative", ["cache", "./cache", "~cache-not-a-user/x", " /abs-with-leading-space"])
def test_xdg_relative(monkeypatch: pytest.MonkeyPatch, home: Path, relative: str) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", relative)
    assert cache_dir("linux") == home / ".cache" / "cccl"


def test_xdg_tilde_is_expanded(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    # The one path rule (cuda_coop._env.path): a leading ~ means the home directory, everywhere.
    monkeypatch.setenv("XDG_CACHE_HOME", "~/my-cache")
    assert cache_dir("linux") == home / "my-cache" / "cccl"


def test_xdg_absolute(monkeypatch: pytest.MonkeyPatch, home: Path, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir("linux") == tmp_path / "xdg" / "cccl"
    assert cache_dir("darwin") == tmp_path / "xdg" / "cccl"


def test_posix_ignores_localappdata(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("LOCALAPPDATA", "C:\\Users\\me\\AppData\\Local")
    assert cache_dir("linux") == home / ".cache" / "cccl"


def test_localappdata_unset(home: Path) -> None:
    assert cache_dir("win32") == home / "AppData" / "Local" / "cccl"


def test_localappdata_empty(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("LOCALAPPDATA", "")
    assert cache_dir("win32") == home / "AppData" / "Local" / "cccl"


@pytest.mark.parametrize("relative", ["AppData\\Local", "\\no\\drive", "C:relative"])
def test_localappdata_relative(monkeypatch: pytest.MonkeyPatch, home: Path, relative: str) -> None:
    monkeypatch.setenv("LOCALAPPDATA", relative)
    assert cache_dir("win32") == home / "AppData" / "Local" / "cccl"


@pytest.mark.parametrize("absolute", ["C:\\Users\\me\\AppData\\Local", "\\\\server\\share\\me"])
def test_localappdata_absolute(monkeypatch: pytest.MonkeyPatch, home: Path, absolute: str) -> None:
    monkeypatch.setenv("LOCALAPPDATA", absolute)
    assert cache_dir("win32") == Path(absolute) / "cccl"


def test_windows_ignores_xdg(monkeypatch: pytest.MonkeyPatch, home: Path, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir("win32") == home / "AppData" / "Local" / "cccl"


def test_default_platform_is_this_one(monkeypatch: pytest.MonkeyPatch, home: Path, tmp_path: Path) -> None:
    import sys

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "lad"))
    assert cache_dir() == cache_dir(sys.platform)
