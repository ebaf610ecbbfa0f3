"""``algorithm="auto"`` on the GPU: kernels that give no algorithm compute what explicit ones do.

Each case loads a tile (auto), writes each thread's items in blocked order with plain stores (so a striped
arrangement would show), stores the items plus one (auto), sums them (auto) and scans them in place (auto).
Item values are small integers, so every float result is exact and compared bit for bit with NumPy. The
algorithms the table chose for the case are in the test id's report (``-rA`` shows them on failure).
"""

from __future__ import annotations

import numpy as np
import pytest

from cuda.coop._specs import Request, bind

CASES = [
    ("int8", 256, 16),
    ("int16", 128, 4),
    ("float32", 64, 1),
    ("float32", 96, 4),
    ("float32", 256, 16),
    ("float32", 1024, 4),
    ("float64", 128, 16),
    ("float64", 1024, 8),
    ("int32", 1024, 16),
]
GRID = 5


def _kernel(dtype: str, ipt: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    dt = np.dtype(dtype).type

    @cuda.jit
    def kernel(x, blocked, stored, sums, scanned):
        tile = cuda.blockDim.x * ipt
        base = cuda.blockIdx.x * tile
        items = cuda.local.array(ipt, dt)
        coop.block.load(x, items, offset=base)
        for i in range(ipt):
            blocked[base + cuda.threadIdx.x * ipt + i] = items[i]
        plus = cuda.local.array(ipt, dt)
        for i in range(ipt):
            plus[i] = items[i] + 1
        coop.block.store(stored, plus, offset=base)
        total = coop.block.sum(items)
        if cuda.threadIdx.x == 0:
            sums[cuda.blockIdx.x] = total
        coop.block.inclusive_sum(items)
        for i in range(ipt):
            scanned[base + cuda.threadIdx.x * ipt + i] = items[i]

    return kernel


def _choices(dtype: str, threads: int, ipt: int) -> dict[str, str]:
    from numba_cuda_mlir import cuda

    cc = cuda.get_current_device().compute_capability
    arch = f"sm_{cc[0]}{cc[1]}"
    reqs = {
        "load": Request("block_load", "load", "full", dtype=dtype, items_per_thread=ipt),
        "store": Request("block_store", "store", "full", dtype=dtype, items_per_thread=ipt),
        "sum": Request("block_reduce", "sum", "array", dtype=dtype, items_per_thread=ipt),
        "scan": Request("block_scan", "inclusive_sum", "array", dtype=dtype, items_per_thread=ipt),
    }
    return {k: bind(r, (threads,), arch=arch).values["algorithm"].short_name for k, r in reqs.items()}


@pytest.mark.parametrize(("dtype", "threads", "ipt"), CASES, ids=str)
def test_default_algorithms_match_numpy(dtype: str, threads: int, ipt: int) -> None:
    from numba_cuda_mlir import cuda

    n = GRID * threads * ipt
    x = (np.arange(n, dtype=np.int64) * 7 % 5).astype(dtype)
    tiles = x.reshape(GRID, -1)
    acc = np.float64 if np.dtype(dtype).kind == "f" else np.dtype(dtype)
    outputs = (np.zeros(n, dtype), np.zeros(n, dtype), np.zeros(GRID, dtype), np.zeros(n, dtype))
    d = [cuda.to_device(a) for a in (x, *outputs)]
    _kernel(dtype, ipt)[GRID, threads](*d)
    blocked, stored, sums, scanned = (a.copy_to_host() for a in d[1:])
    chosen = _choices(dtype, threads, ipt)
    assert np.array_equal(blocked, x), chosen
    assert np.array_equal(stored, (x + 1).astype(dtype)), chosen
    assert np.array_equal(sums, tiles.sum(axis=1, dtype=acc).astype(dtype)), chosen
    assert np.array_equal(scanned, np.cumsum(tiles, axis=1, dtype=acc).astype(dtype).ravel()), chosen
