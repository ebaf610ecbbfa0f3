"""Per-warp ranking: each logical warp argsorts its tile and takes its top k (warp merge sort in radix order).

Each logical warp of 8 lanes x 4 float32 scores (a 32-score "warp tile") calls ``coop.warp.argsort``: its
``order`` array receives the positions of the sorted scores in the whole array (``base`` = the warp tile's
offset), stably; then ``coop.warp.top_k`` writes the tile's K largest scores, largest first, and their positions
to ``top[w*K : w*K+K]``. Both sort in ``coop.block.radix_sort``'s order (-0.0 == +0.0, a NaN by its sign bit), on
a stable ``cub::WarpMergeSort`` (CUB has no warp radix sort). With a GPU it runs the kernel against NumPy
(``np.argsort(kind="stable")``, ``np.partition`` + sort) and prints PASS or FAIL; without one it compiles it
for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, WARP, ITEMS, K = 128, 8, 4, 5
WARP_TILE = WARP * ITEMS


# example-begin warp_argsort
@cuda.jit
def argsort_warp_tiles(scores, order):
    """order[w*WARP_TILE : (w+1)*WARP_TILE] = positions of warp tile w's scores, smallest first (stable)."""
    keys = cuda.local.array(ITEMS, np.float32)
    index = cuda.local.array(ITEMS, np.int32)
    warp = coop.uniform((cuda.blockIdx.x * THREADS + cuda.threadIdx.x) // WARP)  # the same in all 8 lanes
    base = warp * WARP_TILE
    coop.warp.load(scores, keys, offset=base, threads=WARP)
    coop.warp.argsort(keys, index, base=base, threads=WARP)   # index: positions in the whole array
    coop.warp.store(order, index, offset=base, threads=WARP)
# example-end warp_argsort


# example-begin warp_top_k
@cuda.jit
def top_k_per_warp(scores, top_scores, top_index):
    """top_scores[w*K : w*K+K] = the K largest scores of warp tile w, largest first; top_index their positions."""
    keys = cuda.local.array(ITEMS, np.float32)
    index = cuda.local.array(ITEMS, np.int32)
    lane = cuda.threadIdx.x % WARP
    warp = coop.uniform((cuda.blockIdx.x * THREADS + cuda.threadIdx.x) // WARP)
    coop.warp.load(scores, keys, offset=warp * WARP_TILE, threads=WARP)
    for i in range(ITEMS):
        index[i] = warp * WARP_TILE + lane * ITEMS + i            # blocked: lane l holds l*ITEMS .. l*ITEMS+3
    coop.warp.top_k(keys, top_scores, k=K, values=index, out_values=top_index, offset=warp * K, threads=WARP)
# example-end warp_top_k


def run_on_gpu(blocks: int = 50) -> bool:
    rng = np.random.default_rng()
    warps = blocks * THREADS // WARP
    scores = rng.standard_normal(warps * WARP_TILE).astype(np.float32)
    n = scores.size // 7 * 7
    scores[:n:7] = scores[3:n:7]  # ties, to see the earlier position win
    d_scores = cuda.to_device(scores)
    order = cuda.to_device(np.full(scores.size, -1, np.int32))
    top_scores = cuda.to_device(np.full(warps * K, np.nan, np.float32))
    top_index = cuda.to_device(np.full(warps * K, -1, np.int32))
    argsort_warp_tiles[blocks, THREADS](d_scores, order)
    top_k_per_warp[blocks, THREADS](d_scores, top_scores, top_index)
    tiles = scores.reshape(warps, WARP_TILE)
    offsets = np.arange(warps)[:, None] * WARP_TILE
    expected_order = (np.argsort(tiles, axis=1, kind="stable") + offsets).astype(np.int32)
    ok_order = np.array_equal(order.copy_to_host().reshape(warps, WARP_TILE), expected_order)
    expected_top = -np.sort(-np.partition(tiles, WARP_TILE - K, axis=1)[:, WARP_TILE - K :], axis=1)
    expected_index = (np.argsort(-tiles, axis=1, kind="stable")[:, :K] + offsets).astype(np.int32)
    ok_top = np.array_equal(top_scores.copy_to_host().reshape(warps, K), expected_top)
    ok_top &= np.array_equal(top_index.copy_to_host().reshape(warps, K), expected_index)
    print(f"argsort_warp_tiles: {'ok' if ok_order else 'WRONG'}")
    print(f"top_k_per_warp: {'ok' if ok_top else 'WRONG'}")
    ok = bool(ok_order and ok_top)
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    f32, i32 = types.float32[::1], types.int32[::1]
    for kernel, sig in ((argsort_warp_tiles, (f32, i32)), (top_k_per_warp, (f32, f32, i32))):
        compiled = compile_kernel(kernel, sig, block=THREADS, arch="sm_90")
        print(f"compiled {kernel.py_func.__name__} for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
