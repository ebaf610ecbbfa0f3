"""Forms the specs added or made exact, on the GPU against NumPy.

- ``valid_items`` of any integer width: at or above the tile means the whole tile (int64 above 2**31,
  uint64 above 2**63), at or below zero means nothing, narrow types partial tiles.
- Warp aggregates, seeded warp and block inclusive scans, warp reductions of per-thread arrays.
- Operators given as ordinary functions: a lambda in the kernel, a NumPy ufunc without a CUB functor
  (np.hypot, associative up to rounding).
"""

from __future__ import annotations

import numpy as np
import pytest

THREADS, ITEMS = 100, 4  # a block that is not a multiple of 32
TILE = THREADS * ITEMS
POISON = -(2**62) + 7


def _cuda():
    from numba_cuda_mlir import cuda

    return cuda


@pytest.mark.parametrize(
    ("count", "dtype", "expected"),
    [
        (2**31 + 5, np.int64, TILE),
        (2**63 + 1, np.uint64, TILE),
        (-3, np.int64, 0),
        (-(2**40), np.int64, 0),
        (100, np.int8, 100),
        (TILE - 1, np.uint16, TILE - 1),
        (TILE, np.int32, TILE),
    ],
)
def test_valid_items_of_any_width(count: int, dtype: type, expected: int, rng: np.random.Generator) -> None:
    cuda = _cuda()
    import cuda.coop as coop

    DT = dtype

    @cuda.jit
    def kernel(x, out, sums, n):
        items = cuda.local.array(ITEMS, np.int64)
        coop.block.load(x, items, valid_items=n, oob_default=POISON, algorithm="transpose")
        coop.block.store(out, items, valid_items=n, algorithm="vectorize")
        total = coop.block.sum(items[0], valid_items=n)  # n >= block threads: every thread
        if cuda.threadIdx.x == 0:
            sums[0] = total

    x = rng.integers(-(2**62), 2**62, TILE + 64, dtype=np.int64)
    out = cuda.to_device(np.full(TILE + 64, 12345, np.int64))
    sums = cuda.to_device(np.zeros(1, np.int64))
    kernel[1, THREADS](cuda.to_device(x), out, sums, DT(count))
    got = out.copy_to_host()
    assert np.array_equal(got[:expected], x[:expected])
    assert (got[expected:] == 12345).all(), "stored past valid_items (or past the tile)"
    loaded = np.where(np.arange(TILE) < expected, x[:TILE], POISON).reshape(THREADS, ITEMS)
    threads = min(max(count, 0), THREADS)  # the reduction's own count, clamped to the block
    assert sums.copy_to_host()[0] == np.sum(loaded[:threads, 0], dtype=np.int64)  # no valid thread: 0


def test_warp_aggregates_seeds_and_arrays(rng: np.random.Generator) -> None:
    cuda = _cuda()
    import cuda.coop as coop

    W = 8

    @cuda.jit
    def kernel(x, ex, agg, inc, red):
        i = cuda.grid(1)
        total = cuda.local.array(1, np.int64)
        ex[i] = coop.warp.exclusive_sum(x[i], warp_aggregate=total, threads=W)
        agg[i] = total[0]
        inc[i] = coop.warp.inclusive_scan(x[i], "max", initial_value=np.int64(-(2**61)), threads=W)
        items = cuda.local.array(3, np.int64)
        for k in range(3):
            items[k] = x[i] + k
        r = coop.warp.sum(items, threads=W)
        if cuda.threadIdx.x % W == 0:
            red[i // W] = r

    n = 4 * 96
    x = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    ex, agg, inc = (cuda.to_device(np.zeros(n, np.int64)) for _ in range(3))
    red = cuda.to_device(np.zeros(n // W, np.int64))
    kernel[4, 96](cuda.to_device(x), ex, agg, inc, red)
    seg = x.reshape(-1, W)
    assert np.array_equal(ex.copy_to_host(), (np.cumsum(seg, axis=1) - seg).ravel())
    assert np.array_equal(agg.copy_to_host(), np.repeat(seg.sum(axis=1), W))
    assert np.array_equal(inc.copy_to_host(), np.maximum.accumulate(seg, axis=1).ravel())
    assert np.array_equal(red.copy_to_host(), (seg * 3 + 3).sum(axis=1))


def test_seeded_block_inclusive_scan_and_function_operators(rng: np.random.Generator) -> None:
    cuda = _cuda()
    import cuda.coop as coop

    @cuda.jit
    def kernel(x, seeded, fmaxed, lam):
        items = cuda.local.array(ITEMS, np.float64)
        out = cuda.local.array(ITEMS, np.float64)
        coop.block.load(x, items)
        coop.block.inclusive_scan(items, "+", output=out, initial_value=100.0)
        coop.block.store(seeded, out)
        coop.block.inclusive_scan(items, np.hypot, output=out)  # a ufunc without a CUB functor: a user function
        coop.block.store(fmaxed, out)
        best = coop.block.reduce(items, lambda a, b: a if a > b else b)
        if cuda.threadIdx.x == 0:
            lam[0] = best

    x = rng.uniform(-1e6, 1e6, TILE)
    hypot = np.sqrt(np.cumsum(x * x))  # hypot is associative up to rounding
    hypot[0] = x[0]  # an inclusive scan's first output is its input: op is not applied to it
    seeded, fmaxed = cuda.to_device(np.zeros(TILE)), cuda.to_device(np.zeros(TILE))
    lam = cuda.to_device(np.zeros(1))
    kernel[1, THREADS](cuda.to_device(x), seeded, fmaxed, lam)
    np.testing.assert_allclose(seeded.copy_to_host(), 100.0 + np.cumsum(x), rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(fmaxed.copy_to_host(), hypot, rtol=1e-13)
    assert lam.copy_to_host()[0] == x.max()
