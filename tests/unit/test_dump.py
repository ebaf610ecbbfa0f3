"""CUDA_COOP_SOURCE_DUMP_DIR follows the one path rule (``_env.path``) at every dump."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuda.coop._provider._dump import dump_source


def test_absolute_and_home_directories_receive_the_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path / "dumps"))
    path = dump_source("// source", "numba_mlir", "ab" * 32)
    assert path == tmp_path / "dumps" / f"cuda_coop_numba_mlir_{'ab' * 8}.cu"
    assert path.read_text() == "// source"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", "~/home-dumps")
    expected = tmp_path / "home-dumps" / f"cuda_coop_numba_mlir_{'cd' * 8}.cu"
    assert dump_source("// two", "numba_mlir", "cd" * 32) == expected


@pytest.mark.parametrize("value", ["", None])
def test_empty_or_unset_writes_nothing(value: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if value is None:
        monkeypatch.delenv("CUDA_COOP_SOURCE_DUMP_DIR", raising=False)
    else:
        monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", value)
    assert dump_source("// source", "numba_mlir", "ab" * 32) is None


def test_relative_directory_is_refused_with_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", "dumps")
    with pytest.warns(RuntimeWarning, match="CUDA_COOP_SOURCE_DUMP_DIR='dumps' is a relative path"):
        assert dump_source("// source", "numba_mlir", "ab" * 32) is None
    assert not (tmp_path / "dumps").exists()
