"""The code the docs cut from docs/_snippets/ compiles for sm_90.

- The migration guide (``migration.py``): every snippet the guide includes has a kernel in ``KERNELS``;
  tests/gpu/test_docs_snippets.py runs them.
- The calling-model page (``calling_model.py``): every snippet it includes has a kernel in ``KERNELS``.
- bfloat16 from the host (``bfloat16_host.py``, on the support-matrix page): an ``ml_dtypes.bfloat16`` array
  is typed as numba-cuda-mlir's bfloat16 array, and the kernel compiles with the signature ``typeof`` gives.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_snippets"))

import calling_model  # noqa: E402
import migration  # noqa: E402
from numba_cuda_mlir.numba_cuda import types  # noqa: E402


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


# --- docs/calling-model.rst ----------------------------------------------------------------------------------


def test_every_calling_model_snippet_has_a_kernel() -> None:
    included = set(re.findall(r":start-after: # example-begin (\S+)", (DOCS / "calling-model.rst").read_text()))
    assert included, "the calling-model page includes no snippet"
    assert included == set(calling_model.KERNELS)


@pytest.mark.parametrize("snippet", sorted(calling_model.KERNELS))
def test_calling_model_snippet_compiles(snippet: str) -> None:
    from cuda.coop.numba_mlir import compile_kernel

    kernel, argtypes, block = calling_model.KERNELS[snippet]
    assert compile_kernel(kernel, argtypes, block=block, arch="sm_90").cubin, snippet


# --- bfloat16 from the host (docs/support_matrix.rst) --------------------------------------------------------


def _ml_dtypes():  # type: ignore[no-untyped-def]
    from tests.helpers import requires

    try:
        import ml_dtypes
    except ImportError:
        requires.missing("ml_dtypes is not installed (the numba-cuda-mlir extras install it)")
    return ml_dtypes


def test_ml_dtypes_bfloat16_array_types_as_bfloat16() -> None:
    """numba-cuda-mlir types a NumPy array of ``ml_dtypes.bfloat16``, and a device array of that dtype, as its
    bfloat16 array: what a launch with such an array binds."""
    from numba_cuda_mlir.numba_cuda.np import numpy_support
    from numba_cuda_mlir.numba_cuda.typing.typeof import typeof

    ml_dtypes = _ml_dtypes()
    x = np.arange(8, dtype=np.float32).astype(ml_dtypes.bfloat16)
    assert typeof(x) == types.bfloat16[::1]
    assert numpy_support.from_dtype(x.dtype) == types.bfloat16  # DeviceNDArray's type is made from its dtype


def test_bfloat16_snippet_compiles_with_the_signature_typeof_gives() -> None:
    from numba_cuda_mlir.numba_cuda.typing.typeof import typeof

    from cuda.coop.numba_mlir import compile_kernel

    ml_dtypes = _ml_dtypes()
    import bfloat16_host

    x = np.zeros(4 * 128, ml_dtypes.bfloat16)
    compiled = compile_kernel(bfloat16_host.tile_scan, (typeof(x), typeof(x)), block=128, arch="sm_90")
    assert compiled.cubin
    assert ".bf16" in compiled.ptx, "the scan should add bfloat16 values"
