"""Warp primitives on the GPU: every dtype x logical warp size x block shape, against NumPy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.gpu._data import DTYPES, random_values, tolerance, wrap_cumsum, wrap_sum
from tests.gpu.test_block_matrix import _id

WARPS = (1, 2, 4, 8, 16, 32)
BLOCKS = ((32, 1, 1), (128, 1, 1), (16, 8, 1), (4, 4, 4))
CASES = list(itertools.product(DTYPES, WARPS, BLOCKS))


def _make_kernel(dtype: str, width: int, block_threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    W, T = width, block_threads

    @cuda.jit
    def kernel(x, initial, valid, sums, partial, maxes, exsum, incsum, exmax, incmin):
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        g = cuda.blockIdx.x * T + tid
        v = x[g]
        s = coop.warp.sum(v, threads=W)
        p = coop.warp.sum(v, threads=W, valid_items=valid)
        m = coop.warp.reduce(v, "max", threads=W)
        if tid % W == 0:
            sums[g // W] = s
            partial[g // W] = p
            maxes[g // W] = m
        exsum[g] = coop.warp.exclusive_sum(v, threads=W)
        incsum[g] = coop.warp.inclusive_sum(v, threads=W)
        exmax[g] = coop.warp.exclusive_scan(v, "max", initial, threads=W)
        incmin[g] = coop.warp.inclusive_scan(v, "min", threads=W)

    return kernel


@pytest.mark.parametrize(("dtype", "width", "block"), CASES, ids=_id)
def test_warp_primitives(dtype: str, width: int, block: tuple[int, int, int]) -> None:
    from numba_cuda_mlir import cuda

    threads = block[0] * block[1] * block[2]
    blocks = 2
    n = blocks * threads
    rng = np.random.default_rng([width, threads, DTYPES.index(dtype)])
    x = random_values(rng, dtype, n)
    initial = random_values(rng, dtype, 1)[0]
    valid = max(1, width - 1)
    dt = np.dtype(dtype)
    names = ("sums", "partial", "maxes", "exsum", "incsum", "exmax", "incmin")
    sizes = {"sums": n // width, "partial": n // width, "maxes": n // width}
    d_out = {k: cuda.to_device(np.full(sizes.get(k, n), 3, dt)) for k in names}
    _make_kernel(dtype, width, threads)[blocks, block](cuda.to_device(x), initial, valid, *d_out.values())
    got = {k: v.copy_to_host() for k, v in d_out.items()}

    w = x.reshape(-1, width)
    inc = wrap_cumsum(w)
    shifted = np.concatenate([np.full((w.shape[0], 1), initial, dt), w[:, :-1]], axis=1)
    expected = {
        "sums": wrap_sum(w),
        "partial": wrap_sum(w[:, :valid]),
        "maxes": w.max(axis=1),
        "exsum": (inc - w).reshape(-1),
        "incsum": inc.reshape(-1),
        "exmax": np.maximum.accumulate(shifted, axis=1).reshape(-1),
        "incmin": np.minimum.accumulate(w, axis=1).reshape(-1),
    }
    exact = {"maxes", "exmax", "incmin"}
    for name, value in expected.items():
        tol = {"rtol": 0.0, "atol": 0.0} if name in exact else tolerance(dtype, width)
        np.testing.assert_allclose(got[name], value, **tol, err_msg=f"{name} (threads={width})")
