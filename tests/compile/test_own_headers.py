"""cuda-coop's own headers compile with real NVRTC whatever CCCL root is selected (tests/unit/test_own_headers.py
checks where they are found and their part in the keys)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cuda.coop import _cccl, _identity, header_bundle
from cuda.coop._own_headers import own_headers
from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, resolve_toolchain
from cuda.coop._specs import Request
from tests.helpers.cccl_checkout import lay_out_checkout
from tests.helpers.nvrtc import LTOIR_MAGIC

REQUESTS = [
    Request("block_top_k", "top_k", "pairs", dtype="float32", items_per_thread=4, value_type="int32"),
    Request("warp_argsort", "argsort", "pairs", dtype="int16", items_per_thread=2, index_type="int32"),
    Request("block_argsort", "argsort", "pairs", dtype="int32", items_per_thread=2, index_type="int32"),
]


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CUDA_COOP_CCCL_ROOT", raising=False)
    _cccl._reset_for_tests()
    yield
    _cccl._reset_for_tests()
    _identity._reset_for_tests()


def _foreign_bundle(dest: Path) -> Path:
    """A copy of the installed bundle whose cuda_coop/ headers are another cuda-coop's (here: ones that fail)."""
    shutil.copytree(header_bundle().root, dest)
    for header in (dest / "include" / "cuda_coop").rglob("*.cuh"):
        header.write_text('#error "a cuda_coop header of the CCCL root, not of this package"\n')
    return dest


@pytest.mark.parametrize("kind", ["checkout", "foreign bundle"])
def test_compositions_compile_against_any_cccl_root(
    kind: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, compiler: NvrtcCompiler
) -> None:
    root = lay_out_checkout(tmp_path / "cccl") if kind == "checkout" else _foreign_bundle(tmp_path / "bundle")
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", str(root))
    toolchain = resolve_toolchain()
    assert toolchain.include_roots[0] == own_headers().root
    assert all(r.is_relative_to(root) for r in toolchain.cccl_include_roots)
    p = Provider(REQUESTS, block_dim=(64,), arch="sm_90", toolchain=toolchain, compiler=compiler, cache=MemoryCache())
    assert p.ltoir().startswith(LTOIR_MAGIC)
    assert "#include <cuda_coop/block_argsort.cuh>" in p.preamble  # in every provider's fixed preamble
    for late in ("block_top_k", "warp_argsort"):  # after the version check (CCCL 3.6's AIR, bitonic headers)
        assert f"#include <cuda_coop/{late}.cuh>" in p.source and f"<cuda_coop/{late}.cuh>" not in p.preamble
