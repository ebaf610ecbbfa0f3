"""``coop.warp.argsort`` and ``coop.warp.top_k`` on the GPU, against NumPy's stable argsort and partition.

Both are cuda-coop compositions of ``cub::WarpMergeSort::StableSort`` (``algorithm="merge_sort"``) or of
``cub::detail::WarpBitonicSort`` over (key, position) pairs (``"bitonic"``) with a comparator in
``coop.block.radix_sort``'s key order (:mod:`cuda_coop._specs.warp_argsort`); every case runs with each
algorithm, against the same model (tests/gpu/test_warp_bitonic.py also compares the two in one kernel). One
kernel per case; every logical warp of a 2-block launch loads its own warp tile (``threads * N`` keys, lane ``l``
holding ``l*N .. l*N+N-1``) and

- argsorts it (ascending or descending; int32/int64/uint32 indices; ``base`` = the warp tile's offset + 7):
  keys exact (bits), indices = the stable argsort + base;
- takes the ``top_k`` of a copy (largest or smallest; keys only, or with int32/float64 values; ``k`` per
  warp: random, 0, 1, the whole warp tile, one past it, -3): ``out[offset : offset + k]`` exact, the rest of
  the warp's output region still poisoned, the caller's keys unchanged.

References: :func:`tests.gpu.test_family_block_radix_sort.order` (CUB's bit-ordered key, stable argsort), and
for warp tiles without NaN also ``np.argsort(kind="stable")`` itself (descending: of the negated order for
integers, of the reversed-stable order for floats) and ``np.partition`` + ``np.sort`` for the top-k keys.
Warp tiles: random bit patterns spanning the type (int64 negatives, uint64 above 2**63, float NaNs with
payloads of both signs), float specials (+-0.0, +-inf, +-NaN, subnormals), deliberate ties (a few distinct
keys, -0.0/+0.0 mixed), reverse-sorted.

Axes (rotated, see :func:`cases`): key dtypes (every integer, float16, float32, float64) x logical warps 1, 2,
4, 8, 16, 32 (all six for the floats) x items 1, 4, 8 x blocks (32,), (64,), (16,8), (4,4,4), and (33,) with
1-lane warps; each case with both algorithms. A logical warp that is not a power of two, or does not divide the
block, is refused before compiling (tests/compile/test_warp_argsort_top_k.py). compute-sanitizer
memcheck/racecheck/synccheck run ``tests/gpu/_sanitizer_ranking.py`` (``coop.block.radix_rank``, then
``coop.warp.top_k`` and ``coop.warp.argsort`` on logical warps of 8, three tiles a block, the argsort with both
algorithms; blocks of 128 and 8x3x2 = 48 threads).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from tests.gpu.test_family_block_radix_sort import order
from tests.helpers.sanitizer import run_clean

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64")
WARPS = (1, 2, 4, 8, 16, 32)
ITEMS = (1, 4, 8)
BLOCKS = ((32, 1, 1), (64, 1, 1), (16, 8, 1), (4, 4, 4))
VALUES = (None, "int32", "float64")
INDEX_TYPES = ("int32", "int64", "uint32")
ALGORITHMS = ("merge_sort", "bitonic")
BLOCKS_PER_GRID = 2
BASE_EXTRA = 7


@dataclass(frozen=True)
class Case:
    dtype: str
    threads: int
    ipt: int
    block: tuple[int, int, int]
    descending: bool
    largest: bool
    values: str | None
    index_type: str
    algorithm: str = "merge_sort"

    @property
    def block_threads(self) -> int:
        return math.prod(self.block)

    @property
    def warp_tile(self) -> int:
        return self.threads * self.ipt

    @property
    def warps(self) -> int:
        """Logical warps in the launch."""
        return BLOCKS_PER_GRID * self.block_threads // self.threads

    @property
    def id(self) -> str:
        return (f"{self.dtype}-lw{self.threads}-ipt{self.ipt}-{'x'.join(map(str, self.block))}-"
                f"{'desc' if self.descending else 'asc'}-{'largest' if self.largest else 'smallest'}-"
                f"{self.values or 'keys'}-{self.index_type}-{self.algorithm}")


def cases() -> list[Case]:
    result = []
    n = 0
    for d, dtype in enumerate(DTYPES):
        warps = WARPS if np.dtype(dtype).kind == "f" else (WARPS[(2 * d) % 6], WARPS[(2 * d + 3) % 6])
        for j, lw in enumerate(warps):
            block = BLOCKS[(d + j) % len(BLOCKS)]
            result.append(Case(dtype, lw, ITEMS[(d + j) % len(ITEMS)], block, descending=n % 2 == 0,
                               largest=(n // 2) % 2 == 0, values=VALUES[n % 3], index_type=INDEX_TYPES[(d + j) % 3]))
            n += 1
    # a block that is not a multiple of 32: 1-lane logical warps only
    result.append(Case("float32", 1, 4, (33, 1, 1), True, False, "int32", "int64"))
    result.append(Case("int64", 1, 8, (33, 1, 1), False, True, None, "uint32"))
    return [replace(c, algorithm=a) for c in result for a in ALGORITHMS]


CASES = cases()


def _uint(dtype: str) -> np.dtype:
    return np.dtype(f"uint{8 * np.dtype(dtype).itemsize}")


def keys_for(case: Case, rng: np.random.Generator) -> np.ndarray:
    """Every logical warp's tile; warp ``w`` gets kind ``w % 4``: random bits with specials, ties,
    reverse-sorted, random bits."""
    dt, u, wt = np.dtype(case.dtype), _uint(case.dtype), case.warp_tile
    tiles = rng.integers(0, np.iinfo(u).max, (case.warps, wt), dtype=u, endpoint=True).view(dt).copy()
    if dt.kind == "f":
        specials = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, np.finfo(dt).max,
                             np.finfo(dt).min, np.finfo(dt).smallest_subnormal, -np.finfo(dt).smallest_subnormal], dt)
        specials = np.concatenate([specials, np.array([np.iinfo(u).max], u).view(dt)])  # -NaN, all-ones payload
        few = np.array([-0.0, 0.0, 0.0, -0.0, 1.5, -2.0, np.nan, -np.inf], dt)
    else:
        info = np.iinfo(dt)
        specials = np.array([info.min, info.max, 0, 1, info.min + 1, info.max // 2], dt)
        few = np.array([info.min, info.max, 0, 1, info.max // 2], dt)
    for w in range(case.warps):
        kind = w % 4
        if kind == 0:
            m = min(wt, specials.size)
            tiles[w, rng.choice(wt, m, replace=False)] = rng.permutation(specials)[:m]
        elif kind == 1:
            tiles[w] = few[rng.integers(0, few.size, wt)]
        elif kind == 2:
            tiles[w] = tiles[w][order(tiles[w], True)]
    return tiles.reshape(-1)


def values_for(case: Case) -> np.ndarray:
    n = case.warps * case.warp_tile
    return (np.arange(n) + (0.25 if case.values == "float64" else 0)).astype(case.values or "int32")


def k_for(case: Case, rng: np.random.Generator) -> np.ndarray:
    wt = case.warp_tile
    choices = [int(rng.integers(1, wt)) if wt > 1 else 1, 0, 1, wt, wt + 1, -3]
    return np.array([choices[w % len(choices)] for w in range(case.warps)], np.int64)


def make_kernel(case: Case) -> Any:
    """``k(x, v, ks, keys_out, index_out, top_keys, top_values, keys_after)``."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    KT, VT, IT = getattr(np, case.dtype), getattr(np, case.values or "int32"), getattr(np, case.index_type)
    IPT, LW, WT = case.ipt, case.threads, case.warp_tile
    PER_BLOCK = case.block_threads // case.threads
    DESC, LARGEST, HAS_VALUES, ALG = case.descending, case.largest, case.values is not None, case.algorithm

    @cuda.jit
    def kernel(x, v, ks, keys_out, index_out, top_keys, top_values, keys_after):
        keys = cuda.local.array(IPT, KT)
        keys2 = cuda.local.array(IPT, KT)
        vals2 = cuda.local.array(IPT, VT)
        idx = cuda.local.array(IPT, IT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        w = coop.uniform(cuda.blockIdx.x * PER_BLOCK + t // LW)
        mine = w * WT + (t % LW) * IPT
        for i in range(IPT):
            keys[i] = x[mine + i]
            keys2[i] = x[mine + i]
            vals2[i] = v[mine + i]
        coop.warp.argsort(keys, idx, descending=DESC, base=w * WT + BASE_EXTRA, threads=LW, algorithm=ALG)
        for i in range(IPT):
            keys_out[mine + i] = keys[i]
            index_out[mine + i] = idx[i]
        if HAS_VALUES:
            coop.warp.top_k(keys2, top_keys, k=ks[w], values=vals2, out_values=top_values, largest=LARGEST,
                            offset=w * WT, threads=LW, algorithm=ALG)
        else:
            coop.warp.top_k(keys2, top_keys, k=ks[w], largest=LARGEST, offset=w * WT, threads=LW, algorithm=ALG)
        for i in range(IPT):
            keys_after[mine + i] = keys2[i]

    return kernel


def signature(case: Case) -> tuple[Any, ...]:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    k = getattr(types, case.dtype)[::1]
    v = getattr(types, case.values or "int32")[::1]
    return (k, v, types.int64[::1], k, getattr(types, case.index_type)[::1], k, v, k)


def _poison(dtype: str, n: int) -> np.ndarray:
    dt = np.dtype(dtype)
    return np.full(n, np.iinfo(dt).max - 3 if dt.kind in "iu" else 7.0e3, dt)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(_uint(a.dtype.name))


def numpy_argsort(tile: np.ndarray, descending: bool) -> np.ndarray:
    """NumPy's own stable argsort (no NaN in ``tile``); descending keeps ties in input order."""
    if not descending:
        return np.argsort(tile, kind="stable")
    if tile.dtype.kind in "iu":
        return np.argsort(-tile.astype(object), kind="stable")
    # stable descending: argsort of the reversed tile, read backwards, then mapped to the original positions
    n = tile.size
    rev = np.argsort(tile[::-1], kind="stable")[::-1]
    return n - 1 - rev


def _launch(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    x, v, ks = keys_for(case, rng), values_for(case), k_for(case, rng)
    n = x.size
    outs = [_poison(case.dtype, n), _poison(case.index_type, n), _poison(case.dtype, n), _poison(v.dtype.name, n),
            _poison(case.dtype, n)]
    d_outs = [cuda.to_device(o) for o in outs]
    make_kernel(case)[BLOCKS_PER_GRID, case.block](cuda.to_device(x), cuda.to_device(v), cuda.to_device(ks), *d_outs)
    keys_out, index_out, top_keys, top_values, keys_after = (d.copy_to_host() for d in d_outs)
    np.testing.assert_array_equal(_bits(keys_after), _bits(x), err_msg=f"{case.id}: top_k changed its keys")
    wt = case.warp_tile
    for w in range(case.warps):
        sl = slice(w * wt, (w + 1) * wt)
        tile, vt = x[sl], v[sl]
        where = f"{case.id} warp {w}"
        o = order(tile, case.descending)
        np.testing.assert_array_equal(_bits(keys_out[sl]), _bits(tile[o]), err_msg=f"argsort keys, {where}")
        np.testing.assert_array_equal(index_out[sl], (o + w * wt + BASE_EXTRA).astype(case.index_type),
                                      err_msg=f"argsort indices, {where}")
        nan_free = tile.dtype.kind != "f" or not np.isnan(tile).any()
        if nan_free:
            np.testing.assert_array_equal(o, numpy_argsort(tile, case.descending),
                                          err_msg=f"model vs np.argsort, {where}")
        k = int(np.clip(ks[w], 0, wt))
        o2 = order(tile, case.largest)
        got = top_keys[sl]
        np.testing.assert_array_equal(_bits(got[:k]), _bits(tile[o2[:k]]), err_msg=f"top_k keys, {where}")
        np.testing.assert_array_equal(_bits(got[k:]), _bits(outs[2][sl][k:]), err_msg=f"top_k wrote past k, {where}")
        if nan_free and k > 0:
            part = np.partition(tile, wt - k)[wt - k :] if case.largest else np.partition(tile, k - 1)[:k]
            want = np.sort(part)[::-1] if case.largest else np.sort(part)
            np.testing.assert_array_equal(got[:k], want, err_msg=f"top_k vs np.partition, {where}")
        if case.values:
            np.testing.assert_array_equal(top_values[sl][:k], vt[o2[:k]], err_msg=f"top_k values, {where}")
            np.testing.assert_array_equal(top_values[sl][k:], outs[3][sl][k:], err_msg=f"top_k values past k, {where}")
        else:
            np.testing.assert_array_equal(top_values[sl], outs[3][sl], err_msg=f"top_k wrote values, {where}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_warp_argsort_top_k(case: Case, rng: np.random.Generator) -> None:
    _launch(case, rng)


def test_cases_cover_every_axis() -> None:
    assert {c.dtype for c in CASES} == set(DTYPES)
    assert {c.threads for c in CASES} == set(WARPS)
    for dtype in ("float16", "float32", "float64"):
        assert {c.threads for c in CASES if c.dtype == dtype} == set(WARPS)
    assert {c.ipt for c in CASES} == set(ITEMS)
    assert {c.block for c in CASES} == {*BLOCKS, (33, 1, 1)}
    assert {c.values for c in CASES} == set(VALUES)
    assert {c.index_type for c in CASES} == set(INDEX_TYPES)
    assert {(c.descending, c.largest) for c in CASES} == {(a, b) for a in (False, True) for b in (False, True)}
    assert all(c.block_threads % c.threads == 0 for c in CASES)
    assert {replace(c, algorithm="merge_sort") for c in CASES if c.algorithm == "bitonic"} == {
        c for c in CASES if c.algorithm == "merge_sort"}  # every case with each algorithm


def test_reference_matches_numpy(rng: np.random.Generator) -> None:
    """The model (CUB's order) agrees with NumPy's stable argsort, ascending and descending, without NaN."""
    for dtype in DTYPES:
        case = Case(dtype, 32, 8, (64, 1, 1), False, True, None, "int32")
        x = keys_for(case, rng)
        for w in range(case.warps):
            tile = x[w * case.warp_tile : (w + 1) * case.warp_tile]
            if tile.dtype.kind == "f":
                tile = tile[~np.isnan(tile)]
            for desc in (False, True):
                np.testing.assert_array_equal(order(tile, desc), numpy_argsort(tile, desc), err_msg=f"{dtype} {desc}")


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """``tests/gpu/_sanitizer_ranking.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_ranking", tool, "ranking", 2, rng=rng)
