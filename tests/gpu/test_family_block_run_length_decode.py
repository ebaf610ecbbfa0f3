"""``coop.block.run_length_decode`` on the GPU, against ``np.repeat``.

One kernel per case; every block of a 3-block launch decodes its ``block_threads * runs_per_thread`` runs
three ways, each into its own poisoned output region of the block:

- ``a``: from ``run_lengths``, every window in a loop (``window_offset``), with ``relative_offsets`` and
  ``total_decoded_size``;
- ``b``: from ``run_offsets`` (the block-local exclusive prefix sum of the lengths), every window, no
  relative offsets;
- ``c``: from ``run_lengths`` with no ``window_offset`` (the first window only).

Block 0 has random lengths (several windows), block 1 ends with empty runs (CUB allows zero lengths only
at the end), block 2 has no items at all (every run empty). Positions past the block's total stay poisoned.
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
SHAPES = ((1, 4), (4, 1), (3, 2))  # (runs_per_thread, decoded_items_per_thread)
WIDE_SHAPES = ((1, 16), (16, 4))
"""One of these per block: 16 items per thread, decoded or as runs."""
# (value dtype, run length dtype, run offset dtype, decoded offset dtype, relative offset dtype)
TYPES = (
    ("int32", "uint32", "uint32", "uint32", "uint32"),
    ("float64", "uint8", "int32", "int64", "int16"),
    ("uint8", "int16", "int64", "int32", "uint64"),
    ("int64", "uint16", "uint32", "uint64", "int32"),
    ("float32", "int32", "int32", "int64", "uint8"),
)
TILES = 3
MAX_LENGTH = 9


@dataclass(frozen=True)
class Case:
    block: tuple[int, int, int]
    runs: int
    decoded: int
    types: tuple[str, str, str, str, str]

    @property
    def threads(self) -> int:
        return math.prod(self.block)

    @property
    def run_tile(self) -> int:
        return self.threads * self.runs

    @property
    def window(self) -> int:
        return self.threads * self.decoded

    @property
    def region(self) -> int:
        """Output items per block: room for the longest decode, rounded up to whole windows."""
        return -(-self.run_tile * MAX_LENGTH // self.window) * self.window

    @property
    def id(self) -> str:
        return f"{'x'.join(map(str, self.block))}-r{self.runs}-d{self.decoded}-{'-'.join(self.types)}"


def cases() -> list[Case]:
    result = []
    for b, block in enumerate(BLOCKS):
        for s, (runs, decoded) in enumerate((*(SHAPES[:2] if b % 2 else SHAPES), WIDE_SHAPES[b % 2])):
            result.append(Case(block, runs, decoded, TYPES[(b + s) % len(TYPES)]))
    return result


CASES = cases()


def make_kernel(case: Case):
    """The case's kernel (compiled at its first launch)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    VT, LT, OT, DT, RT = (getattr(np, t) for t in case.types)
    R, D, T, W, REGION = case.runs, case.decoded, case.threads, case.window, case.region

    @cuda.jit
    def kernel(values, lengths, offsets, out_a, rel_a, out_b, out_c, totals):
        v = cuda.local.array(R, VT)
        n = cuda.local.array(R, LT)
        o = cuda.local.array(R, OT)
        decoded = cuda.local.array(D, VT)
        rel = cuda.local.array(D, RT)
        total = cuda.local.array(1, DT)
        bid = cuda.blockIdx.x
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        mine = (bid * T + tid) * R
        for i in range(R):
            v[i] = values[mine + i]
            n[i] = lengths[mine + i]
            o[i] = offsets[mine + i]
        region = bid * REGION
        # a: run lengths, every window, relative offsets
        total[0] = 1
        window = DT(0)
        while window < total[0]:
            coop.block.run_length_decode(v, decoded, run_lengths=n, total_decoded_size=total, window_offset=window,
                                         relative_offsets=rel)
            start = np.int64(window) + tid * D  # int64: uint64 + int64 would be float64 in numba
            for i in range(D):
                if start + i < np.int64(total[0]):
                    out_a[region + start + i] = decoded[i]
                    rel_a[region + start + i] = rel[i]
            window = DT(np.int64(window) + W)
        size = total[0]
        if tid == 0:
            totals[bid] = size
        # b: run offsets, every window, no relative offsets
        window = DT(0)
        while window < size:
            coop.block.run_length_decode(v, decoded, run_offsets=o, window_offset=window)
            start = np.int64(window) + tid * D
            for i in range(D):
                if start + i < np.int64(size):
                    out_b[region + start + i] = decoded[i]
            window = DT(np.int64(window) + W)
        # c: run lengths, no window offset: the first window
        coop.block.run_length_decode(v, decoded, run_lengths=n, total_decoded_size=total)
        for i in range(D):
            if tid * D + i < np.int64(total[0]):
                out_c[region + tid * D + i] = decoded[i]

    return kernel


def signature(case: Case) -> tuple:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    vt, lt, ot, dt, rt = (getattr(types, t)[::1] for t in case.types)
    return (vt, lt, ot, vt, rt, vt, vt, dt)


def inputs(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, lengths, block-local run offsets) of all blocks."""
    rng = np.random.default_rng([case.threads, case.runs, case.decoded])
    vt, lt, ot = (np.dtype(t) for t in case.types[:3])
    if vt.kind == "f":
        values = rng.normal(0, 1e6, (TILES, case.run_tile)).astype(vt)
    else:
        info = np.iinfo(vt)
        values = rng.integers(info.min, info.max, (TILES, case.run_tile), dtype=vt, endpoint=True)
    lengths = rng.integers(1, MAX_LENGTH + 1, (TILES, case.run_tile))
    lengths[1, case.run_tile // 2 :] = 0  # trailing empty runs
    lengths[2] = 0  # nothing to decode
    offsets = np.cumsum(lengths, axis=1) - lengths
    return values.reshape(-1), lengths.astype(lt).reshape(-1), offsets.astype(ot).reshape(-1)


def _launch(case: Case) -> None:
    from numba_cuda_mlir import cuda

    values, lengths, offsets = inputs(case)
    vt, rt, dt = np.dtype(case.types[0]), np.dtype(case.types[4]), np.dtype(case.types[3])
    size = TILES * case.region
    poison_v = vt.type(np.nan) if vt.kind == "f" else vt.type(np.iinfo(vt).max)
    poison_r = rt.type(np.iinfo(rt).max)
    outs = [cuda.to_device(np.full(size, poison_v, vt)) for _ in range(3)]
    rel = cuda.to_device(np.full(size, poison_r, rt))
    totals = cuda.to_device(np.zeros(TILES, dt))
    make_kernel(case)[TILES, case.block](cuda.to_device(values), cuda.to_device(lengths), cuda.to_device(offsets),
                                         outs[0], rel, outs[1], outs[2], totals)

    lens = lengths.astype(np.int64).reshape(TILES, case.run_tile)
    vals = values.reshape(TILES, case.run_tile)
    np.testing.assert_array_equal(totals.copy_to_host(), lens.sum(axis=1).astype(dt), err_msg="total_decoded_size")
    got = [o.copy_to_host().reshape(TILES, case.region) for o in outs]
    got_rel = rel.copy_to_host().reshape(TILES, case.region)
    for t in range(TILES):
        decoded = np.repeat(vals[t], lens[t])
        relative = np.concatenate([np.arange(k) for k in lens[t]]).astype(rt)
        full = np.full(case.region, poison_v, vt)
        full[: decoded.size] = decoded
        first = full.copy()
        first[case.window :] = poison_v
        rel_full = np.full(case.region, poison_r, rt)
        rel_full[: relative.size] = relative
        np.testing.assert_array_equal(got[0][t], full, err_msg=f"block {t}: lengths, windows")
        np.testing.assert_array_equal(got_rel[t], rel_full, err_msg=f"block {t}: relative offsets")
        np.testing.assert_array_equal(got[1][t], full, err_msg=f"block {t}: offsets, windows")
        np.testing.assert_array_equal(got[2][t], first, err_msg=f"block {t}: first window")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_run_length_decode(case: Case) -> None:
    _launch(case)


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    """``tests/gpu/_sanitizer_block_run_length_decode.py`` under compute-sanitizer: right results, nothing found."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    command = [_sanitizer(), "--tool", tool, "--target-processes", "all", sys.executable, "-m",
               "tests.gpu._sanitizer_block_run_length_decode"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=540, check=False)
    output = (result.stdout + result.stderr).replace("\x00", " ")
    assert "ALL OK" in output, f"the kernel did not run correctly under {tool}:\n{output[-6000:]}"
    assert output.count("OK block_run_length_decode ") == 2, output[-6000:]
    counts = summary_counts(tool, output)
    assert not any(counts.values()), f"{tool}: {counts}\n{output[-6000:]}"
    assert result.returncode == 0, f"exit status {result.returncode}:\n{output[-6000:]}"
