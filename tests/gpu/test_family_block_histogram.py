"""``coop.block.histogram`` / ``histogram_init`` / ``histogram_composite`` on the GPU, against ``np.bincount``.

One kernel per (block, items per thread), 7 blocks x items 1, 4, 16, holds every (sample, counter) type pair of
``TYPES`` (one inlined device function per pair, so a kernel's NVRTC compile covers all seven). Every block of a
3-tile launch counts its tile, for each pair:

- ``histogram`` into poisoned shared counters with ``"sort"`` and (counter types ``atomicAdd_block`` takes)
  ``"atomic"``;
- ``histogram_composite`` with each of those algorithms onto global counters the host pre-filled with random counts
  (one row per block: counters are never shared between blocks);
- ``histogram_init`` of poisoned shared counters, then one ``histogram_composite`` call site in a loop over its own
  tile and the next block's (``"atomic"`` where the counters allow it, else ``"sort"``): the counters hold the sum of
  both tiles' counts, where each ``histogram`` call keeps only its own tile's.

Block 1 holds one value only (one long run for ``"sort"``, full contention for ``"atomic"``), block 2 only the two
extreme bins, block 0 random samples over ``[0, bins)``. Counters past ``bins`` are a poisoned guard that must stay
untouched, and the samples must come back unchanged (CUB's ``"sort"`` sorts the array it is given; the wrapper
passes a copy). ``"sort"`` exchanges the tile through shared memory: 1024 threads x 16 samples of 4 or 8 bytes are
over the 48 KiB a block may have and refused at compile time (the documented error, asserted in the compile tier),
so there those pairs run ``"atomic"`` only, where their counters allow it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Tile

BLOCKS = ((32, 1, 1), (128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4), (256, 1, 1), (1024, 1, 1))
ITEMS = (1, 4, 16)
TILE_BYTES = 32 * 1024
"""The largest tile of samples a case sorts: ``"sort"`` exchanges the tile through shared memory, of which a block
may statically have 48 KiB (1024 threads x 16 samples of 4 or 8 bytes are refused at compile time)."""
# (sample dtype, counter dtype, bins): every integer width of sample and counter, bins from 5 to 1024
TYPES = (
    ("uint8", "uint32", 256),
    ("uint16", "uint32", 1000),
    ("int32", "int32", 37),
    ("int64", "uint64", 5),
    ("int8", "int64", 100),  # "sort" only: atomicAdd_block has no 64-bit signed overload
    ("uint32", "uint16", 300),  # "sort" only
    ("int16", "uint32", 1024),
    ("uint64", "int16", 64),  # "sort" only
    ("int16", "uint8", 7),  # "sort" only; 8-bit counters wrap like C++ (a whole tile in one bin)
)
ATOMIC_COUNTERS = ("int32", "uint32", "uint64")
TILES = 3
GUARD = 8
KINDS = ("sort", "atomic", "init_acc")
"""The shared-counter results of a pair, one row per tile each: ``histogram`` by each algorithm, and
``histogram_init`` + two ``histogram_composite``."""


@dataclass(frozen=True)
class Pair:
    """One (sample, counter, bins) of a case, and the algorithms it runs there."""

    dtype: str
    counter: str
    bins: int
    sort: bool
    atomic: bool

    @property
    def row(self) -> int:
        return self.bins + GUARD


@dataclass(frozen=True)
class Case(Tile):
    block: tuple[int, int, int]
    ipt: int

    def sorts(self, dtype: str) -> bool:
        """Whether ``"sort"`` fits for samples of ``dtype`` (else CUB's storage is refused at compile time)."""
        return self.tile * np.dtype(dtype).itemsize <= TILE_BYTES

    @property
    def pairs(self) -> tuple[Pair, ...]:
        """Every type pair that runs an algorithm here (one refused by both runs nothing: see the compile tier)."""
        all_ = (Pair(d, c, b, self.sorts(d), c in ATOMIC_COUNTERS) for d, c, b in TYPES)
        return tuple(p for p in all_ if p.sort or p.atomic)

    @property
    def id(self) -> str:
        return f"{'x'.join(map(str, self.block))}-ipt{self.ipt}"


CASES = [Case(block, ipt) for block in BLOCKS for ipt in ITEMS]


def _pair_function(case: Case, pair: Pair, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The device function counting one pair's tiles (inlined into the case's kernel)."""
    cuda = dsl.cuda

    import cuda.coop as coop

    DT, IPT, BINS, TILE, T, ROW = getattr(np, pair.dtype), case.ipt, pair.bins, case.tile, case.threads, pair.row
    SORT, ATOMIC, N = pair.sort, pair.atomic, TILES * pair.row
    ACC = "atomic" if ATOMIC else "sort"

    @cuda.jit(device=True)
    def count(x, back, out, comp, poison, shared, bid, tid):
        samples = cuda.local.array(IPT, DT)
        mine = bid * TILE + tid * IPT
        for i in range(IPT):
            samples[i] = x[mine + i]
        # histogram: the counters hold garbage, it zeroes [0, bins) itself; histogram_composite adds to the host's
        # counts in global memory (one row per block)
        if SORT:
            for j in range(tid, ROW, T):
                shared[j] = poison
            cuda.syncthreads()
            coop.block.histogram(samples, shared, bins=BINS, algorithm="sort")
            coop.block.histogram_composite(samples, comp[0 * TILES + bid], bins=BINS, algorithm="sort")
            cuda.syncthreads()
            for j in range(tid, ROW, T):
                out[0 * N + bid * ROW + j] = shared[j]
            cuda.syncthreads()
        if ATOMIC:
            for j in range(tid, ROW, T):
                shared[j] = poison
            cuda.syncthreads()
            coop.block.histogram(samples, shared, bins=BINS, algorithm="atomic")
            coop.block.histogram_composite(samples, comp[1 * TILES + bid], bins=BINS, algorithm="atomic")
            cuda.syncthreads()
            for j in range(tid, ROW, T):
                out[1 * N + bid * ROW + j] = shared[j]
            cuda.syncthreads()
        for i in range(IPT):
            back[mine + i] = samples[i]
        # histogram_init, then this block's tile and the next block's added to the same counters (one call site)
        for j in range(tid, ROW, T):
            shared[j] = poison
        cuda.syncthreads()
        coop.block.histogram_init(shared, bins=BINS)
        cuda.syncthreads()
        for t in range(2):
            start = (bid + t) % TILES * TILE + tid * IPT
            for i in range(IPT):
                samples[i] = x[start + i]
            coop.block.histogram_composite(samples, shared, bins=BINS, algorithm=ACC)
        cuda.syncthreads()
        for j in range(tid, ROW, T):
            out[2 * N + bid * ROW + j] = shared[j]
        cuda.syncthreads()

    return count


COUNTERS = ("uint32", "int32", "uint64", "int64", "uint16", "int16", "uint8")
PAIR_ARGS = ("x", "back", "out", "comp", "poison")
"""A pair's kernel arguments: samples of all tiles, their copy back, the ``KINDS`` rows, the composite rows of
each algorithm (the host's counts), and the counters' poison value."""


def make_kernel(case: Case, pairs: tuple[Pair, ...] | None = None, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The case's kernel (compiled at its first launch): the arguments of each pair in turn (``PAIR_ARGS``), one
    shared buffer per counter type, reused by the pairs one after the other (a device function each). ``pairs``:
    some of the case's pairs only (the compile tier's one-pair kernels), else all of them."""
    import linecache

    cuda = dsl.cuda

    pairs = case.pairs if pairs is None else pairs
    env: dict = {"cuda": cuda, "np": np}
    args, lines = [], []
    for c in COUNTERS:
        rows = [p.row for p in pairs if p.counter == c]
        if rows:
            lines.append(f"    sh_{c} = cuda.shared.array({max(rows)}, np.{c})")
    for k, pair in enumerate(pairs):
        env[f"count{k}"] = _pair_function(case, pair, dsl=dsl)
        names = [f"{a}{k}" for a in PAIR_ARGS]
        args += names
        lines.append(f"    count{k}({', '.join(names)}, sh_{pair.counter}, bid, tid)")
    name = f"kernel_{case.id.replace('-', '_')}_{len(pairs)}"
    source = "\n".join([
        f"def {name}({', '.join(args)}):",
        "    bid = cuda.blockIdx.x",
        "    tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)",
        *lines,
    ]) + "\n"
    filename = f"<block histogram kernel {case.id} {pairs}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), env)  # one kernel whatever the number of pairs
    return cuda.jit(env[name])


def signature(case: Case, pairs: tuple[Pair, ...] | None = None, *, dsl: Dsl = NUMBA_MLIR) -> tuple:  # type: ignore[type-arg]
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    types = dsl.types

    sig: list = []
    for p in case.pairs if pairs is None else pairs:
        samples, counters = getattr(types, p.dtype), getattr(types, p.counter)
        sig += [samples[::1], samples[::1], counters[::1], counters[:, ::1], counters]
    return tuple(sig)


def inputs(case: Case, pair: Pair, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(samples of all tiles, baseline counters of the composite rows with their guard: one row per tile and
    algorithm)."""
    dt, ct = np.dtype(pair.dtype), np.dtype(pair.counter)
    x = rng.integers(0, pair.bins, (TILES, case.tile)).astype(dt)
    x[1] = pair.bins - 1
    x[2] = np.where(rng.integers(0, 2, case.tile) == 1, pair.bins - 1, 0)
    base = np.full((2 * TILES, pair.row), np.iinfo(ct).max, ct)
    base[:, : pair.bins] = rng.integers(0, min(1000, np.iinfo(ct).max), (2 * TILES, pair.bins))
    return x.reshape(-1), base


def _expected(case: Case, pair: Pair, x: np.ndarray, base: np.ndarray) -> dict[str, np.ndarray]:
    ct = np.dtype(pair.counter)
    tiles = x.reshape(TILES, case.tile)
    counts = np.stack([np.bincount(t.astype(np.int64), minlength=pair.bins) for t in tiles])
    assert counts.shape == (TILES, pair.bins)
    guard = np.full((TILES, GUARD), np.iinfo(ct).max, ct)

    def as_counters(values: np.ndarray) -> np.ndarray:
        """Counts as the counters hold them: narrow ones wrap (two's complement for the signed ones)."""
        return values.astype(np.uint64).astype(ct)

    comp = base.astype(np.int64)
    comp[:, : pair.bins] += np.concatenate([counts, counts])
    return {
        "fresh": np.concatenate([as_counters(counts), guard], axis=1),
        "init_acc": np.concatenate([as_counters(counts + np.roll(counts, -1, axis=0)), guard], axis=1),
        "comp": np.concatenate([as_counters(comp[:, : pair.bins]), base[:, pair.bins :]], axis=1),
    }


def _launch(case: Case, rng: np.random.Generator, *, dsl: Dsl = NUMBA_MLIR) -> None:
    cuda = dsl.cuda

    args, checks = [], []
    for pair in case.pairs:
        x, base = inputs(case, pair, rng)
        ct = np.dtype(pair.counter)
        out = cuda.to_device(np.zeros(len(KINDS) * TILES * pair.row, ct))
        comp = cuda.to_device(base)
        back = cuda.to_device(np.full_like(x, np.iinfo(x.dtype).max))
        poison = ct.type(np.iinfo(ct).max)  # an argument: numba-cuda-mlir 0.5.4 cannot lower a uint64 max literal
        args += [cuda.to_device(x), back, out, comp, poison]
        checks.append((pair, x, base, back, out, comp))
    make_kernel(case, dsl=dsl)[TILES, case.block](*args)

    for pair, x, base, back, out, comp in checks:
        what = f"{case.id} {pair.dtype}->{pair.counter} bins={pair.bins}"
        exp = _expected(case, pair, x, base)
        got = out.copy_to_host().reshape(len(KINDS), TILES, pair.row)
        got_comp = comp.copy_to_host().reshape(2, TILES, pair.row)
        exp_comp = exp["comp"].reshape(2, TILES, pair.row)
        np.testing.assert_array_equal(back.copy_to_host(), x, err_msg=f"{what}: samples changed")
        np.testing.assert_array_equal(got[2], exp["init_acc"], err_msg=f"{what}: histogram_init + 2 composites")
        for k, algorithm in enumerate(("sort", "atomic")):
            if getattr(pair, algorithm):
                np.testing.assert_array_equal(got[k], exp["fresh"], err_msg=f"{what}: histogram {algorithm}")
                np.testing.assert_array_equal(got_comp[k], exp_comp[k], err_msg=f"{what}: composite {algorithm}")
            else:  # not run: the host's values stay
                np.testing.assert_array_equal(got[k], 0, err_msg=f"{what}: {algorithm} wrote")
                np.testing.assert_array_equal(got_comp[k], base.reshape(2, TILES, pair.row)[k], err_msg=what)


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_histogram(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    _launch(case, rng, dsl=dsl)


@pytest.mark.parametrize("dsl", DSLS, ids=str)
def test_atomic_with_a_counter_type_atomic_add_block_lacks_is_refused_at_launch(dsl: Dsl) -> None:
    cuda = dsl.cuda

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
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """``tests/gpu/_sanitizer_block_histogram.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_block_histogram", tool, "block_histogram", 2, rng=rng)
