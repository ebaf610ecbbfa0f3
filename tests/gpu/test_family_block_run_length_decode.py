"""``coop.block.run_length_decode`` on the GPU, against ``np.repeat``.

One kernel per case (block x (runs_per_thread, decoded_items_per_thread)) holds a run of every one of the ten value
dtypes (one inlined device function each), each with its own integer types for the run lengths, run offsets,
decoded size and relative offsets, rotating over ``TYPES`` so that every value dtype meets several of them. 4096 runs
of 8-byte values (256 threads x 16 runs, 1024 x 4) are over the shared memory a block may have whatever the offset
type: those runs are left out (the documented error, asserted in the compile tier). Every
block of a 3-block launch decodes its ``block_threads * runs_per_thread`` runs three ways, each into its own
poisoned output region of the block:

- ``a``: from ``run_lengths``, every window in a loop (``window_offset``), with ``relative_offsets`` and
  ``total_decoded_size``;
- ``b``: from ``run_offsets`` (the block-local exclusive prefix sum of the lengths), every window, no
  relative offsets;
- ``c``: from ``run_lengths`` with no ``window_offset`` (the first window only).

Block 0 has random lengths (several windows), block 1 ends with empty runs (CUB allows zero lengths only
at the end), block 2 has no items at all (every run empty). Positions past the block's total stay poisoned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import DTYPES
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Threads

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
INDEX_TYPES = tuple(t[1:] for t in TYPES)
"""The integer types of a run (lengths, offsets, decoded size, relative offsets), rotating over the value dtypes."""
VALUE_TYPES = DTYPES
TILES = 3
MAX_LENGTH = 9
STORAGE_BYTES = 40 * 1024
"""The most a run's storage may take in a case: CUB keeps every run's value and decoded offset in shared memory, of
which a block may statically have 48 KiB (4096 runs of 8-byte values are refused at compile time)."""


@dataclass(frozen=True)
class Run(Threads):
    """One value dtype's decode in a case's kernel."""

    block: tuple[int, int, int]
    runs: int
    decoded: int
    types: tuple[str, str, str, str, str]

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
    def fits(self) -> bool:
        """Whether CUB's storage (every run's value and decoded offset) takes at most ``STORAGE_BYTES``."""
        sizes = np.dtype(self.types[0]).itemsize + np.dtype(self.types[3]).itemsize
        return self.run_tile * sizes <= STORAGE_BYTES

    @property
    def id(self) -> str:
        return f"{'x'.join(map(str, self.block))}-r{self.runs}-d{self.decoded}-{'-'.join(self.types)}"


@dataclass(frozen=True)
class Case(Threads):
    """One kernel: a block and (runs, decoded items) per thread, a run of every value dtype."""

    block: tuple[int, int, int]
    runs: int
    decoded: int
    offset: int = 0
    """Where the value dtypes start in the rotation of ``INDEX_TYPES``."""

    @property
    def run_list(self) -> tuple[Run, ...]:
        """A run per value dtype, with the first index types of the rotation whose storage fits (``fits``); a value
        dtype that fits with none is left out (its storage is refused at compile time: the documented error)."""
        result = []
        for k, v in enumerate(VALUE_TYPES):
            options = [(v, *INDEX_TYPES[(self.offset + k + j) % len(INDEX_TYPES)]) for j in range(len(INDEX_TYPES))]
            run = next((r for t in options if (r := Run(self.block, self.runs, self.decoded, t)).fits), None)
            if run is not None:
                result.append(run)
        return tuple(result)

    @property
    def id(self) -> str:
        return f"{'x'.join(map(str, self.block))}-r{self.runs}-d{self.decoded}"


def cases() -> list[Case]:
    result = []
    for b, block in enumerate(BLOCKS):
        for s, (runs, decoded) in enumerate((*(SHAPES[:2] if b % 2 else SHAPES), WIDE_SHAPES[b % 2])):
            result.append(Case(block, runs, decoded, b + s))
    return result


CASES = cases()


def _run_function(case: Run, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """One value dtype's decodes (a device function inlined into its case's kernel)."""
    cuda = dsl.cuda

    import cuda.coop as coop

    VT, LT, OT, DT, RT = (getattr(np, t) for t in case.types)
    R, D, T, W, REGION = case.runs, case.decoded, case.threads, case.window, case.region

    @cuda.jit(device=True)
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


ARGS = ("values", "lengths", "offsets", "out_a", "rel_a", "out_b", "out_c", "totals")


def make_kernel(case: Case | Run, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The case's kernel (compiled at its first launch): for each run, in turn, its ``ARGS``. A ``Run`` alone makes a
    kernel of that run only."""
    import linecache

    cuda = dsl.cuda

    runs = case.run_list if isinstance(case, Case) else (case,)
    env, args, lines = {}, [], []
    for k, run in enumerate(runs):
        env[f"decode{k}"] = _run_function(run, dsl=dsl)
        names = [f"{a}{k}" for a in ARGS]
        args += names
        lines.append(f"    decode{k}({', '.join(names)})")
    name = "rld_" + "".join(ch if ch.isalnum() else "_" for ch in case.id)
    source = f"def {name}({', '.join(args)}):\n" + "\n".join(lines) + "\n"
    filename = f"<run-length decode kernel {case.id}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), env)  # one kernel whatever the number of runs
    return cuda.jit(env[name])


def signature(case: Case | Run, *, dsl: Dsl = NUMBA_MLIR) -> tuple:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    types = dsl.types

    sig: list = []
    for run in case.run_list if isinstance(case, Case) else (case,):
        vt, lt, ot, dt, rt = (getattr(types, t)[::1] for t in run.types)
        sig += [vt, lt, ot, vt, rt, vt, vt, dt]
    return tuple(sig)


def inputs(case: Run, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, lengths, block-local run offsets) of all blocks."""
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


def _launch(case: Case, rng: np.random.Generator, *, dsl: Dsl = NUMBA_MLIR) -> None:
    cuda = dsl.cuda

    args, checks = [], []
    for run in case.run_list:
        values, lengths, offsets = inputs(run, rng)
        vt, rt, dt = np.dtype(run.types[0]), np.dtype(run.types[4]), np.dtype(run.types[3])
        size = TILES * run.region
        poison_v = vt.type(np.nan) if vt.kind == "f" else vt.type(np.iinfo(vt).max)
        poison_r = rt.type(np.iinfo(rt).max)
        outs = [cuda.to_device(np.full(size, poison_v, vt)) for _ in range(3)]
        rel = cuda.to_device(np.full(size, poison_r, rt))
        totals = cuda.to_device(np.zeros(TILES, dt))
        args += [cuda.to_device(values), cuda.to_device(lengths), cuda.to_device(offsets), outs[0], rel, outs[1],
                 outs[2], totals]
        checks.append((run, values, lengths, poison_v, poison_r, outs, rel, totals))
    make_kernel(case, dsl=dsl)[TILES, case.block](*args)
    for check in checks:
        _check(*check)


def _check(run: Run, values, lengths, poison_v, poison_r, outs, rel, totals) -> None:  # type: ignore[no-untyped-def]
    vt, rt, dt = np.dtype(run.types[0]), np.dtype(run.types[4]), np.dtype(run.types[3])
    what = run.id
    lens = lengths.astype(np.int64).reshape(TILES, run.run_tile)
    vals = values.reshape(TILES, run.run_tile)
    np.testing.assert_array_equal(totals.copy_to_host(), lens.sum(axis=1).astype(dt), err_msg=f"{what}: total size")
    got = [o.copy_to_host().reshape(TILES, run.region) for o in outs]
    got_rel = rel.copy_to_host().reshape(TILES, run.region)
    for t in range(TILES):
        decoded = np.repeat(vals[t], lens[t])
        relative = np.concatenate([np.arange(k) for k in lens[t]]).astype(rt)
        full = np.full(run.region, poison_v, vt)
        full[: decoded.size] = decoded
        first = full.copy()
        first[run.window :] = poison_v
        rel_full = np.full(run.region, poison_r, rt)
        rel_full[: relative.size] = relative
        np.testing.assert_array_equal(got[0][t], full, err_msg=f"{what} block {t}: lengths, windows")
        np.testing.assert_array_equal(got_rel[t], rel_full, err_msg=f"{what} block {t}: relative offsets")
        np.testing.assert_array_equal(got[1][t], full, err_msg=f"{what} block {t}: offsets, windows")
        np.testing.assert_array_equal(got[2][t], first, err_msg=f"{what} block {t}: first window")


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_run_length_decode(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    _launch(case, rng, dsl=dsl)


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """``tests/gpu/_sanitizer_block_run_length_decode.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_block_run_length_decode", tool, "block_run_length_decode", 2, rng=rng)
