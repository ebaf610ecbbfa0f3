"""Measure the table behind ``algorithm="auto"`` (``cuda_coop/_specs/auto_table.json``).

    python benchmarks/auto_table.py [--out DIR] [--workers N] [--quick] [--only block_load ...] [--registers]
    python benchmarks/auto_table.py --provisional --out cuda_coop/_specs   # CUB's defaults, no GPU

For every primitive whose spec has an ``"auto"`` algorithm parameter, every item size (1, 2, 4, 8 bytes:
int8, int16, float32, float64; unsigned for the histogram, integers for the warp sort), items per thread and
threads per block of the grid, it builds one kernel per algorithm auto may pick, checks every tile's result
against NumPy, then times the algorithms of the configuration interleaved on one stream: each sample is the mean of
BATCH back-to-back launches between CUDA events, queued behind a spin kernel that holds the stream (``_timing``:
the GPU's time only), the figure the median of --reps samples. The ranking (fastest first) of the correct
algorithms is the table's choice; the raw medians, failures (e.g. a tile too large for shared memory) and wrong
results are kept next to it.

Kernels: load/store kernels move 2^--log2n items through global memory (a load's items are summed per
thread, a store's are generated from their index). Reduce and scan kernels are ranked where they are used:
after a load of the tile from global memory, and the scan stores its tile back (both transposing where the
padded tile fits the 48 KiB of static shared memory a block may have, else the default algorithm; the suite's
kernels are these). Ranked on items generated in registers instead, the kernel is compute-bound and the
order can flip (``--registers`` keeps that variant for comparison). The histogram loads uint samples
(uniform over 256 bins) and counts them into shared memory. The top-k loads its tile the same way and writes the
tile's ``TOP_K`` = 32 largest keys (the table has no k axis; ``suite.py`` sweeps k). The warp sorts
(``coop.warp.merge_sort`` of integer keys by ``"<"``, ``argsort`` with int32 indices, ``top_k`` of ``WARP_TOP_K`` =
16 keys) sort each 32-lane warp's tile of random keys loaded from global memory and store the result; they were added
without a GPU and have no entries yet (``"auto"`` binds ``"merge_sort"`` for them until a run adds them: ``--only
warp_merge_sort warp_argsort warp_top_k``, which keeps the other entries).

Compiles dominate (1-3 s per kernel): --workers processes each compile and check their configurations in
parallel, and time them one at a time under a file lock, so two configurations are never timed at once. A
check launch of another worker (one launch per algorithm) may still land in a timed sample; the median of
--reps samples, taken with the algorithms interleaved, absorbs it (``--workers 1`` for a run without any).

Default grid (``GRID``): 405 configurations, 1,314 kernels, about 5-6 minutes with 14 workers on a 16-core host
(an estimate: the compile rate was measured on a 2-core host, 1.7-2.7 s per kernel); ``--quick``: 98, 304. Its
threads per block include 128 and 512, the sizes kernels use most, so that auto looks none of them up by distance.

Writes DIR/auto_table.json; install it with ``cp DIR/auto_table.json cuda_coop/_specs/auto_table.json``
(measurements of other architectures already in --merge are kept). Exits 1 if any result is wrong.
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cuda.coop._specs import _auto

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import BATCH, HeldTimer  # noqa: E402  (the benchmarks' shared sampling)

SIGNED = {1: "int8", 2: "int16", 4: "float32", 8: "float64"}
UNSIGNED = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}
INTEGERS = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}
WARP_SORTS = ("warp_merge_sort", "warp_argsort", "warp_top_k")
WARP_PRIMS = ("warp_load", "warp_store", *WARP_SORTS)
GRID = {"sizes": (1, 2, 4, 8), "items": (1, 4, 16), "threads": (64, 128, 256, 512, 1024), "warp_threads": (256,)}
QUICK = {"sizes": (1, 4, 8), "items": (4, 16), "threads": (128, 1024), "warp_threads": (256,)}
TOP_K = 32
"""The k block_top_k is ranked at: the table has no k axis (k is a runtime value), and auto chooses between
``"radix_sort"`` and ``"air_or_radix_sort"``, which takes AIR for small k only; 32 is the k of the issue's target
(row top-k with k <= 32). ``benchmarks/suite.py``'s top_k cases sweep k."""
WARP_TOP_K = 16
"""Keys the warp top-k kernel writes per warp (issue 41's row top-k is k <= 32)."""


@dataclass(frozen=True)
class Config:
    prim: str
    item_bytes: int
    threads: int
    items: int
    log2n: int = 26
    registers: bool = False
    """Reduce and scan: items generated in registers (compute-bound), not loaded from global memory."""

    @property
    def dtype(self) -> str:
        """The item type timed for the size: unsigned for the histogram; integers for the warp sort, whose auto picks
        ``"bitonic"`` for integer keys only (``_specs/warp_merge_sort.py``); floats otherwise from 4 bytes."""
        if self.prim == "block_histogram":
            return UNSIGNED[self.item_bytes]
        return (INTEGERS if self.prim == "warp_merge_sort" else SIGNED)[self.item_bytes]

    @property
    def tile(self) -> int:
        return self.threads * self.items

    @property
    def n(self) -> int:
        return (1 << self.log2n) // self.tile * self.tile

    @property
    def name(self) -> str:
        return f"{self.prim}_{self.dtype}_{self.threads}x{self.items}"


def auto_params() -> dict[str, Any]:
    """The table name -> (spec, algorithm TemplateParam) of every spec with an auto parameter."""
    return _auto.auto_parameters()


def candidates(prim: str) -> list[str]:
    """The algorithms auto may pick for ``prim`` (every member but ``Auto.never``)."""
    return list(_auto.candidates(prim))


def configs(grid: dict[str, tuple[int, ...]], only: list[str], log2n: int, registers: bool = False) -> list[Config]:
    out = []
    for prim in sorted(auto_params()):
        if only and prim not in only:
            continue
        threads = grid["warp_threads"] if prim in WARP_PRIMS else grid["threads"]
        for size in grid["sizes"]:
            for t in threads:
                for i in grid["items"]:
                    if prim == "block_histogram" and (size == 8 or t < 64):
                        continue  # 64-bit samples: radix-sorting them is never the point of a 256-bin histogram
                    out.append(Config(prim, size, t, i, log2n, registers and prim in ("block_reduce", "block_scan")))
    return out


# --- kernels: one factory per primitive, (config, algorithm) -> (kernel, setup) ---------------------------------


def _values(c: Config, n: int) -> np.ndarray:
    """Small integers (exact in every float type), spread over the histogram's 256 bins for uint types."""
    rng = np.random.default_rng(2026)
    hi = 256 if c.prim == "block_histogram" else 7
    return rng.integers(0, hi, n, dtype=np.uint16).astype(c.dtype)


def _generated(c: Config) -> np.ndarray:
    return (np.arange(c.n, dtype=np.int64) % 7).astype(c.dtype)


def _thread_sums(c: Config, x: np.ndarray) -> np.ndarray:
    dt = np.dtype(c.dtype)
    return x.reshape(-1, c.items).sum(axis=1, dtype=np.float64 if dt.kind == "f" else dt).astype(dt)


def _setup(c: Config) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The kernels' inputs, their zeroed outputs and the expected first output (the same for every algorithm)."""
    if c.prim in ("block_load", "warp_load"):
        x = _values(c, c.n)
        return [x], [np.zeros(c.n // c.items, c.dtype)], _thread_sums(c, x)
    if c.prim in ("block_store", "warp_store"):
        return [], [np.zeros(c.n, c.dtype)], _generated(c)
    g = _generated(c)
    acc_dt = np.float64 if g.dtype.kind == "f" else g.dtype
    tiles = g.reshape(-1, c.tile)
    if c.prim == "block_reduce":
        want = tiles.sum(axis=1, dtype=acc_dt).astype(g.dtype)
        return ([] if c.registers else [g]), [np.zeros(c.n // c.tile, c.dtype)], want
    if c.prim == "block_scan":
        scanned = np.cumsum(tiles, axis=1, dtype=acc_dt).astype(g.dtype).ravel()
        if c.registers:
            return [], [np.zeros(c.n // c.items, c.dtype)], _thread_sums(c, scanned)
        return [g], [np.zeros(c.n, c.dtype)], scanned
    return _sampled_setup(c)


def _sampled_setup(c: Config) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """``_setup`` of the kernels that load random samples: the histogram, the top-k, the warp sorts."""
    if c.prim in WARP_SORTS:
        return _warp_sort_setup(c)
    data = _values(c, c.n)
    if c.prim == "block_histogram":
        return [data], [np.zeros(256, np.uint32)], np.bincount(data, minlength=256).astype(np.uint32)
    if c.prim == "block_top_k":  # the k = TOP_K largest of each tile, largest first (items 0..6: many ties)
        want = np.sort(data.reshape(-1, c.tile), axis=1, kind="stable")[:, ::-1][:, :TOP_K].ravel()
        return [data], [np.zeros(c.n // c.tile * TOP_K, c.dtype)], want
    raise ValueError(f"no benchmark kernel for {c.prim}; add one to benchmarks/auto_table.py")


def _warp_sort_setup(c: Config) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Random keys spanning the type (every 32-lane warp's tile of 32 * items): the sort's keys, the argsort's int32
    indices (``base`` = the warp tile's offset) or the top ``WARP_TOP_K`` keys of each warp, largest first."""
    dt = np.dtype(c.dtype)
    rng = np.random.default_rng(2026)
    if dt.kind == "f":
        keys = (rng.random(c.n) * 2 - 1).astype(dt)
    else:
        keys = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, c.n, dtype=dt, endpoint=True)
    tiles = keys.reshape(-1, 32 * c.items)
    if c.prim == "warp_merge_sort":
        return [keys], [np.zeros_like(keys)], np.sort(tiles, axis=1).ravel()
    if c.prim == "warp_argsort":
        base = (np.arange(tiles.shape[0], dtype=np.int64) * tiles.shape[1])[:, None]
        want = (np.argsort(tiles, axis=1, kind="stable") + base).astype(np.int32).ravel()
        return [keys], [np.zeros(c.n, np.int32)], want
    want = np.sort(tiles, axis=1)[:, ::-1][:, : min(WARP_TOP_K, tiles.shape[1])].ravel()  # largest first (no NaN drawn)
    return [keys], [np.zeros(want.size, dt)], want


def _kernel(c: Config, algorithm: str) -> Callable[..., Any]:
    """The kernel timing ``algorithm`` for ``c`` (its arguments: ``_setup``'s inputs, then outputs)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    n_items, dt, tile, threads = c.items, np.dtype(c.dtype).type, c.tile, c.threads
    wtile = 32 * n_items

    @cuda.jit
    def block_load(x, y):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm=algorithm)
        acc = items[0]
        for i in range(1, n_items):
            acc += items[i]
        y[cuda.blockIdx.x * threads + cuda.threadIdx.x] = acc

    @cuda.jit
    def warp_load(x, y):
        items = cuda.local.array(n_items, dt)
        coop.warp.load(x, items, offset=cuda.blockIdx.x * tile + (cuda.threadIdx.x // 32) * wtile, algorithm=algorithm)
        acc = items[0]
        for i in range(1, n_items):
            acc += items[i]
        y[cuda.blockIdx.x * threads + cuda.threadIdx.x] = acc

    @cuda.jit
    def block_store(y):
        items = cuda.local.array(n_items, dt)
        first = cuda.blockIdx.x * tile + cuda.threadIdx.x * n_items
        for i in range(n_items):
            items[i] = (first + i) % 7
        coop.block.store(y, items, offset=cuda.blockIdx.x * tile, algorithm=algorithm)

    @cuda.jit
    def warp_store(y):
        items = cuda.local.array(n_items, dt)
        base = cuda.blockIdx.x * tile + (cuda.threadIdx.x // 32) * wtile
        first = base + (cuda.threadIdx.x % 32) * n_items
        for i in range(n_items):
            items[i] = (first + i) % 7
        coop.warp.store(y, items, offset=base, algorithm=algorithm)

    fits = _auto.padded_tile_bytes(c.tile, c.item_bytes) <= 48 * 1024
    moving = "transpose" if fits else "auto"  # as the suite's kernels

    @cuda.jit
    def block_reduce(x, partial):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm=moving)
        total = coop.block.sum(items, algorithm=algorithm)
        if cuda.threadIdx.x == 0:
            partial[cuda.blockIdx.x] = total

    @cuda.jit
    def block_scan(x, y):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm=moving)
        coop.block.inclusive_sum(items, algorithm=algorithm)
        coop.block.store(y, items, offset=cuda.blockIdx.x * tile, algorithm=moving)

    @cuda.jit
    def block_reduce_registers(partial):
        items = cuda.local.array(n_items, dt)
        first = cuda.blockIdx.x * tile + cuda.threadIdx.x * n_items
        for i in range(n_items):
            items[i] = (first + i) % 7
        total = coop.block.sum(items, algorithm=algorithm)
        if cuda.threadIdx.x == 0:
            partial[cuda.blockIdx.x] = total

    @cuda.jit
    def block_scan_registers(y):
        items = cuda.local.array(n_items, dt)
        first = cuda.blockIdx.x * tile + cuda.threadIdx.x * n_items
        for i in range(n_items):
            items[i] = (first + i) % 7
        coop.block.inclusive_sum(items, algorithm=algorithm)
        acc = items[0]
        for i in range(1, n_items):
            acc += items[i]
        y[cuda.blockIdx.x * threads + cuda.threadIdx.x] = acc

    @cuda.jit
    def block_histogram(data, hist):
        samples = cuda.local.array(n_items, dt)
        counts = cuda.shared.array(256, np.uint32)
        coop.block.load(data, samples, offset=cuda.blockIdx.x * tile, algorithm="direct")
        coop.block.histogram(samples, counts, bins=256, algorithm=algorithm)
        cuda.syncthreads()
        for b in range(cuda.threadIdx.x, 256, threads):
            cuda.atomic.add(hist, b, counts[b])

    @cuda.jit
    def block_top_k(x, top):
        items = cuda.local.array(n_items, dt)
        coop.block.load(x, items, offset=cuda.blockIdx.x * tile, algorithm=moving)
        coop.block.top_k(items, top, k=TOP_K, offset=cuda.blockIdx.x * TOP_K, algorithm=algorithm)

    k_top = min(WARP_TOP_K, wtile)

    @cuda.jit
    def warp_merge_sort(x, y):
        keys = cuda.local.array(n_items, dt)
        first = (cuda.blockIdx.x * threads + cuda.threadIdx.x) * n_items
        for i in range(n_items):
            keys[i] = x[first + i]
        coop.warp.merge_sort(keys, "<", algorithm=algorithm)
        for i in range(n_items):
            y[first + i] = keys[i]

    @cuda.jit
    def warp_argsort(x, y):
        keys = cuda.local.array(n_items, dt)
        indices = cuda.local.array(n_items, np.int32)
        t = cuda.blockIdx.x * threads + cuda.threadIdx.x
        for i in range(n_items):
            keys[i] = x[t * n_items + i]
        coop.warp.argsort(keys, indices, base=coop.uniform(t // 32 * wtile), algorithm=algorithm)
        for i in range(n_items):
            y[t * n_items + i] = indices[i]

    @cuda.jit
    def warp_top_k(x, y):
        keys = cuda.local.array(n_items, dt)
        t = cuda.blockIdx.x * threads + cuda.threadIdx.x
        for i in range(n_items):
            keys[i] = x[t * n_items + i]
        coop.warp.top_k(keys, y, k=k_top, offset=coop.uniform(t // 32 * k_top), algorithm=algorithm)

    kernels = {"block_load": block_load, "warp_load": warp_load, "block_store": block_store,
               "warp_store": warp_store, "block_reduce": block_reduce, "block_scan": block_scan,
               "block_histogram": block_histogram, "block_top_k": block_top_k, "warp_merge_sort": warp_merge_sort,
               "warp_argsort": warp_argsort, "warp_top_k": warp_top_k}
    if c.registers:
        kernels = {"block_reduce": block_reduce_registers, "block_scan": block_scan_registers}
    if c.prim not in kernels:
        raise ValueError(f"no benchmark kernel for {c.prim}; add one to benchmarks/auto_table.py")
    return kernels[c.prim]


def _context(c: Config) -> str:
    """What the timed kernel does around the primitive (recorded with every entry)."""
    if c.prim in ("block_reduce", "block_scan"):
        return "items generated in registers" if c.registers else "tile loaded from global memory"
    if c.prim == "block_top_k":
        return f"tile loaded from global memory, k = {TOP_K}"
    if c.prim in WARP_SORTS:
        return "each warp's tile loaded from global memory, random keys"
    return "samples loaded from global memory" if c.prim == "block_histogram" else "global memory"


def _grid(c: Config) -> int:
    return c.n // c.tile


# --- one worker: compile and check in parallel, time under the lock ----------------------------------------------


def _measure(job: tuple[Config, int, str]) -> dict[str, Any]:
    c, reps, lock_path = job
    from cuda.core import Device
    from numba_cuda_mlir import cuda

    device = Device()
    device.set_current()
    stream = device.create_stream()
    on_stream = cuda.external_stream(int(stream.handle))
    row: dict[str, Any] = {**asdict(c), "dtype": c.dtype, "kernel": _context(c), "median_ms": {}, "failed": {},
                           "wrong": [], "compile_s": {}}
    ready: dict[str, Callable[[], None]] = {}
    inputs, outputs, want = _setup(c)
    d_args = [cuda.to_device(a) for a in (*inputs, *outputs)]
    out = d_args[len(inputs)]
    for alg in candidates(c.prim):
        try:
            kernel = _kernel(c, alg)

            def launch(kernel: Any = kernel) -> None:
                kernel[_grid(c), c.threads, on_stream](*d_args)

            for buf, host in zip(d_args[len(inputs):], outputs, strict=True):
                buf.copy_to_device(host)
            start = time.perf_counter()
            launch()  # compiles
            stream.sync()
            row["compile_s"][alg] = round(time.perf_counter() - start, 3)
        except Exception as exc:  # a configuration CUB or the GPU refuses (e.g. shared memory): recorded, not timed
            row["failed"][alg] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
            continue
        if not np.array_equal(out.copy_to_host(), want):
            row["wrong"].append(alg)
            continue
        ready[alg] = launch
    if not ready:
        return row
    timer = HeldTimer(stream)
    samples: dict[str, list[float]] = {alg: [] for alg in ready}
    with Path(lock_path).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for launch in ready.values():
                for _ in range(3):
                    launch()
            order = list(ready)
            for rep in range(reps):
                for alg in order[rep % len(order):] + order[: rep % len(order)]:
                    samples[alg].append(timer.sample(ready[alg])[0])
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    row["median_ms"] = {alg: float(np.median(v)) for alg, v in samples.items()}
    return row


def _entry(row: dict[str, Any]) -> dict[str, Any]:
    ranking = sorted(row["median_ms"], key=row["median_ms"].__getitem__)
    keep = ("item_bytes", "threads", "items", "dtype", "kernel", "median_ms", "failed", "wrong", "compile_s")
    return {"ranking": ranking, **{k: row[k] for k in keep}}


# --- the table -------------------------------------------------------------------------------------------------------


def build_table(existing: dict[str, Any] | None, arch: str, rows: list[dict[str, Any]],
                meta: dict[str, Any]) -> dict[str, Any]:
    """The table: ``existing``'s measurements of other architectures and primitives, this run's for ``arch``.

    A configuration where no algorithm ran correctly has no ranking: it goes to ``unmeasured`` (raw data kept),
    never into the lookup, so nearest neighbours come from measured configurations only.
    """
    table = dict(existing or {"archs": {}})
    if table.get("provisional"):
        table["archs"] = {}  # nothing in a provisional table is a measurement worth keeping
    measured = table["archs"].setdefault(arch, {})
    prims = sorted({r["prim"] for r in rows})
    unmeasured = [r for r in table.get("unmeasured", []) if r.get("arch") != arch or r.get("prim") not in prims]
    runs = dict(table.get("runs", {}))  # which run measured each (arch, primitive): a merged table holds several
    keys = ("date", "device", "command", "grid")  # a merged table's top-level grid is only its last run's
    runs |= {f"{arch}/{prim}": {k: meta[k] for k in keys if k in meta} for prim in prims}
    for prim in prims:
        entries = sorted((_entry(r) for r in rows if r["prim"] == prim),
                         key=lambda e: (e["item_bytes"], e["threads"], e["items"]))
        measured[prim] = [e for e in entries if e["ranking"]]
        unmeasured += [{"arch": arch, "prim": prim, **e} for e in entries if not e["ranking"]]
        if not measured[prim]:
            del measured[prim]
    table.update({"schema": 1, "provisional": False, **meta, "unmeasured": unmeasured, "runs": runs})
    return table


def provisional(grid: dict[str, tuple[int, ...]], arch: str) -> dict[str, Any]:
    """A table of CUB's defaults over ``grid``, marked provisional: nothing is measured."""
    prims: dict[str, list[dict[str, Any]]] = {}
    for c in configs(grid, [], 26):
        _, tp = auto_params()[c.prim]
        prims.setdefault(c.prim, []).append(
            {"item_bytes": c.item_bytes, "threads": c.threads, "items": c.items, "dtype": c.dtype,
             "ranking": [tp.default.short_name], "median_ms": {}}
        )
    return {
        "schema": 1,
        "provisional": True,
        "note": "PROVISIONAL: not measured. Every choice is CUB's default algorithm, so algorithm='auto' binds what "
        "the explicit default did before auto existed. Replace it with the output of benchmarks/auto_table.py run "
        "on a GPU (see that file's docstring).",
        "device": None,
        "date": None,
        "archs": {arch: prims},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--log2n", type=int, default=26, help="items per kernel launch: 2^log2n (26-28)")
    parser.add_argument("--workers", type=int, default=max(1, min(12, (os.cpu_count() or 2) - 2)))
    parser.add_argument("--quick", action="store_true", help=f"a smaller grid: {QUICK}")
    parser.add_argument("--only", nargs="*", default=[], help="table names (block_load, block_reduce...)")
    parser.add_argument("--merge", type=Path, default=HERE.parent / "cuda_coop/_specs/auto_table.json",
                        help="a table whose measurements of other architectures (and of primitives not run) are kept")
    parser.add_argument("--provisional", action="store_true", help="write CUB's defaults (no GPU); for sm_90")
    parser.add_argument("--registers", action="store_true",
                        help="reduce and scan on items generated in registers (a comparison, not the table's context)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    grid = QUICK if args.quick else GRID
    if args.provisional:
        (args.out / "auto_table.json").write_text(json.dumps(provisional(GRID, "sm_90"), indent=1) + "\n")
        return 0

    import multiprocessing

    from cuda.core import Device

    import cuda.coop as coop

    dev = Device()
    cc = tuple(dev.compute_capability)
    arch = f"sm_{cc[0]}{cc[1]}"
    jobs = configs(grid, args.only, args.log2n, args.registers)
    lock_path = str(Path(tempfile.gettempdir()) / f"cuda_coop_auto_table_{os.getpid()}.lock")
    start = time.perf_counter()
    print(f"{len(jobs)} configurations on {dev.name} ({arch}), {args.workers} workers", flush=True)
    rows = []
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for row in pool.imap_unordered(_measure, [(c, args.reps, lock_path) for c in jobs]):
            rows.append(row)
            best = min(row["median_ms"], key=row["median_ms"].__getitem__) if row["median_ms"] else "-"
            medians = " ".join(f"{a}={m:.4f}" for a, m in sorted(row["median_ms"].items(), key=lambda kv: kv[1]))
            bad = f"  WRONG {row['wrong']}" if row["wrong"] else ""
            print(f"{Config(row['prim'], row['item_bytes'], row['threads'], row['items']).name:<36} best {best:<26} "
                  f"{medians}{bad}{'  failed ' + str(sorted(row['failed'])) if row['failed'] else ''}", flush=True)
    elapsed = time.perf_counter() - start
    existing = json.loads(args.merge.read_text()) if args.merge.is_file() else None
    table = build_table(existing, arch, rows, {
        "note": "Measured by benchmarks/auto_table.py: ranking is fastest first; median_ms are the raw medians "
        f"(ms per launch of 2^{args.log2n} items, median of {args.reps} samples of {BATCH} launches).",
        "device": dev.name, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cuda_coop": coop.__version__, "cccl": coop.header_bundle().provenance.cccl_version,
        "python": platform.python_version(), "command": " ".join(sys.argv), "elapsed_s": round(elapsed, 1),
        "grid": {k: list(v) for k, v in grid.items()}, "batch": BATCH, "reps": args.reps, "log2n": args.log2n,
    })
    (args.out / "auto_table.json").write_text(json.dumps(table, indent=1) + "\n")
    wrong = [(r["prim"], r["item_bytes"], r["threads"], r["items"], r["wrong"]) for r in rows if r["wrong"]]
    print(f"{len(rows)} configurations in {elapsed:.0f} s; wrote {args.out / 'auto_table.json'}; "
          f"wrong: {wrong or 'none'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
