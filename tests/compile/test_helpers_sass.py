"""``tests/helpers/sass.py`` on a real kernel (compile tier, no GPU): a local array indexed at run time lives in
local memory, and ``assert_inlined`` fails on it, with or without ``spills`` (these are no register spills).

cuobjdump counts such an array as stack, not as local memory (``resource_usage()["local"]`` stays 0), so the SASS
listing is what catches it; tests/unit/test_helpers.py checks the helper on listings line by line.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

from cuda.coop.numba_mlir import compile_kernel
from tests.helpers.sass import assert_inlined, instructions


@cuda.jit
def runtime_indexed(x, out, i):
    a = cuda.local.array(64, np.int32)
    for k in range(64):
        a[k] = x[k + cuda.threadIdx.x]
    a[i] = 0
    out[cuda.threadIdx.x] = a[x[0]]


def test_local_memory_fails_assert_inlined() -> None:
    compiled = compile_kernel(runtime_indexed, (types.int32[::1], types.int32[::1], types.int32), block=32)
    local = [line for line in instructions(compiled.sass()) if " LDL" in line or " STL" in line]
    assert local and not [line for line in local if "Spill" in line]
    for spills in (False, True):
        with pytest.raises(AssertionError, match=r"^(LDL|STL) in SASS: "):
            assert_inlined(compiled, spills=spills)
    assert_inlined(compiled, local=True)  # no CALL: only the local memory fails it
