"""float16 and bfloat16 keys through ``coop.block.radix_sort``, ``argsort``, ``top_k`` and ``radix_rank``, on the GPU.

CUB sorts ``__half`` and ``__nv_bfloat16`` keys with the float twiddle of ``cub::Traits`` (``BaseTraits<
FLOATING_POINT, true, unsigned short, T>`` in ``cub/util_type.cuh``: all bits flipped when the sign bit is set,
else only the sign bit) and reads -0.0 as +0.0 (``BaseDigitExtractor<KeyT, true>``); the order only depends on
the 16 bits and the sign bit, so one host model serves both formats: :func:`tests.gpu.test_family_block_radix_sort.
ordered` of the bits viewed as ``np.float16`` (for bfloat16 too: the twiddle never looks at the exponent).
The model is checked against ``np.argsort(kind="stable")`` of the float16 values and of the bfloat16 values
widened exactly to float32, NaNs apart (NumPy puts every NaN last; CUB orders them by sign bit and payload).

Keys travel as raw 16-bit patterns: float16 kernels take ``float16`` arrays, bfloat16 kernels ``uint16`` arrays
converted in the kernel (``ushort_as_bfloat16``/``bfloat16_as_ushort``; NumPy has no bfloat16 without
ml_dtypes). Tile 0 holds every class of bit pattern (+-0.0, the smallest and largest subnormals of both signs,
the smallest normal, +-1, the largest finite of both signs, +-inf, quiet and signalling NaNs with the sign bit
clear and set, the all-ones NaN) and random bit patterns; tile 1 is mostly ties (-0.0/+0.0 mixed, equal NaNs,
equal subnormals: stability); tile 2 is reverse-sorted. Values are int32 input positions, so stability shows.

Each kernel (block (128,), (33,), (16,8), (4,4,4) x items 1, 4, 8 x both formats = 24 kernels) on a 3-tile
launch:

- ``radix_sort(keys, values)``, ascending or descending, blocked or striped output, over the default bits (no
  ``begin_bit``/``end_bit``), all 16 bits at run time, a partial range (2, 13) or the sign and exponent bits
  only (10 or 7 to 16: nearly every key ties); keys (bits) and values exact;
- ``argsort`` of a copy the other way round, over the same bits, the other output arrangement, ``base`` = the
  tile offset + 7: keys exact, indices = the model's stable argsort + base;
- ``top_k`` (pairs, into shared memory poisoned first; largest or smallest; k random, one past the tile, -3):
  ``[0, k)`` exact, the rest still poisoned, the caller's keys unchanged;
- ``radix_rank`` of the keys, ``radix_bits=4`` over the top 4 bits of the range, "basic"/"memoize"/"match"
  (1-D blocks) rotating: ranks against a NumPy lexsort of the digits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.gpu import test_family_block_radix_sort as family
from tests.helpers.shapes import Tile

DTYPES = ("float16", "bfloat16")
BLOCKS = ((128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4))
ITEMS = (1, 4, 8)
BITS = ("default", "full", "partial", "sign_exponent")
ALGORITHMS = ("basic", "memoize", "match")
TILES = 3
BASE_EXTRA = 7
RANK_BITS = 4
POISON_BITS = 0x5A5A
POISON_INDEX = -77

# bit patterns of every class: (float16, bfloat16)
SPECIALS = {
    "float16": [
        0x0000, 0x8000,  # +0.0, -0.0
        0x0001, 0x8001, 0x03FF, 0x83FF,  # smallest / largest subnormals
        0x0400, 0x8400,  # smallest normals
        0x3C00, 0xBC00,  # +-1
        0x7BFF, 0xFBFF,  # +-max finite
        0x7C00, 0xFC00,  # +-inf
        0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7D55, 0xFFFF,  # quiet / signalling NaNs of both signs, all-ones
    ],
    "bfloat16": [
        0x0000, 0x8000,
        0x0001, 0x8001, 0x007F, 0x807F,
        0x0080, 0x8080,
        0x3F80, 0xBF80,
        0x7F7F, 0xFF7F,
        0x7F80, 0xFF80,
        0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FAA, 0xFFFF,
    ],
}
TIES = {  # few distinct keys: -0.0/+0.0, a NaN of each sign, a subnormal, +-1, inf
    "float16": [0x0000, 0x8000, 0x8000, 0x0000, 0x7E00, 0xFE00, 0x0001, 0x3C00, 0xBC00, 0x7C00],
    "bfloat16": [0x0000, 0x8000, 0x8000, 0x0000, 0x7FC0, 0xFFC0, 0x0001, 0x3F80, 0xBF80, 0x7F80],
}


@dataclass(frozen=True)
class Case(Tile):
    dtype: str
    block: tuple[int, int, int]
    ipt: int
    descending: bool
    output: str
    bits: str
    largest: bool
    algorithm: str

    @property
    def id(self) -> str:
        return (f"{self.dtype}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-{'desc' if self.descending else 'asc'}-"
                f"{self.output}-{self.bits}-{'largest' if self.largest else 'smallest'}-{self.algorithm}")


def cases() -> list[Case]:
    result = []
    n = 0
    for dtype in DTYPES:
        for block in BLOCKS:
            for ipt in ITEMS:
                one_d = block[1:] == (1, 1)
                algorithm = ALGORITHMS[n % 3] if one_d else ALGORITHMS[n % 2]
                bits = BITS[n % 4 if dtype == "float16" else (n + 1) % 4]
                result.append(Case(dtype, block, ipt, descending=n % 2 == 0,
                                   output=("blocked", "striped")[(n // 2) % 2], bits=bits,
                                   largest=(n // 3) % 2 == 0, algorithm=algorithm))
                n += 1
    return result


CASES = cases()


def bit_range(case: Case) -> tuple[int, int]:
    """(begin_bit, end_bit) passed at run time (all 16 bits for ``"default"``, where they are not passed)."""
    if case.bits == "partial":
        return 2, 13
    if case.bits == "sign_exponent":
        return (10 if case.dtype == "float16" else 7), 16
    return 0, 16


def as_f16(bits: np.ndarray) -> np.ndarray:
    """The bits viewed as float16: :func:`family.ordered` then applies CUB's twiddle, right for either format."""
    return np.ascontiguousarray(bits, np.uint16).view(np.float16)


def order(bits: np.ndarray, descending: bool, begin: int = 0, end: int = 16) -> np.ndarray:
    return family.order(as_f16(bits), descending, begin, end)


def bfloat16_to_float32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def keys_for(case: Case, rng: np.random.Generator) -> np.ndarray:
    """TILES tiles of 16-bit patterns (see the module docstring), as uint16."""
    n = case.tile
    tiles = rng.integers(0, 0xFFFF, (TILES, n), dtype=np.uint16, endpoint=True)
    specials = np.array(SPECIALS[case.dtype], np.uint16)
    m = min(n, specials.size)
    first = rng.permutation(specials)[:m]  # with a tile smaller than the specials, a random subset
    tiles[0, rng.choice(n, m, replace=False)] = first
    ties = np.array(TIES[case.dtype], np.uint16)
    tiles[1] = ties[rng.integers(0, ties.size, n)]
    tiles[2] = tiles[2][order(tiles[2], True)]
    return tiles.reshape(-1)


def k_for(case: Case, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.integers(1, case.tile) if case.tile > 1 else 1, case.tile + 1, -3], np.int64)


def _types(dtype: str) -> tuple[Any, Any]:
    """(numba item type, numba type of the kernel's key arrays)."""
    from numba_cuda_mlir.numba_cuda import types

    if dtype == "bfloat16":
        return types.bfloat16, types.uint16
    return types.float16, types.float16


def make_kernel(case: Case) -> Any:
    """``k(x, v, bits, ks, keys_out, values_out, keys2_out, index_out, top_keys, top_values, ranks_out)``."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = _types(case.dtype)
    BF16 = case.dtype == "bfloat16"
    IPT, T, TILE = case.ipt, case.threads, case.tile
    DESC, OUT, OTHER_DESC = case.descending, case.output, not case.descending
    OTHER = "striped" if OUT == "blocked" else "blocked"
    STRIPED, OTHER_STRIPED = OUT == "striped", OTHER == "striped"
    DEFAULT_BITS, LARGEST, ALGO = case.bits == "default", case.largest, case.algorithm
    POISON_I = POISON_INDEX

    @cuda.jit
    def kernel(x, v, bits, ks, keys_out, values_out, keys2_out, index_out, top_keys, top_values, ranks_out):
        keys = cuda.local.array(IPT, item)
        keys2 = cuda.local.array(IPT, item)
        keys3 = cuda.local.array(IPT, item)
        vals = cuda.local.array(IPT, np.int32)
        vals3 = cuda.local.array(IPT, np.int32)
        idx = cuda.local.array(IPT, np.int32)
        ranks = cuda.local.array(IPT, np.int32)
        top_k_keys = cuda.shared.array(TILE, item)
        top_k_values = cuda.shared.array(TILE, np.int32)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        bid = cuda.blockIdx.x
        mine = bid * TILE + t * IPT
        for i in range(IPT):
            k = ushort_as_bfloat16(x[mine + i]) if BF16 else x[mine + i]
            keys[i] = k
            keys2[i] = k
            keys3[i] = k
            vals[i] = v[mine + i]
            vals3[i] = v[mine + i]
            # top_keys starts poisoned on the host; this thread overwrites these positions only at the end
            top_k_keys[t * IPT + i] = ushort_as_bfloat16(top_keys[mine + i]) if BF16 else top_keys[mine + i]
            top_k_values[t * IPT + i] = POISON_I
        if DEFAULT_BITS:
            coop.block.radix_sort(keys, values=vals, descending=DESC, output=OUT)
        else:
            coop.block.radix_sort(keys, values=vals, descending=DESC, output=OUT, begin_bit=bits[0], end_bit=bits[1])
        for i in range(IPT):
            pos = bid * TILE + (i * T + t if STRIPED else t * IPT + i)
            keys_out[pos] = bfloat16_as_ushort(keys[i]) if BF16 else keys[i]
            values_out[pos] = vals[i]
        coop.block.argsort(keys2, idx, descending=OTHER_DESC, base=bid * TILE + BASE_EXTRA, output=OTHER,
                           begin_bit=bits[0], end_bit=bits[1])
        for i in range(IPT):
            pos = bid * TILE + (i * T + t if OTHER_STRIPED else t * IPT + i)
            keys2_out[pos] = bfloat16_as_ushort(keys2[i]) if BF16 else keys2[i]
            index_out[pos] = idx[i]
        cuda.syncthreads()  # the poison is in place
        coop.block.top_k(keys3, top_k_keys, k=ks[bid], values=vals3, out_values=top_k_values, largest=LARGEST)
        coop.block.radix_rank(keys3, ranks, radix_bits=RANK_BITS, begin_bit=bits[2], end_bit=bits[1],
                              descending=DESC, algorithm=ALGO)
        cuda.syncthreads()
        for i in range(IPT):
            top_keys[mine + i] = bfloat16_as_ushort(top_k_keys[t * IPT + i]) if BF16 else top_k_keys[t * IPT + i]
            top_values[mine + i] = top_k_values[t * IPT + i]
            keys2_out[TILES * TILE + mine + i] = bfloat16_as_ushort(keys3[i]) if BF16 else keys3[i]
            ranks_out[mine + i] = ranks[i]

    return kernel


def signature(case: Case) -> tuple[Any, ...]:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    k = _types(case.dtype)[1][::1]
    i32 = types.int32[::1]
    return (k, i32, i32, types.int64[::1], k, i32, k, i32, k, i32, i32)


def _host_keys(case: Case, bits: np.ndarray) -> np.ndarray:
    return bits.view(np.float16) if case.dtype == "float16" else bits


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint16)


def _launch(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    x, ks = keys_for(case, rng), k_for(case, rng)
    n = x.size
    v = np.arange(n, dtype=np.int32)
    begin, end = bit_range(case)
    rank_begin = max(begin, end - RANK_BITS)
    poison_keys = np.full(n, POISON_BITS, np.uint16)
    outs = [_host_keys(case, poison_keys.copy()), np.full(n, -5, np.int32),
            _host_keys(case, np.full(2 * n, POISON_BITS, np.uint16)), np.full(n, -5, np.int32),
            _host_keys(case, poison_keys.copy()), np.full(n, -5, np.int32), np.full(n, -5, np.int32)]
    d_outs = [cuda.to_device(o) for o in outs]
    make_kernel(case)[TILES, case.block](
        cuda.to_device(_host_keys(case, x)), cuda.to_device(v),
        cuda.to_device(np.array([begin, end, rank_begin], np.int32)), cuda.to_device(ks), *d_outs)
    keys_out, values_out, keys2_out, index_out, top_keys, top_values, ranks_out = (d.copy_to_host() for d in d_outs)
    keys_out, keys2_out, top_keys = _bits(keys_out), _bits(keys2_out), _bits(top_keys)

    for b, tile in enumerate(x.reshape(TILES, case.tile)):
        sl = slice(b * case.tile, (b + 1) * case.tile)
        vt = v[sl]
        where = f"{case.id} tile {b}"
        o = order(tile, case.descending, begin, end)
        np.testing.assert_array_equal(keys_out[sl], tile[o], err_msg=f"radix_sort keys, {where}")
        np.testing.assert_array_equal(values_out[sl], vt[o], err_msg=f"radix_sort values, {where}")
        o2 = order(tile, not case.descending, begin, end)
        np.testing.assert_array_equal(keys2_out[sl], tile[o2], err_msg=f"argsort keys, {where}")
        np.testing.assert_array_equal(index_out[sl], o2 + b * case.tile + BASE_EXTRA,
                                      err_msg=f"argsort indices, {where}")
        k = int(np.clip(ks[b], 0, case.tile))
        o3 = order(tile, case.largest)  # top_k compares every bit
        np.testing.assert_array_equal(top_keys[sl][:k], tile[o3[:k]], err_msg=f"top_k keys, {where}")
        np.testing.assert_array_equal(top_values[sl][:k], vt[o3[:k]], err_msg=f"top_k values, {where}")
        assert (top_keys[sl][k:] == POISON_BITS).all(), f"top_k wrote keys past k={k}, {where}"
        assert (top_values[sl][k:] == POISON_INDEX).all(), f"top_k wrote values past k={k}, {where}"
        unchanged = keys2_out[TILES * case.tile + b * case.tile : TILES * case.tile + (b + 1) * case.tile]
        np.testing.assert_array_equal(unchanged, tile, err_msg=f"top_k changed its keys, {where}")
        rank_case = family.RankCase("float16", case.block, case.ipt, RANK_BITS, case.descending, rank_begin, end,
                                    case.algorithm, RANK_BITS)
        want, _ = family.expected_ranks(as_f16(tile), rank_case, RANK_BITS, case.algorithm == "match",
                                        case.threads, case.ipt)
        np.testing.assert_array_equal(ranks_out[sl], want, err_msg=f"radix_rank ({case.algorithm}), {where}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_half_keys(case: Case, rng: np.random.Generator) -> None:
    _launch(case, rng)


def test_model_is_numpys_order_without_nans_and_orders_nans_by_sign(rng: np.random.Generator) -> None:
    """The host model (bits viewed as float16) against NumPy for both formats; NaNs by sign bit and payload."""
    for dtype in DTYPES:
        case = Case(dtype, (128, 1, 1), 8, False, "blocked", "default", True, "basic")
        x = keys_for(case, rng)
        values = x.view(np.float16).astype(np.float32) if dtype == "float16" else bfloat16_to_float32(x)
        finite = ~np.isnan(values)
        np.testing.assert_array_equal(order(x[finite], False), np.argsort(values[finite], kind="stable"),
                                      err_msg=dtype)
        got = x[order(x, False)]
        nan = np.isnan(got.view(np.float16).astype(np.float32) if dtype == "float16" else bfloat16_to_float32(got))
        neg = (got & 0x8000) != 0
        count_neg_nan = int((nan & neg).sum())
        assert count_neg_nan > 0 and nan[:count_neg_nan].all() and neg[:count_neg_nan].all(), dtype
        count_pos_nan = int((nan & ~neg).sum())
        assert count_pos_nan > 0 and nan[-count_pos_nan:].all() and not neg[-count_pos_nan:].any(), dtype
        # sign-set NaNs: larger payload first; sign-clear NaNs: larger payload last
        assert (np.diff(got[:count_neg_nan].astype(np.int64)) <= 0).all()
        assert (np.diff(got[-count_pos_nan:].astype(np.int64)) >= 0).all()
    # -0.0 and +0.0 tie: both keep their input order
    z = np.array([0x8000, 0x0000, 0x8000, 0x0000], np.uint16)
    np.testing.assert_array_equal(order(z, False), [0, 1, 2, 3])
    np.testing.assert_array_equal(order(z, True), [0, 1, 2, 3])


def test_cases_cover_every_axis() -> None:
    assert {(c.dtype, c.block, c.ipt) for c in CASES} == {(d, b, i) for d in DTYPES for b in BLOCKS for i in ITEMS}
    for dtype in DTYPES:
        mine = [c for c in CASES if c.dtype == dtype]
        assert {c.bits for c in mine} == set(BITS), dtype
        assert {c.descending for c in mine} == {False, True}, dtype
        assert {c.output for c in mine} == {"blocked", "striped"}, dtype
        assert {c.largest for c in mine} == {False, True}, dtype
        assert {c.algorithm for c in mine} == set(ALGORITHMS), dtype
    assert all(c.algorithm != "match" or c.block[1:] == (1, 1) for c in CASES)
