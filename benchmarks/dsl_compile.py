"""The same kernels' compile times under numba-cuda-mlir and under numba-cuda, side by side (no GPU needed).

    python benchmarks/dsl_compile.py [--dsl numba_mlir|numba_cuda|both] [--reps 5] [--json out.json]
                                     [--profile DIR]

Issue 42's target: a numba-cuda kernel's first and later compiles cost no more than the same kernel's under
numba-cuda-mlir. Each DSL compiles the same kernel source (only the ``cuda`` import and the argument types'
module differ) with its ``cuda.coop.<dsl>.compile_kernel`` for sm_90 and a block of ``THREADS``: the dispatcher's
compile for a launch, without a GPU. Every process is fresh, imports only its DSL's integration
(``CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION=1``, then ``import cuda.coop.<dsl>``) and has cuda-coop's persistent
cache on (``CUDA_COOP_ENABLE_CACHE=1``) in a temporary ``XDG_CACHE_HOME`` of its own DSL and repetition. Per
repetition and DSL, three processes, one after the other:

- cold: an empty cache; the import, then ``tile_sums`` (the README's kernel: block load and sum), the process's
  first compile, then the later kernels ``tile_sort`` (block load, radix sort, store) and ``warp_sum``. Every
  provider is compiled by NVRTC (the first parses CCCL and starts the precompiled-header build; the later ones use
  it), and every kernel is linked by nvJitLink.
- warm providers: the same cache with its linked kernels removed (``cuda-coop/kernels``): the providers are disk
  hits and the kernels are linked again, so the time is the DSL's own (front end, lowering to LTO-IR, link).
- hit: the cache as the warm-providers process left it: providers and linked kernels are disk hits; the DSL
  still types and lowers the kernel (the link cache is keyed by what is linked).

The DSLs alternate process by process (the first of a repetition alternates too), one process at a time; a cold
process's precompiled-header build (forked, it outlives the process) is awaited before the next process starts.
Each compile is timed as wall time (``perf_counter``) and this process's CPU time (``process_time``: every thread
of the process, NVRTC's included, not the forked build's). ``provider`` is the time inside cuda-coop's provider
lookups (NVRTC or the cache read, from the ``cuda.coop`` DEBUG log lines, parsed as ``kernel_compile.py`` does);
``wait`` the part of it spent waiting for the precompiled header being built;
``own`` is the wall time less ``provider``: what the DSL itself spends (typing, cuda-coop's planner and lowering hooks,
NVVM, nvJitLink). The table gives medians with the min-max over the repetitions, and numba_cuda / numba_mlir of the
medians for each phase.

``--profile DIR``: after the timed runs, one more warm-providers process per DSL under cProfile (not timed); its
``tile_sums`` compile is written to ``DIR/<dsl>.prof``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel_compile import _await_kept_pch, _env, _provenance, _Recorder, exclusive, parse_lines

DSLS = ("numba_mlir", "numba_cuda")
PHASES = ("cold", "warm_providers", "hit")
KERNELS = ("tile_sums", "tile_sort", "warp_sum")
THREADS = 256
ITEMS = 16
ARCH = "sm_90"


def _kernels(cuda: Any, coop: Any, np: Any) -> dict[str, Any]:
    """The kernels, one source for both DSLs (``cuda`` is the DSL's)."""

    @cuda.jit
    def tile_sums(x, partial):
        items = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items, offset=cuda.blockIdx.x * cuda.blockDim.x * ITEMS, algorithm="transpose")
        total = coop.block.sum(items)
        if cuda.threadIdx.x == 0:
            partial[cuda.blockIdx.x] = total

    @cuda.jit
    def tile_sort(x, y):
        items = cuda.local.array(ITEMS, np.uint32)
        base = cuda.blockIdx.x * cuda.blockDim.x * ITEMS
        coop.block.load(x, items, offset=base, algorithm="transpose")
        coop.block.radix_sort(items)
        coop.block.store(y, items, offset=base, algorithm="transpose")

    @cuda.jit
    def warp_sum(x, out):
        i = cuda.grid(1)
        total = coop.warp.sum(x[i])
        if cuda.threadIdx.x % 32 == 0:
            out[i // 32] = total

    return {"tile_sums": tile_sums, "tile_sort": tile_sort, "warp_sum": warp_sum}


def _child(dsl: str, profile: Path | None) -> dict[str, Any]:
    import importlib
    import logging

    wall, cpu = time.perf_counter(), time.process_time()
    import numpy as np

    dsl_module = importlib.import_module(f"cuda.coop.{dsl}")
    if dsl == "numba_mlir":
        from numba_cuda_mlir import cuda
        from numba_cuda_mlir.numba_cuda import types
    else:
        from numba import cuda
        from numba.cuda import types

    import cuda.coop as coop

    out: dict[str, Any] = {"dsl": dsl, "import": {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}}
    log = _Recorder()
    logger = logging.getLogger("cuda.coop")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(log)
    logger.propagate = False
    kernels = _kernels(cuda, coop, np)
    sigs = {"tile_sums": (types.float32[::1], types.float32[::1]),
            "tile_sort": (types.uint32[::1], types.uint32[::1]),
            "warp_sum": (types.float64[::1], types.float64[::1])}
    out["kernels"] = []
    for name in KERNELS if profile is None else KERNELS[:1]:
        mark = len(log.lines)
        profiler = None
        if profile is not None:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        wall, cpu = time.perf_counter(), time.process_time()
        dsl_module.compile_kernel(kernels[name], sigs[name], block=THREADS, arch=ARCH)
        row = {"kernel": name, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        parsed = parse_lines(log.lines[mark:])
        row.update(provider=exclusive(parsed["provider"]), nvrtc=exclusive(parsed["nvrtc"]),
                   wait=sum(parsed["wait"]), origins=parsed["origins"], links=parsed["links"])
        row["own"] = row["wall"] - row["provider"]
        out["kernels"].append(row)
    return out


def run_child(dsl: str, cache_home: Path, tmp: Path, profile: Path | None = None) -> dict[str, Any]:
    """One process: ``dsl``'s import and compiles on the cache at ``cache_home``."""
    result = tmp / f"{dsl}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", dsl, "--result", str(result)]
    if profile is not None:
        cmd += ["--profile-to", str(profile)]
    env = {**_env(cache_home), "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1"}
    proc = subprocess.run(cmd, env=env, check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode:
        raise SystemExit(f"benchmark child {dsl} failed ({proc.returncode}):\n{proc.stdout[-6000:]}")
    data: dict[str, Any] = json.loads(result.read_text())
    return data


def order(rep: int, dsls: Sequence[str]) -> list[str]:
    """The DSLs' order in repetition ``rep``: alternating, so that neither always runs first."""
    return list(dsls) if rep % 2 == 0 else list(reversed(dsls))


def _drop_links(cache_home: Path) -> None:
    """Remove the linked kernels of the cache at ``cache_home``, keep its providers."""
    shutil.rmtree(cache_home / "cccl" / "cuda-coop" / "kernels", ignore_errors=True)


def measure(dsls: Sequence[str], reps: int) -> list[dict[str, dict[str, Any]]]:
    """``reps`` repetitions: for each, phase by phase, one process per DSL, alternating."""
    runs: list[dict[str, dict[str, Any]]] = []
    for rep in range(reps):
        with tempfile.TemporaryDirectory(prefix="coop-dsl-compile-", ignore_cleanup_errors=True) as tmp:
            root = Path(tmp)
            run: dict[str, dict[str, Any]] = {dsl: {} for dsl in dsls}
            for phase in PHASES:
                for dsl in order(rep, dsls):
                    cache = root / f"cache-{dsl}"
                    if phase == "warm_providers":
                        _drop_links(cache)
                    run[dsl][phase] = run_child(dsl, cache, root)
                    if phase == "cold":
                        _await_kept_pch(cache)
            runs.append(run)
    return runs


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min and max of ``values``."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def ratio(numer: float | None, denom: float | None) -> float | None:
    """``numer / denom``, or None when either is missing or ``denom`` is not positive."""
    if numer is None or denom is None or denom <= 0:
        return None
    return numer / denom


FIELDS = ("wall", "cpu", "provider", "wait", "own")


def _rows(runs: Sequence[dict[str, dict[str, Any]]], dsl: str) -> dict[str, dict[str, Any]]:
    """``"<phase> <kernel>"`` (and ``"import"``) -> field -> spread over the repetitions, for one DSL."""
    rows: dict[str, dict[str, Any]] = {"import": {f: spread([r[dsl]["cold"]["import"][f] for r in runs])
                                                  for f in ("wall", "cpu")}}
    for phase in PHASES:
        for i, name in enumerate(KERNELS):
            per = [r[dsl][phase]["kernels"][i] for r in runs]
            row: dict[str, Any] = {f: spread([p[f] for p in per]) for f in FIELDS}
            row["origins"] = sorted({o for p in per for o in p["origins"]})
            row["links"] = sorted({o for p in per for o in p["links"]})
            rows[f"{phase} {name}"] = row
        # What a user waits for in a new process: the import and the first kernel.
        rows[f"{phase} import + {KERNELS[0]}"] = {
            f: spread([r[dsl][phase]["import"][f] + r[dsl][phase]["kernels"][0][f] for r in runs])
            for f in ("wall", "cpu")}
    return rows


def summarize(runs: Sequence[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Per DSL, the spread of every figure; with both DSLs, numba_cuda / numba_mlir of the medians."""
    dsls = [d for d in DSLS if d in runs[0]]
    summary: dict[str, Any] = {"reps": len(runs), "dsls": dsls, "rows": {d: _rows(runs, d) for d in dsls}}
    if len(dsls) == 2:
        mlir, classic = summary["rows"]["numba_mlir"], summary["rows"]["numba_cuda"]
        summary["ratios"] = {key: {f: ratio(classic[key][f]["median"], mlir[key][f]["median"])
                                   for f in FIELDS if f in mlir[key]} for key in mlir}
    return summary


def _cell(s: dict[str, float] | None) -> str:
    if s is None:
        return f"{'-':>22}"
    return f"{s['median'] * 1000:8.0f} ({s['min'] * 1000:.0f}-{s['max'] * 1000:.0f})".rjust(22)


def _x(value: float | None) -> str:
    return f"{'-':>6}" if value is None else f"{value:6.2f}"


def table(summary: dict[str, Any]) -> str:
    """The report as text: ms, median (min-max) per DSL, and the ratios."""
    dsls = summary["dsls"]
    out = [f"compile for {ARCH} without a GPU, block {THREADS}, on {summary.get('cpu_model')} "
           f"({summary.get('cpus')} CPUs); ms, median (min-max) of {summary['reps']} fresh processes per row",
           "  phases: cold = empty cache (NVRTC + PCH); warm_providers = providers on disk, links removed "
           "(the DSL's own cost); hit = providers and links on disk"]
    for field in FIELDS:
        if field == "provider":
            continue
        out.append("")
        out.append(f"{field}:" + "".join(f"{d:>22}" for d in dsls) + ("   cuda/mlir" if len(dsls) == 2 else ""))
        for key in summary["rows"][dsls[0]]:
            cells = "".join(_cell(summary["rows"][d][key].get(field)) for d in dsls)
            r = summary.get("ratios", {}).get(key, {}).get(field)
            out.append(f"  {key:<34}{cells}" + (f"   {_x(r)}" if len(dsls) == 2 else ""))
    return "\n".join(out)


def _machine() -> dict[str, Any]:
    """This host: the CPU model named by /proc/cpuinfo and numba-cuda's version, with kernel_compile's provenance."""
    import importlib.metadata as metadata

    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        classic = metadata.version("numba-cuda")
    except metadata.PackageNotFoundError:
        classic = None
    return {**_provenance(), "host": "this host's CPU, no GPU: compile only", "cpu_model": model,
            "numba_cuda": classic}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dsl", choices=(*DSLS, "both"), default="both", help="which DSL(s) to measure")
    parser.add_argument("--reps", type=int, default=5, help="repetitions (fresh processes per phase and DSL)")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    parser.add_argument("--profile", type=Path, help="write a cProfile of each DSL's warm-providers first compile here")
    parser.add_argument("--child", choices=DSLS, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--profile-to", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps takes 1 or more")
    args.dsls = list(DSLS) if args.dsl == "both" else [args.dsl]
    return args


def _profile(dsls: Sequence[str], where: Path) -> None:
    where.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="coop-dsl-profile-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        for dsl in dsls:
            cache = root / f"cache-{dsl}"
            run_child(dsl, cache, root)
            _await_kept_pch(cache)
            _drop_links(cache)
            run_child(dsl, cache, root, where / f"{dsl}.prof")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        data = _child(args.child, args.profile_to)
        args.result.write_text(json.dumps(data))
        return 0
    runs = measure(args.dsls, args.reps)
    summary = summarize(runs)
    summary.update(_machine())
    print(table(summary))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "runs": runs}, indent=2))
    if args.profile:
        _profile(args.dsls, args.profile)
    return 0


if __name__ == "__main__":
    os.environ.pop("CUDA_COOP_SOURCE_DUMP_DIR", None)
    sys.exit(main())
