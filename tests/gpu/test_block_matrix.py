"""Block primitives on the GPU: every dtype x block shape x items per thread x algorithm, against NumPy.

One kernel per case exercises load (partial last tile, oob_default), store, sum, reduce(max), the
array scans, and the scalar scans with a block aggregate. Algorithms are swept together: case
``a`` uses the a-th load/store algorithm and the (a mod 3)-th reduce/scan algorithm.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.gpu._data import BLOCKS, DTYPES, ITEMS, random_values, tolerance, wrap_cumsum, wrap_sum

LOAD_STORE = ("direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced")
REDUCE = ("raking", "raking_commutative_only", "warp_reductions")
SCAN = ("raking", "raking_memoize", "warp_scans")
SHARED_LIMIT = 48 * 1024
CASES = list(itertools.product(DTYPES, BLOCKS, ITEMS, range(len(LOAD_STORE))))


def _make_kernel(dtype: str, ipt: int, tile: int, la: str, sa: str, ra: str, sca: str):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    DT = getattr(np, dtype)
    IPT, TILE, LA, SA, RA, SCA = ipt, tile, la, sa, ra, sca

    @cuda.jit
    def kernel(x, n, initial, copy, sums, maxes, exsum, incmax, s_ex, s_inc, s_exmax, aggs):
        items = cuda.local.array(IPT, DT)
        scan = cuda.local.array(IPT, DT)
        agg = cuda.local.array(1, DT)
        bid = cuda.blockIdx.x
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = bid * TILE
        valid = min(TILE, n - base)
        coop.block.load(x, items, offset=base, valid_items=valid, oob_default=0, algorithm=LA)
        coop.block.store(copy, items, offset=base, valid_items=valid, algorithm=SA)
        total = coop.block.sum(items, algorithm=RA)
        biggest = coop.block.reduce(items, "max", algorithm=RA)
        if tid == 0:
            sums[bid] = total
            maxes[bid] = biggest
        coop.block.exclusive_sum(items, scan, algorithm=SCA)
        coop.block.store(exsum, scan, offset=base, valid_items=valid)
        coop.block.inclusive_scan(items, "max", scan, algorithm=SCA)
        coop.block.store(incmax, scan, offset=base, valid_items=valid)
        g = bid * (TILE // IPT) + tid
        s_ex[g] = coop.block.exclusive_sum(items[0], block_aggregate=agg, algorithm=SCA)
        s_inc[g] = coop.block.inclusive_sum(items[0], algorithm=SCA)
        s_exmax[g] = coop.block.exclusive_scan(items[0], "max", initial, algorithm=SCA)
        if tid == 0:
            aggs[bid] = agg[0]

    return kernel


def _expected(x: np.ndarray, tiles: int, tile: int, ipt: int, initial, striped: bool) -> dict[str, np.ndarray]:
    padded = np.zeros(tiles * tile, dtype=x.dtype)  # oob_default=0 fills the partial tile
    padded[: x.size] = x
    t = padded.reshape(tiles, tile)
    threads = tile // ipt
    # Each thread's items, in thread order: blocked (thread k has t[k*ipt:(k+1)*ipt]) for every
    # load algorithm but "striped", which leaves thread k with t[k], t[k+threads], ...
    held = t.reshape(tiles, ipt, threads).transpose(0, 2, 1) if striped else t.reshape(tiles, threads, ipt)
    flat = held.reshape(tiles, tile)  # the sequence the block scans (then stored blocked, directly)
    first = held[:, :, 0]  # items[0] of each thread
    inc = wrap_cumsum(flat)
    firsts_inc = wrap_cumsum(first)
    seeded = np.concatenate([np.full((tiles, 1), initial, x.dtype), first[:, :-1]], axis=1)
    return {
        "copy": x,
        "sums": wrap_sum(t),
        "maxes": t.max(axis=1),
        "exsum": (inc - flat).reshape(-1)[: x.size],  # integers wrap in their dtype; floats are float64
        "incmax": np.maximum.accumulate(flat, axis=1).reshape(-1)[: x.size],
        "s_ex": (firsts_inc - first).reshape(-1),
        "s_inc": firsts_inc.reshape(-1),
        "s_exmax": np.maximum.accumulate(seeded, axis=1).reshape(-1),
        "aggs": wrap_sum(first),
    }


def _id(value: object) -> str:
    return "x".join(map(str, value)) if isinstance(value, tuple) else str(value)


@pytest.mark.parametrize(("dtype", "block", "ipt", "algo"), CASES, ids=_id)
def test_block_primitives(dtype: str, block: tuple[int, int, int], ipt: int, algo: int) -> None:
    from numba_cuda_mlir import cuda

    from cuda.coop.errors import CoopError

    la = sa = LOAD_STORE[algo]
    ra, sca = REDUCE[algo % 3], SCAN[algo % 3]
    threads = block[0] * block[1] * block[2]
    tile = threads * ipt
    tiles = 3
    rng = np.random.default_rng([threads, ipt, algo, DTYPES.index(dtype)])
    n = tiles * tile - tile // 3 - 1  # a partial last tile
    x = random_values(rng, dtype, n)
    initial = random_values(rng, dtype, 1)[0]
    kernel = _make_kernel(dtype, ipt, tile, la, sa, ra, sca)

    dt = np.dtype(dtype)
    sizes = {"copy": n, "sums": tiles, "maxes": tiles, "exsum": n, "incmax": n, "s_ex": tiles * threads,
             "s_inc": tiles * threads, "s_exmax": tiles * threads, "aggs": tiles}
    outs = {name: np.full(size, 3, dt) for name, size in sizes.items()}  # poisoned
    d_outs = {k: cuda.to_device(v) for k, v in outs.items()}
    # CUB's tile exchange keeps a whole tile in shared memory (a warp's share for timesliced).
    exchange_bytes = tile * dt.itemsize if la in ("transpose", "warp_transpose") else 0
    # BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY needs more than 32 threads, a multiple of 32: CUB would
    # silently use another algorithm, cuda-coop refuses.
    refused_reduce = ra == "raking_commutative_only" and (threads <= 32 or threads % 32)
    try:
        kernel[tiles, block](cuda.to_device(x), n, initial, *d_outs.values())
        cuda.synchronize()
    except CoopError as exc:
        if refused_reduce:
            assert "BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY" in str(exc), exc
        else:
            assert "48 KiB of static shared memory" in str(exc), exc
            assert exchange_bytes > SHARED_LIMIT // 2 or dt.itemsize * tile > SHARED_LIMIT // 2, f"refused: {exc}"
        return
    assert not refused_reduce, "raking_commutative_only was accepted for a block CUB would not run it on"
    assert exchange_bytes <= SHARED_LIMIT, "a tile larger than shared memory compiled"
    got = {k: v.copy_to_host() for k, v in d_outs.items()}
    exp = _expected(x, tiles, tile, ipt, initial, striped=la == "striped")
    exact = {"copy", "maxes", "incmax", "s_exmax"}
    for name, value in exp.items():
        tol = {"rtol": 0.0, "atol": 0.0} if name in exact else tolerance(dtype, tile)
        np.testing.assert_allclose(got[name], value, **tol, err_msg=f"{name} ({la}/{ra}/{sca})")
