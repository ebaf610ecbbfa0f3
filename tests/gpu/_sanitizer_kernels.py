"""One small kernel per primitive family, run under compute-sanitizer by ``test_sanitizer.py``.

Run as ``python -m tests.gpu._sanitizer_kernels`` from the repository root. Each kernel calls its
family several times, so the shared temporary storage is reused between calls (the barriers that
reuse needs are what racecheck and synccheck look at), on a block of 128 threads and on one of
7x5x3 = 105 (a partial last warp). Results are checked against NumPy; the script prints
``OK <family> <block>`` for each and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

from tests.helpers import seed

IPT = 4
BLOCKS = ((128, 1, 1), (7, 5, 3))


def _kernels(threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T, TILE = threads, threads * IPT
    WARP_OK = threads % 32 == 0
    LA = "warp_transpose" if WARP_OK else "transpose"
    SCA = "warp_scans" if WARP_OK else "raking"
    W = 8 if threads % 8 == 0 else 1 if threads % 2 else 2

    @cuda.jit
    def load_store(x, y, z, n):
        items = cuda.local.array(IPT, np.int32)
        base = cuda.blockIdx.x * TILE
        coop.block.load(x, items, offset=base, algorithm=LA)
        coop.block.store(y, items, offset=base, algorithm=LA)
        coop.block.load(x, items, offset=base, valid_items=n - base, oob_default=-5, algorithm="transpose")
        coop.block.store(z, items, offset=base, valid_items=n - base, algorithm="transpose")

    @cuda.jit
    def reduce(x, out):
        items = cuda.local.array(IPT, np.int32)
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = cuda.blockIdx.x * TILE
        for i in range(IPT):
            items[i] = x[base + tid * IPT + i]
        a = coop.block.sum(items, algorithm="raking")
        b = coop.block.reduce(items, "max", algorithm="warp_reductions")
        c = coop.block.sum(items[0], valid_items=T - 3)
        if tid == 0:
            out[cuda.blockIdx.x * 3] = a
            out[cuda.blockIdx.x * 3 + 1] = b
            out[cuda.blockIdx.x * 3 + 2] = c

    @cuda.jit
    def scan(x, y, s):
        items = cuda.local.array(IPT, np.int32)
        agg = cuda.local.array(1, np.int32)
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = cuda.blockIdx.x * TILE
        for i in range(IPT):
            items[i] = x[base + tid * IPT + i]
        coop.block.inclusive_scan(items, "max", block_aggregate=agg, algorithm=SCA)
        coop.block.exclusive_sum(items, algorithm=SCA)
        for i in range(IPT):
            y[base + tid * IPT + i] = items[i]
        s[cuda.blockIdx.x * T + tid] = coop.block.exclusive_scan(x[base + tid], "min", initial_value=7,
                                                                 algorithm="raking") + agg[0]

    @cuda.jit
    def warp_reduce(x, out):
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        g = cuda.blockIdx.x * T + tid
        a = coop.warp.sum(x[g], threads=W)
        b = coop.warp.reduce(x[g], "max", threads=W)
        c = coop.warp.sum(x[g], threads=W, valid_items=W - 1 if W > 1 else 1)
        if tid % W == 0:
            out[(g // W) * 3] = a
            out[(g // W) * 3 + 1] = b
            out[(g // W) * 3 + 2] = c

    @cuda.jit
    def warp_scan(x, out):
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        g = cuda.blockIdx.x * T + tid
        a = coop.warp.exclusive_sum(x[g], threads=W)
        b = coop.warp.inclusive_scan(x[g], "min", threads=W)
        out[g] = a + coop.warp.exclusive_scan(b, "max", initial_value=-9, threads=W)

    return load_store, reduce, scan, warp_reduce, warp_scan, W


def _check(family: str, got: np.ndarray, want: np.ndarray) -> None:
    if not np.array_equal(got, want):
        bad = np.flatnonzero(got != want)[:5]
        print(f"WRONG {family}: at {bad.tolist()} got {got[bad].tolist()} want {want[bad].tolist()}")
        sys.exit(1)


def run(block: tuple[int, int, int], rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    threads = block[0] * block[1] * block[2]
    load_store, reduce, scan, warp_reduce, warp_scan, width = _kernels(threads)
    grid, tile = 2, threads * IPT
    x = rng.integers(-1000, 1000, grid * tile, dtype=np.int32)
    n = grid * tile - tile // 3
    name = "x".join(map(str, block))
    tiles = x.reshape(grid, tile)

    y, z = cuda.to_device(np.full(x.size, -7, np.int32)), cuda.to_device(np.full(x.size, -7, np.int32))
    load_store[grid, block](cuda.to_device(x), y, z, n)
    _check("load_store", y.copy_to_host(), x)
    _check("load_store", z.copy_to_host(), np.where(np.arange(x.size) < n, x, -7).astype(np.int32))
    print(f"OK load_store {name}")

    out = cuda.to_device(np.full(grid * 3, -7, np.int32))
    reduce[grid, block](cuda.to_device(x), out)
    firsts = tiles.reshape(grid, threads, IPT)[:, :, 0]
    want = np.stack([tiles.sum(1), tiles.max(1), firsts[:, : threads - 3].sum(1)], axis=1).astype(np.int32)
    _check("reduce", out.copy_to_host(), want.reshape(-1))
    print(f"OK reduce {name}")

    y, s = cuda.to_device(np.full(x.size, -7, np.int32)), cuda.to_device(np.full(grid * threads, -7, np.int32))
    scan[grid, block](cuda.to_device(x), y, s)
    inc_max = np.maximum.accumulate(tiles, axis=1)
    _check("scan", y.copy_to_host(), (np.cumsum(inc_max, axis=1) - inc_max).astype(np.int32).reshape(-1))
    heads = tiles[:, :threads]
    seeded = np.concatenate([np.full((grid, 1), 7), heads[:, :-1]], axis=1)
    _check("scan", s.copy_to_host(), (np.minimum.accumulate(seeded, axis=1) + tiles.max(1)[:, None]).reshape(-1))
    print(f"OK scan {name}")

    v = x[: grid * threads]
    lanes = v.reshape(-1, width)
    out = cuda.to_device(np.full(lanes.shape[0] * 3, -7, np.int32))
    warp_reduce[grid, block](cuda.to_device(v), out)
    valid = width - 1 if width > 1 else 1
    want = np.stack([lanes.sum(1), lanes.max(1), lanes[:, :valid].sum(1)], axis=1).astype(np.int32)
    _check("warp_reduce", out.copy_to_host(), want.reshape(-1))
    print(f"OK warp_reduce {name}")

    out = cuda.to_device(np.full(v.size, -7, np.int32))
    warp_scan[grid, block](cuda.to_device(v), out)
    inc_min = np.minimum.accumulate(lanes, axis=1)
    ex_max = np.maximum.accumulate(np.concatenate([np.full((lanes.shape[0], 1), -9), inc_min[:, :-1]], axis=1), axis=1)
    _check("warp_scan", out.copy_to_host(), (np.cumsum(lanes, axis=1) - lanes + ex_max).astype(np.int32).reshape(-1))
    print(f"OK warp_scan {name}")


def main() -> None:
    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for block in BLOCKS:
        run(block, rng)
    from numba_cuda_mlir import cuda

    cuda.synchronize()
    print("ALL OK")


if __name__ == "__main__":
    main()
