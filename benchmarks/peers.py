"""cuda-coop's recipes against PyTorch, Triton and CuPy on the fused kernels Python users write (issue 41).

    python benchmarks/peers.py [--reps 20] [--out benchmarks/results] [--quick] [--only TEXT ...] [--deadline S]
    python benchmarks/peers.py --check-only      # every check, at sizes of seconds: a first run on a new machine

Tasks (``_peers_tasks.py``): row top-k (values and positions), softmax, layer norm, argmax, argmin, cumsum, sort
(keys; pairs), a 256-bin byte histogram and a whole-array sum. The cuda-coop side is the recipe gallery,
``examples/recipes/``, imported: at the shape ``coop.row_shape`` picks with the loads left to ``"auto"`` (the row's
``coop_ms``), and, to test the rule and the load choice, at its neighbouring shapes and with ``"vectorize"`` and
``"transpose"`` loads. The peers are what a user of each library writes: PyTorch's operators, Triton kernels in
the style of its tutorials (``_peers_triton.py``, each timed with several ``num_warps``), CuPy's functions and one
``RawKernel``. A library that is not installed, or has no function for a task, is named in the row's ``check``
with the reason (``absent: ...``, ``n/a: ...``); nothing is left out silently.

How it measures: every implementation works on the same device memory (zero-copy views) on one stream. Each is
launched once on poisoned outputs and checked against NumPy before anything is timed; only those whose result is
right are timed, so a wrong result is never a win. Then, interleaved (each round starts with another one), each is
sampled ``--reps`` times (at least 20): a sample is a batch of launches between CUDA events, queued while a spin
kernel holds the stream (``_timing.HeldTimer``), so that the events time the GPU only. A launch that waits for the
GPU itself (``torch.bincount``) is found first and timed without the hold (``host_sync`` lists them). The figure is
the median. The device-to-device copy bandwidth is measured at the start and the end of the same run.

Writes ``peers.json`` to ``--out`` after every row (``peers_check.json`` with ``--check-only``), then, at the end
of a full run, ``peers.svg`` and ``peers.csv`` (``peers_plot.py``). Each row: ``task``, ``size``, ``coop_ms``,
``peer`` (the fastest correct peer) and ``peer_ms``, ``check`` (every implementation's verdict), ``bytes`` (what
the task must read and write at least), ``ratio``, ``copy_fraction``, ``shape`` and ``shapes_ms`` (the rule's pick
and its neighbours), ``auto`` (what ``"auto"`` picked for the recipe's loads and stores) and ``loads_ms``. Exits 1
when a cuda-coop result is wrong or a row fails (with ``--check-only``: when any implementation is).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import sys
import time
import traceback
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import peers_plot  # noqa: E402
from _peers_env import COOP, Env, Setup, Task  # noqa: E402
from _peers_tasks import tasks  # noqa: E402
from _timing import BATCH, HeldTimer  # noqa: E402
from numba_cuda_mlir import cuda  # noqa: E402

import cuda.coop as coop  # noqa: E402

MIN_REPS = 20
WARMUP = 3
COPY_ITEMS = 1 << 28
"""float32 items of the device-to-device copy whose bandwidth the run records (1 GiB each way)."""


def time_interleaved(timer: HeldTimer, launches: dict[str, Any], unheld: set[str], reps: int) -> dict[str, float]:
    """Median GPU ms per launch of each of ``launches``: ``reps`` samples each, interleaved, each round starting
    with the next launch; those in ``unheld`` sampled without the hold."""
    samples: dict[str, list[float]] = {name: [] for name in launches}
    order = list(launches)
    for rep in range(reps):
        for name in order[rep % len(order):] + order[: rep % len(order)]:
            sample = timer.sample_unheld if name in unheld else timer.sample
            samples[name].append(sample(launches[name])[0])
    return {name: float(np.median(v)) for name, v in samples.items()}


def copy_gbps(timer: HeldTimer, env: Env, reps: int, items: int) -> float:
    """Device-to-device copy bandwidth (GB/s, bytes read plus bytes written) of ``items`` float32."""
    src, dst = cuda.device_array(items, np.float32), cuda.device_array(items, np.float32)

    def launch() -> None:
        dst.copy_to_device(src, stream=env.numba_stream)

    for _ in range(WARMUP):
        launch()
    ms = time_interleaved(timer, {"copy": launch}, set(), reps)["copy"]
    return 2 * items * 4 / (ms * 1e-3) / 1e9


def check_all(setup: Setup, stream: Any) -> dict[str, str]:
    """Each implementation launched once (compiling it) on its poisoned outputs, and checked."""
    verdicts = dict(setup.missing)
    for name, impl in setup.impls.items():
        try:
            impl.launch()
            stream.sync()
            verdicts[name] = setup.check(impl.fetch())
        except Exception as exc:  # a peer's failure is its row's verdict, not the run's end
            verdicts[name] = f"error: {type(exc).__name__}: {str(exc)[:300]}"
            stream.sync()
    return verdicts


def run_task(task: Task, env: Env, timer: HeldTimer, stream: Any, reps: int, check_only: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"task": task.task, "size": task.size, "seed": task.seed}
    try:
        setup = task.build(env, np.random.default_rng(task.seed))
        cuda.synchronize()  # poisoned outputs made on other streams are in place
    except Exception as exc:
        traceback.print_exc()
        return row | {"error": f"{type(exc).__name__}: {exc}"}
    verdicts = check_all(setup, stream)
    row |= {"check": verdicts, "bytes": setup.bytes, "shape": str(setup.shape), "auto": setup.auto}
    if check_only:
        return row
    good = {name: impl.launch for name, impl in setup.impls.items() if verdicts[name] == "ok"}
    try:
        for _ in range(WARMUP - 1):
            for launch in good.values():
                launch()
        unheld = {name for name, launch in good.items() if timer.holds_host(launch)}
        ms = time_interleaved(timer, good, unheld, reps)
    except Exception as exc:  # a launch that failed after its check: the row says so, the run goes on
        traceback.print_exc()
        return row | {"error": f"while timing: {type(exc).__name__}: {exc}"}
    peers = {name: t for name, t in ms.items() if not name.startswith(COOP)}
    coop_ms = ms.get(COOP)
    peer = min(peers, key=peers.__getitem__) if peers else None
    row |= {"coop_ms": coop_ms, "peer": peer, "peer_ms": peers.get(peer) if peer else None, "ms": ms,
            "host_sync": sorted(unheld)}
    if coop_ms is not None and peer is not None:
        row["ratio"] = coop_ms / peers[peer]
    if coop_ms is not None:
        row["gbps"] = setup.bytes / (coop_ms * 1e-3) / 1e9
        shapes = {str(setup.shape): coop_ms} | {str(s): ms[f"{COOP} {s}"] for s in setup.alternatives
                                                  if f"{COOP} {s}" in ms}
        row |= {"shapes_ms": shapes, "best_shape": min(shapes, key=shapes.__getitem__),
                "loads_ms": {"auto": coop_ms} | {load: ms[f"{COOP} load={load}"] for load in ("vectorize", "transpose")
                                                   if f"{COOP} load={load}" in ms}}
    return row


def versions(env: Env) -> dict[str, str]:
    out = {"python": platform.python_version(), "numpy": np.__version__, "cuda_coop": coop.__version__,
           "cccl": coop.header_bundle().provenance.cccl_version}
    for dist in ("numba-cuda-mlir", "cuda-core", "cuda-bindings"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    out["torch"] = env.torch.__version__ if env.torch else env.torch_absent
    out["triton"] = version("triton") if env.triton else env.triton_absent
    out["cupy"] = env.cupy.__version__ if env.cupy else env.cupy_absent
    return out


def _device_name() -> str:
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def _line(row: dict[str, Any]) -> str:
    """One row of the printed table."""
    head = f"{row['task'] + ' ' + row['size']:<52}"
    if "error" in row:
        return f"{head} ERROR {row['error']}"
    bad = {n: v for n, v in row["check"].items() if v != "ok" and not v.startswith(("absent", "n/a"))}
    note = ("  NOT OK: " + "; ".join(f"{n}: {v}" for n, v in bad.items())) if bad else ""
    if "coop_ms" not in row:
        return f"{head} checked{note}"
    ratio = f"{row['ratio']:.3f}" if "ratio" in row else "-"
    peer = f"{row['peer_ms']:.4f} ({row['peer']})" if row.get("peer") else "no correct peer"
    extra = ""
    if "shapes_ms" in row:
        loads = ", ".join(f"{k} {v:.4f}" for k, v in row["loads_ms"].items())
        extra = (f"  {row['gbps']:.0f} GB/s ({row.get('copy_fraction', 0):.0%} of copy); shape {row['shape']}, "
                 f"fastest {row['best_shape']}; loads (auto is {peers_plot.auto_load(row)}): {loads}")
    coop_ms = f"{row['coop_ms']:.4f}" if row["coop_ms"] is not None else "WRONG"
    return f"{head} coop {coop_ms}  peer {peer}  ratio {ratio}{extra}{note}"


def _failed(row: dict[str, Any], check_only: bool) -> bool:
    if "error" in row:
        return True
    verdicts = row["check"]
    if check_only:
        return any(v.startswith(("wrong", "error")) for v in verdicts.values())
    return verdicts.get(COOP) != "ok"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=MIN_REPS, help=f"samples per implementation (at least {MIN_REPS})")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", HERE / "results")))
    parser.add_argument("--quick", action="store_true", help="one row of each task")
    parser.add_argument("--only", nargs="*", default=[], help="the rows whose task and size contain one of these")
    parser.add_argument("--check-only", action="store_true", help="run every check at small sizes, time nothing")
    parser.add_argument("--deadline", type=float, default=None,
                        help="seconds after which no new row starts (the rows left are listed as not run)")
    args = parser.parse_args()
    if args.reps < MIN_REPS and not args.check_only:
        parser.error(f"--reps must be at least {MIN_REPS} (the figures are medians of at least {MIN_REPS} samples)")
    selected = [t for t in tasks(args.check_only) if (not args.quick or t.quick)
                and (not args.only or any(s in t.id for s in args.only))]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / ("peers_check.json" if args.check_only else "peers.json")

    from cuda.core import Device

    device = Device()
    device.set_current()
    stream = device.create_stream()
    env = Env(stream)
    timer = HeldTimer(stream)
    start = time.monotonic()
    copy_items, copy_reps = (1 << 24, 3) if args.check_only else (COPY_ITEMS, args.reps)
    copies = [copy_gbps(timer, env, copy_reps, copy_items)]
    result: dict[str, Any] = {
        "device": _device_name(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(env), "copy_gbps": copies[0], "reps": args.reps, "batch": BATCH,
        "check_only": args.check_only, "rows": [],
    }
    print(f"{result['device']}: device-to-device copy {copies[0]:.0f} GB/s; {json.dumps(result['versions'])}")
    for task in selected:
        if args.deadline is not None and time.monotonic() - start > args.deadline:
            result["rows"].append({"task": task.task, "size": task.size, "error": "not run: --deadline passed"})
            continue
        row = run_task(task, env, timer, stream, args.reps, args.check_only)
        if "gbps" in row:
            row["copy_fraction"] = row["gbps"] / max(copies)
        result["rows"].append(row)
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(_line(row), flush=True)
        gc.collect()
    copies.append(copy_gbps(timer, env, copy_reps, copy_items))
    result |= {"copy_gbps": max(copies), "copy_gbps_runs": copies}
    for row in result["rows"]:  # against the larger of the two copies: the stricter fraction
        if "gbps" in row:
            row["copy_fraction"] = row["gbps"] / result["copy_gbps"]
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path} ({time.monotonic() - start:.0f} s; copy {copies[0]:.0f} then {copies[1]:.0f} GB/s)")
    if not args.check_only:
        peers_plot.main([str(path)])
    return 1 if any(_failed(r, args.check_only) for r in result["rows"]) else 0


if __name__ == "__main__":
    sys.exit(main())
