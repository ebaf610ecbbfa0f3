"""bfloat16 arrays from the host with ml_dtypes (docs/support_matrix.rst cuts the snippet from here).

tests/compile/test_docs_snippets.py checks that numba-cuda-mlir types an ``ml_dtypes.bfloat16`` NumPy array as its
bfloat16 array type and compiles ``tile_scan`` for sm_90 with the signature ``typeof`` gives.
"""

from __future__ import annotations

# example-begin bfloat16
import ml_dtypes
import numpy as np
from numba_cuda_mlir import cuda

import cuda.coop as coop

ITEMS = 4


@cuda.jit
def tile_scan(x, y):
    items = cuda.local.array(ITEMS, ml_dtypes.bfloat16)   # or x.dtype
    base = cuda.blockIdx.x * cuda.blockDim.x * ITEMS
    coop.block.load(x, items, offset=base)
    coop.block.inclusive_sum(items)
    coop.block.store(y, items, offset=base)


def run(tiles: int = 64, threads: int = 128) -> np.ndarray:
    n = tiles * threads * ITEMS
    x = np.random.default_rng().uniform(-1, 1, n).astype(ml_dtypes.bfloat16)
    y = cuda.device_array_like(x)                         # a bfloat16 device array
    tile_scan[tiles, threads](cuda.to_device(x), y)
    return y.copy_to_host()                               # dtype ml_dtypes.bfloat16
# example-end bfloat16
