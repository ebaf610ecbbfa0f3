"""cuda-coop's own headers (``include/cuda_coop``): where they are found, their place on the include path, and their
part in the header identity of every key (host only; tests/compile/test_own_headers.py compiles with them)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cuda.coop import _cccl, _identity, _own_headers
from cuda.coop._cuda_headers import CudaInclude
from cuda.coop._identity import CompileAttempt
from cuda.coop._own_headers import own_headers
from cuda.coop._provider import resolve_toolchain
from cuda.coop._provider._key import options_for, portable_provider_key, provider_key
from cuda.coop._provider._toolchain import pch_identity, resolve_include_roots
from cuda.coop._toolkit import Library, Toolkit
from cuda.coop.errors import HeaderBundleError

PROVENANCE = ('{"schema": 1, "cccl_version": "3.6.0", "source_kind": "package", "source_revision": "unknown", '
              '"revision_note": "test"}')


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CUDA_COOP_CCCL_ROOT", raising=False)
    _identity._reset_for_tests()
    _cccl._reset_for_tests()
    yield
    _identity._reset_for_tests()
    _cccl._reset_for_tests()


def _attempt(tmp_path: Path) -> CompileAttempt:
    """An attempt whose CUDA headers and toolkit are stand-ins (no NVRTC needed)."""
    cuda = tmp_path / "cuda" / "include"
    cuda.mkdir(parents=True, exist_ok=True)
    include = CudaInclude(path=cuda, origin="CUDA_PATH", cuda_version=(13, 0))
    lib = Library(path=tmp_path / "libnvrtc.so", version=(13, 0))
    return CompileAttempt(include_resolver=lambda: include,
                          toolkit_resolver=lambda inc: Toolkit(nvrtc=lib, nvrtc_builtins=lib, nvjitlink=lib,
                                                               cuda_include=inc))


def _package(tmp_path: Path) -> Path:
    """A package folder whose ``_include`` is a copy of the installed package's own headers."""
    package = tmp_path / "site" / "cuda" / "coop"
    shutil.copytree(own_headers().root, package / "_include")
    return package


def test_installed_package_has_a_root_holding_only_cuda_coop() -> None:
    found = own_headers()
    assert found.origin == "package" and found.root.name == "_include"
    assert [p.name for p in found.root.iterdir()] == ["cuda_coop"]
    assert (found.root / "cuda_coop" / "block_top_k.cuh").is_file()


def test_a_source_folder_runs_with_its_include_folder(tmp_path: Path) -> None:
    """A package that runs from its source folder (an editable install) compiles the repository's include/."""
    repo = tmp_path / "repo"
    shutil.copytree(own_headers().root / "cuda_coop", repo / "include" / "cuda_coop")
    (repo / "cuda_coop").mkdir()
    found = own_headers(package_dir=repo / "cuda_coop")
    assert (found.root, found.origin) == (repo / "include", "source folder")
    shutil.copytree(repo / "include", repo / "cuda_coop" / "_include")  # the package's own copy comes first
    assert own_headers(package_dir=repo / "cuda_coop").origin == "package"


def test_missing_headers_are_a_damaged_install(tmp_path: Path) -> None:
    with pytest.raises(HeaderBundleError, match=r"own headers are missing: neither .*_include/cuda_coop/block_top_k"
                       r"\.cuh .* nor .*include/cuda_coop/block_top_k\.cuh .*reinstall cuda-coop"):
        own_headers(package_dir=tmp_path / "cuda" / "coop")


def test_own_root_comes_first_whatever_the_cccl_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Before the CCCL roots (a foreign bundle's cuda_coop/ cannot hide it) and the same in the PCH's options."""
    foreign = tmp_path / "bundle"  # another cuda-coop's bundle, with cuda_coop/ headers of its own
    files = {"provenance.json": PROVENANCE, "lib/cmake/cccl/cccl-config.cmake": "", "include/cub/version.cuh": "",
             "include/thrust/version.h": "", "include/cuda/std/__cccl/version.h": "#define CCCL_VERSION 3006000\n",
             "include/cuda_coop/block_top_k.cuh": '#error "another cuda-coop\'s header"\n'}
    for rel, text in files.items():
        (foreign / rel).parent.mkdir(parents=True, exist_ok=True)
        (foreign / rel).write_text(text)
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", str(foreign))
    attempt = _attempt(tmp_path)
    toolchain = resolve_toolchain(attempt)
    own = own_headers().root
    assert toolchain.include_roots == (own, foreign / "include", toolchain.cuda_include)
    assert resolve_include_roots(attempt) == ((foreign / "include",), toolchain.include_roots)
    assert options_for(toolchain.include_roots, "sm_90")[4] == f"--include-path={own}"


def test_an_edited_own_header_changes_every_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The own root is part of the ordered header identity: an edit of a cuda_coop header changes the provider's
    key, its portable (pack) key and the precompiled header's identity, in the next compile attempt."""
    package = _package(tmp_path)
    monkeypatch.setattr(_own_headers, "_PACKAGE_DIR", package)
    def keys() -> tuple[str, str, str]:
        toolchain = resolve_toolchain(_attempt(tmp_path))
        assert toolchain.own_include == package / "_include"
        options = options_for(toolchain.include_roots, "sm_90")
        return (provider_key("src", options, toolchain).digest, portable_provider_key("src", options, toolchain).digest,
                pch_identity(toolchain))

    before = keys()
    assert keys() == before  # nothing changed: the same keys
    header = package / "_include" / "cuda_coop" / "detail" / "top_k.cuh"
    header.write_text(header.read_text() + "// edited\n")
    after = keys()
    assert all(a != b for a, b in zip(before, after, strict=True))
