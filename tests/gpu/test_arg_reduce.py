"""coop.block.argmax/argmin and coop.warp.argmax/argmin on the GPU against np.argmax/np.argmin, with ties.

Inputs are integers on a coarse grid (many equal values: the lowest position must win), in several dtypes,
blocks (128,), (33,), (16,8), (4,4,4), (64,), items per thread 1/4/16; one float32 case holds NaNs (NumPy
returns the first NaN for both). Each kernel (all compiled in the compile tier by
tests/compile/test_arg_reduce_compile.py) computes per tile: block argmax and argmin of the blocked tile,
block argmin of one value per thread with a kernel-given position (``index=``), and per logical warp the
argmax of one value per lane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.helpers.shapes import Threads

TILES = 3


@dataclass(frozen=True)
class ArgCase(Threads):
    dtype: str
    block: tuple[int, int, int]
    items: int
    nan: bool = False

    @property
    def warp(self) -> int:
        return 16 if self.threads % 16 == 0 else 1

    @property
    def id(self) -> str:
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-n{self.items}{'-nan' if self.nan else ''}"


CASES = [
    ArgCase("float32", (128, 1, 1), 4),
    ArgCase("int32", (33, 1, 1), 1),
    ArgCase("float16", (4, 4, 4), 16),
    ArgCase("uint8", (16, 8, 1), 4),
    ArgCase("int64", (64, 1, 1), 16),
    ArgCase("float64", (33, 1, 1), 4),
    ArgCase("float32", (64, 1, 1), 1, nan=True),
]


def signature(case: ArgCase) -> tuple[Any, ...]:
    from numba_cuda_mlir.numba_cuda import types

    t = getattr(types, case.dtype)
    return (t[::1], t[::1], types.int64[::1])


def make_kernel(case: ArgCase) -> Any:
    """``k(x, values, positions)``: per tile b, values/positions[4b .. 4b+3] = block argmax, block argmin,
    block argmin with index=rank*N+7 (of each thread's first item); per logical warp w (of lane-first items),
    values/positions[4*TILES + w] = warp argmax."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    n, (bx, by, _bz) = case.items, case.block
    threads, lw = case.threads, case.warp
    item = np.dtype(case.dtype).type

    @cuda.jit
    def kernel(x, values, positions):
        tid = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        base = cuda.blockIdx.x * threads * n
        items = cuda.local.array(n, item)
        for i in range(n):
            items[i] = x[base + tid * n + i]
        v0, p0 = coop.block.argmax(items)
        v1, p1 = coop.block.argmin(items)
        v2, p2 = coop.block.argmin(items[0], index=np.int64(tid * n + 7))
        v3, p3 = coop.warp.argmax(items[0], threads=lw)
        if tid == 0:
            b = 4 * cuda.blockIdx.x
            values[b], positions[b] = v0, p0
            values[b + 1], positions[b + 1] = v1, p1
            values[b + 2], positions[b + 2] = v2, p2
        if tid % lw == 0:
            w = 4 * TILES + cuda.blockIdx.x * (threads // lw) + tid // lw
            values[w], positions[w] = v3, p3

    return kernel


def inputs(case: ArgCase, rng: np.random.Generator) -> np.ndarray:
    x = rng.integers(0, 9, TILES * case.threads * case.items).astype(case.dtype)  # 9 values: many ties
    if case.nan:
        x[[5, 17, 40]] = np.nan  # tile 0: NaN at 5 and 17 (argmax/argmin: 5); tile 0 rank 40 first item
    return x


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_arg_reduce(case: ArgCase, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    x = inputs(case, rng)
    n, threads, lw = case.items, case.threads, case.warp
    slots = 4 * TILES + TILES * threads // lw
    values, positions = np.zeros(slots, x.dtype), np.full(slots, -1, np.int64)
    dv, dp = cuda.to_device(values), cuda.to_device(positions)
    make_kernel(case)[TILES, case.block](cuda.to_device(x), dv, dp)
    values, positions = dv.copy_to_host(), dp.copy_to_host()
    for t in range(TILES):
        tile = x[t * threads * n:(t + 1) * threads * n]
        firsts = tile[::n]
        want = [
            (tile[np.argmax(tile)], np.argmax(tile)),
            (tile[np.argmin(tile)], np.argmin(tile)),
            (firsts[np.argmin(firsts)], np.argmin(firsts) * n + 7),
        ]
        for k, (v, p) in enumerate(want):
            got = (values[4 * t + k], positions[4 * t + k])
            assert np.array_equal(got[0], v, equal_nan=True) and got[1] == p, f"tile {t} form {k}: {got} vs {(v, p)}"
        for w in range(threads // lw):
            lanes = firsts[w * lw:(w + 1) * lw]
            at = 4 * TILES + t * (threads // lw) + w
            got = (values[at], positions[at])
            want_w = (lanes[np.argmax(lanes)], np.argmax(lanes))
            assert np.array_equal(got[0], want_w[0], equal_nan=True) and got[1] == want_w[1], (t, w, got, want_w)
