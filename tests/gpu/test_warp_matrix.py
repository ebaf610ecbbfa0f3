"""Warp primitives on the GPU: every dtype x logical warp size x block shape, against NumPy.

Blocks that are not multiples of 32 threads (33, 100, 7x5x3) take every logical warp size that
divides them (their last hardware warp is partial); ``test_refusals.py`` checks the others are
refused. Inputs span each type; every output is poisoned before the launch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import (
    DTYPES,
    abs_terms,
    assert_matches,
    depth,
    exclusive_ref,
    random_values,
    reduce_ref,
    scan_ref,
    sentinels,
)
from tests.helpers.shapes import Threads

WIDTHS = (1, 2, 4, 8, 16, 32)
BLOCKS = ((32, 1, 1), (1024, 1, 1), (16, 8, 1), (4, 4, 4), (33, 1, 1), (100, 1, 1), (7, 5, 3))
GRID = 2
OUTPUTS = ("sums", "partial", "maxes", "vmins", "exsum", "incsum", "exmax", "incmin")


@dataclass(frozen=True)
class Case(Threads):
    dtype: str
    width: int
    block: tuple[int, int, int]

    @property
    def id(self) -> str:
        return f"{self.dtype}-w{self.width}-{'x'.join(map(str, self.block))}"


def cases() -> list[Case]:
    return [Case(d, w, b) for d in DTYPES for b in BLOCKS for w in WIDTHS if math.prod(b) % w == 0]


CASES = cases()


def make_kernel(case: Case):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    W, T = case.width, case.threads

    @cuda.jit
    def kernel(x, initial, valid, sums, partial, maxes, vmins, exsum, incsum, exmax, incmin):
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        g = cuda.blockIdx.x * T + tid
        v = x[g]
        s = coop.warp.sum(v, threads=W)
        p = coop.warp.sum(v, threads=W, valid_items=valid)
        m = coop.warp.reduce(v, "max", threads=W)
        vm = coop.warp.reduce(v, "min", threads=W, valid_items=valid)
        if tid % W == 0:
            sums[g // W] = s
            partial[g // W] = p
            maxes[g // W] = m
            vmins[g // W] = vm
        exsum[g] = coop.warp.exclusive_sum(v, threads=W)
        incsum[g] = coop.warp.inclusive_sum(v, threads=W)
        exmax[g] = coop.warp.exclusive_scan(v, "max", initial_value=initial, threads=W)
        incmin[g] = coop.warp.inclusive_scan(v, "min", threads=W)

    return kernel


def signature(case: Case) -> tuple:
    from numba_cuda_mlir.numba_cuda import types

    scalar = getattr(types, case.dtype)
    return (scalar[::1], scalar, types.int64, *(scalar[::1],) * len(OUTPUTS))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_warp_primitives(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    n = GRID * case.threads
    width = case.width
    x = random_values(rng, case.dtype, n)
    initial = random_values(rng, case.dtype, 1)[0]
    valid = max(1, width - 1 - width // 4)
    dt = np.dtype(case.dtype)
    poison = sentinels(case.dtype)[0]
    warps = n // width
    d_out = {k: cuda.to_device(np.full(warps if k in ("sums", "partial", "maxes", "vmins") else n, poison, dt))
             for k in OUTPUTS}
    make_kernel(case)[GRID, case.block](cuda.to_device(x), initial, valid, *d_out.values())
    got = {k: v.copy_to_host() for k, v in d_out.items()}

    w = x.reshape(-1, width)
    zero = np.zeros((), dt)[()]
    expected = {
        "sums": ("+", reduce_ref("+", w), abs_terms("+", w, scan=False)),
        "partial": ("+", reduce_ref("+", w[:, :valid]), abs_terms("+", w[:, :valid], scan=False)),
        "maxes": ("max", reduce_ref("max", w), None),
        "vmins": ("min", reduce_ref("min", w[:, :valid]), None),
        "exsum": ("+", exclusive_ref("+", w, zero).reshape(-1), abs_terms("+", w, scan=True).reshape(-1)),
        "incsum": ("+", scan_ref("+", w).reshape(-1), abs_terms("+", w, scan=True).reshape(-1)),
        "exmax": ("max", exclusive_ref("max", w, initial).reshape(-1), None),
        "incmin": ("min", scan_ref("min", w).reshape(-1), None),
    }
    chain = depth(1, width)
    for name, (op, value, terms) in expected.items():
        assert_matches(got[name], value, op, terms, chain, f"{name} ({case.id})")
