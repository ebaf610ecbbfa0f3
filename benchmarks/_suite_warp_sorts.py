"""The warp sorts of ``suite.py``: ``coop.warp.merge_sort``, ``argsort`` and ``top_k``, each algorithm against its
nvcc twin (``suite_twins.cuh``: the same cuda-coop class, ``cuda_coop::WarpSort`` / ``WarpArgsort`` / ``WarpTopK``
with the same ``cuda_coop::WarpSortAlgorithm``, as a C++ consumer of the bundle writes it).

Every 32-lane warp of a 256-thread block loads its own tile of ``32 * items`` keys (lane ``l`` reads positions
``l*N .. l*N+N-1`` directly), sorts it and writes the result back blocked (the sort: the keys; the argsort: int32
indices, ``base`` = the warp tile's offset) or the ``TOP_K`` largest keys of each warp. The kernels leave
``algorithm`` to ``"auto"`` (its choice is then compared with every algorithm, timed explicitly) and take each
algorithm as an explicit choice for the same-algorithm parity with the twins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

TOP_K = 16
"""Keys each warp's top-k writes (issue 41's row top-k is k <= 32)."""
WARP = 32


def merge_sort_factory(c: Any, algorithm: str = "auto") -> Callable:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    n_items, dt = c.items, np.dtype(c.dtype).type

    @cuda.jit
    def kernel(keys_in, keys_out):
        keys = cuda.local.array(n_items, dt)
        first = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) * n_items  # == warp * wtile + lane * N
        for i in range(n_items):
            keys[i] = keys_in[first + i]
        coop.warp.merge_sort(keys, "<", algorithm=algorithm)
        for i in range(n_items):
            keys_out[first + i] = keys[i]

    return kernel


def argsort_factory(c: Any, algorithm: str = "auto") -> Callable:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    n_items, dt = c.items, np.dtype(c.dtype).type
    wtile = WARP * n_items

    @cuda.jit
    def kernel(keys_in, indices_out):
        keys = cuda.local.array(n_items, dt)
        indices = cuda.local.array(n_items, np.int32)
        t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        first = t * n_items
        for i in range(n_items):
            keys[i] = keys_in[first + i]
        coop.warp.argsort(keys, indices, base=coop.uniform(t // WARP * wtile), algorithm=algorithm)
        for i in range(n_items):
            indices_out[first + i] = indices[i]

    return kernel


def top_k_factory(c: Any, algorithm: str = "auto") -> Callable:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    n_items, dt = c.items, np.dtype(c.dtype).type
    k = min(TOP_K, WARP * n_items)

    @cuda.jit
    def kernel(keys_in, top_out):
        keys = cuda.local.array(n_items, dt)
        t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        for i in range(n_items):
            keys[i] = keys_in[t * n_items + i]
        coop.warp.top_k(keys, top_out, k=k, offset=coop.uniform(t // WARP * k), algorithm=algorithm)

    return kernel


def _warp_tiles(c: Any, x: np.ndarray) -> np.ndarray:
    return x.reshape(-1, WARP * c.items)


def merge_sort_setup(c: Any, values: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], Callable]:
    want = np.sort(_warp_tiles(c, values), axis=1).ravel()
    return [values], [np.zeros_like(values)], lambda out: bool(np.array_equal(out[0], want))


def argsort_setup(c: Any, values: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], Callable]:
    tiles = _warp_tiles(c, values)
    base = (np.arange(tiles.shape[0], dtype=np.int64) * tiles.shape[1])[:, None]
    want = (np.argsort(tiles, axis=1, kind="stable") + base).astype(np.int32).ravel()
    return [values], [np.zeros(values.size, np.int32)], lambda out: bool(np.array_equal(out[0], want))


def top_k_setup(c: Any, values: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], Callable]:
    tiles = _warp_tiles(c, values)
    k = min(TOP_K, tiles.shape[1])
    want = -np.sort(-tiles, axis=1)[:, :k].ravel()  # the k largest, largest first (keys only: ties look alike)
    return [values], [np.zeros(want.size, values.dtype)], lambda out: bool(np.array_equal(out[0], want))
