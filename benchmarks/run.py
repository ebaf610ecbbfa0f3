"""cuda-coop kernels against their hand-written CUB C++ twins (cub_twins.cu), timed in the same run.

    python benchmarks/run.py [--log2n 28] [--reps 50] [--out DIR]

Builds cub_twins.cu with nvcc against the CCCL that cuda-coop bundles, twice: a cubin whose
kernels this process launches through cuda.core, alternating with the cuda-coop kernels on one
stream (same data, same clocks: the ratios reported), and the standalone program, whose own
timings are printed as a cross-check. Each sample is the mean of BATCH back-to-back launches
between CUDA events, queued behind a spin kernel that holds the stream (``_timing``: the GPU's time
only, not Python's launch calls); the figure is the median over --reps samples. Writes results.json to --out.
Needs a GPU.

Kernels (256 threads, 16 items per thread, n = 2**log2n items, one tile per block, the same on both sides):

- ``tile_sum_f32``: the quickstart's kernel (transpose load, block sum) with the twin's reduction
  algorithm given explicitly (``warp_reductions``, CUB's default), so both sides run the same code
  whatever ``algorithm="auto"`` picks; ``tile_inclusive_sum_i32`` likewise pins ``raking``.
- ``tile_inclusive_sum_i32``: transpose load, block inclusive sum, transpose store.
- ``exchange_b2s_i32``: vectorized blocked load, ``blocked_to_striped`` in place
  (``cub::BlockExchange::BlockedToStriped``), striped direct store: a copy of the input ``0, 1, 2, ...``,
  checked in full (a wrong permutation shows).
- ``histogram_sort_u8`` / ``histogram_atomic_u8``: vectorized blocked load of the tile's bytes,
  ``coop.block.histogram`` with 256 bins into shared uint32 counters (``cub::BlockHistogram`` with
  ``BLOCK_HISTO_SORT`` / ``BLOCK_HISTO_ATOMIC`` on both sides), then one global ``atomicAdd`` per bin;
  checked against ``np.bincount`` of all n bytes.
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
from quickstart import ITEMS, TILE  # noqa: E402  (the quickstart's tile shape)
from quickstart import THREADS as BLOCK  # noqa: E402

sys.path.insert(0, str(HERE))
from _timing import BATCH, HeldTimer  # noqa: E402  (the benchmarks' shared sampling)


@cuda.jit
def tile_sum_f32(x, partial):
    items = cuda.local.array(ITEMS, np.float32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * TILE, algorithm="transpose")
    total = coop.block.sum(items, algorithm="warp_reductions")
    if cuda.threadIdx.x == 0:
        partial[cuda.blockIdx.x] = total


@cuda.jit
def tile_inclusive_sum_i32(x, y):
    items = cuda.local.array(ITEMS, np.int32)
    offset = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=offset, algorithm="transpose")
    coop.block.inclusive_sum(items, algorithm="raking")
    coop.block.store(y, items, offset=offset, algorithm="transpose")


@cuda.jit
def exchange_b2s_i32(x, y):
    items = cuda.local.array(ITEMS, np.int32)
    offset = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=offset, algorithm="vectorize")
    coop.block.blocked_to_striped(items)
    coop.block.store(y, items, offset=offset, algorithm="striped")


BINS = 256
assert BLOCK == BINS, "one thread per bin adds the block's counts to the global histogram"


@cuda.jit
def histogram_sort_u8(data, hist):
    samples = cuda.local.array(ITEMS, np.uint8)
    counts = cuda.shared.array(BINS, np.uint32)
    coop.block.load(data, samples, offset=cuda.blockIdx.x * TILE, algorithm="vectorize")
    coop.block.histogram(samples, counts, bins=BINS, algorithm="sort")
    cuda.syncthreads()
    cuda.atomic.add(hist, cuda.threadIdx.x, counts[cuda.threadIdx.x])


@cuda.jit
def histogram_atomic_u8(data, hist):
    samples = cuda.local.array(ITEMS, np.uint8)
    counts = cuda.shared.array(BINS, np.uint32)
    coop.block.load(data, samples, offset=cuda.blockIdx.x * TILE, algorithm="vectorize")
    coop.block.histogram(samples, counts, bins=BINS, algorithm="atomic")
    cuda.syncthreads()
    cuda.atomic.add(hist, cuda.threadIdx.x, counts[cuda.threadIdx.x])


def build_twins(out: Path) -> tuple[Path, Path]:
    """The standalone program and a cubin of the same kernels (nvcc, the bundle's CCCL first)."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    bundle = coop.header_bundle()
    major, minor, patch = (int(p) for p in bundle.provenance.cccl_version.split("."))
    cc = cuda.get_current_device().compute_capability
    version = major * 1000000 + minor * 1000 + patch
    common = [nvcc, "-O3", "-std=c++17", f"-arch=sm_{cc[0]}{cc[1]}", f"-I{bundle.include_dir}",
              f"-DEXPECTED_CCCL_VERSION={version}", str(HERE / "cub_twins.cu")]
    exe, cubin = out / "cub_twins", out / "cub_twins.cubin"
    subprocess.run([*common, "-o", str(exe)], check=True)
    subprocess.run([*common, "-cubin", "-o", str(cubin)], check=True)
    return exe, cubin


def _pointer(array) -> np.uint64:
    """A device array's address as a kernel argument (cuda.core passes it by value)."""
    return np.uint64(array.__cuda_array_interface__["data"][0])


def time_interleaved(cubin: Path, log2n: int, reps: int) -> dict[str, dict[str, object]]:
    """CUB twin and cuda-coop kernel launched alternately on one stream; medians of both and checks."""
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    device = Device()
    device.set_current()
    stream = device.create_stream()
    on_stream = cuda.external_stream(int(stream.handle))
    module = ObjectCode.from_cubin(cubin.read_bytes())
    n = 1 << log2n
    tiles = n // TILE
    i = np.arange(n, dtype=np.uint64)
    hf = (((i * 2654435761) % 1000) / 1000.0).astype(np.float32)
    hi = (((i * 2654435761) % 7).astype(np.int64) - 3).astype(np.int32)
    xf, xi = cuda.to_device(hf), cuda.to_device(hi)
    partial, yi = cuda.device_array(tiles, np.float32), cuda.device_array(n, np.int32)
    config = LaunchConfig(grid=tiles, block=BLOCK)
    zeros = np.zeros(n, np.int32)
    he = np.arange(n, dtype=np.int32)  # exchange input: any wrong permutation shows in the copy
    hb = ((i * 2654435761) >> 16 & 255).astype(np.uint8)  # as cub_twins.cu's bytes
    xe, xb = cuda.to_device(he), cuda.to_device(hb)
    hist = cuda.device_array(BINS, np.uint32)
    expect_hist = np.bincount(hb, minlength=BINS).astype(np.uint32)

    def twin(name: str, *arrays):
        kernel = module.get_kernel(name)
        return lambda: launch(stream, config, kernel, *(_pointer(a) for a in arrays))

    kernels = {
        "tile_sum_f32": (twin("tile_sum_f32", xf, partial),
                         lambda: tile_sum_f32[tiles, BLOCK, on_stream](xf, partial)),
        "tile_inclusive_sum_i32": (twin("tile_inclusive_sum_i32", xi, yi),
                                   lambda: tile_inclusive_sum_i32[tiles, BLOCK, on_stream](xi, yi)),
        "exchange_b2s_i32": (twin("exchange_b2s_i32", xe, yi),
                             lambda: exchange_b2s_i32[tiles, BLOCK, on_stream](xe, yi)),
        "histogram_sort_u8": (twin("histogram_sort_u8", xb, hist),
                              lambda: histogram_sort_u8[tiles, BLOCK, on_stream](xb, hist)),
        "histogram_atomic_u8": (twin("histogram_atomic_u8", xb, hist),
                                lambda: histogram_atomic_u8[tiles, BLOCK, on_stream](xb, hist)),
    }
    timer = HeldTimer(stream)

    def sample(launch_once) -> float:
        return timer.sample(launch_once)[0]

    results: dict[str, dict[str, object]] = {}
    expect_sum = hf[:TILE].astype(np.float64).sum()
    expect_scan = np.cumsum(hi[:TILE], dtype=np.int32)
    for name, (cub_launch, coop_launch) in kernels.items():
        start = time.perf_counter()
        coop_launch()
        stream.sync()
        first = time.perf_counter() - start
        checks = []
        for launch_once in (cub_launch, coop_launch):  # each result is checked, not only timed
            partial.copy_to_device(np.zeros(tiles, np.float32))
            yi.copy_to_device(zeros)
            hist.copy_to_device(np.zeros(BINS, np.uint32))
            launch_once()
            stream.sync()
            if name == "tile_sum_f32":
                checks.append(abs(float(partial.copy_to_host()[0]) - expect_sum) <= 1e-3 * max(1.0, abs(expect_sum)))
            elif name == "exchange_b2s_i32":
                checks.append(bool(np.array_equal(yi.copy_to_host(), he)))
            elif name.startswith("histogram_"):
                checks.append(bool(np.array_equal(hist.copy_to_host(), expect_hist)))
            else:
                checks.append(bool(np.array_equal(yi.copy_to_host()[:TILE], expect_scan)))
        for _ in range(5):
            cub_launch()
            coop_launch()
        cub_ms, coop_ms = [], []
        for rep in range(reps):  # alternate which goes first
            pair = ((cub_ms, cub_launch), (coop_ms, coop_launch))
            for times, launch_once in (pair if rep % 2 == 0 else pair[::-1]):
                times.append(sample(launch_once))
        results[name] = {"cub_ms": float(np.median(cub_ms)), "coop_ms": float(np.median(coop_ms)),
                         "ok": all(checks), "coop_first_launch_s": first}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    exe, cubin = build_twins(args.out)
    # The standalone program is a cross-check: a failure there is reported next to each row, never hidden.
    proc = subprocess.run([str(exe), str(args.log2n), str(args.reps)], check=False, capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    standalone = {r["kernel"]: r for r in map(json.loads, lines)}
    if proc.returncode != 0:
        print(f"standalone CUB program exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    measured = time_interleaved(cubin, args.log2n, args.reps)
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else device.name
    print(f"device: {name}; n = 2^{args.log2n}; block {BLOCK}, {ITEMS} items/thread; median of {args.reps} samples "
          f"of {BATCH} launches; CUB and cuda-coop alternate on one stream")
    print(f"{'kernel':<26}{'CUB C++ ms':>12}{'cuda-coop ms':>14}{'ratio':>8}  ok    "
          "(standalone CUB program: ms, its own check)")
    rows = []
    for kernel, m in measured.items():
        ratio = m["coop_ms"] / m["cub_ms"]
        alone = standalone.get(kernel, {"median_ms": float("nan"), "ok": False})
        rows.append({"kernel": kernel, **m, "ratio": ratio, "ok": bool(m["ok"]),
                     "standalone_cub_ms": alone["median_ms"], "standalone_ok": bool(alone["ok"])})
        print(f"{kernel:<26}{m['cub_ms']:>12.4f}{m['coop_ms']:>14.4f}{ratio:>8.3f}  {bool(m['ok'])!s:<5} "
              f"({alone['median_ms']:.4f}, {'ok' if alone['ok'] else 'WRONG'})")
    (args.out / "results.json").write_text(json.dumps(rows, indent=2))
    return 0 if all(r["ok"] and r["standalone_ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
