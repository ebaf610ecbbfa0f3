"""The installed header bundle is found, and a damaged provenance file is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuda.coop import header_bundle
from cuda.coop._bundle import read_provenance
from cuda.coop.errors import HeaderBundleError


def test_installed_bundle_is_complete() -> None:
    bundle = header_bundle()
    assert (bundle.include_dir / "cub" / "block" / "block_reduce.cuh").is_file()
    assert (bundle.cmake_dir / "cccl-config.cmake").is_file()
    assert bundle.provenance.source_kind in {"git", "package"}
    assert bundle.provenance.cccl_version.count(".") == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "has no provenance file"),
        ("{not json", "cannot read"),
        (json.dumps({"cccl_version": "3.6.0"}), "lacks one of the string fields"),
        (json.dumps(["a list"]), "lacks one of the string fields"),
    ],
)
def test_damaged_provenance(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "provenance.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(HeaderBundleError, match=message) as info:
        read_provenance(path)
    assert str(path) in str(info.value) and "reinstall cuda-coop" in str(info.value)
