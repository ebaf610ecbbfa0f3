"""User operators and block prefix callbacks on the GPU, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu._data import abs_terms, assert_matches, depth, exclusive_ref, random_values, sentinels


def absmax(a, b):
    return max(abs(a), abs(b))


def running_total(state, block_aggregate):
    old = state[0]
    state[0] = old + block_aggregate
    return old


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("block", [(128, 1, 1), (16, 8, 1), (4, 4, 4)])
def test_python_operator(dtype: str, block: tuple[int, int, int], rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    threads = block[0] * block[1] * block[2]
    T = threads

    @cuda.jit
    def kernel(x, block_out, warp_out, scan_out):
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        g = cuda.blockIdx.x * T + tid
        r = coop.block.reduce(x[g], absmax)
        w = coop.warp.reduce(x[g], absmax)
        scan_out[g] = coop.block.inclusive_scan(x[g], absmax)
        if tid == 0:
            block_out[cuda.blockIdx.x] = r
        if tid % 32 == 0:
            warp_out[g // 32] = w

    blocks = 3
    x = random_values(rng, dtype, blocks * threads)
    dt = np.dtype(dtype)
    sizes = (blocks, blocks * threads // 32, blocks * threads)
    outs = [cuda.to_device(np.full(n, sentinels(dtype)[0], dt)) for n in sizes]
    kernel[blocks, block](cuda.to_device(x), *outs)
    block_out, warp_out, scan_out = (o.copy_to_host() for o in outs)
    a = np.abs(x)
    np.testing.assert_array_equal(block_out, a.reshape(blocks, -1).max(axis=1))
    np.testing.assert_array_equal(warp_out, a.reshape(-1, 32).max(axis=1))
    scanned = np.maximum.accumulate(a.reshape(blocks, -1), axis=1)
    scanned[:, 0] = x.reshape(blocks, -1)[:, 0]  # an inclusive scan's first output is its input: op not applied
    np.testing.assert_array_equal(scan_out, scanned.reshape(-1))


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float64"])
@pytest.mark.parametrize(("block", "algorithm"), [((128, 1, 1), "raking"), ((16, 8, 1), "warp_scans"),
                                                  ((4, 4, 4), "raking_memoize")])
def test_prefix_callback_scans_across_tiles(
    dtype: str, block: tuple[int, int, int], algorithm: str, rng: np.random.Generator
) -> None:
    """One block scans many tiles; the callback carries the running total (a single-pass scan)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    threads = block[0] * block[1] * block[2]
    IPT, TILE, DT, ALGO = 4, threads * 4, getattr(np, dtype), algorithm

    @cuda.jit
    def kernel(x, y, tiles):
        items = cuda.local.array(IPT, DT)
        total = cuda.local.array(1, DT)
        total[0] = 0
        for tile in range(tiles):
            coop.block.load(x, items, offset=tile * TILE)
            coop.block.exclusive_sum(items, prefix_op=running_total, prefix_state=total, algorithm=ALGO)
            coop.block.store(y, items, offset=tile * TILE)

    tiles = 7
    x = random_values(rng, dtype, tiles * TILE)
    y = cuda.to_device(np.full(x.size, sentinels(dtype)[0], np.dtype(dtype)))
    kernel[1, block](cuda.to_device(x), y, tiles)
    expected = exclusive_ref("+", x[None, :], np.zeros((), x.dtype)[()])[0]  # integers wrap in their dtype
    chain = depth(IPT, threads) + tiles  # the running total adds one step per tile
    assert_matches(y.copy_to_host(), expected, "+", abs_terms("+", x, scan=True), chain, f"{dtype} {algorithm}")
