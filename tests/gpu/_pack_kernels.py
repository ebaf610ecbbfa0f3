"""Kernels of the precompiled-pack tests: a tile radix sort plus scan of int64 keys, and a byte histogram.

One source for both DSLs (:func:`build`; only ``cuda`` differs). This module holds them as numba-cuda-mlir
kernels, ``_pack_kernels_numba_cuda`` as numba-cuda kernels (:data:`MODULES`). Each module's
``cuda_coop_precompile`` lists them for ``python -m cuda.coop precompile``: tests/compile/test_packs.py builds a
pack of them (and so compiles them in the compile tier) and checks that a fresh process takes them from it;
tests/gpu/test_packs.py launches them from a pack and checks them against NumPy (:func:`expected_sort_scan`,
:func:`expected_histogram`).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

import cuda.coop as coop
from tests.helpers.dsl import NUMBA_MLIR, Dsl

THREADS, ITEMS, BINS = 128, 4, 256
TILE = THREADS * ITEMS
PAD = np.iinfo(np.int64).max  # a partial tile's missing keys: they sort last
MODULES = {"numba_mlir": "tests.gpu._pack_kernels", "numba_cuda": "tests.gpu._pack_kernels_numba_cuda"}
"""The module that holds the pack kernels of each DSL."""


def build(dsl: Dsl) -> SimpleNamespace:
    """The kernels under ``dsl``, their signatures and their ``cuda_coop_precompile`` list."""
    cuda, types = dsl.cuda, dsl.types

    @cuda.jit
    def sort_scan(keys, sorted_keys, prefix, n):
        """Each tile of ``keys[:n]`` sorted into ``sorted_keys``; ``prefix``: the inclusive sum of the sorted tile."""
        items = cuda.local.array(ITEMS, np.int64)
        base = cuda.blockIdx.x * TILE
        valid = min(TILE, n - base)  # the last tile may be partial
        coop.block.load(keys, items, offset=base, valid_items=valid, oob_default=PAD)
        coop.block.radix_sort(items)  # blocked: thread t holds sorted positions t*ITEMS .. t*ITEMS+ITEMS-1
        coop.block.store(sorted_keys, items, offset=base, valid_items=valid)
        for k in range(ITEMS):
            if cuda.threadIdx.x * ITEMS + k >= valid:
                items[k] = 0  # the padding adds nothing to the sums
        coop.block.inclusive_sum(items)
        coop.block.store(prefix, items, offset=base, valid_items=valid)

    @cuda.jit
    def byte_histogram(data, n, hist):
        """``hist[b] += count of b in data[:n]``, one tile per block; a partial tile's padding is taken out of bin 0."""
        samples = cuda.local.array(ITEMS, np.uint8)
        counts = cuda.shared.array(BINS, np.uint32)
        base = cuda.blockIdx.x * TILE
        valid = min(TILE, n - base)
        coop.block.load(data, samples, offset=base, valid_items=valid, oob_default=0, algorithm="transpose")
        coop.block.histogram(samples, counts, bins=BINS)  # zeroes the counters itself
        cuda.syncthreads()
        for b in range(cuda.threadIdx.x, BINS, THREADS):
            cuda.atomic.add(hist, b, counts[b] - (TILE - valid if b == 0 else 0))

    sort_signature = (types.int64[::1], types.int64[::1], types.int64[::1], types.int64)
    histogram_signature = (types.uint8[::1], types.int64, types.uint32[::1])
    return SimpleNamespace(
        sort_scan=sort_scan, byte_histogram=byte_histogram, SORT_SIGNATURE=sort_signature,
        HISTOGRAM_SIGNATURE=histogram_signature, types=types,
        cuda_coop_precompile=[(sort_scan, sort_signature, THREADS), (byte_histogram, histogram_signature, THREADS)],
    )


def expected_sort_scan(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NumPy's ``(sorted_keys, prefix)`` for ``sort_scan``."""
    sorted_keys, prefix = np.empty_like(keys), np.empty_like(keys)
    for base in range(0, keys.size, TILE):
        tile = np.sort(keys[base : base + TILE])
        sorted_keys[base : base + tile.size], prefix[base : base + tile.size] = tile, np.cumsum(tile)
    return sorted_keys, prefix


def expected_histogram(data: np.ndarray) -> np.ndarray:
    """NumPy's counts for ``byte_histogram``."""
    return np.bincount(data, minlength=BINS).astype(np.uint32)


_KERNELS = build(NUMBA_MLIR)
sort_scan: Any = _KERNELS.sort_scan
byte_histogram: Any = _KERNELS.byte_histogram
SORT_SIGNATURE, HISTOGRAM_SIGNATURE, types = _KERNELS.SORT_SIGNATURE, _KERNELS.HISTOGRAM_SIGNATURE, _KERNELS.types
cuda_coop_precompile = _KERNELS.cuda_coop_precompile
