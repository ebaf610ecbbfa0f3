"""Public modules list exactly what they export (STYLE.md rule 1)."""

from __future__ import annotations

import importlib

import pytest

PUBLIC_MODULES = ["cuda.coop", "cuda.coop.errors", "cuda.coop.block", "cuda.coop.warp", "cuda.coop.numba_mlir",
                  "cuda.coop.numba_cuda"]


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_dir_is_all(name: str) -> None:
    if name.endswith("numba_mlir"):
        pytest.importorskip("numba_cuda_mlir", reason="cuda.coop.numba_mlir needs the numba-cuda-mlir extra")
    if name.endswith("numba_cuda"):
        pytest.importorskip("numba_cuda", reason="cuda.coop.numba_cuda needs the numba-cuda extra")
    module = importlib.import_module(name)
    assert dir(module) == sorted(module.__all__)
    for attr in module.__all__:
        assert hasattr(module, attr), attr


def test_version_matches_metadata() -> None:
    from importlib.metadata import version

    import cuda.coop

    assert cuda.coop.__version__ == version("cuda-coop")


def test_errors_share_one_base() -> None:
    from cuda.coop import errors

    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.CoopError)
