"""``coop.block.histogram`` / ``histogram_composite`` on the GPU, against ``np.bincount``.

One kernel per case; every block of a 3-tile launch counts its tile four ways: ``histogram`` into shared
counters with ``"sort"`` and (counter types ``atomicAdd_block`` takes) ``"atomic"``, and
``histogram_composite`` with each algorithm onto global counters the host pre-filled with random counts
(one row per block: counters are never shared between blocks). Block 1 holds one value only (one long
run for ``"sort"``, full contention for ``"atomic"``), block 2 only the two extreme bins, block 0 random
samples over ``[0, bins)``. Counters past ``bins`` are a poisoned guard that must stay untouched, and the
samples must come back unchanged (CUB's ``"sort"`` sorts the array it is given; the wrapper passes a copy).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu.test_sanitizer import ROOT, _sanitizer, summary_counts

BLOCKS = ((32, 1, 1), (128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4), (256, 1, 1), (1024, 1, 1))
ITEMS = (1, 4, 16)
TILE_BYTES = 32 * 1024
"""The largest tile of samples a case sorts: ``"sort"`` exchanges the tile through shared memory, of which a block
may statically have 48 KiB (1024 threads x 16 samples of 4 or 8 bytes are refused at compile time)."""
# (sample dtype, counter dtype, bins): 8- and 16-bit samples, integer samples in a bin range
TYPES = (
    ("uint8", "uint32", 256),
    ("uint16", "uint32", 1000),
    ("int32", "int32", 37),
    ("int64", "uint64", 5),
    ("int8", "int64", 100),  # "sort" only: atomicAdd_block has no 64-bit signed overload
    ("uint32", "uint16", 300),  # "sort" only
    ("int16", "uint32", 1024),
)
ATOMIC_COUNTERS = ("int32", "uint32", "uint64")
TILES = 3
GUARD = 8


@dataclass(frozen=True)
class Case:
    dtype: str
    counter: str
    bins: int
    block: tuple[int, int, int]
    ipt: int

    @property
    def threads(self) -> int:
        return math.prod(self.block)

    @property
    def tile(self) -> int:
        return self.threads * self.ipt

    @property
    def atomic(self) -> bool:
        return self.counter in ATOMIC_COUNTERS

    @property
    def id(self) -> str:
        return f"{self.dtype}-{self.counter}-bins{self.bins}-{'x'.join(map(str, self.block))}-ipt{self.ipt}"


def cases() -> list[Case]:
    result = []
    for b, block in enumerate(BLOCKS):
        for i, ipt in enumerate(ITEMS):
            fits = [t for j in range(len(TYPES)) if math.prod(block) * ipt
                    * np.dtype((t := TYPES[(2 * b + i + j) % len(TYPES)])[0]).itemsize <= TILE_BYTES]
            result.append(Case(*fits[0], block, ipt))
    return result


CASES = cases()


def make_kernel(case: Case):
    """The case's kernel (compiled at its first launch)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    DT, CT, IPT, BINS, TILE, T = getattr(np, case.dtype), getattr(np, case.counter), case.ipt, case.bins, \
        case.tile, case.threads
    ROW = BINS + GUARD
    ATOMIC = case.atomic

    @cuda.jit
    def kernel(x, poison, back, sort_out, atomic_out, comp_sort, comp_atomic):
        samples = cuda.local.array(IPT, DT)
        by_sort = cuda.shared.array(ROW, CT)
        by_atomic = cuda.shared.array(ROW, CT)
        bid = cuda.blockIdx.x
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        mine = bid * TILE + tid * IPT
        for i in range(IPT):
            samples[i] = x[mine + i]
        for j in range(tid, ROW, T):  # the counters hold garbage: histogram() zeroes [0, bins) itself
            by_sort[j] = poison
            by_atomic[j] = poison
        cuda.syncthreads()
        coop.block.histogram(samples, by_sort, bins=BINS)
        if ATOMIC:
            coop.block.histogram(samples, by_atomic, bins=BINS, algorithm="atomic")
        coop.block.histogram_composite(samples, comp_sort[bid], bins=BINS, algorithm="sort")
        if ATOMIC:
            coop.block.histogram_composite(samples, comp_atomic[bid], bins=BINS, algorithm="atomic")
        cuda.syncthreads()
        for j in range(tid, ROW, T):
            sort_out[bid * ROW + j] = by_sort[j]
            atomic_out[bid * ROW + j] = by_atomic[j]
        for i in range(IPT):
            back[mine + i] = samples[i]

    return kernel


def signature(case: Case) -> tuple:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    samples, counters = getattr(types, case.dtype)[::1], getattr(types, case.counter)
    return (samples, counters, samples, counters[::1], counters[::1], counters[:, ::1], counters[:, ::1])


def inputs(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """(samples of all tiles, baseline counters of the composite rows with their guard)."""
    rng = np.random.default_rng([case.threads, case.ipt, case.bins])
    dt, ct = np.dtype(case.dtype), np.dtype(case.counter)
    x = rng.integers(0, case.bins, (TILES, case.tile)).astype(dt)
    x[1] = case.bins - 1
    x[2] = np.where(rng.integers(0, 2, case.tile) == 1, case.bins - 1, 0)
    base = np.full((TILES, case.bins + GUARD), np.iinfo(ct).max, ct)
    base[:, : case.bins] = rng.integers(0, 1000, (TILES, case.bins))
    return x.reshape(-1), base


def _launch(case: Case) -> None:
    from numba_cuda_mlir import cuda

    x, base = inputs(case)
    ct = np.dtype(case.counter)
    poison_samples = np.full_like(x, np.iinfo(x.dtype).max)
    row = case.bins + GUARD
    outs = [cuda.to_device(np.zeros(TILES * row, ct)) for _ in range(2)]
    comp = [cuda.to_device(base) for _ in range(2)]
    back = cuda.to_device(poison_samples)
    poison = ct.type(np.iinfo(ct).max)  # an argument: numba-cuda-mlir 0.5.4 cannot lower a uint64 max literal
    make_kernel(case)[TILES, case.block](cuda.to_device(x), poison, back, *outs, *comp)

    counts = np.stack([np.bincount(t.astype(np.int64), minlength=case.bins) for t in x.reshape(TILES, case.tile)])
    assert counts.shape == (TILES, case.bins)
    guard = np.full((TILES, GUARD), np.iinfo(ct).max, ct)
    expected_fresh = np.concatenate([counts.astype(ct), guard], axis=1)
    expected_comp = base.copy()
    expected_comp[:, : case.bins] += counts.astype(ct)
    np.testing.assert_array_equal(back.copy_to_host(), x, err_msg="samples changed")
    np.testing.assert_array_equal(outs[0].copy_to_host().reshape(TILES, row), expected_fresh, err_msg="sort")
    np.testing.assert_array_equal(comp[0].copy_to_host(), expected_comp, err_msg="composite sort")
    if case.atomic:
        np.testing.assert_array_equal(outs[1].copy_to_host().reshape(TILES, row), expected_fresh, err_msg="atomic")
        np.testing.assert_array_equal(comp[1].copy_to_host(), expected_comp, err_msg="composite atomic")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_histogram(case: Case) -> None:
    _launch(case)


def test_atomic_with_a_counter_type_atomic_add_block_lacks_is_refused_at_launch() -> None:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop
    from cuda.coop.errors import UsageError

    @cuda.jit
    def wide_counters(x, counters):
        samples = cuda.local.array(2, np.uint8)
        samples[0] = x[cuda.threadIdx.x]
        samples[1] = x[cuda.threadIdx.x]
        coop.block.histogram(samples, counters, bins=256, algorithm="atomic")

    with pytest.raises(UsageError, match=r"algorithm='atomic' adds with atomicAdd_block.*counters= holds int64"):
        wide_counters[1, 64](cuda.to_device(np.zeros(64, np.uint8)), cuda.to_device(np.zeros(256, np.int64)))


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    """``tests/gpu/_sanitizer_block_histogram.py`` under compute-sanitizer: right results, nothing found."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    command = [_sanitizer(), "--tool", tool, "--target-processes", "all", sys.executable, "-m",
               "tests.gpu._sanitizer_block_histogram"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=540, check=False)
    output = (result.stdout + result.stderr).replace("\x00", " ")
    assert "ALL OK" in output, f"the kernel did not run correctly under {tool}:\n{output[-6000:]}"
    assert output.count("OK block_histogram ") == 2, output[-6000:]
    counts = summary_counts(tool, output)
    assert not any(counts.values()), f"{tool}: {counts}\n{output[-6000:]}"
    assert result.returncode == 0, f"exit status {result.returncode}:\n{output[-6000:]}"
