"""cuda-coop kernels against their hand-written CUB C++ twins (cub_twins.cu), timed in the same run.

    python benchmarks/run.py [--log2n 28] [--reps 50] [--out DIR]

Builds cub_twins.cu with nvcc against the CCCL that cuda-coop bundles, runs it, then times the
cuda-coop kernels on the same sizes with CUDA events (warm-up, median of --reps runs). Prints a table
of medians and ratios (cuda-coop / CUB; the target is <= 1.02) and writes results.json to --out.
Needs a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from numba_cuda_mlir import cuda

import cuda.coop as coop

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))
from quickstart import ITEMS, TILE  # noqa: E402  (the tile sum benchmarked is the quickstart's kernel)
from quickstart import THREADS as BLOCK  # noqa: E402
from quickstart import tile_sums as tile_sum_f32  # noqa: E402


@cuda.jit
def tile_inclusive_sum_i32(x, y):
    items = cuda.local.array(ITEMS, np.int32)
    offset = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=offset, algorithm="transpose")
    coop.block.inclusive_sum(items)
    coop.block.store(y, items, offset=offset, algorithm="transpose")


def build_twins(out: Path) -> Path:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    bundle = coop.header_bundle()
    major, minor, patch = (int(p) for p in bundle.provenance.cccl_version.split("."))
    cc = cuda.get_current_device().compute_capability
    exe = out / "cub_twins"
    version = major * 1000000 + minor * 1000 + patch
    cmd = [nvcc, "-O3", "-std=c++17", f"-arch=sm_{cc[0]}{cc[1]}", f"-I{bundle.include_dir}",
           f"-DEXPECTED_CCCL_VERSION={version}", str(HERE / "cub_twins.cu"), "-o", str(exe)]
    subprocess.run(cmd, check=True)
    return exe


BATCH = 10  # launches per timed sample, as in cub_twins.cu: hides host launch overhead behind GPU work


def median_ms(launch, reps: int) -> float:
    """Median over ``reps`` samples of the mean GPU time of BATCH back-to-back launches (CUDA events)."""
    for _ in range(5):
        launch()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = cuda.event(timing=True), cuda.event(timing=True)
        start.record()
        for _ in range(BATCH):
            launch()
        stop.record()
        stop.synchronize()
        times.append(cuda.event_elapsed_time(start, stop) / BATCH)
    return float(np.median(times))


def time_coop(log2n: int, reps: int) -> dict[str, dict[str, object]]:
    n = 1 << log2n
    tiles = n // TILE
    i = np.arange(n, dtype=np.uint64)
    hf = (((i * 2654435761) % 1000) / 1000.0).astype(np.float32)
    hi = (((i * 2654435761) % 7).astype(np.int64) - 3).astype(np.int32)
    xf, xi = cuda.to_device(hf), cuda.to_device(hi)
    partial, yi = cuda.device_array(tiles, np.float32), cuda.device_array(n, np.int32)

    results: dict[str, dict[str, object]] = {}
    start = time.perf_counter()
    tile_sum_f32[tiles, BLOCK](xf, partial)
    cuda.synchronize()
    first = time.perf_counter() - start
    ms = median_ms(lambda: tile_sum_f32[tiles, BLOCK](xf, partial), reps)
    expect = hf[:TILE].astype(np.float64).sum()
    ok = abs(float(partial.copy_to_host()[0]) - expect) <= 1e-3 * max(1.0, abs(expect))
    results["tile_sum_f32"] = {"median_ms": ms, "ok": ok, "first_launch_s": first}

    start = time.perf_counter()
    tile_inclusive_sum_i32[tiles, BLOCK](xi, yi)
    cuda.synchronize()
    first = time.perf_counter() - start
    ms = median_ms(lambda: tile_inclusive_sum_i32[tiles, BLOCK](xi, yi), reps)
    ok = bool(np.array_equal(yi.copy_to_host()[:TILE], np.cumsum(hi[:TILE], dtype=np.int32)))
    results["tile_inclusive_sum_i32"] = {"median_ms": ms, "ok": ok, "first_launch_s": first}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    exe = build_twins(args.out)
    twin_lines = subprocess.run([str(exe), str(args.log2n), str(args.reps)], check=True, capture_output=True,
                                text=True).stdout.splitlines()
    twins = {r["kernel"]: r for r in map(json.loads, twin_lines)}
    ours = time_coop(args.log2n, args.reps)
    device = cuda.get_current_device()
    rows = []
    print(f"device: {device.name.decode() if isinstance(device.name, bytes) else device.name}; n = 2^{args.log2n}; "
          f"block {BLOCK}, {ITEMS} items/thread; median of {args.reps}")
    print(f"{'kernel':<26}{'CUB C++ ms':>12}{'cuda-coop ms':>14}{'ratio':>8}  ok")
    for name, mine in ours.items():
        twin = twins[name]
        ratio = mine["median_ms"] / twin["median_ms"]
        rows.append({"kernel": name, "cub_ms": twin["median_ms"], "coop_ms": mine["median_ms"], "ratio": ratio,
                     "ok": bool(mine["ok"] and twin["ok"]), "coop_first_launch_s": mine["first_launch_s"]})
        print(f"{name:<26}{twin['median_ms']:>12.4f}{mine['median_ms']:>14.4f}{ratio:>8.3f}  {rows[-1]['ok']}")
    (args.out / "results.json").write_text(json.dumps(rows, indent=2))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
