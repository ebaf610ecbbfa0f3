"""``algorithm="vectorize"`` emits 128-bit vector loads and stores for aligned 4-byte items (compile tier).

CUB's vectorized BlockLoad/BlockStore checks the tile's alignment at run time and uses vector
accesses for full tiles; the SASS must contain them (``LDG.E.128`` / ``STG.E.128``), and the
``"direct"`` algorithm, as a control, must not.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.numba_mlir import compile_kernel

LOAD_128 = re.compile(r"\bLDG\.E\.128\b")
STORE_128 = re.compile(r"\bSTG\.E\.128\b")


def _kernel(dtype: str, items: int, load_algorithm: str, store_algorithm: str):
    DT, IPT, LA, SA = getattr(np, dtype), items, load_algorithm, store_algorithm

    @cuda.jit
    def kernel(x, y):
        values = cuda.local.array(IPT, DT)
        base = cuda.blockIdx.x * 128 * IPT
        coop.block.load(x, values, offset=base, algorithm=LA)  # a full tile: no valid_items
        for i in range(IPT):
            values[i] = values[i] + values[i]
        coop.block.store(y, values, offset=base, algorithm=SA)

    return kernel


def _sass(dtype: str, items: int, load_algorithm: str, store_algorithm: str) -> str:
    array = getattr(types, dtype)[::1]
    return compile_kernel(_kernel(dtype, items, load_algorithm, store_algorithm), (array, array), block=128).sass()


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint32"])
@pytest.mark.parametrize("items", [4, 8])
def test_vectorize_emits_128_bit_accesses(dtype: str, items: int) -> None:
    sass = _sass(dtype, items, "vectorize", "vectorize")
    loads, stores = LOAD_128.findall(sass), STORE_128.findall(sass)
    assert len(loads) >= items // 4, f"{len(loads)} LDG.E.128 for {items} {dtype} items per thread"
    assert len(stores) >= items // 4, f"{len(stores)} STG.E.128 for {items} {dtype} items per thread"


def test_direct_has_no_vector_accesses() -> None:
    """The control: the same kernel with "direct" loads and stores element by element."""
    sass = _sass("int32", 4, "direct", "direct")
    assert not LOAD_128.search(sass) and not STORE_128.search(sass), "direct emitted 128-bit accesses"
