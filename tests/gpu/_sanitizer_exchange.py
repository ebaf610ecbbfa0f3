"""Exchange kernels run under compute-sanitizer by ``test_family_exchange.py``.

Run as ``python -m tests.gpu._sanitizer_exchange`` from the repository root. Each block loops over three
tiles and, per tile, calls BlockExchange (blocked -> striped -> blocked in place, time-sliced on the way
back, then a guarded scatter that reverses the tile) and WarpExchange in logical warps of 16 (blocked ->
striped -> blocked, then a scatter that reverses each warp's segment); on 128 threads also
blocked -> warp-striped -> blocked. Blocks: 128 threads, and 16x3 = 48 threads (a partial hardware
warp). Results are checked against NumPy; the script prints ``OK exchange <block>`` for each and
``ALL OK`` at the end, and exits nonzero on a wrong result.
"""

from __future__ import annotations

import sys

import numpy as np

from tests.helpers import seed

IPT, W, TILES, GRID = 4, 16, 3, 3
BLOCKS = ((128, 1, 1), (16, 3, 1))


def kernel_for(threads: int):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    T, TILE = threads, threads * IPT

    @cuda.jit
    def kernel(x, rev, wrev, same, ws):
        items = cuda.local.array(IPT, np.int32)
        witems = cuda.local.array(IPT, np.int32)
        ranks = cuda.local.array(IPT, np.int32)
        wranks = cuda.local.array(IPT, np.int32)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        lane = t % W
        for k in range(TILES):
            base = (cuda.blockIdx.x * TILES + k) * TILE
            for i in range(IPT):
                items[i] = x[base + t * IPT + i]
                witems[i] = x[base + t * IPT + i]  # blocked within the logical warp too
                ranks[i] = TILE - 1 - (t * IPT + i)
                wranks[i] = W * IPT - 1 - (lane * IPT + i)
            coop.block.blocked_to_striped(items)
            coop.block.striped_to_blocked(items, warp_time_slicing=True)
            coop.block.scatter_to_striped_guarded(items, ranks)
            for i in range(IPT):
                rev[base + i * T + t] = items[i]
            coop.warp.blocked_to_striped(witems, threads=W)
            coop.warp.striped_to_blocked(witems, threads=W)
            for i in range(IPT):
                same[base + t * IPT + i] = witems[i]
            coop.warp.scatter_to_striped(witems, wranks, threads=W)
            seg = base + (t - lane) * IPT
            for i in range(IPT):
                wrev[seg + i * W + lane] = witems[i]

    @cuda.jit
    def kernel_ws(x, rev, wrev, same, ws):
        """The kernel above plus blocked -> warp-striped -> blocked (whole warps only)."""
        items = cuda.local.array(IPT, np.int32)
        witems = cuda.local.array(IPT, np.int32)
        ranks = cuda.local.array(IPT, np.int32)
        wranks = cuda.local.array(IPT, np.int32)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        lane = t % W
        for k in range(TILES):
            base = (cuda.blockIdx.x * TILES + k) * TILE
            for i in range(IPT):
                items[i] = x[base + t * IPT + i]
                witems[i] = x[base + t * IPT + i]
                ranks[i] = TILE - 1 - (t * IPT + i)
                wranks[i] = W * IPT - 1 - (lane * IPT + i)
            coop.block.blocked_to_striped(items)
            coop.block.striped_to_blocked(items, warp_time_slicing=True)
            coop.block.scatter_to_striped_guarded(items, ranks)
            for i in range(IPT):
                rev[base + i * T + t] = items[i]
            coop.warp.blocked_to_striped(witems, threads=W)
            coop.warp.striped_to_blocked(witems, threads=W)
            for i in range(IPT):
                same[base + t * IPT + i] = witems[i]
            coop.warp.scatter_to_striped(witems, wranks, threads=W)
            seg = base + (t - lane) * IPT
            for i in range(IPT):
                wrev[seg + i * W + lane] = witems[i]
            for i in range(IPT):
                items[i] = x[base + t * IPT + i]
            coop.block.blocked_to_warp_striped(items, warp_time_slicing=True)
            coop.block.warp_striped_to_blocked(items)
            for i in range(IPT):
                ws[base + t * IPT + i] = items[i]

    return kernel_ws if threads % 32 == 0 else kernel


def main() -> int:
    from numba_cuda_mlir import cuda

    ok = True
    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for block in BLOCKS:
        threads = int(np.prod(block))
        tile = threads * IPT
        n = GRID * TILES * tile
        x = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)
        outs = [cuda.to_device(np.full(n, -7, np.int32)) for _ in range(4)]
        kernel_for(threads)[GRID, block](cuda.to_device(x), *outs)
        rev, wrev, same, ws = (o.copy_to_host() for o in outs)
        good = np.array_equal(rev, x.reshape(-1, tile)[:, ::-1].ravel())
        good &= np.array_equal(wrev, x.reshape(-1, W * IPT)[:, ::-1].ravel())
        good &= np.array_equal(same, x)
        good &= np.array_equal(ws, x) if threads % 32 == 0 else bool((ws == -7).all())
        print(f"{'OK' if good else 'WRONG'} exchange {'x'.join(map(str, block))}")
        ok &= bool(good)
    print("ALL OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
