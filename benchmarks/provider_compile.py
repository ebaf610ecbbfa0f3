"""Provider compile times on this machine: cold NVRTC, with precompiled headers, and cache hits.

    python benchmarks/provider_compile.py [--reps 3] [--kernels 4] [--json out.json]

Each measurement runs in a fresh Python process (no GPU needed). A "typical provider" is one
kernel's call sites: a transposing BlockLoad, a BlockScan over the loaded items and a transposing
BlockStore (256 threads, 16 items per thread); kernel k of a run uses another dtype/extent so that
nothing is shared but the headers.

- cold: the first provider of a process, NVRTC without a PCH (the ~1.5 s budget);
- later, no PCH: further providers of the same process without a PCH;
- PCH build: the background build of the precompiled header, started here after the first compile
  (``pch_after=1``, so that it is timed on its own; the library's default starts it alongside the
  first compile);
- later, PCH: further providers of the process once the PCH exists (the ~0.5 s budget);
- hit, new process: a provider whose LTO-IR is in the persistent cache, in a fresh process: toolchain
  resolution, header/toolkit identity, rendering, key and disk read (the ~50 ms budget); "DSL stack
  loaded": the same after importing cuda.pathfinder and cuda.bindings and loading NVRTC and nvJitLink,
  as numba-cuda-mlir has done before it lowers a kernel (so only cuda-coop's own work is timed);
- hit, in process: the same provider again in the same process (memory cache).

Targets (DESIGN.md section 9): cold <= 1.5 s, later <= 0.5 s, a hit <= 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
mode, kernels = sys.argv[1], int(sys.argv[2])
from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider
from cuda.coop._specs import Request

DTYPES = ["int32", "float32", "int64", "float64", "uint32", "uint64"]

def requests(k):
    dtype, items = DTYPES[k % len(DTYPES)], 16 - 4 * (k // len(DTYPES))
    common = dict(dtype=dtype, items_per_thread=items)
    return [Request("block_load", "load", "full", algorithm="transpose", **common),
            Request("block_scan", "inclusive_sum", "array", **common),
            Request("block_store", "store", "full", algorithm="transpose", **common)]

out = {}
if mode in ("nopch", "pch"):
    compiler = NvrtcCompiler(pch=(mode == "pch"), pch_after=1)
    times = []
    for k in range(kernels):
        p = Provider(requests(k), block_dim=(256,), arch="sm_90", compiler=compiler, cache=MemoryCache())
        t = time.perf_counter(); p.ltoir(); times.append(time.perf_counter() - t)
        if k == 0 and mode == "pch":
            t = time.perf_counter(); compiler.wait_for_pch(); out["pch_wait"] = time.perf_counter() - t
    out.update(times=times, pch_hits=compiler.pch_hits)
elif mode in ("fill", "hit", "hit_loaded"):
    compiler = NvrtcCompiler(pch=False)
    if mode == "hit_loaded":  # what numba-cuda-mlir has done before it lowers a kernel
        import cuda.pathfinder as pf
        from cuda.bindings import nvjitlink, nvrtc
        pf.load_nvidia_dynamic_lib("nvrtc"), pf.load_nvidia_dynamic_lib("nvJitLink")
    t = time.perf_counter()
    p = Provider(requests(0), block_dim=(256,), arch="sm_90", compiler=compiler)
    t1 = time.perf_counter(); p.toolchain
    t2 = time.perf_counter(); p.key
    t3 = time.perf_counter(); p.ltoir()
    t4 = time.perf_counter()
    q = Provider(requests(0), block_dim=(256,), arch="sm_90", compiler=compiler)
    q.ltoir()
    t5 = time.perf_counter()
    out.update(total=t4 - t, plan=t1 - t, toolchain=t2 - t1, render_key=t3 - t2, lookup=t4 - t3,
               memory_hit=t5 - t4, calls=compiler.calls, origin=p.origin)
print(json.dumps(out))
"""


def _child(mode: str, kernels: int, env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(kernels)], env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode:
        raise SystemExit(f"benchmark child {mode} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _fmt(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f} ms  (min {min(values) * 1000:.1f}, n={len(values)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="fresh processes per measurement")
    parser.add_argument("--kernels", type=int, default=4, help="providers compiled per process")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    base = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    base["CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"] = "1"
    rows: dict[str, list[float]] = {
        k: []
        for k in (
            "cold (first provider, no PCH)",
            "later provider, no PCH",
            "PCH build (background, after 1st)",
            "later provider, with PCH",
            "hit, new process (total)",
            "  toolchain + identities",
            "  render + key",
            "  disk lookup",
            "hit, new process, DSL stack loaded",
            "hit, in process (memory)",
        )
    }
    for _ in range(args.reps):
        nopch = _child("nopch", args.kernels, base)
        rows["cold (first provider, no PCH)"].append(nopch["times"][0])  # type: ignore[index]
        rows["later provider, no PCH"] += nopch["times"][1:]  # type: ignore[index,operator]
        pch = _child("pch", args.kernels, base)
        rows["PCH build (background, after 1st)"].append(pch["pch_wait"])  # type: ignore[arg-type]
        rows["later provider, with PCH"] += pch["times"][1:]  # type: ignore[index,operator]
        assert pch["pch_hits"] == args.kernels - 1, pch
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(base, CUDA_COOP_ENABLE_CACHE="1", XDG_CACHE_HOME=tmp)
            _child("fill", 1, env)
            hit = _child("hit", 1, env)
            loaded = _child("hit_loaded", 1, env)
            assert hit["calls"] == 0 and hit["origin"] == "cache", hit
            assert loaded["calls"] == 0 and loaded["origin"] == "cache", loaded
        rows["hit, new process, DSL stack loaded"].append(loaded["total"])  # type: ignore[arg-type]
        rows["hit, new process (total)"].append(hit["total"])  # type: ignore[arg-type]
        rows["  toolchain + identities"].append(hit["toolchain"])  # type: ignore[arg-type]
        rows["  render + key"].append(hit["render_key"])  # type: ignore[arg-type]
        rows["  disk lookup"].append(hit["lookup"])  # type: ignore[arg-type]
        rows["hit, in process (memory)"].append(hit["memory_hit"])  # type: ignore[arg-type]
    print(f"provider compile times ({os.cpu_count()} CPUs, {args.reps} processes x {args.kernels} providers)")
    for name, values in rows.items():
        print(f"  {name:<36} {_fmt(values)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
