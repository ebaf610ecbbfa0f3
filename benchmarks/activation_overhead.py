"""Launch cost of a kernel without cuda-coop calls, with and without cuda.coop active (issue 16).

    python benchmarks/activation_overhead.py [--pairs 5] [--launches 2000] [--samples 15] [--check]

Activation is process-wide, so each measurement is a fresh process: ``plain`` never imports
cuda.coop, ``coop`` activates it before the kernel is defined. The two kinds alternate (``--pairs``
of each) in this one run. Each process, after a warm-up kernel has created the context, measures

- first launch: compile, load, launch and synchronize of the trivial kernel (one sample);
- hot launch: ``--launches`` back-to-back launches, then one synchronize, per launch; the median
  over ``--samples`` such samples.

Prints the medians over processes and the coop/plain ratios; the goal is a ratio within 5%
(``--check`` exits 1 when a ratio is above 1.05). Needs a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

TARGET = 1.05


def worker(mode: str, launches: int, samples: int) -> dict[str, float]:
    """Measure in this process; ``mode`` is plain or coop."""
    import importlib

    if mode == "coop":
        importlib.import_module("cuda.coop.numba_mlir")
    import numpy as np
    from numba_cuda_mlir import cuda

    @cuda.jit
    def warm_up(out):  # type: ignore[no-untyped-def]  # (numba-cuda-mlir reads annotations: none here)
        out[0] = 1

    @cuda.jit
    def trivial(out):  # type: ignore[no-untyped-def]
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i

    out = cuda.to_device(np.zeros(256, np.int32))
    warm_up[1, 1](out)
    cuda.synchronize()

    start = time.perf_counter()
    trivial[2, 128](out)
    cuda.synchronize()
    first = time.perf_counter() - start

    hot = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(launches):
            trivial[2, 128](out)
        cuda.synchronize()
        hot.append((time.perf_counter() - start) / launches)
    assert out.copy_to_host().tolist() == list(range(256))
    return {"first_s": first, "hot_s": statistics.median(hot)}


def measure(mode: str, launches: int, samples: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"}
    cmd = [sys.executable, __file__, "--worker", mode, "--launches", str(launches), "--samples", str(samples)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=600)
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--check", action="store_true", help="exit 1 when a coop/plain ratio is above 1.05")
    parser.add_argument("--worker", choices=["plain", "coop"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.launches, args.samples)))
        return 0

    runs: dict[str, list[dict[str, float]]] = {"plain": [], "coop": []}
    for _ in range(args.pairs):
        for mode in ("plain", "coop"):
            runs[mode].append(measure(mode, args.launches, args.samples))
    medians = {
        mode: {k: statistics.median(r[k] for r in rs) for k in ("first_s", "hot_s")} for mode, rs in runs.items()
    }
    ratios = {k: medians["coop"][k] / medians["plain"][k] for k in ("first_s", "hot_s")}
    print(f"{'':14}{'plain':>14}{'coop':>14}{'coop/plain':>12}")
    print(
        f"{'first launch':14}{medians['plain']['first_s'] * 1e3:>12.2f}ms{medians['coop']['first_s'] * 1e3:>12.2f}ms"
        f"{ratios['first_s']:>12.3f}"
    )
    print(
        f"{'hot launch':14}{medians['plain']['hot_s'] * 1e6:>12.2f}us{medians['coop']['hot_s'] * 1e6:>12.2f}us"
        f"{ratios['hot_s']:>12.3f}"
    )
    print(json.dumps({"medians": medians, "ratios": ratios, "runs": runs}))
    within = all(r <= TARGET for r in ratios.values())
    print(f"within {round((TARGET - 1) * 100)}%: {'yes' if within else 'NO'}")
    return 1 if args.check and not within else 0


if __name__ == "__main__":
    sys.exit(main())
