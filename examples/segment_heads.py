"""Segments of equal keys: flag each segment's first key, then number and count the segments with a scan.

Each block takes one tile of a sorted key array. ``coop.block.flag_heads`` sets a flag at every key that
differs from the key before it (the previous tile's last key is passed as ``tile_predecessor_item``, so
a segment that crosses a tile boundary is not split). An inclusive sum of the flags numbers the segments
within the tile, and its block aggregate counts the tile's heads; the host adds the counts of earlier
tiles to get global segment ids, and their total is the number of segments.

With a GPU it runs the kernel and prints PASS or FAIL; without one it compiles it for sm_90.
"""

from __future__ import annotations

import sys

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


# example-begin block_discontinuity
@cuda.jit
def segment_heads(keys, heads_out, ranks_out, counts):
    items = cuda.local.array(ITEMS, np.int64)
    heads = cuda.local.array(ITEMS, np.int32)     # the flags' dtype is the one they are counted in
    count = cuda.local.array(1, np.int32)
    base = cuda.blockIdx.x * TILE
    coop.block.load(keys, items, offset=base, algorithm="transpose")
    if base == 0:  # the same in every thread of the block: a block primitive may run under it
        coop.block.flag_heads(items, heads, "!=")  # the first key of the array starts a segment
    else:
        coop.block.flag_heads(items, heads, "!=", tile_predecessor_item=keys[base - 1])
    coop.block.store(heads_out, heads, offset=base, algorithm="transpose")
    coop.block.inclusive_sum(heads, block_aggregate=count)  # in place: heads up to and including each key
    coop.block.store(ranks_out, heads, offset=base, algorithm="transpose")
    if cuda.threadIdx.x == 0:
        counts[cuda.blockIdx.x] = count[0]
# example-end block_discontinuity


def run_on_gpu(tiles: int = 64) -> bool:
    rng = np.random.default_rng()
    keys = np.cumsum(rng.random(tiles * TILE) < 0.05).astype(np.int64) * 7 - 2**40  # sorted runs
    heads = cuda.to_device(np.full(keys.size, -1, np.int32))
    ranks = cuda.to_device(np.full(keys.size, -1, np.int32))
    counts = cuda.to_device(np.full(tiles, -1, np.int32))
    segment_heads[tiles, THREADS](cuda.to_device(keys), heads, ranks, counts)
    expected_heads = np.r_[True, keys[1:] != keys[:-1]].astype(np.int32)
    got_counts = counts.copy_to_host()
    earlier = np.repeat(np.r_[0, np.cumsum(got_counts)[:-1]], TILE)  # heads in the tiles before each key's
    segment_ids = earlier + ranks.copy_to_host() - 1
    ok = (np.array_equal(heads.copy_to_host(), expected_heads)
          and np.array_equal(segment_ids, np.cumsum(expected_heads) - 1)
          and int(got_counts.sum()) == len(np.unique(keys)))
    print(f"segment_heads: {int(got_counts.sum())} segments in {keys.size} keys: {'ok' if ok else 'WRONG'}")
    print("PASS" if ok else "FAIL")
    return ok


def compile_only() -> bool:
    from cuda.coop.numba_mlir import compile_kernel

    i64, i32 = types.int64[::1], types.int32[::1]
    compiled = compile_kernel(segment_heads, (i64, i32, i32, i32), block=THREADS, arch="sm_90")
    print(f"compiled segment_heads for sm_90: {compiled.resource_usage().get('reg', 0)} registers")
    print("No GPU here: compiled, not launched.")
    return True


if __name__ == "__main__":
    sys.exit(0 if (run_on_gpu() if cuda.is_available() else compile_only()) else 1)
