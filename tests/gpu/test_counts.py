"""Counts keep their width: a ``valid_items`` at or above the tile means a full tile, whatever its
integer type (an int64 ``2**32 + 3`` cut to 32 bits would be a partial tile of 3 items).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu._data import assert_bits_equal, random_values, reduce_ref, sentinels

IPT = 4
BIG = 2**32 + 3  # 3 after a 32-bit truncation


def make_kernel(dtype: str, threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    DT, IPT_, TILE, T = getattr(np, dtype), IPT, threads * IPT, threads

    @cuda.jit
    def kernel(x, big, oob, copy, sums, wsums):
        items = cuda.local.array(IPT_, DT)
        tid = cuda.threadIdx.x
        base = cuda.blockIdx.x * TILE
        coop.block.load(x, items, offset=base, valid_items=big, oob_default=oob)
        coop.block.store(copy, items, offset=base, valid_items=big)
        s = coop.block.sum(items[0], valid_items=big)
        w = coop.warp.sum(items[0], valid_items=big)
        if tid == 0:
            sums[cuda.blockIdx.x] = s
        if tid % 32 == 0:
            wsums[(cuda.blockIdx.x * T + tid) // 32] = w

    return kernel


@pytest.mark.parametrize("dtype", ["int32", "uint64"])
@pytest.mark.parametrize("big_type", ["int64", "uint64"])
def test_wide_valid_items_mean_a_full_tile(dtype: str, big_type: str, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    threads, grid = 64, 2
    x = random_values(rng, dtype, grid * threads * IPT)
    poison, oob = sentinels(dtype)
    dt = np.dtype(dtype)
    copy = cuda.to_device(np.full(x.size, poison, dt))
    sums, wsums = cuda.to_device(np.full(grid, poison, dt)), cuda.to_device(np.full(grid * threads // 32, poison, dt))
    make_kernel(dtype, threads)[grid, threads](cuda.to_device(x), np.dtype(big_type).type(BIG), oob, copy, sums, wsums)
    assert_bits_equal(copy.copy_to_host(), x, f"copy (valid_items={big_type} {BIG})")
    first = x.reshape(grid, threads, IPT)[:, :, 0]
    np.testing.assert_array_equal(sums.copy_to_host(), reduce_ref("+", first), err_msg="block sum")
    np.testing.assert_array_equal(wsums.copy_to_host(), reduce_ref("+", first.reshape(-1, 32)), err_msg="warp sum")
