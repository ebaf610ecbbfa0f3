"""BlockMergeSort and the warp sorts (``coop.warp.merge_sort``, ``algorithm="merge_sort"`` and ``"bitonic"``) on the
GPU, against NumPy's stable sort.

One kernel per block case, two per warp case (the whole-tile sorts, then the partial ones; one NVRTC compile each)
sort each tile (block) or each logical warp's tile (warp) six times, every sort starting from the loaded input:

====== ============================================ ==========================================================
sort   call                                         checked
====== ============================================ ==========================================================
lt     ``merge_sort(k, "<"[, v])``                  keys exact; (key, value) pairs a permutation of the input's
gt     ``merge_sort(k, ">"[, v], stable=True)``     keys and values exact against the stable descending sort
abs    ``merge_sort(k, by_abs[, v], stable=True)``  keys and values exact (stability on ties of magnitude)
p_abs  ``... by_abs[, v], valid_items=n, stable``   the first n positions exact (the rest: unspecified by CUB)
p_lt   ``... "<", valid_items=n, oob_default=max``  the first n keys exact; pairs a permutation of the valid ones
p_gt   ``... ">"[, v], valid_items=n, oob_default`` keys and values of the first n exact (stable=True)
====== ============================================ ==========================================================

``n`` per tile: the whole tile, 0, 1, an odd count inside, and one past the tile (clamped). Inputs span the
key type and have ties: equal keys, and keys of equal magnitude and opposite sign. Values are the input
positions (int32) or distinct float64s. Outputs start poisoned; full sorts overwrite every position.

Axes (rotated, see :func:`block_cases` and :func:`warp_cases`): key dtypes (every integer, float32,
float64) x values (none, int32, float64) x blocks (32,), (128,), (256,), (16,8), (4,4,4) x items 1, 4, 8;
logical warps of 1, 2, 4, 8, 16, 32 lanes, each warp case with both algorithms (``"bitonic"`` without
``stable=True`` is not stable: ``lt`` and ``p_lt`` check what they check for any algorithm, and its stable sorts
are held to the same exact results). 30 block kernels + 2 x 24 warp kernels = 78 NVRTC compiles. A block
whose thread count is not a power of two (33) is refused before compiling (CUB static_asserts it).
compute-sanitizer memcheck/racecheck/synccheck run ``tests/gpu/_sanitizer_merge_sort.py``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import DTYPES, assert_bits_equal, random_values, sentinels
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Threads

BLOCKS = ((32, 1, 1), (128, 1, 1), (256, 1, 1), (16, 8, 1), (4, 4, 4))
ITEMS = (1, 4, 8)
VALUES = (None, "int32", "float64")
WARP_THREADS = (1, 2, 4, 8, 16, 32)
WARP_ALGORITHMS = ("merge_sort", "bitonic")
WARP_BLOCKS = ((32, 1, 1), (128, 1, 1), (16, 8, 1), (4, 4, 4))
PARTIAL_WARP_BLOCKS = {1: (33, 1, 1), 16: (16, 3, 1)}
SORTS = ("lt", "gt", "abs", "p_abs", "p_lt", "p_gt")
PARTIAL = ("p_abs", "p_lt", "p_gt")
TILES = 5
"""Tiles per block case (one per block); their valid counts are :func:`valid_counts`."""


@dataclass(frozen=True)
class Case(Threads):
    dtype: str
    values: str | None
    block: tuple[int, int, int]
    ipt: int
    warp: int = 0
    """Lanes per logical warp (0: a block sort)."""
    algorithm: str = "merge_sort"
    """``algorithm=`` of a warp sort (block sorts have none)."""

    @property
    def group(self) -> int:
        """Threads sorting one tile: the block, or the logical warp."""
        return self.warp or self.threads

    @property
    def tile(self) -> int:
        return self.group * self.ipt

    @property
    def grid(self) -> int:
        return TILES if not self.warp else 2

    @property
    def tiles(self) -> int:
        return self.grid * (self.threads // self.group)

    @property
    def id(self) -> str:
        kind = f"warp{self.warp}-{self.algorithm}" if self.warp else "block"
        return f"{kind}-{self.dtype}-{self.values or 'keys'}-{'x'.join(map(str, self.block))}-ipt{self.ipt}"


def block_cases() -> list[Case]:
    """Every block x items per thread, twice; key dtypes and value types rotate (each dtype 3 times, each value
    type 10 times)."""
    result = []
    for b, block in enumerate(BLOCKS):
        for i, ipt in enumerate(ITEMS):
            for k in range(2):
                n = 2 * (3 * b + i) + k
                result.append(Case(DTYPES[n % len(DTYPES)], VALUES[(n + b) % len(VALUES)], block, ipt))
    return result


def warp_cases() -> list[Case]:
    """Every logical warp width twice (items 1/4/8 and blocks rotating; 1- and 16-lane warps also in a block that
    ends in a partial hardware warp: 33 and 16x3 threads), each with both algorithms."""
    result = []
    for w, lanes in enumerate(WARP_THREADS):
        for k in range(2):
            n = 2 * w + k
            block = WARP_BLOCKS[n % len(WARP_BLOCKS)]
            if k and lanes in PARTIAL_WARP_BLOCKS:
                block = PARTIAL_WARP_BLOCKS[lanes]
            for algorithm in WARP_ALGORITHMS:
                result.append(Case(DTYPES[(3 * n + 1) % len(DTYPES)], VALUES[n % len(VALUES)], block, ITEMS[n % 3],
                                   lanes, algorithm))
    return result


BLOCK_CASES = block_cases()
WARP_CASES = warp_cases()


def by_abs(a, b):  # type: ignore[no-untyped-def]
    return abs(a) < abs(b)


def oob_keys(dtype: str) -> tuple[np.generic, np.generic]:
    """``(after "<", after ">")``: keys CUB's contract wants as ``oob_default`` (ordered after every valid key)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return dt.type(np.inf), dt.type(-np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max), dt.type(info.min)


def make_kernel(case: Case, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The case's kernels (the DSL's dispatchers; compiled at their first launch): one for a block; for a warp, one
    of the whole-tile sorts and one of the partial ones (six large bitonic networks in one kernel were more than the
    link-time optimiser inlines: one wrapper stayed a call, its arrays in local memory).

    Arguments: ``keys_in, values_in, valid, oob_lt, oob_gt, keys_out, values_out``; the outputs hold one
    segment of ``tiles * tile`` items per sort of :data:`SORTS`.
    """
    cuda = dsl.cuda

    import cuda.coop as coop

    KT, IPT, TILE, G, W, ALG = getattr(np, case.dtype), case.ipt, case.tile, case.group, case.warp, case.algorithm
    N = case.tiles * case.tile
    PAIRS = case.values is not None
    VT = getattr(np, case.values or "int32")
    SPT = case.threads // G  # tiles per block

    @cuda.jit
    def block_kernel(keys_in, values_in, valid, oob_lt, oob_gt, keys_out, values_out):  # noqa: PLR0912 (six sorts, keys or pairs)
        k = cuda.local.array(IPT, KT)
        v = cuda.local.array(IPT, VT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        tile = cuda.blockIdx.x
        base = tile * TILE
        n = valid[tile]
        for s in range(6):
            coop.block.load(keys_in, k, offset=base)
            coop.block.load(values_in, v, offset=base)
            if s == 0:
                if PAIRS:
                    coop.block.merge_sort(k, "<", values=v)
                else:
                    coop.block.merge_sort(k, "<")
            elif s == 1:
                if PAIRS:
                    coop.block.merge_sort(k, ">", values=v, stable=True)
                else:
                    coop.block.merge_sort(k, ">", stable=True)
            elif s == 2:
                if PAIRS:
                    coop.block.merge_sort(k, by_abs, values=v, stable=True)
                else:
                    coop.block.merge_sort(k, by_abs, stable=True)
            elif s == 3:
                if PAIRS:
                    coop.block.merge_sort(k, by_abs, values=v, valid_items=n, stable=True)
                else:
                    coop.block.merge_sort(k, by_abs, valid_items=n, stable=True)
            elif s == 4:
                if PAIRS:
                    coop.block.merge_sort(k, "<", values=v, valid_items=n, oob_default=oob_lt)
                else:
                    coop.block.merge_sort(k, "<", valid_items=n, oob_default=oob_lt)
            elif PAIRS:
                coop.block.merge_sort(k, ">", values=v, valid_items=n, oob_default=oob_gt, stable=True)
            else:
                coop.block.merge_sort(k, ">", valid_items=n, oob_default=oob_gt, stable=True)
            for i in range(IPT):
                keys_out[s * N + base + t * IPT + i] = k[i]
                if PAIRS:
                    values_out[s * N + base + t * IPT + i] = v[i]

    @cuda.jit
    def warp_full(keys_in, values_in, valid, oob_lt, oob_gt, keys_out, values_out):
        k = cuda.local.array(IPT, KT)
        v = cuda.local.array(IPT, VT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        lane = t % W
        tile = cuda.blockIdx.x * SPT + t // W
        base = tile * TILE
        for s in range(3):
            for i in range(IPT):
                k[i] = keys_in[base + lane * IPT + i]
                v[i] = values_in[base + lane * IPT + i]
            if s == 0:
                if PAIRS:
                    coop.warp.merge_sort(k, "<", values=v, threads=W, algorithm=ALG)
                else:
                    coop.warp.merge_sort(k, "<", threads=W, algorithm=ALG)
            elif s == 1:
                if PAIRS:
                    coop.warp.merge_sort(k, ">", values=v, stable=True, threads=W, algorithm=ALG)
                else:
                    coop.warp.merge_sort(k, ">", stable=True, threads=W, algorithm=ALG)
            elif PAIRS:
                coop.warp.merge_sort(k, by_abs, values=v, stable=True, threads=W, algorithm=ALG)
            else:
                coop.warp.merge_sort(k, by_abs, stable=True, threads=W, algorithm=ALG)
            for i in range(IPT):
                keys_out[s * N + base + lane * IPT + i] = k[i]
                if PAIRS:
                    values_out[s * N + base + lane * IPT + i] = v[i]

    @cuda.jit
    def warp_partial(keys_in, values_in, valid, oob_lt, oob_gt, keys_out, values_out):
        k = cuda.local.array(IPT, KT)
        v = cuda.local.array(IPT, VT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        lane = t % W
        tile = cuda.blockIdx.x * SPT + t // W
        base = tile * TILE
        n = valid[tile]
        for s in range(3, 6):
            for i in range(IPT):
                k[i] = keys_in[base + lane * IPT + i]
                v[i] = values_in[base + lane * IPT + i]
            if s == 3:
                if PAIRS:
                    coop.warp.merge_sort(k, by_abs, values=v, valid_items=n, stable=True, threads=W, algorithm=ALG)
                else:
                    coop.warp.merge_sort(k, by_abs, valid_items=n, stable=True, threads=W, algorithm=ALG)
            elif s == 4:
                if PAIRS:
                    coop.warp.merge_sort(k, "<", values=v, valid_items=n, oob_default=oob_lt, threads=W,
                                         algorithm=ALG)
                else:
                    coop.warp.merge_sort(k, "<", valid_items=n, oob_default=oob_lt, threads=W, algorithm=ALG)
            elif PAIRS:
                coop.warp.merge_sort(k, ">", values=v, valid_items=n, oob_default=oob_gt, stable=True, threads=W,
                                     algorithm=ALG)
            else:
                coop.warp.merge_sort(k, ">", valid_items=n, oob_default=oob_gt, stable=True, threads=W,
                                     algorithm=ALG)
            for i in range(IPT):
                keys_out[s * N + base + lane * IPT + i] = k[i]
                if PAIRS:
                    values_out[s * N + base + lane * IPT + i] = v[i]

    if not W:
        return [block_kernel]
    return [warp_full, warp_partial]  # the whole-tile sorts, then the partial ones: two kernels of three sorts


def signature(case: Case, *, dsl: Dsl = NUMBA_MLIR) -> tuple[object, ...]:
    """The kernel's argument types, for ``compile_kernel`` in the compile tier."""
    types = dsl.types

    kt, vt = getattr(types, case.dtype), getattr(types, case.values or "int32")
    return (kt[::1], vt[::1], types.int64[::1], kt, kt, kt[::1], vt[::1])


def valid_counts(case: Case) -> np.ndarray:
    """Per tile: the whole tile, 0, 1, an odd count inside the tile, one past the tile (clamped), repeating."""
    inside = max(1, (case.tile * 2) // 3) | 1
    pattern = [case.tile, 0, 1, min(inside, case.tile), case.tile + 1]
    return np.array([pattern[i % len(pattern)] for i in range(case.tiles)], np.int64)


def inputs(case: Case, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Keys spanning the type with ties (equal keys; equal magnitude, opposite sign), and distinct values."""
    n = case.tiles * case.tile
    keys = random_values(rng, case.dtype, n)
    if np.dtype(case.dtype).kind in "if":
        odd = np.arange(1, n, 4)
        keys[odd] = -keys[odd - 1]  # ties of magnitude (never -min: min is the poison, never drawn)
    five = np.arange(5, n, 6)
    keys[five - 3] = keys[five]  # equal keys
    values = rng.permutation(n) + 0.25 if case.values == "float64" else np.arange(n, dtype=np.int32)
    return keys, values


def reference_order(sort: str, keys: np.ndarray) -> np.ndarray:
    """Indices of the stable sort of one tile's ``keys`` for ``sort``."""
    if sort in ("lt", "p_lt"):
        return np.argsort(keys, kind="stable")
    if sort in ("gt", "p_gt"):
        # stable descending: the stable ascending sort of the reversed tile, reversed
        return keys.size - 1 - np.argsort(keys[::-1], kind="stable")[::-1]
    magnitude = [abs(x) for x in keys.tolist()]  # Python ints: exact for 64-bit keys
    return np.array(sorted(range(keys.size), key=magnitude.__getitem__), dtype=np.int64)  # sorted() is stable


def check(case: Case, keys: np.ndarray, values: np.ndarray, valid: np.ndarray, got_k: np.ndarray,
          got_v: np.ndarray | None) -> None:
    """Compare every sort of every tile with NumPy (see the module docstring for what each sort checks)."""
    n_all = case.tiles * case.tile
    for s, sort in enumerate(SORTS):
        for tile in range(case.tiles):
            lo = tile * case.tile
            count = min(int(valid[tile]), case.tile) if sort in PARTIAL else case.tile
            k_in, v_in = keys[lo : lo + count], values[lo : lo + count]
            k_out = got_k[s * n_all + lo : s * n_all + lo + count]
            order = reference_order(sort, k_in)
            what = f"{case.id}: {sort} tile {tile} (valid {count})"
            assert_bits_equal(k_out, k_in[order], what + " keys")
            if got_v is None:
                continue
            v_out = got_v[s * n_all + lo : s * n_all + lo + count]
            if sort in ("lt", "p_lt"):  # Sort: stability not promised, so the pairs are a permutation
                got = sorted(zip(k_out.tolist(), v_out.tolist(), strict=True))
                want = sorted(zip(k_in.tolist(), v_in.tolist(), strict=True))
                assert got == want, what + " pairs"
            else:
                assert_bits_equal(v_out, v_in[order], what + " values")


def _launch(case: Case, rng: np.random.Generator, *, dsl: Dsl = NUMBA_MLIR) -> None:
    cuda = dsl.cuda

    keys, values = inputs(case, rng)
    valid = valid_counts(case)
    oob_lt, oob_gt = oob_keys(case.dtype)
    poison_k, _ = sentinels(case.dtype)
    size = len(SORTS) * keys.size
    d_keys = cuda.to_device(np.full(size, poison_k, keys.dtype))
    d_values = cuda.to_device(np.full(size, -7, values.dtype))
    args = (cuda.to_device(keys), cuda.to_device(values), cuda.to_device(valid), oob_lt, oob_gt, d_keys, d_values)
    for kernel in make_kernel(case, dsl=dsl):
        kernel[case.grid, case.block](*args)
    got_v = d_values.copy_to_host() if case.values else None
    check(case, keys, values, valid, d_keys.copy_to_host(), got_v)
    if got_v is None:
        assert (d_values.copy_to_host() == -7).all(), "a keys-only sort wrote values"


def test_the_cases_cover_every_axis() -> None:
    cases = BLOCK_CASES + WARP_CASES
    assert {c.dtype for c in cases} == set(DTYPES)
    assert {c.values for c in BLOCK_CASES} == set(VALUES) == {c.values for c in WARP_CASES}
    assert {c.block for c in BLOCK_CASES} == set(BLOCKS)
    assert {c.ipt for c in BLOCK_CASES} == set(ITEMS) == {c.ipt for c in WARP_CASES}
    assert Counter((c.block, c.ipt) for c in BLOCK_CASES) == dict.fromkeys(itertools.product(BLOCKS, ITEMS), 2)
    assert Counter((c.warp, c.algorithm) for c in WARP_CASES) == dict.fromkeys(  # each logical warp twice ...
        itertools.product(WARP_THREADS, WARP_ALGORITHMS), 2)
    assert set(PARTIAL_WARP_BLOCKS.items()) <= {(c.warp, c.block) for c in WARP_CASES}  # ... in a partial warp too


def test_the_reference_is_numpys_stable_sort() -> None:
    """The host references themselves: descending keeps ties in input order, by magnitude too."""
    keys = np.array([2, -2, 1, 2, -1], np.int8)
    assert reference_order("gt", keys).tolist() == [0, 3, 2, 4, 1]
    assert reference_order("abs", keys).tolist() == [2, 4, 0, 1, 3]
    assert reference_order("lt", keys).tolist() == [1, 4, 2, 0, 3]


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", BLOCK_CASES, ids=lambda c: c.id)
def test_block_merge_sort(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    _launch(case, rng, dsl=dsl)


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", WARP_CASES, ids=lambda c: c.id)
def test_warp_merge_sort(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    _launch(case, rng, dsl=dsl)


@pytest.mark.parametrize("dsl", DSLS, ids=str)
def test_a_block_that_is_not_a_power_of_two_is_refused_at_launch(dsl: Dsl) -> None:
    cuda = dsl.cuda

    import cuda.coop as coop
    from cuda.coop.errors import UsageError

    @cuda.jit
    def sort33(x):
        keys = cuda.local.array(4, np.float32)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, "<")
        coop.block.store(x, keys)

    data = np.arange(33 * 4, dtype=np.float32)[::-1].copy()
    d = cuda.to_device(data)
    with pytest.raises(UsageError, match=r"power of two.*\(33, 1, 1\) has 33 threads"):
        sort33[1, 33](d)
    assert np.array_equal(d.copy_to_host(), data), "a refused kernel ran"


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """``tests/gpu/_sanitizer_merge_sort.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_merge_sort", tool, "merge_sort", 2, rng=rng)
