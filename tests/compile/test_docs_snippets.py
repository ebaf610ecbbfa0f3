"""The cuda-coop code the migration guide shows (docs/_snippets/migration.py) compiles for sm_90.

Every snippet the guide includes has a kernel in ``KERNELS``; tests/gpu/test_docs_snippets.py runs them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_snippets"))

import migration  # noqa: E402


def test_every_included_snippet_has_a_kernel() -> None:
    included = set(re.findall(r":start-after: # example-begin (\S+)", (DOCS / "migration.rst").read_text()))
    assert included, "the migration guide includes no snippet"
    assert included == set(migration.KERNELS) == set(migration.CHECKS)


@pytest.mark.parametrize("snippet", sorted(migration.KERNELS))
def test_snippet_compiles(snippet: str) -> None:
    from cuda.coop.numba_mlir import compile_kernel

    kernel, argtypes, block = migration.KERNELS[snippet]
    compiled = compile_kernel(kernel, argtypes, block=block, arch="sm_90")
    assert compiled.cubin, snippet
