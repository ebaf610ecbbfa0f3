"""``coop.block.radix_sort``, ``argsort`` and ``top_k`` on the GPU, against NumPy's stable sort.

One kernel per case (one NVRTC compile each); every block of a 3-tile launch loads its tile and

- sorts it with ``radix_sort`` (keys, or keys with int32/float64 values), ascending or descending, blocked or
  striped output, over all the key's bits (``begin_bit``/``end_bit`` omitted, or passed as runtime values)
  or a partial runtime bit range; keys and values exact;
- sorts a copy the other way round with ``argsort`` (int32/int64/uint32 indices, ``base`` = the tile's
  offset + 7, the other output arrangement): keys exact, indices = ``np.argsort(kind="stable") + base``;
  or takes the ``top_k`` of the copy (the other direction; k = a random count, one past the tile, -3):
  ``out[offset : offset + k]`` exact, the rest of the output region still poisoned.

The reference is a NumPy stable argsort of CUB's bit-ordered key (:func:`ordered`: signed integers with the
sign bit flipped, floats with all bits flipped when negative and the sign bit flipped otherwise, -0.0 read as
+0.0, then bits ``[begin_bit, end_bit)``), checked against ``np.sort`` itself where NumPy's order is CUB's.
Keys span every bit (random bit patterns: uint64 above 2**63, int64 negatives, NaNs with payloads) plus, for
floats, -0.0/+0.0/NaN/-NaN/+-inf; tile 1 is mostly ties (stability), tile 2 reverse-sorted.

Axes, rotated (see :func:`cases`): key dtype (8 integers, float32, float64) x block (32,), (128,), (256,),
(1024,), (33,), (16,8), (4,4,4): every (dtype, block) pair once = 70 kernels; items 1/4/8/16, values
none/int32/float64, ascending/descending, output, bit range and argsort/top_k rotate over them so that every
value of every axis appears (the compile tier checks it). A tile over 48 KiB (1024 x 16 of 8-byte keys with
float64 values) is refused before compiling. ``radix_rank``: 7 more kernels (one per block shape; "basic" or
"memoize" with ``digit_prefix``, and "match" on the 1-D blocks), ranks and digit prefixes against a NumPy
lexsort of the digits. 77 kernels in all, plus the sanitizer script's two per tool:
compute-sanitizer runs ``tests/gpu/_sanitizer_block_radix_sort.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import DTYPES
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Tile

BLOCKS = ((32, 1, 1), (128, 1, 1), (256, 1, 1), (1024, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4))
ITEMS = (1, 4, 8, 16)
VALUES = (None, "int32", "float64")
BITS = ("default", "full", "partial")
INDEX_TYPES = ("int32", "int64", "uint32")
TILES = 3
SHARED = 48 * 1024
BASE_EXTRA = 7


@dataclass(frozen=True)
class Case(Tile):
    dtype: str
    values: str | None
    block: tuple[int, int, int]
    ipt: int
    descending: bool
    output: str
    bits: str
    second: str
    """``"argsort"`` or ``"top_k"``: the call on the copy of the tile."""
    index_type: str = "int32"

    @property
    def width(self) -> int:
        return 8 * np.dtype(self.dtype).itemsize

    @property
    def id(self) -> str:
        return (f"{self.dtype}-{self.values or 'keys'}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-"
                f"{'desc' if self.descending else 'asc'}-{self.output}-{self.bits}-{self.second}")


def tile_bytes(threads: int, ipt: int, sizes: list[int]) -> int:
    """BlockExchange's storage for the tile (CUB pads one item per 32 when N > 4 is a power of two)."""
    tile = threads * ipt
    pad = tile >> 5 if ipt > 4 and ipt & (ipt - 1) == 0 else 0
    return (tile + pad) * max(sizes)


def cases() -> list[Case]:
    result = []
    for d, dtype in enumerate(DTYPES):
        for b, block in enumerate(BLOCKS):
            values = VALUES[(d + 2 * b) % len(VALUES)]
            index_type = INDEX_TYPES[(d + b) % len(INDEX_TYPES)]
            second = ("argsort", "top_k")[(d + b) % 2]
            sizes = [np.dtype(dtype).itemsize, np.dtype(values).itemsize if values else 1]
            if second == "argsort":
                sizes.append(np.dtype(index_type).itemsize)
            order = [ITEMS[(d + b + j) % len(ITEMS)] for j in range(len(ITEMS))]
            ipt = next(i for i in order if tile_bytes(math.prod(block), i, sizes) <= SHARED)
            result.append(Case(dtype, values, block, ipt, descending=bool((d + b) % 2 == 0),
                               output=("blocked", "striped")[(d // 2 + b) % 2], bits=BITS[(d + 2 * b) % 3],
                               second=second, index_type=index_type))
    return result


CASES = cases()


def bit_range(case: Case) -> tuple[int, int]:
    """(begin_bit, end_bit) passed at run time (the whole key for ``"default"`` and ``"full"``)."""
    if case.bits == "partial":
        return (1, case.width - 2) if case.width > 8 else (2, 7)
    return 0, case.width


def _uint(dtype: str) -> np.dtype:
    return np.dtype(f"uint{8 * np.dtype(dtype).itemsize}")


def ordered(keys: np.ndarray, begin: int = 0, end: int | None = None) -> np.ndarray:
    """CUB's bit-ordered form of ``keys`` (``cub::Traits<T>::TwiddleIn``, -0.0 read as +0.0 as
    ``BaseDigitExtractor::ProcessFloatMinusZero`` does), restricted to bits ``[begin, end)``; as uint64."""
    dt = keys.dtype
    width = 8 * dt.itemsize
    end = width if end is None else end
    u = keys.view(_uint(dt.name)).astype(np.uint64)
    high = np.uint64(1) << np.uint64(width - 1)
    every = np.uint64((1 << width) - 1)
    if dt.kind == "i":
        u = u ^ high
    elif dt.kind == "f":
        u = np.where(u & high, ~u & every, u | high)
        u = np.where(u == (~high & every), high, u)  # twiddled -0.0 -> twiddled +0.0
    if end <= begin:
        return np.zeros_like(u)
    mask = np.uint64((1 << (end - begin)) - 1) if end - begin < 64 else np.uint64(2**64 - 1)
    return (u >> np.uint64(begin)) & mask


def order(keys: np.ndarray, descending: bool, begin: int = 0, end: int | None = None) -> np.ndarray:
    """The stable sorting permutation of ``keys`` in CUB's order (descending: ties still in input order)."""
    o = ordered(keys, begin, end)
    return np.argsort(~o if descending else o, kind="stable")


def keys_for(case: Case, rng: np.random.Generator) -> np.ndarray:
    """TILES tiles: random bit patterns (+ float specials), mostly ties, reverse-sorted."""
    dt, n = np.dtype(case.dtype), case.tile
    u = _uint(case.dtype)
    bits = rng.integers(0, np.iinfo(u).max, (TILES, n), dtype=u, endpoint=True)
    tiles = bits.view(dt).copy()
    if dt.kind == "f":
        specials = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, np.finfo(dt).max,
                             np.finfo(dt).min, np.finfo(dt).tiny], dt)
        neg_nan = np.array([np.iinfo(u).max], u).view(dt)  # sign set, all-ones payload
        specials = np.concatenate([specials, neg_nan])
        tiles[0, rng.choice(n, min(n, specials.size), replace=False)] = specials[: min(n, specials.size)]
        few = np.concatenate([np.array([-0.0, 0.0, 0.0, -0.0, 1.5, -2.0], dt), specials])
    else:
        info = np.iinfo(dt)
        few = np.array([info.min, info.max, 0, 1, info.min + 1, info.max // 2], dt)
    tiles[1] = few[rng.integers(0, few.size, n)]
    tiles[2] = np.sort(tiles[2])[::-1] if dt.kind != "f" else tiles[2][order(tiles[2], True)]
    return tiles.reshape(-1)


def values_for(case: Case) -> np.ndarray:
    """Distinct values (their input positions), so every permutation shows."""
    n = TILES * case.tile
    return (np.arange(n) + (0.25 if case.values == "float64" else 0)).astype(case.values or "int32")


def k_for(case: Case, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.integers(1, case.tile) if case.tile > 1 else 1, case.tile + 1, -3], np.int64)


def make_kernel(case: Case, *, dsl: Dsl = NUMBA_MLIR):
    """The case's kernel (compiled at its first launch)."""
    cuda = dsl.cuda

    import cuda.coop as coop

    KT, VT = getattr(np, case.dtype), getattr(np, case.values or "int32")
    IT = getattr(np, case.index_type)
    IPT, T, TILE = case.ipt, case.threads, case.tile
    HAS_VALUES, DESC, OUT = case.values is not None, case.descending, case.output
    OTHER_DESC = not DESC
    OTHER = "striped" if OUT == "blocked" else "blocked"
    STRIPED, OTHER_STRIPED = OUT == "striped", OTHER == "striped"
    DEFAULT_BITS, ARGSORT = case.bits == "default", case.second == "argsort"

    @cuda.jit
    def kernel(x, v, bits, ks, keys_out, values_out, keys2_out, second_out, second_values_out):  # noqa: PLR0912
        keys = cuda.local.array(IPT, KT)
        vals = cuda.local.array(IPT, VT)
        keys2 = cuda.local.array(IPT, KT)
        vals2 = cuda.local.array(IPT, VT)
        idx = cuda.local.array(IPT, IT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        bid = cuda.blockIdx.x
        mine = bid * TILE + t * IPT
        for i in range(IPT):
            keys[i] = x[mine + i]
            keys2[i] = x[mine + i]
            vals[i] = v[mine + i]
            vals2[i] = v[mine + i]
        if HAS_VALUES:
            if DEFAULT_BITS:
                coop.block.radix_sort(keys, values=vals, descending=DESC, output=OUT)
            else:
                coop.block.radix_sort(keys, values=vals, descending=DESC, output=OUT, begin_bit=bits[0],
                                      end_bit=bits[1])
        elif DEFAULT_BITS:
            coop.block.radix_sort(keys, descending=DESC, output=OUT)
        else:
            coop.block.radix_sort(keys, descending=DESC, output=OUT, begin_bit=bits[0], end_bit=bits[1])
        for i in range(IPT):
            pos = bid * TILE + (i * T + t if STRIPED else t * IPT + i)
            keys_out[pos] = keys[i]
            values_out[pos] = vals[i]
        if ARGSORT:
            coop.block.argsort(keys2, idx, descending=OTHER_DESC, base=bid * TILE + BASE_EXTRA, output=OTHER,
                               begin_bit=bits[0], end_bit=bits[1])
            for i in range(IPT):
                pos = bid * TILE + (i * T + t if OTHER_STRIPED else t * IPT + i)
                keys2_out[pos] = keys2[i]
                second_out[pos] = idx[i]
        elif HAS_VALUES:
            coop.block.top_k(keys2, second_out, k=ks[bid], values=vals2, out_values=second_values_out,
                             largest=OTHER_DESC, offset=bid * TILE)
        else:
            coop.block.top_k(keys2, second_out, k=ks[bid], largest=OTHER_DESC, offset=bid * TILE)
        if not ARGSORT:
            for i in range(IPT):  # top_k leaves its arguments unchanged
                keys2_out[mine + i] = keys2[i]

    return kernel


def signature(case: Case, *, dsl: Dsl = NUMBA_MLIR) -> tuple:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    types = dsl.types

    k = getattr(types, case.dtype)[::1]
    v = getattr(types, case.values or "int32")[::1]
    second = getattr(types, case.index_type)[::1] if case.second == "argsort" else k
    return (k, v, types.int32[::1], types.int64[::1], k, v, k, second, v)


def _poison(dtype: str, n: int) -> np.ndarray:
    """Outputs start as a value no input takes (floats: a finite one, so bit comparisons stay meaningful)."""
    dt = np.dtype(dtype)
    return np.full(n, np.iinfo(dt).max - 3 if dt.kind in "iu" else 7.0e5, dt)


def _bits_equal(got: np.ndarray, expected: np.ndarray, what: str) -> None:
    u = _uint(got.dtype.name)
    np.testing.assert_array_equal(got.view(u), np.ascontiguousarray(expected).view(u), err_msg=what)


def _launch(case: Case, rng: np.random.Generator, *, dsl: Dsl = NUMBA_MLIR) -> None:
    cuda = dsl.cuda

    x, v, ks = keys_for(case, rng), values_for(case), k_for(case, rng)
    begin, end = bit_range(case)
    n = x.size
    second_dtype = case.index_type if case.second == "argsort" else case.dtype
    outs = [_poison(case.dtype, n), _poison(v.dtype.name, n), _poison(case.dtype, n), _poison(second_dtype, n),
            _poison(v.dtype.name, n)]
    d_outs = [cuda.to_device(o) for o in outs]
    kernel = make_kernel(case, dsl=dsl)
    kernel[TILES, case.block](cuda.to_device(x), cuda.to_device(v), cuda.to_device(np.array([begin, end], np.int32)),
                              cuda.to_device(ks), *d_outs)
    keys_out, values_out, keys2_out, second_out, second_values_out = (d.copy_to_host() for d in d_outs)

    tiles, vtiles = x.reshape(TILES, case.tile), v.reshape(TILES, case.tile)
    for b in range(TILES):
        tile, vt, sl = tiles[b], vtiles[b], slice(b * case.tile, (b + 1) * case.tile)
        o = order(tile, case.descending, begin, end)
        where = f"{case.id} tile {b}"
        _bits_equal(keys_out[sl], tile[o], f"radix_sort keys, {where}")
        if case.values:
            np.testing.assert_array_equal(values_out[sl], vt[o], err_msg=f"radix_sort values, {where}")
        o2 = order(tile, not case.descending, begin, end)
        if case.second == "argsort":
            _bits_equal(keys2_out[sl], tile[o2], f"argsort keys, {where}")
            expected = (o2 + b * case.tile + BASE_EXTRA).astype(case.index_type)
            np.testing.assert_array_equal(second_out[sl], expected, err_msg=f"argsort indices, {where}")
        else:
            _bits_equal(keys2_out[sl], tile, f"top_k changed its keys, {where}")
            k = int(np.clip(ks[b], 0, case.tile))
            o2 = order(tile, not case.descending)  # top_k compares every bit
            got = second_out[sl]
            _bits_equal(got[:k], tile[o2[:k]], f"top_k keys, {where}")
            _bits_equal(got[k:], outs[3][sl][k:], f"top_k wrote past k, {where}")
            if case.values:
                np.testing.assert_array_equal(second_values_out[sl][:k], vt[o2[:k]], err_msg=f"top_k values, {where}")
                _bits_equal(second_values_out[sl][k:], outs[4][sl][k:], f"top_k wrote values past k, {where}")


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_radix_sort(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    _launch(case, rng, dsl=dsl)


def test_reference_is_numpys_order_where_numpy_has_cubs(rng: np.random.Generator) -> None:
    """The host model agrees with ``np.sort(kind="stable")`` for integers and for floats without NaN (NumPy also
    ties -0.0 and +0.0), and puts NaNs by sign: -NaN first, +NaN last."""
    for dtype in DTYPES:
        case = Case(dtype, None, (64, 1, 1), 4, False, "blocked", "default", "argsort")
        x = keys_for(case, rng)
        finite = x if np.dtype(dtype).kind != "f" else x[~np.isnan(x)]
        np.testing.assert_array_equal(order(finite, False), np.argsort(finite, kind="stable"), err_msg=dtype)
        if np.dtype(dtype).kind in "iu":
            np.testing.assert_array_equal(order(x, True), np.argsort(-x.astype(object), kind="stable"))
    f = np.array([np.nan, 1.0, -np.inf, -0.0, 0.0, np.inf, -1.0], np.float32)
    f = np.concatenate([f, np.array([0xFFC00000], np.uint32).view(np.float32)])
    got = f[order(f, False)]
    assert np.signbit(got[0]) and np.isnan(got[0]) and np.isnan(got[-1]) and not np.signbit(got[-1])
    np.testing.assert_array_equal(got[1:-1].view(np.uint32),
                                  np.array([-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf], np.float32).view(np.uint32))


@pytest.mark.parametrize("dsl", DSLS, ids=str)
def test_a_tile_over_the_shared_memory_is_refused_at_launch(dsl: Dsl) -> None:
    cuda = dsl.cuda

    from cuda.coop.errors import UsageError

    case = Case("uint64", "float64", (1024, 1, 1), 16, False, "blocked", "default", "argsort")
    with pytest.raises(UsageError, match=r"needs more than the 48 KiB of shared memory"):
        make_kernel(case, dsl=dsl)[1, case.block](*(cuda.to_device(np.zeros(8, np.dtype(str(t.dtype))))
                                           for t in signature(case, dsl=dsl)))


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """``tests/gpu/_sanitizer_block_radix_sort.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_block_radix_sort", tool, "block_radix_sort", 2, rng=rng)


# --- radix_rank --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankCase(Tile):
    """One kernel: ``radix_rank`` with ``algorithm`` ("basic"/"memoize") and, on 1-D blocks, ``"match"`` with
    ``match_bits`` radix bits; both with ``digit_prefix`` and runtime ``begin_bit``/``end_bit``."""

    dtype: str
    block: tuple[int, int, int]
    ipt: int
    radix_bits: int
    descending: bool
    begin: int
    end: int
    algorithm: str
    match_bits: int

    @property
    def match(self) -> bool:
        return self.block[1:] == (1, 1)

    @property
    def id(self) -> str:
        return (f"rank-{self.dtype}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-rb{self.radix_bits}-"
                f"{'desc' if self.descending else 'asc'}-bits{self.begin}:{self.end}-{self.algorithm}"
                + (f"-match{self.match_bits}" if self.match else ""))


RANK_CASES = [
    RankCase("uint32", (32, 1, 1), 4, 5, False, 3, 6, "basic", 5),  # end_bit cuts the digit to 3 bits
    RankCase("int64", (128, 1, 1), 8, 6, True, 58, 64, "memoize", 8),
    RankCase("float32", (33, 1, 1), 4, 4, False, 28, 32, "basic", 6),  # sign and exponent; a partial warp
    RankCase("int8", (16, 8, 1), 16, 3, True, 5, 8, "memoize", 3),
    RankCase("float64", (4, 4, 4), 1, 7, False, 57, 64, "basic", 7),  # 128 digits on 64 threads: 2 a thread
    RankCase("uint16", (256, 1, 1), 4, 4, True, 4, 16, "basic", 8),
    RankCase("uint64", (1024, 1, 1), 2, 4, False, 60, 64, "memoize", 8),
]


def tracked(radix_bits: int, threads: int) -> int:
    return max(1, -(-(1 << radix_bits) // threads))


def make_rank_kernel(case: RankCase, *, dsl: Dsl = NUMBA_MLIR):
    cuda = dsl.cuda

    import cuda.coop as coop

    KT, IPT, T, TILE = getattr(np, case.dtype), case.ipt, case.threads, case.tile
    RB, MRB, DESC, ALGO, MATCH = case.radix_bits, case.match_bits, case.descending, case.algorithm, case.match
    B, MB = tracked(RB, T), tracked(MRB, T)

    @cuda.jit
    def kernel(x, bits, ranks_out, prefix_out, mranks_out, mprefix_out):
        keys = cuda.local.array(IPT, KT)
        ranks = cuda.local.array(IPT, np.int32)
        mranks = cuda.local.array(IPT, np.int32)
        prefix = cuda.local.array(B, np.int32)
        mprefix = cuda.local.array(MB, np.int32)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        bid = cuda.blockIdx.x
        mine = bid * TILE + t * IPT
        for i in range(IPT):
            keys[i] = x[mine + i]
        for j in range(B):
            prefix[j] = -5  # entries past the digits stay as they are
        for j in range(MB):
            mprefix[j] = -5
        coop.block.radix_rank(keys, ranks, digit_prefix=prefix, radix_bits=RB, begin_bit=bits[0], end_bit=bits[1],
                              descending=DESC, algorithm=ALGO)
        if MATCH:
            coop.block.radix_rank(keys, mranks, digit_prefix=mprefix, radix_bits=MRB, begin_bit=bits[0],
                                  end_bit=bits[1], descending=DESC, algorithm="match")
        for i in range(IPT):
            ranks_out[mine + i] = ranks[i]
        if MATCH:
            for i in range(IPT):
                mranks_out[mine + i] = mranks[i]
        for j in range(B):
            prefix_out[(bid * T + t) * B + j] = prefix[j]
        for j in range(MB):
            mprefix_out[(bid * T + t) * MB + j] = mprefix[j]

    return kernel


def rank_signature(case: RankCase, *, dsl: Dsl = NUMBA_MLIR) -> tuple:
    types = dsl.types

    i32 = types.int32[::1]
    return (getattr(types, case.dtype)[::1], i32, i32, i32, i32, i32)


def expected_ranks(tile: np.ndarray, case: RankCase, radix_bits: int, match: bool, threads: int,
                   ipt: int) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each key in blocked order, digit prefix of each thread's tracked digits; -5 past the digits)."""
    width = min(radix_bits, case.end - case.begin)
    digit = ordered(tile, case.begin, case.begin + width).astype(np.int64)
    radix = 1 << radix_bits
    key = radix - 1 - digit if case.descending else digit
    p = np.arange(tile.size)
    t, i = p // ipt, p % ipt
    # ties: warp-striped order (warp, item, lane) for "match", blocked order for the others
    order_ = np.lexsort((t % 32, i, t // 32, key)) if match else np.lexsort((p, key))
    ranks = np.empty(tile.size, np.int64)
    ranks[order_] = np.arange(tile.size)
    counts = np.bincount(digit, minlength=radix)
    b = tracked(radix_bits, threads)
    prefix = np.full(threads * b, -5, np.int64)
    for d in range(radix):
        prefix[d] = counts[d + 1 :].sum() if case.descending else counts[:d].sum()
    return ranks, prefix


def _launch_rank(case: RankCase, rng: np.random.Generator, *, dsl: Dsl = NUMBA_MLIR) -> None:
    cuda = dsl.cuda

    proxy = Case(case.dtype, None, case.block, case.ipt, False, "blocked", "default", "argsort")
    x = keys_for(proxy, rng)
    T, b, mb = case.threads, tracked(case.radix_bits, case.threads), tracked(case.match_bits, case.threads)
    outs = [np.full(x.size, -7, np.int32), np.full(TILES * T * b, -7, np.int32), np.full(x.size, -7, np.int32),
            np.full(TILES * T * mb, -7, np.int32)]
    d_outs = [cuda.to_device(o) for o in outs]
    kernel = make_rank_kernel(case, dsl=dsl)
    kernel[TILES, case.block](cuda.to_device(x), cuda.to_device(np.array([case.begin, case.end], np.int32)), *d_outs)
    ranks, prefix, mranks, mprefix = (d.copy_to_host() for d in d_outs)
    for n, tile in enumerate(x.reshape(TILES, case.tile)):
        sl = slice(n * case.tile, (n + 1) * case.tile)
        want, want_prefix = expected_ranks(tile, case, case.radix_bits, False, T, case.ipt)
        np.testing.assert_array_equal(ranks[sl], want, err_msg=f"{case.id} ranks, tile {n}")
        np.testing.assert_array_equal(prefix[n * T * b : (n + 1) * T * b], want_prefix,
                                      err_msg=f"{case.id} digit_prefix, tile {n}")
        if case.match:
            want, want_prefix = expected_ranks(tile, case, case.match_bits, True, T, case.ipt)
            np.testing.assert_array_equal(mranks[sl], want, err_msg=f"{case.id} match ranks, tile {n}")
            np.testing.assert_array_equal(mprefix[n * T * mb : (n + 1) * T * mb], want_prefix,
                                          err_msg=f"{case.id} match digit_prefix, tile {n}")
        else:
            assert (mranks[sl] == -7).all()


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", RANK_CASES, ids=lambda c: c.id)
def test_block_radix_rank(case: RankCase, rng: np.random.Generator, dsl: Dsl) -> None:
    _launch_rank(case, rng, dsl=dsl)
