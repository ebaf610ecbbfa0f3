"""``coop.warp.load`` / ``coop.warp.store`` on the GPU: every dtype x block shape x items 1, 4 and 16, logical warps
of 1 to 32 threads, every algorithm, full and partial tiles, against NumPy.

Per (block, items per thread), a run of every dtype (one inlined device function per run), each run with its own
logical warp size: the sizes dividing the block rotate over the dtypes, so every (block, items) of a block of 64
threads or more has all six, and a dtype meets other sizes at other item counts. The runs share one kernel, but where
their ``"transpose"`` storage would not fit: each logical warp size has its own region of shared memory, so wide
blocks split their runs over up to 4 kernels (31 kernels in all). A run's tiles are
over ``TILE_BYTES`` only at 1024 threads x 16 items of 4 or 8 bytes: those dtypes are left out there (``"transpose"``
is refused at compile time with the documented error, asserted in the compile tier). Each run's device function runs
the four algorithms one after the other. Each logical warp moves its own tile: its
``offset`` is ``blockIdx.x * block_tile + (tid // threads) * threads * items_per_thread``, so the warps of a launch
tile the arrays contiguously. For each algorithm the kernel

- loads a full tile and writes each thread's items, in per-thread order, to ``lf`` (blocked algorithms give the
  input back; ``"striped"`` gives each tile transposed);
- loads from ``xp`` with ``valid_items = n - offset`` and ``oob_default`` (``lp``), and without ``oob_default``
  into items pre-set to 0, which no input takes (``lg``: items past ``valid_items`` stay 0). ``n`` leaves one warp
  of the last block partial and the warps after it with a negative count (nothing loaded or stored); ``xp`` holds
  poison after item ``n``, so a load past the count shows;
- stores each thread's own slice of the input (``sf``) and the same with ``valid_items`` (``sp``: poison stays
  after item ``n``).

Outputs are poisoned before the launch; every comparison is bit for bit (data movement only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import DTYPES, assert_bits_equal, random_values, sentinels
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Threads

ALGORITHMS = ("direct", "striped", "vectorize", "transpose")
WIDTHS = (1, 2, 4, 8, 16, 32)
BLOCKS = ((32, 1, 1), (128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4), (256, 1, 1), (1024, 1, 1))
ITEMS = (1, 4, 16)
TILE_BYTES = 32 * 1024
"""The most a block's tiles may take: ``"transpose"`` exchanges them through shared memory, of which a block may
statically have 48 KiB (1024 threads x 16 items of 4 or 8 bytes are refused at compile time)."""
GRID = 3
OUTPUTS = ("lf", "lp", "lg", "sf", "sp")


@dataclass(frozen=True)
class Case(Threads):
    dtype: str
    block: tuple[int, int, int]
    width: int
    ipt: int

    @property
    def total(self) -> int:
        """Items of one algorithm's slice of an output: every warp tile of the launch."""
        return GRID * self.threads * self.ipt

    @property
    def n(self) -> int:
        """Valid items of the partial input: the last block has a partial warp tile, then empty ones."""
        wt = self.width * self.ipt
        return max(1, self.total - wt - wt // 2 - 1)

    @property
    def id(self) -> str:
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-w{self.width}-ipt{self.ipt}"


def fits(dtype: str, block: tuple[int, int, int], ipt: int) -> bool:
    """Whether the block's tiles fit in shared memory for ``"transpose"`` (see ``TILE_BYTES``)."""
    return math.prod(block) * ipt * np.dtype(dtype).itemsize <= TILE_BYTES


def _storage(group: list[Case]) -> int:
    """Shared memory the runs' ``"transpose"`` calls take: each logical warp size has its own region (the largest tile
    of the runs of that size), and the regions of different sizes add up."""
    regions: dict[int, int] = {}
    for c in group:
        regions[c.width] = max(regions.get(c.width, 0), c.threads * c.ipt * np.dtype(c.dtype).itemsize)
    return sum(regions.values())


def groups() -> list[tuple[Case, ...]]:
    """The kernels' runs: per (block, items), every dtype that fits, the logical warp sizes dividing the block
    rotating over them, in as few kernels as keep the storage of each within ``TILE_BYTES`` (one, but where the
    tiles of several logical warp sizes of a wide block would need more)."""
    result = []
    for b, block in enumerate(BLOCKS):
        widths = [w for w in WIDTHS if math.prod(block) % w == 0]
        for i, ipt in enumerate(ITEMS):
            kernels: list[list[Case]] = []
            for d, dtype in enumerate(DTYPES):
                if not fits(dtype, block, ipt):
                    continue
                case = Case(dtype, block, widths[(d + b + i) % len(widths)], ipt)
                home = next((k for k in kernels if _storage([*k, case]) <= TILE_BYTES), None)
                if home is None:
                    kernels.append([case])
                else:
                    home.append(case)
            result += [tuple(k) for k in kernels]
    return result


GROUPS = groups()
CASES = [case for group in GROUPS for case in group]


def group_id(group: tuple[Case, ...]) -> str:
    same = [g for g in GROUPS if (g[0].block, g[0].ipt) == (group[0].block, group[0].ipt)]
    part = f"-k{same.index(group)}" if len(same) > 1 and group in same else ""  # a case outside the matrix: none
    return f"{'x'.join(map(str, group[0].block))}-ipt{group[0].ipt}{part}"


def _run_function(case: Case, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The device function of one run (inlined into its group's kernel)."""
    cuda = dsl.cuda

    import cuda.coop as coop

    IPT, W, T, TOTAL = case.ipt, case.width, case.threads, case.total
    A0, A1, A2, A3 = ALGORITHMS

    @cuda.jit(device=True)
    def run(xf, xp, n, oob, fill, lf, lp, lg, sf, sp):
        items = cuda.local.array(IPT, xf.dtype)
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        g = cuda.blockIdx.x * T + tid
        base = cuda.blockIdx.x * T * IPT + (tid // W) * W * IPT  # this logical warp's tile
        valid = n - base
        mine = g * IPT
        # -- A0
        coop.warp.load(xf, items, offset=base, algorithm=A0, threads=W)
        for k in range(IPT):
            lf[0 * TOTAL + mine + k] = items[k]
        coop.warp.load(xp, items, offset=base, valid_items=valid, oob_default=oob, algorithm=A0, threads=W)
        for k in range(IPT):
            lp[0 * TOTAL + mine + k] = items[k]
            items[k] = fill
        coop.warp.load(xp, items, offset=base, valid_items=valid, algorithm=A0, threads=W)
        for k in range(IPT):
            lg[0 * TOTAL + mine + k] = items[k]
            items[k] = xf[mine + k]
        coop.warp.store(sf, items, offset=0 * TOTAL + base, algorithm=A0, threads=W)
        coop.warp.store(sp, items, offset=0 * TOTAL + base, valid_items=valid, algorithm=A0, threads=W)
        # -- A1
        coop.warp.load(xf, items, offset=base, algorithm=A1, threads=W)
        for k in range(IPT):
            lf[1 * TOTAL + mine + k] = items[k]
        coop.warp.load(xp, items, offset=base, valid_items=valid, oob_default=oob, algorithm=A1, threads=W)
        for k in range(IPT):
            lp[1 * TOTAL + mine + k] = items[k]
            items[k] = fill
        coop.warp.load(xp, items, offset=base, valid_items=valid, algorithm=A1, threads=W)
        for k in range(IPT):
            lg[1 * TOTAL + mine + k] = items[k]
            items[k] = xf[mine + k]
        coop.warp.store(sf, items, offset=1 * TOTAL + base, algorithm=A1, threads=W)
        coop.warp.store(sp, items, offset=1 * TOTAL + base, valid_items=valid, algorithm=A1, threads=W)
        # -- A2
        coop.warp.load(xf, items, offset=base, algorithm=A2, threads=W)
        for k in range(IPT):
            lf[2 * TOTAL + mine + k] = items[k]
        coop.warp.load(xp, items, offset=base, valid_items=valid, oob_default=oob, algorithm=A2, threads=W)
        for k in range(IPT):
            lp[2 * TOTAL + mine + k] = items[k]
            items[k] = fill
        coop.warp.load(xp, items, offset=base, valid_items=valid, algorithm=A2, threads=W)
        for k in range(IPT):
            lg[2 * TOTAL + mine + k] = items[k]
            items[k] = xf[mine + k]
        coop.warp.store(sf, items, offset=2 * TOTAL + base, algorithm=A2, threads=W)
        coop.warp.store(sp, items, offset=2 * TOTAL + base, valid_items=valid, algorithm=A2, threads=W)
        # -- A3
        coop.warp.load(xf, items, offset=base, algorithm=A3, threads=W)
        for k in range(IPT):
            lf[3 * TOTAL + mine + k] = items[k]
        coop.warp.load(xp, items, offset=base, valid_items=valid, oob_default=oob, algorithm=A3, threads=W)
        for k in range(IPT):
            lp[3 * TOTAL + mine + k] = items[k]
            items[k] = fill
        coop.warp.load(xp, items, offset=base, valid_items=valid, algorithm=A3, threads=W)
        for k in range(IPT):
            lg[3 * TOTAL + mine + k] = items[k]
            items[k] = xf[mine + k]
        coop.warp.store(sf, items, offset=3 * TOTAL + base, algorithm=A3, threads=W)
        coop.warp.store(sp, items, offset=3 * TOTAL + base, valid_items=valid, algorithm=A3, threads=W)

    return run


def make_kernel(group: tuple[Case, ...], *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The group's kernel (compiled at its first launch): for each run, in turn, ``xf, xp, n, oob, fill`` and the
    ``OUTPUTS``."""
    import linecache

    cuda = dsl.cuda

    env, args, lines = {}, [], []
    for k, case in enumerate(group):
        env[f"run{k}"] = _run_function(case, dsl=dsl)
        names = [f"{a}{k}" for a in ("xf", "xp", "n", "oob", "fill", *OUTPUTS)]
        args += names
        lines.append(f"    run{k}({', '.join(names)})")
    name = f"warp_load_store_{group_id(group).replace('-', '_')}"
    source = f"def {name}({', '.join(args)}):\n" + "\n".join(lines) + "\n"
    filename = f"<warp load/store kernel {group_id(group)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), env)  # one kernel whatever the number of runs
    return cuda.jit(env[name])


def signature(group: tuple[Case, ...], *, dsl: Dsl = NUMBA_MLIR) -> tuple:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    types = dsl.types

    sig: list = []
    for case in group:
        scalar = getattr(types, case.dtype)
        arr = scalar[::1]
        sig += [arr, arr, types.int64, scalar, scalar, *(arr,) * len(OUTPUTS)]
    return tuple(sig)


def loaded(tiles: np.ndarray, algorithm: str, width: int, ipt: int) -> np.ndarray:
    """Each thread's items, in per-thread order, after loading ``tiles`` (warp tiles back to back)."""
    if algorithm == "striped":  # lane l, item k <- tile[l + k * width]
        return tiles.reshape(-1, ipt, width).transpose(0, 2, 1).ravel()
    return tiles.copy()  # blocked: lane l, item k <- tile[l * ipt + k]


def stored(per_thread: np.ndarray, algorithm: str, width: int, ipt: int) -> np.ndarray:
    """The warp tiles after each thread stores ``per_thread`` (its items, in per-thread order)."""
    if algorithm == "striped":  # lane l, item k -> tile[l + k * width]
        return per_thread.reshape(-1, width, ipt).transpose(0, 2, 1).ravel()
    return per_thread.copy()


def expected_outputs(case: Case, xf: np.ndarray, xp: np.ndarray, oob: np.generic, fill: np.generic,
                     poison: np.generic) -> dict[str, np.ndarray]:
    w, ipt, n = case.width, case.ipt, case.n
    valid = np.arange(case.total) < n
    out: dict[str, list[np.ndarray]] = {k: [] for k in OUTPUTS}
    for algorithm in ALGORITHMS:
        out["lf"].append(loaded(xf, algorithm, w, ipt))
        out["lp"].append(loaded(np.where(valid, xp, oob), algorithm, w, ipt))
        out["lg"].append(loaded(np.where(valid, xp, fill), algorithm, w, ipt))
        out["sf"].append(stored(xf, algorithm, w, ipt))
        out["sp"].append(np.where(valid, stored(xf, algorithm, w, ipt), poison))
    return {k: np.concatenate(v).astype(xf.dtype) for k, v in out.items()}


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("group", GROUPS, ids=group_id)
def test_warp_load_store(group: tuple[Case, ...], rng: np.random.Generator, dsl: Dsl) -> None:
    cuda = dsl.cuda

    args, runs = [], []
    for case in group:
        dt = np.dtype(case.dtype)
        poison, oob = sentinels(case.dtype)
        fill = dt.type(0)  # random_values never draws 0
        xf = random_values(rng, case.dtype, case.total)
        xp = random_values(rng, case.dtype, case.total)
        xp[case.n :] = poison
        d_out = {k: cuda.to_device(np.full(len(ALGORITHMS) * case.total, poison, dt)) for k in OUTPUTS}
        args += [cuda.to_device(xf), cuda.to_device(xp), case.n, oob, fill, *d_out.values()]
        runs.append((case, expected_outputs(case, xf, xp, oob, fill, poison), d_out))
    make_kernel(group, dsl=dsl)[GRID, group[0].block](*args)
    for case, expected, d_out in runs:
        for name in OUTPUTS:
            got = d_out[name].copy_to_host()
            for a, algorithm in enumerate(ALGORITHMS):
                part = slice(a * case.total, (a + 1) * case.total)
                assert_bits_equal(got[part], expected[name][part], f"{name} {algorithm} ({case.id})")


def test_reference_arrangements() -> None:
    """The NumPy references themselves: lane l of a 2-lane warp with 3 items, striped, holds tile[l], tile[l+2]..."""
    tile = np.arange(6)
    assert loaded(tile, "striped", 2, 3).tolist() == [0, 2, 4, 1, 3, 5]
    assert stored(loaded(tile, "striped", 2, 3), "striped", 2, 3).tolist() == tile.tolist()
    assert loaded(tile, "transpose", 2, 3).tolist() == tile.tolist()


SHIFT_W, SHIFT_IPT, SHIFT_T = 8, 4, 64


def make_shift_kernel(*, dsl: Dsl = NUMBA_MLIR):
    """Copy with ``"vectorize"``, every warp's tile starting ``shift`` items past the aligned position."""
    cuda = dsl.cuda

    import cuda.coop as coop

    W, IPT, T = SHIFT_W, SHIFT_IPT, SHIFT_T

    @cuda.jit
    def kernel(x, y, shift):
        items = cuda.local.array(IPT, np.int32)
        base = shift + cuda.blockIdx.x * T * IPT + (cuda.threadIdx.x // W) * W * IPT
        coop.warp.load(x, items, offset=base, algorithm="vectorize", threads=W)
        coop.warp.store(y, items, offset=base, algorithm="vectorize", threads=W)

    return kernel


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("shift", [0, 1, 3])
def test_vectorize_at_any_alignment(shift: int, rng: np.random.Generator, dsl: Dsl) -> None:
    """``"vectorize"`` takes vector loads and stores only where the warp's tile is aligned for them and falls back to
    element-wise ones elsewhere: tiles that start ``shift`` items past an aligned address move exactly."""
    cuda = dsl.cuda

    total = GRID * SHIFT_T * SHIFT_IPT
    poison = sentinels("int32")[0]
    x = random_values(rng, "int32", total + 4)
    y = cuda.to_device(np.full(total + 4, poison, np.int32))
    make_shift_kernel(dsl=dsl)[GRID, SHIFT_T](cuda.to_device(x), y, shift)
    expected = np.full(total + 4, poison, np.int32)
    expected[shift : shift + total] = x[shift : shift + total]
    assert_bits_equal(y.copy_to_host(), expected, f"vectorize shifted by {shift}")


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize(("threads", "block"), [(32, (33, 1, 1)), (8, (4, 3, 1)), (64, (64, 1, 1))])
def test_refused_logical_warps(threads: int, block: tuple[int, int, int], dsl: Dsl) -> None:
    """A logical warp that does not divide the block (or exceeds 32 threads) is a UsageError naming threads=."""
    cuda = dsl.cuda

    import cuda.coop as coop
    from cuda.coop.errors import UsageError

    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(2, np.int32)
        coop.warp.load(x, items, threads=threads)
        coop.warp.store(out, items, threads=threads)

    x = cuda.to_device(np.zeros(256, np.int32))
    with pytest.raises(UsageError, match=rf"threads={threads} must be a power of two up to 32 that divides the block"):
        kernel[1, block](x, x)


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    """``tests/gpu/_sanitizer_warp_load_store.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_warp_load_store", tool, "warp_load_store", 2, rng=None)  # its inputs are not random
