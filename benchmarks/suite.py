"""The benchmark suite: every primitive family against its CUB C++ twin, over dtypes x blocks x items.

    python benchmarks/suite.py [--reps 30] [--out DIR] [--only SUBSTRING ...] [--quick] [--no-explicit] [--resume]

For each case (family, dtype, threads per block, items per thread, n items) it builds the cuda-coop
kernel (a kernel factory below) and its twin (a template in suite_twins.cuh instantiated in an
``extern "C"`` kernel with ``__launch_bounds__(threads)``, as cuda-coop gives its kernels; one nvcc
-cubin against the CCCL that cuda-coop bundles). Both run on the same data, interleaved on one stream;
each sample is the mean of BATCH back-to-back launches between events, the figure the median of
--reps samples. While a sample's launches are queued, a spin kernel holds the stream (``_timing``), so
the events time the GPU's work only: a Python launch call (numba-cuda-mlir's dispatch) costs tens of
microseconds more than cuda.core's, which would otherwise leave the GPU idle between the first event
and the first kernel. That host cost is recorded on its own (``*_launch_us``: the mean time of one
launch call). Before timing, both results are checked against NumPy over EVERY tile. Where a
cuda-coop call leaves ``algorithm`` to its default (``"auto"``: block reduce and scan here), the twin
uses CUB's default: the ratio is what a user gets from the obvious call against what CUB gives by
default. In those cases every algorithm CUB accepts for the case is also built as an explicit choice on
both sides, a cuda-coop kernel and a twin with the same algorithm, checked, and timed interleaved with the
rest: ``same_algorithm`` is codegen parity, algorithm by algorithm (target: median <= 1.01, every pair
<= 1.03), apart from the choice of algorithm; ``auto_vs_best`` is auto's time over the fastest algorithm
auto may pick. With ``--reps 20`` the whole suite, every algorithm included, took about 450 s on an H200
(``--no-explicit`` skips the explicit kernels).

Writes ``suite.json`` (machine, date, versions, one row per case) to --out after every case and prints the
table; ``--resume`` keeps the cases an interrupted run of the same settings wrote there and runs the rest;
``benchmarks/plot.py`` draws the plot from the JSON. Triton's ``tl.sort`` of the same tiles is recorded
next to the radix-sort cases when Triton and PyTorch are importable (context, not a target).
Needs a GPU; exits 1 if any result is wrong.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba_cuda_mlir import cuda

import cuda.coop as coop
from cuda.coop._specs import _auto

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _suite_warp_sorts as warp_sorts  # noqa: E402  (the warp sorts' kernels and checks)
from _timing import BATCH, HeldTimer  # noqa: E402  (the benchmarks' shared sampling)

CPP = {"int8": "signed char", "int32": "int", "float32": "float", "float64": "double", "uint8": "unsigned char",
       "uint32": "unsigned int", "int64": "long long"}


@dataclass(frozen=True)
class Case:
    family: str
    dtype: str
    threads: int
    items: int
    log2n: int = 28

    @property
    def name(self) -> str:
        return f"{self.family}_{self.dtype}_{self.threads}x{self.items}"

    @property
    def tile(self) -> int:
        return self.threads * self.items

    @property
    def n(self) -> int:
        return (1 << self.log2n) // self.tile * self.tile

    @property
    def tiles(self) -> int:
        return self.n // self.tile


# --- cuda-coop kernels, one factory per family ---------------------------------------------------------


def _reduce(c: Case, algorithm: str = "auto") -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(x, partial):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm="transpose")
        total = coop.block.sum(items, algorithm=algorithm)
        if cuda.threadIdx.x == 0:
            partial[cuda.blockIdx.x] = total

    return kernel


def _scan(c: Case, algorithm: str = "auto") -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(x, y):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm="transpose")
        coop.block.inclusive_sum(items, algorithm=algorithm)
        coop.block.store(y, items, offset=cuda.blockIdx.x * tile, algorithm="transpose")

    return kernel


def _exchange(c: Case) -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(x, y):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm="vectorize")
        coop.block.blocked_to_striped(items)
        coop.block.store(y, items, offset=cuda.blockIdx.x * tile, algorithm="striped")

    return kernel


def _minus(a, b):
    return a - b


def _differs(a, b):
    return a != b


def _adjacent_difference(c: Case) -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(x, y):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm="vectorize")
        coop.block.subtract_left(items, _minus)
        coop.block.store(y, items, offset=cuda.blockIdx.x * tile, algorithm="vectorize")

    return kernel


def _discontinuity(c: Case) -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(x, flags):
        items = cuda.local.array(n_items, dt)
        heads = cuda.local.array(n_items, np.int32)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm="vectorize")
        coop.block.flag_heads(items, heads, _differs)
        coop.block.store(flags, heads, offset=cuda.blockIdx.x * tile, algorithm="vectorize")

    return kernel


def _histogram(algorithm: str) -> Callable[[Case], Callable]:
    def factory(c: Case) -> Callable:
        n_items, tile = c.items, c.tile

        @cuda.jit
        def kernel(data, hist):
            samples = cuda.local.array(n_items, np.uint8)
            counts = cuda.shared.array(256, np.uint32)
            coop.block.load(data, samples, offset=cuda.blockIdx.x * tile, algorithm="vectorize")
            coop.block.histogram(samples, counts, bins=256, algorithm=algorithm)
            cuda.syncthreads()
            cuda.atomic.add(hist, cuda.threadIdx.x, counts[cuda.threadIdx.x])

        return kernel

    return factory


def _radix_sort(c: Case) -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(keys_in, keys_out):
        keys = cuda.local.array(n_items, dt)
        coop.block.load(keys_in, keys, offset=cuda.blockIdx.x * tile, algorithm="transpose")
        coop.block.radix_sort(keys)
        coop.block.store(keys_out, keys, offset=cuda.blockIdx.x * tile, algorithm="transpose")

    return kernel


def _radix_sort_pairs(c: Case) -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(keys_in, values_in, keys_out, values_out):
        keys = cuda.local.array(n_items, dt)
        values = cuda.local.array(n_items, dt)
        offset = cuda.blockIdx.x * tile
        coop.block.load(keys_in, keys, offset=offset, algorithm="transpose")
        coop.block.load(values_in, values, offset=offset, algorithm="transpose")
        coop.block.radix_sort(keys, values=values)
        coop.block.store(keys_out, keys, offset=offset, algorithm="transpose")
        coop.block.store(values_out, values, offset=offset, algorithm="transpose")

    return kernel


def _merge_sort(c: Case) -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

    @cuda.jit
    def kernel(keys_in, keys_out):
        keys = cuda.local.array(n_items, dt)
        coop.block.load(keys_in, keys, offset=cuda.blockIdx.x * tile, algorithm="transpose")
        coop.block.merge_sort(keys, "<")
        coop.block.store(keys_out, keys, offset=cuda.blockIdx.x * tile, algorithm="transpose")

    return kernel


TOP_K = (1, 8, 32, 64, 128, 512)
"""k of the top-k cases: AIR's ordering grows with k, the radix sort does not; ``"air_or_radix_sort"`` takes AIR up to
k = 64 (``AIR_MAX_K``), a provisional threshold these cases settle (unmeasured when they were added)."""


def _top_k(k: int) -> Callable[..., Callable]:
    def factory(c: Case, algorithm: str = "auto") -> Callable:
        n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile

        @cuda.jit
        def kernel(keys_in, keys_out):
            keys = cuda.local.array(n_items, dt)
            coop.block.load(keys_in, keys, offset=cuda.blockIdx.x * tile, algorithm="transpose")
            coop.block.top_k(keys, keys_out, k=k, offset=cuda.blockIdx.x * k, algorithm=algorithm)

        return kernel

    return factory


def _warp_reduce(c: Case) -> Callable:
    n_items, dt, tile = c.items, np.dtype(c.dtype).type, c.tile
    warps = c.threads // 32

    @cuda.jit
    def kernel(x, partial):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm="vectorize")
        total = coop.warp.sum(items)
        if cuda.threadIdx.x % 32 == 0:
            partial[cuda.blockIdx.x * warps + cuda.threadIdx.x // 32] = total

    return kernel


def _warp_reduce_batched(c: Case) -> Callable:
    """Each thread loads its ``items`` consecutive items (one per batch), each warp sums the batches over its 32 lanes
    (``sum_batched``: at most 32 batches, so lane ``l`` gets batch ``l``'s sum), every lane writes what it got."""
    n_items, dt, tile, threads = c.items, np.dtype(c.dtype).type, c.tile, c.threads

    @cuda.jit
    def kernel(x, sums):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm="vectorize")
        sums[cuda.blockIdx.x * threads + cuda.threadIdx.x] = coop.warp.sum_batched(items)

    return kernel


def _to_shared(c: Case, via_registers: bool = False) -> Callable:
    """The block's tile into a shared array, then every thread writes its items of the tile reversed (striped, so the
    writes coalesce): ``coop.block.load_to_shared``, or (``via_registers``) what a kernel does without it,
    ``coop.block.load`` and ``coop.block.store`` into the shared array (both vectorized) and a barrier."""
    n_items, dt, tile, threads = c.items, np.dtype(c.dtype).type, c.tile, c.threads

    @cuda.jit
    def kernel(x, y):
        shared = cuda.shared.array(tile, dt, alignment=16)
        base = cuda.blockIdx.x * tile
        if via_registers:
            items = cuda.local.array(n_items, dt)
            coop.block.load(x, items, offset=base, algorithm="vectorize")
            coop.block.store(shared, items, algorithm="vectorize")
            cuda.syncthreads()
        else:
            coop.block.load_to_shared(x, shared, offset=base, items_per_thread=n_items)
        for i in range(n_items):
            j = i * threads + cuda.threadIdx.x
            y[base + j] = shared[tile - 1 - j]

    return kernel


# --- data, twins and checks ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _values(dtype: str, n: int) -> np.ndarray:
    """Values spanning the type where sums stay exact enough to compare (ints wrap like the GPU's), the same
    for every case of a dtype and size (drawn once: at 2^28 items drawing them took longer than timing a case);
    read-only, since the cases share them."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(zlib.crc32(f"{dtype}:{n}".encode()))
    if dt.kind == "f":
        out = (rng.random(n, dtype=dt) * 2 - 1).astype(dt)
    else:
        info = np.iinfo(dt)
        out = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    out.flags.writeable = False
    return out


def _tiles(c: Case, a: np.ndarray) -> np.ndarray:
    return a.reshape(c.tiles, -1)


def _close(c: Case, got: np.ndarray, want: np.ndarray, terms: int) -> bool:
    """Exact for integers; floats within 4 eps per term summed (NaN is never close)."""
    if np.dtype(c.dtype).kind != "f":
        return bool(np.array_equal(got, want))
    eps = float(np.finfo(np.dtype(c.dtype)).eps)
    return bool(np.max(np.abs(got - want)) <= 4 * eps * terms)  # allclose(rtol=0), without its temporaries


Setup = tuple[list[np.ndarray], list[np.ndarray], Callable[[list[np.ndarray]], bool]]
"""(inputs, output buffers, check(outputs) -> bool) of a case, host side."""


def _reduction(c: Case, terms: int) -> Setup:
    """Sums of consecutive runs of ``terms`` items (a tile, or a warp's share of it)."""
    x, dt = _values(c.dtype, c.n), np.dtype(c.dtype)
    want = x.reshape(-1, terms).sum(axis=1, dtype=np.float64 if dt.kind == "f" else dt).astype(dt)
    return [x], [np.zeros(want.size, dt)], lambda out: _close(c, out[0], want, terms)


def _batched_setup(c: Case) -> Setup:
    """Batch ``b`` of a warp: item ``b`` of its 32 lanes; lane ``l`` gets batch ``l`` (lanes past the last batch get
    a value of no batch, not checked)."""
    x, dt = _values(c.dtype, c.n), np.dtype(c.dtype)
    lanes = x.reshape(-1, 32, c.items)  # (warps, lanes, batches)
    want = lanes.sum(axis=1, dtype=np.float64 if dt.kind == "f" else dt).astype(dt)  # (warps, batches)
    return [x], [np.zeros(c.n // c.items, dt)], lambda out: _close(c, out[0].reshape(-1, 32)[:, : c.items], want, 32)


def _reversed_setup(c: Case) -> Setup:
    x = _values(c.dtype, c.n)
    want = _tiles(c, x)[:, ::-1].ravel()
    return [x], [np.zeros_like(x)], lambda out: bool(np.array_equal(out[0], want))


def _scan_setup(c: Case) -> Setup:
    x, dt = _values(c.dtype, c.n), np.dtype(c.dtype)
    want = np.cumsum(_tiles(c, x), axis=1, dtype=np.float64 if dt.kind == "f" else dt).astype(dt).ravel()
    return [x], [np.zeros(c.n, dt)], lambda out: _close(c, out[0], want, c.tile)


def _copy_setup(c: Case) -> Setup:
    x = _values(c.dtype, c.n)
    return [x], [np.zeros_like(x)], lambda out: bool(np.array_equal(out[0], x))


def _difference_setup(c: Case) -> Setup:
    t = _tiles(c, _values(c.dtype, c.n))
    want = np.concatenate([t[:, :1], (t[:, 1:] - t[:, :-1])], axis=1).ravel()
    return [t.ravel()], [np.zeros_like(want)], lambda out: bool(np.array_equal(out[0], want))


def _heads_setup(c: Case) -> Setup:
    t = _tiles(c, (_values(c.dtype, c.n) % 4).astype(c.dtype))  # runs of equal items
    want = np.concatenate([np.ones((c.tiles, 1), np.int32), (t[:, 1:] != t[:, :-1]).astype(np.int32)], axis=1)
    return [t.ravel()], [np.zeros(c.n, np.int32)], lambda out: bool(np.array_equal(out[0], want.ravel()))


def _histogram_setup(c: Case) -> Setup:
    data = _values("uint8", c.n)
    want = np.bincount(data, minlength=256).astype(np.uint32)
    return [data], [np.zeros(256, np.uint32)], lambda out: bool(np.array_equal(out[0], want))


def _sort_setup(c: Case) -> Setup:
    x = _values(c.dtype, c.n)
    want = np.sort(_tiles(c, x), axis=1, kind="stable").ravel()
    return [x], [np.zeros_like(x)], lambda out: bool(np.array_equal(out[0], want))


def _pairs_setup(c: Case) -> Setup:
    x, v = _values(c.dtype, c.n), np.arange(c.n, dtype=np.int64).astype(c.dtype)
    order = np.argsort(_tiles(c, x), axis=1, kind="stable")
    want_k = np.take_along_axis(_tiles(c, x), order, axis=1).ravel()
    want_v = np.take_along_axis(_tiles(c, v), order, axis=1).ravel()
    return [x, v], [np.zeros_like(x), np.zeros_like(v)], lambda out: bool(
        np.array_equal(out[0], want_k) and np.array_equal(out[1], want_v)
    )


def _top_k_setup(k: int) -> Callable[[Case], Setup]:
    def setup(c: Case) -> Setup:
        """The k largest keys of each tile, largest first (random keys: NumPy's order is CUB's, bit for bit)."""
        x = _values(c.dtype, c.n)
        want = np.sort(_tiles(c, x), axis=1, kind="stable")[:, ::-1][:, :k].ravel()
        return [x], [np.zeros(c.tiles * k, x.dtype)], lambda out: bool(out[0].tobytes() == want.tobytes())

    return setup


@dataclass(frozen=True)
class Family:
    factory: Callable[..., Callable]
    """``factory(case)``: the kernel as a user writes it; with ``auto``, ``factory(case, algorithm)`` too."""
    setup: Callable[[Case], Setup]
    twin: str
    """The twin's template call, formatted with ``t`` (C++ type), ``b`` (threads) and ``i`` (items)."""
    params: tuple[str, ...]
    """The twin's parameter types, formatted likewise."""
    auto: str | None = None
    """The auto table name of the call the kernel leaves to ``algorithm="auto"``: each algorithm auto may
    pick is then timed too, as an explicit choice (``auto_vs_best``)."""
    parity: str | None = None
    """The spec whose every algorithm is timed as an explicit choice against a twin with the same algorithm
    (the twin's template then takes ``{a}``, the CUB enumerator): codegen parity, apart from the defaults."""
    method: str = ""
    """The parity spec's method and overload the case calls (the algorithms CUB accepts are found by binding it)."""
    overload: str = "array"
    call: Mapping[str, Any] = field(default_factory=dict)
    """The call's other arguments, as the kernel passes them (the warp sorts' ``threads=32``, ``compare="<"``)."""


def _warp_sort(factory: Callable[..., Callable], setup: Callable[..., Setup], twin: str, params: tuple[str, ...],
               spec: str, method: str, overload: str, **call: Any) -> Family:
    """A warp sort's family (``_suite_warp_sorts``): auto, both algorithms explicitly, each against its twin."""
    return Family(factory, lambda c: setup(c, _values(c.dtype, c.n)), twin, params, spec, spec, method=method,
                  overload=overload, call={"threads": 32, **call})


_IN_OUT = ("const {t}*", "{t}*")
_HIST = ("const unsigned char*", "unsigned*")
FAMILIES: dict[str, Family] = {
    "reduce": Family(
        _reduce, lambda c: _reduction(c, c.tile), "twins::reduce<{t}, {b}, {i}{a}>", _IN_OUT, "block_reduce",
        "block_reduce", method="sum",
    ),
    "scan": Family(
        _scan, _scan_setup, "twins::scan<{t}, {b}, {i}{a}>", _IN_OUT, "block_scan", "block_scan", method="inclusive_sum"
    ),
    "exchange": Family(_exchange, _copy_setup, "twins::exchange<{t}, {b}, {i}>", _IN_OUT),
    "adjacent_difference": Family(
        _adjacent_difference, _difference_setup, "twins::adjacent_difference<{t}, {b}, {i}>", _IN_OUT
    ),
    "discontinuity": Family(
        _discontinuity, _heads_setup, "twins::discontinuity<{t}, {b}, {i}>", ("const {t}*", "int*")
    ),
    "histogram_sort": Family(
        _histogram("sort"), _histogram_setup, "twins::histogram<{b}, {i}, cub::BLOCK_HISTO_SORT>", _HIST
    ),
    "histogram_atomic": Family(
        _histogram("atomic"), _histogram_setup, "twins::histogram<{b}, {i}, cub::BLOCK_HISTO_ATOMIC>", _HIST
    ),
    "radix_sort": Family(_radix_sort, _sort_setup, "twins::radix_sort_keys<{t}, {b}, {i}>", _IN_OUT),
    "radix_sort_pairs": Family(
        _radix_sort_pairs, _pairs_setup, "twins::radix_sort<{t}, {t}, {b}, {i}>", ("const {t}*", *_IN_OUT, "{t}*")
    ),
    "merge_sort": Family(_merge_sort, _sort_setup, "twins::merge_sort<{t}, {b}, {i}>", _IN_OUT),
    "warp_reduce": Family(
        _warp_reduce, lambda c: _reduction(c, 32 * c.items), "twins::warp_reduce<{t}, {b}, {i}>", _IN_OUT
    ),
    "warp_reduce_batched": Family(
        _warp_reduce_batched, _batched_setup, "twins::warp_reduce_batched<{t}, {b}, {i}>", _IN_OUT
    ),
    "load_to_shared": Family(_to_shared, _reversed_setup, "twins::load_to_shared<{t}, {b}, {i}>", _IN_OUT),
    "shared_via_registers": Family(
        functools.partial(_to_shared, via_registers=True), _reversed_setup,
        "twins::shared_via_registers<{t}, {b}, {i}>", _IN_OUT,
    ),
    **{
        f"top_k{k}": Family(
            _top_k(k), _top_k_setup(k), f"twins::top_k<{{t}}, {{b}}, {{i}}, {k}{{a}}>", _IN_OUT, "block_top_k",
            "block_top_k", method="top_k", overload="keys",
        )
        for k in TOP_K
    },
    "warp_merge_sort": _warp_sort(warp_sorts.merge_sort_factory, warp_sorts.merge_sort_setup,
                                  "twins::warp_merge_sort<{t}, {b}, {i}{a}>", _IN_OUT, "warp_merge_sort",
                                  "merge_sort", "keys", compare="<"),
    "warp_argsort": _warp_sort(warp_sorts.argsort_factory, warp_sorts.argsort_setup,
                               "twins::warp_argsort<{t}, {b}, {i}{a}>", ("const {t}*", "int*"), "warp_argsort",
                               "argsort", "pairs", index_type="int32"),
    "warp_top_k": _warp_sort(warp_sorts.top_k_factory, warp_sorts.top_k_setup,
                             f"twins::warp_top_k<{{t}}, {{b}}, {{i}}, {warp_sorts.TOP_K}{{a}}>", _IN_OUT, "warp_top_k",
                             "top_k", "keys"),
}

PENDING = frozenset({"warp_reduce_batched", "load_to_shared", "shared_via_registers", *(f"top_k{k}" for k in TOP_K),
                     "warp_merge_sort", "warp_argsort", "warp_top_k"})
"""Families added in sessions without a GPU (2026-12-04, issue 40: WarpReduceBatched, BlockLoadToShared, the AIR
top-k, the warp sorts with ``algorithm="bitonic"``): their cases have no committed measurement in results/suite.json
yet. tests/unit/test_benchmark_results.py lets their cases be missing there, and fails once a committed run has them
while they are still listed here. The next GPU session runs ``suite.py --only`` with their names (then the whole
suite), commits the rows and empties this."""


def parity_algorithms(c: Case) -> dict[str, str]:
    """Short name -> CUB enumerator of every algorithm of the case's ``Family.parity`` spec that CUB accepts for
    the case (the spec's constraints: ``bind`` of the kernel's call with that algorithm); {} for other families."""
    from cuda.coop._specs import Request, bind, get_primitive
    from cuda.coop.errors import SpecError

    family = FAMILIES[c.family]
    if family.parity is None:
        return {}
    spec = get_primitive(family.parity)
    assert spec.algorithm is not None
    found = {}
    for member in spec.algorithm:
        try:
            bind(Request(family.parity, family.method, family.overload, dtype=c.dtype, items_per_thread=c.items,
                         algorithm=member.short_name, **family.call), (c.threads,))
        except SpecError:
            continue  # e.g. the atomic reduction of int8, a commutative-only one for a small block
        found[member.short_name] = str(member)
    return found


def twin_name(c: Case, algorithm: str | None = None) -> str:
    """The twin kernel of a case: with CUB's default, or with ``algorithm`` (a parity twin)."""
    return c.name if algorithm is None else f"{c.name}__{algorithm}"


def _twin_source(cases_: list[Case]) -> str:
    out = ['#include "suite_twins.cuh"\n']
    for c in cases_:
        fam = FAMILIES[c.family]
        for algorithm, cpp in [(None, ""), *parity_algorithms(c).items()]:
            fmt = {"t": CPP[c.dtype], "b": c.threads, "i": c.items, "a": f", {cpp}" if cpp else ""}
            params = [p.format(**fmt) for p in fam.params]
            formals = ", ".join(f"{p} a{k}" for k, p in enumerate(params))
            call = f"{fam.twin.format(**fmt)}({', '.join(f'a{k}' for k in range(len(params)))});"
            out.append(f'extern "C" __global__ void __launch_bounds__({c.threads}) {twin_name(c, algorithm)}'
                       f"({formals})\n{{\n  {call}\n}}\n")
    return "\n".join(out)


def cases(quick: bool = False) -> list[Case]:
    """The suite: a dtype x block x items matrix for reduce and scan, one or a few shapes for the rest."""
    dtypes = ("int8", "int32", "float32", "float64")
    blocks = (128, 256) if quick else (128, 256, 1024)
    items = (4, 16)
    out = [
        Case(f, d, b, i)
        for f in ("reduce", "scan")
        for d in dtypes
        for b in blocks
        for i in items
        if _auto.padded_tile_bytes(b * i, np.dtype(d).itemsize) <= 48 * 1024  # the transposing load's tile fits
    ]
    out += [Case("exchange", d, 256, 16) for d in ("int32", "float64")]
    out += [Case("adjacent_difference", "int32", 256, 16), Case("discontinuity", "int32", 256, 16)]
    out += [Case("histogram_sort", "uint8", 256, 16), Case("histogram_atomic", "uint8", 256, 16)]
    out += [Case("warp_reduce", "float32", 256, 16)]
    out += [Case("warp_reduce_batched", "float32", 256, 32), Case("warp_reduce_batched", "int32", 256, 8)]
    # coop.block.load_to_shared against coop.block.load + coop.block.store into shared memory, same tiles
    out += [Case(f, d, b, i) for f in ("load_to_shared", "shared_via_registers")
            for d, b, i in (("float32", 256, 16), ("float64", 128, 8))]
    out += [Case("radix_sort", "uint32", 256, 8, 26), Case("radix_sort_pairs", "uint32", 256, 8, 26)]
    out += [Case(f"top_k{k}", "float32", 256, 8, 26) for k in TOP_K]  # k sweeps AIR against the sort
    out += [Case("top_k32", d, t, i, 26) for d, t, i in (("float32", 128, 4), ("float32", 1024, 4), ("int8", 256, 16),
                                                          ("float64", 256, 8), ("uint32", 512, 8))]
    # the warp sorts: each algorithm against its twin; integer keys for the sort, as auto's "bitonic" rule asks
    out += [Case(f, d, 256, i, 26) for f, d in (("warp_merge_sort", "int32"), ("warp_argsort", "float32"),
                                                  ("warp_top_k", "float32")) for i in (1, 4, 8)]
    if hasattr(coop.block, "merge_sort"):
        out.append(Case("merge_sort", "float32", 256, 8, 26))
    return out


# --- build, time, report -------------------------------------------------------------------------------------


def build_cubin(source: str, out: Path, stem: str) -> Path:
    """``source`` (which may include suite_twins.cuh) built by nvcc -cubin for this GPU against the bundled CCCL."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    bundle = coop.header_bundle()
    major, minor, patch = (int(p) for p in bundle.provenance.cccl_version.split("."))
    cc = cuda.get_current_device().compute_capability
    src = out / f"{stem}.cu"
    src.write_text(source)
    cubin = out / f"{stem}.cubin"
    subprocess.run(
        [nvcc, "-O3", "-std=c++17", f"-arch=sm_{cc[0]}{cc[1]}", f"-I{bundle.include_dir}", f"-I{HERE}",
         f"-DEXPECTED_CCCL_VERSION={major * 1000000 + minor * 1000 + patch}", "-cubin", "-o", str(cubin), str(src)],
        check=True,
    )
    return cubin


def build_twins(cases_: list[Case], out: Path) -> Path:
    return build_cubin(_twin_source(cases_), out, "suite_twins")


def _pointer(array) -> np.uint64:
    return np.uint64(array.__cuda_array_interface__["data"][0])


def check_each(launches: dict[str, Callable[[], None]], d_out: list, outputs: list[np.ndarray],
               check: Callable[[list[np.ndarray]], bool], stream) -> dict[str, bool]:
    """Each launch once, on zeroed output buffers, its outputs checked (``Setup``'s check)."""
    checks = {}
    for name, launch_once in launches.items():
        for buf, host in zip(d_out, outputs, strict=True):
            buf.copy_to_device(host)
        launch_once()
        stream.sync()
        checks[name] = check([b.copy_to_host() for b in d_out])
    return checks


def time_interleaved(launches: dict[str, Callable[[], None]], stream, reps: int) -> tuple[dict[str, float],
                                                                                         dict[str, float]]:
    """(median GPU ms per launch, median host µs per launch call) of each launch: after 3 warm-up rounds, ``reps``
    samples of each (``HeldTimer``), interleaved, each launch first in turn."""
    timer = HeldTimer(stream)
    for _ in range(3):
        for launch_once in launches.values():
            launch_once()
    samples: dict[str, list[float]] = {name: [] for name in launches}
    host_us: dict[str, list[float]] = {name: [] for name in launches}
    order = list(launches)
    for rep in range(reps):
        for name in order[rep % len(order) :] + order[: rep % len(order)]:
            gpu_ms, us = timer.sample(launches[name])
            samples[name].append(gpu_ms)
            host_us[name].append(us)
    return ({name: float(np.median(v)) for name, v in samples.items()},
            {name: float(np.median(v)) for name, v in host_us.items()})


def run_case(c: Case, module, stream, reps: int, explicit: bool = True) -> dict[str, object]:
    from cuda.core import LaunchConfig, launch

    on_stream = cuda.external_stream(int(stream.handle))
    family = FAMILIES[c.family]
    inputs, outputs, check = family.setup(c)
    d_in = [cuda.to_device(a) for a in inputs]
    d_out = [cuda.to_device(a) for a in outputs]
    args = [*d_in, *d_out]
    twin_kernel = module.get_kernel(c.name)
    config = LaunchConfig(grid=c.tiles, block=c.threads)

    def coop(kernel: Callable) -> Callable[[], None]:
        return lambda: kernel[c.tiles, c.threads, on_stream](*args)

    def cub_launch() -> None:
        launch(stream, config, twin_kernel, *(_pointer(a) for a in args))

    def twin(algorithm: str) -> Callable[[], None]:
        kernel = module.get_kernel(twin_name(c, algorithm))
        return lambda: launch(stream, config, kernel, *(_pointer(a) for a in args))

    coop_launch = coop(family.factory(c))
    launches = {"cub": cub_launch, "coop": coop_launch}
    parity = parity_algorithms(c) if explicit else {}
    if explicit and family.auto:
        launches |= {alg: coop(family.factory(c, alg)) for alg in _auto.candidates(family.auto)}
    for alg in parity:  # every algorithm CUB takes here, on both sides: codegen parity
        launches.setdefault(alg, coop(family.factory(c, alg)))
        launches[f"cub:{alg}"] = twin(alg)
    start = time.perf_counter()
    coop_launch()
    stream.sync()
    compile_s = time.perf_counter() - start
    checks = check_each(launches, d_out, outputs, check, stream)
    ms, host_us = time_interleaved(launches, stream, reps)
    row: dict[str, object] = {**asdict(c), "case": c.name, "n": c.n, "cub_ms": ms["cub"], "coop_ms": ms["coop"],
                              "ratio": ms["coop"] / ms["cub"], "cub_ok": checks["cub"], "coop_ok": checks["coop"],
                              "coop_first_launch_s": compile_s, "cub_launch_us": host_us["cub"],
                              "coop_launch_us": host_us["coop"]}
    explicit_ms = {name: v for name, v in ms.items() if name not in ("cub", "coop") and not name.startswith("cub:")}
    if explicit_ms:
        row |= {"explicit_ms": explicit_ms, "explicit_ok": {name: checks[name] for name in explicit_ms}}
    candidates = {name: explicit_ms[name] for name in _auto.candidates(family.auto)} if family.auto and explicit else {}
    if candidates:
        best = min(candidates, key=candidates.__getitem__)
        row |= {"best_explicit": best, "auto_vs_best": ms["coop"] / candidates[best]}
    if parity:
        row |= {"same_algorithm": {alg: ms[alg] / ms[f"cub:{alg}"] for alg in parity},
                "twin_ms": {alg: ms[f"cub:{alg}"] for alg in parity},
                "twin_ok": {alg: checks[f"cub:{alg}"] for alg in parity}}
    return row


def triton_sort_ms(c: Case, reps: int) -> float | None:
    """Median ms of Triton's ``tl.sort`` over the same tiles (None without Triton/PyTorch)."""
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def sort_tiles(x_ptr, y_ptr, TILE: tl.constexpr):
        offs = tl.program_id(0) * TILE + tl.arange(0, TILE)
        tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs)))

    x = torch.randint(0, 2**31 - 1, (c.n,), dtype=torch.int64, device="cuda").to(torch.uint32)
    y = torch.empty_like(x)
    grid = (c.tiles,)
    sort_tiles[grid](x, y, TILE=c.tile)
    ok = torch.equal(y.view(c.tiles, -1).cpu(), torch.sort(x.view(c.tiles, -1).cpu(), dim=1).values)
    times = []
    for _ in range(reps):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(BATCH):
            sort_tiles[grid](x, y, TILE=c.tile)
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end) / BATCH)
    return float(np.median(times)) if ok else float("nan")


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = [r["ratio"] for r in rows]
    summary: dict[str, Any] = {
        "median": float(np.median(ratios)), "max": float(np.max(ratios)),
        "above_1.02": int(sum(r > 1.02 for r in ratios)),
        "coop_launch_us": float(np.median([r["coop_launch_us"] for r in rows])),
        "cub_launch_us": float(np.median([r["cub_launch_us"] for r in rows])),
    }
    if autos := [r["auto_vs_best"] for r in rows if "auto_vs_best" in r]:
        summary |= {"auto_cases": len(autos), "auto_vs_best_max": float(np.max(autos)),
                    "auto_above_1.02": int(sum(a > 1.02 for a in autos))}
    if defaults := [r["ratio"] for r in rows if "same_algorithm" in r]:
        summary |= {"default_cases": len(defaults), "default_median": float(np.median(defaults)),
                    "default_max": float(np.max(defaults)), "default_above_1.01": int(sum(d > 1.01 for d in defaults))}
    if defaults:  # a run that timed the same algorithms on both sides
        same = [v for r in rows for v in r.get("same_algorithm", {}).values()]
        same += [r["ratio"] for r in rows if "same_algorithm" not in r]  # the other families' twins are the same
        summary |= {"parity_cases": len(same), "parity_median": float(np.median(same)),
                    "parity_max": float(np.max(same)), "parity_above_1.03": int(sum(s > 1.03 for s in same))}
    return summary


def _device_name() -> str:
    dev = cuda.get_current_device()
    return dev.name.decode() if isinstance(dev.name, bytes) else dev.name


def _write(path: Path, rows: list[dict[str, Any]], reps: int) -> dict[str, Any]:
    """Write suite.json for ``rows`` (after every case: a run cut short keeps what it measured)."""
    result = {
        "device": _device_name(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cuda_coop": coop.__version__, "cccl": coop.header_bundle().provenance.cccl_version,
        "python": platform.python_version(), "batch": BATCH, "reps": reps, "summary": _summary(rows), "rows": rows,
    }
    path.write_text(json.dumps(result, indent=2))
    return result


def _resumed(path: Path, selected: list[Case], reps: int) -> list[dict[str, Any]]:
    """The rows of an earlier run in ``path`` to keep (--resume): same device and settings, selected cases."""
    if not path.is_file():
        return []
    old = json.loads(path.read_text())
    if (old["device"], old["reps"], old["batch"], old["cuda_coop"]) != (_device_name(), reps, BATCH, coop.__version__):
        raise SystemExit(f"--resume: {path} was measured with other settings or on another device; remove it")
    names = {c.name for c in selected}
    return [r for r in old["rows"] if r["case"] in names]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    parser.add_argument("--only", nargs="*", default=[], help="run the cases whose name contains one of these")
    parser.add_argument("--quick", action="store_true", help="a smaller matrix (no 1024-thread blocks)")
    parser.add_argument("--no-explicit", action="store_true",
                        help="do not time the algorithms auto may pick next to auto (no auto_vs_best)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the cases already in --out's suite.json (same device and settings), run the rest")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    selected = [c for c in cases(args.quick) if not args.only or any(s in c.name for s in args.only)]

    from cuda.core import Device, ObjectCode

    device = Device()
    device.set_current()
    stream = device.create_stream()
    path = args.out / "suite.json"
    rows = _resumed(path, selected, args.reps) if args.resume else []
    done = {r["case"] for r in rows}
    todo = [c for c in selected if c.name not in done]
    order = {c.name: k for k, c in enumerate(selected)}
    module = ObjectCode.from_cubin(build_twins(todo or selected, args.out).read_bytes())
    print(f"{'case':<34}{'n':>11}{'CUB ms':>10}{'coop ms':>10}{'ratio':>8}  ok  (auto / best explicit)")
    for c in todo:
        row = run_case(c, module, stream, args.reps, explicit=not args.no_explicit)
        if c.family == "radix_sort":
            row["triton_tl_sort_ms"] = triton_sort_ms(c, args.reps)
        rows.append(row)
        rows.sort(key=lambda r: order[r["case"]])
        _write(path, rows, args.reps)
        wrong = [name for name, ok in _checks(row).items() if not ok]
        ok = f"WRONG: {', '.join(wrong)}" if wrong else "ok"
        extra = f"  triton tl.sort {row['triton_tl_sort_ms']:.4f} ms" if row.get("triton_tl_sort_ms") else ""
        if "auto_vs_best" in row:
            extra += f"  auto/{row['best_explicit']} {row['auto_vs_best']:.3f}"
        if "same_algorithm" in row:
            extra += "  same: " + " ".join(f"{a} {r:.3f}" for a, r in row["same_algorithm"].items())
        print(f"{c.name:<34}{c.n:>11}{row['cub_ms']:>10.4f}{row['coop_ms']:>10.4f}{row['ratio']:>8.3f}  {ok}{extra}",
              flush=True)
    summary = _write(path, rows, args.reps)["summary"]
    print(f"ratios: median {summary['median']:.3f}, max {summary['max']:.3f}, {summary['above_1.02']} above 1.02")
    print(f"one launch call (host, median over the cases): cuda-coop {summary['coop_launch_us']:.1f} us, "
          f"cuda.core {summary['cub_launch_us']:.1f} us")
    if "auto_cases" in summary:
        print(f"auto / best explicit algorithm over {summary['auto_cases']} cases: "
              f"max {summary['auto_vs_best_max']:.3f}, {summary['auto_above_1.02']} above 1.02")
    if "default_cases" in summary:
        print(f"default (auto) / CUB's default over {summary['default_cases']} cases with an algorithm: median "
              f"{summary['default_median']:.3f}, max {summary['default_max']:.3f}, "
              f"{summary['default_above_1.01']} above 1.01")
    if "parity_cases" in summary:
        print(f"same algorithm on both sides over {summary['parity_cases']} pairs: median "
              f"{summary['parity_median']:.3f}, max {summary['parity_max']:.3f}, "
              f"{summary['parity_above_1.03']} above 1.03")
    return 0 if all(all(_checks(r).values()) for r in rows) else 1


def _checks(row: dict[str, object]) -> dict[str, bool]:
    """Every kernel's result check of a row: the twin's, cuda-coop's, and each explicit algorithm's."""
    explicit = row.get("explicit_ok") or {}
    twins = row.get("twin_ok") or {}
    assert isinstance(explicit, dict) and isinstance(twins, dict)
    return {"cub": bool(row["cub_ok"]), "coop": bool(row["coop_ok"]), **{k: bool(v) for k, v in explicit.items()},
            **{f"cub:{k}": bool(v) for k, v in twins.items()}}


if __name__ == "__main__":
    sys.exit(main())
