"""Partial tiles of the radix sorts and ranks on the GPU: ``valid_items=`` of ``coop.block.radix_sort``, ``argsort``,
``top_k``, ``radix_rank`` and ``coop.warp.argsort``, ``top_k``, against NumPy.

CUB's classes sort whole tiles; cuda-coop pads: before CUB runs, the keys at tile positions at or past the count
become the key that sorts after every valid one (``cuda_coop/_specs/_pad.py``). Each block of a launch (each
logical warp, for the warp forms) gets its own count: 0, 1, tile - 1, tile, tile + 5, a negative one (-3; for an
unsigned count type ``2**63 + 1``, which means the whole tile) and one in between. The input keys past the count
are *poison*: the key that sorts first in the call's direction (bit-ordered form all zeros ascending, all ones
descending), so a key the wrapper failed to pad would show in the first positions.

The reference is :func:`tests.gpu.test_family_block_radix_sort.order` (CUB's bit-ordered key, NumPy's stable
argsort) of the valid keys alone (``V = min(max(count, 0), tile)``), for bfloat16 of the bits viewed as float16
(:func:`tests.gpu.test_radix_sort_half.as_f16`):

- ``radix_sort`` (keys, or with int32/float64 values; runtime bit range or none): the first V positions of the
  result (blocked or striped) hold the valid keys sorted (bits exact) with their values;
- ``argsort`` (the other direction and arrangement): the first V indices are ``order(valid) + base``;
- ``top_k`` (largest or smallest, k above and below V): ``out[offset : offset + min(k, V)]`` exact, the rest of
  the output still poisoned, the caller's keys unchanged;
- ``radix_rank`` ("basic", "memoize", "match" on 1-D blocks, where the count is in warp-striped order): ranks and
  digit prefixes are :func:`~tests.gpu.test_family_block_radix_sort.expected_ranks` of the padded tile, the valid
  keys' ranks below V and the padded ones from V on.

Keys: random bit patterns with the float specials (+-0.0, +-inf, NaNs of both signs with payloads, the all-ones
NaN that ties with the ascending pad), ties, reverse-sorted tiles (``keys_for`` of the two modules). Every key
type (int8..uint64, float16, bfloat16, float32, float64), both directions each; the other axes rotate (see
:func:`cases`; the compile tier compiles a covering subset). The warp forms run each key type with both
``algorithm=`` values, ``"merge_sort"`` and ``"bitonic"`` (whose positions break ties, so the padding sorts after
equal valid keys too), against the same model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.gpu import test_family_block_radix_sort as family
from tests.gpu import test_radix_sort_half as half
from tests.gpu import test_warp_argsort_top_k as warp
from tests.helpers.shapes import Tile

KEYS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32",
        "float64")
BLOCKS = ((32, 1, 1), (128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4), (256, 1, 1))
ITEMS = (1, 3, 4, 8)
VALUES = (None, "int32", "float64")
ALGORITHMS = ("basic", "memoize", "match")
COUNT_TYPES = ("int64", "int32", "uint64", "uint32")
INDEX_TYPES = ("int32", "int64", "uint32")
WARPS = (1, 4, 8, 16, 32)
KINDS = 7
"""Counts per launch: 0, 1, tile - 1, tile, tile + 5, negative (or huge), in between."""
BASE_EXTRA = 7
POISON_VALUE = -77


@dataclass(frozen=True)
class Case(Tile):
    """One kernel: radix_sort, argsort, top_k and radix_rank of a block's tile, each with ``valid_items``."""

    dtype: str
    block: tuple[int, int, int]
    ipt: int
    descending: bool
    output: str
    values: str | None
    bits: str
    largest: bool
    algorithm: str
    radix_bits: int | None
    """None: the default (4)."""
    count_type: str
    index_type: str

    @property
    def rank_bits(self) -> int:
        return self.radix_bits or 4

    @property
    def id(self) -> str:
        return (f"{self.dtype}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-{'desc' if self.descending else 'asc'}-"
                f"{self.output}-{self.values or 'keys'}-{self.bits}-{'largest' if self.largest else 'smallest'}-"
                f"{self.algorithm}-rb{self.radix_bits or 'default'}-{self.count_type}-{self.index_type}")


def cases() -> list[Case]:
    result = []
    for d, dtype in enumerate(KEYS):
        for j, descending in enumerate((False, True)):
            n = 2 * d + j
            block = BLOCKS[n % len(BLOCKS)]
            ipt = ITEMS[(d + j) % len(ITEMS)] if block[0] < 256 else 4
            algorithm = ALGORITHMS[n % 3] if block[1:] == (1, 1) else ALGORITHMS[n % 2]
            result.append(Case(dtype, block, ipt, descending, output=("blocked", "striped")[(n // 2) % 2],
                               values=VALUES[n % 3], bits=("default", "partial")[d % 2], largest=(n // 3) % 2 == 0,
                               algorithm=algorithm, radix_bits=(None, 3, 5)[n % 3],
                               count_type=COUNT_TYPES[n % 4], index_type=INDEX_TYPES[d % 3]))
    return result


CASES = cases()


# --- keys as bit patterns ------------------------------------------------------------------------------------------


def width(dtype: str) -> int:
    return 16 if dtype == "bfloat16" else 8 * np.dtype(dtype).itemsize


def _kind(dtype: str) -> str:
    return "f" if dtype == "bfloat16" else np.dtype(dtype).kind


def _ubits(dtype: str) -> np.dtype:
    return np.dtype(f"uint{width(dtype)}")


def key_bits(dtype: str, twiddled: int) -> int:
    """The key whose bit-ordered form is ``twiddled`` (CUB's ``TwiddleOut``)."""
    w = width(dtype)
    high, ones = 1 << (w - 1), (1 << w) - 1
    if _kind(dtype) == "u":
        return twiddled
    if _kind(dtype) == "i":
        return twiddled ^ high
    return twiddled ^ high if twiddled & high else twiddled ^ ones


def last_key(dtype: str, descending: bool) -> int:
    """The pad: sorts after every key (ascending: twiddled all ones, +NaN with every payload bit; descending: all
    zeros, -NaN with every bit set)."""
    return key_bits(dtype, 0 if descending else (1 << width(dtype)) - 1)


def first_key(dtype: str, descending: bool) -> int:
    """The poison past the count: the key that sorts before every other."""
    return last_key(dtype, not descending)


def model_view(dtype: str, bits: np.ndarray) -> np.ndarray:
    """Bits as the dtype :func:`family.order` models (bfloat16 as float16: the twiddle only reads the sign)."""
    return half.as_f16(bits) if dtype == "bfloat16" else np.ascontiguousarray(bits).view(dtype)


def tiles_for(dtype: str, tile: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` tiles of key bits: random with the specials, ties, reverse-sorted, in turn."""
    chunks = []
    while sum(len(c) for c in chunks) < count * tile:
        if dtype in ("float16", "bfloat16"):
            proxy = half.Case(dtype, (tile, 1, 1), 1, False, "blocked", "default", True, "basic")
            chunks.append(half.keys_for(proxy, rng))
        else:
            proxy_f = family.Case(dtype, None, (tile, 1, 1), 1, False, "blocked", "default", "argsort")
            chunks.append(family.keys_for(proxy_f, rng).view(_ubits(dtype)))
    return np.concatenate(chunks)[: count * tile].astype(_ubits(dtype)).reshape(count, tile)


def counts(tile: int, count_type: str, rng: np.random.Generator) -> np.ndarray:
    """One count per tile, of every kind (see ``KINDS``)."""
    negative = -3 if np.dtype(count_type).kind == "i" else (2**63 + 1 if count_type == "uint64" else 2**32 - 2)
    middle = int(rng.integers(2, tile - 1)) if tile > 3 else 1
    return np.array([0, 1, tile - 1, tile, tile + 5, negative, middle], dtype=count_type)


def valid(count: int, tile: int) -> int:
    """The count as the wrapper clamps it; an unsigned count wider than a tile means all of it."""
    return int(min(max(int(count), 0), tile))


def positions(case_threads: int, ipt: int, warp_striped: bool) -> np.ndarray:
    """The tile position of each key in blocked memory order (thread t's item i at t*N + i): itself, or where CUB's
    BlockRadixRankMatch orders ties, (warp, item, lane)."""
    p = np.arange(case_threads * ipt)
    if not warp_striped:
        return p
    t, i = p // ipt, p % ipt
    w, lane = t // 32, t % 32
    lanes = np.minimum(32, case_threads - 32 * w)
    return w * 32 * ipt + i * lanes + lane


def index_poison(index_type: str, n: int) -> np.ndarray:
    """Indices no argsort gives (the largest of the type but 3)."""
    return np.full(n, np.iinfo(index_type).max - 3, index_type)


def with_tail(bits: np.ndarray, where: np.ndarray, key: int) -> np.ndarray:
    out = bits.copy()
    out[where] = key
    return out


# --- the block kernel ----------------------------------------------------------------------------------------------


def _item_types(dtype: str) -> tuple[Any, Any]:
    """(numba type of the keys in the kernel, numba type of the kernel's key arrays)."""
    from numba_cuda_mlir.numba_cuda import types

    if dtype == "bfloat16":
        return types.bfloat16, types.uint16
    return getattr(types, dtype), getattr(types, dtype)


def make_kernel(case: Case) -> Any:
    """``k(xs, xo, xt, xr, v, bits, ns, ks, keys_out, values_out, keys2_out, index_out, top_keys, top_values,
    after, ranks_out, prefix_out)``: xs/xo/xt/xr are the tiles with the poison of the sort, the argsort, the top-k
    and the rank."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = _item_types(case.dtype)
    BF16 = case.dtype == "bfloat16"
    VT, IT = getattr(np, case.values or "int32"), getattr(np, case.index_type)
    IPT, T, TILE = case.ipt, case.threads, case.tile
    B = family.tracked(case.rank_bits, T)
    DESC, OTHER_DESC, OUT = case.descending, not case.descending, case.output
    OTHER = "striped" if OUT == "blocked" else "blocked"
    STRIPED, OTHER_STRIPED = OUT == "striped", OTHER == "striped"
    HAS_VALUES, DEFAULT_BITS = case.values is not None, case.bits == "default"
    LARGEST, ALGO = case.largest, case.algorithm
    DEFAULT_RB, RB = case.radix_bits is None, case.rank_bits
    POISON_V = POISON_VALUE

    @cuda.jit
    def kernel(xs, xo, xt, xr, v, bits, ns, ks, keys_out, values_out, keys2_out, index_out, top_keys,  # noqa: PLR0912
               top_values, after, ranks_out, prefix_out):
        keys = cuda.local.array(IPT, item)
        vals = cuda.local.array(IPT, VT)
        keys2 = cuda.local.array(IPT, item)
        idx = cuda.local.array(IPT, IT)
        keys3 = cuda.local.array(IPT, item)
        vals3 = cuda.local.array(IPT, VT)
        keys4 = cuda.local.array(IPT, item)
        ranks = cuda.local.array(IPT, np.int32)
        prefix = cuda.local.array(B, np.int32)
        top_k_keys = cuda.shared.array(TILE, item)
        top_k_values = cuda.shared.array(TILE, VT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        bid = cuda.blockIdx.x
        n = ns[bid]
        mine = bid * TILE + t * IPT
        for i in range(IPT):  # each copy is loaded just before its call: fewer registers live at once
            keys[i] = ushort_as_bfloat16(xs[mine + i]) if BF16 else xs[mine + i]
            vals[i] = v[mine + i]
            top_k_keys[t * IPT + i] = ushort_as_bfloat16(top_keys[mine + i]) if BF16 else top_keys[mine + i]
            top_k_values[t * IPT + i] = POISON_V
        if HAS_VALUES:
            if DEFAULT_BITS:
                coop.block.radix_sort(keys, values=vals, descending=DESC, output=OUT, valid_items=n)
            else:
                coop.block.radix_sort(keys, values=vals, descending=DESC, output=OUT, begin_bit=bits[0],
                                      end_bit=bits[1], valid_items=n)
        elif DEFAULT_BITS:
            coop.block.radix_sort(keys, descending=DESC, output=OUT, valid_items=n)
        else:
            coop.block.radix_sort(keys, descending=DESC, output=OUT, begin_bit=bits[0], end_bit=bits[1],
                                  valid_items=n)
        for i in range(IPT):
            pos = bid * TILE + (i * T + t if STRIPED else t * IPT + i)
            keys_out[pos] = bfloat16_as_ushort(keys[i]) if BF16 else keys[i]
            values_out[pos] = vals[i]
            keys2[i] = ushort_as_bfloat16(xo[mine + i]) if BF16 else xo[mine + i]
        coop.block.argsort(keys2, idx, descending=OTHER_DESC, base=bid * TILE + BASE_EXTRA, output=OTHER,
                           begin_bit=bits[0], end_bit=bits[1], valid_items=n)
        for i in range(IPT):
            pos2 = bid * TILE + (i * T + t if OTHER_STRIPED else t * IPT + i)
            keys2_out[pos2] = bfloat16_as_ushort(keys2[i]) if BF16 else keys2[i]
            index_out[pos2] = idx[i]
            keys3[i] = ushort_as_bfloat16(xt[mine + i]) if BF16 else xt[mine + i]
            vals3[i] = v[mine + i]
        cuda.syncthreads()  # the poison is in place
        if HAS_VALUES:
            coop.block.top_k(keys3, top_k_keys, k=ks[bid], values=vals3, out_values=top_k_values, largest=LARGEST,
                             valid_items=n)
        else:
            coop.block.top_k(keys3, top_k_keys, k=ks[bid], largest=LARGEST, valid_items=n)
        for i in range(IPT):
            after[2 * mine + i] = bfloat16_as_ushort(keys3[i]) if BF16 else keys3[i]
            keys4[i] = ushort_as_bfloat16(xr[mine + i]) if BF16 else xr[mine + i]
        for j in range(B):
            prefix[j] = -5  # entries past the digits stay as they are
        if DEFAULT_RB:
            coop.block.radix_rank(keys4, ranks, digit_prefix=prefix, begin_bit=bits[2], end_bit=bits[3],
                                  descending=DESC, valid_items=n, algorithm=ALGO)
        else:
            coop.block.radix_rank(keys4, ranks, digit_prefix=prefix, radix_bits=RB, begin_bit=bits[2],
                                  end_bit=bits[3], descending=DESC, valid_items=n, algorithm=ALGO)
        cuda.syncthreads()
        for i in range(IPT):
            top_keys[mine + i] = bfloat16_as_ushort(top_k_keys[t * IPT + i]) if BF16 else top_k_keys[t * IPT + i]
            top_values[mine + i] = top_k_values[t * IPT + i]
            after[2 * mine + IPT + i] = bfloat16_as_ushort(keys4[i]) if BF16 else keys4[i]
            ranks_out[mine + i] = ranks[i]
        for j in range(B):
            prefix_out[(bid * T + t) * B + j] = prefix[j]

    return kernel


def signature(case: Case) -> tuple[Any, ...]:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    k = _item_types(case.dtype)[1][::1]
    v, i32 = getattr(types, case.values or "int32")[::1], types.int32[::1]
    return (k, k, k, k, v, i32, getattr(types, case.count_type)[::1], types.int64[::1], k, v, k,
            getattr(types, case.index_type)[::1], k, v, k, i32, i32)


def bit_ranges(case: Case) -> tuple[int, int, int, int]:
    """(sort begin, sort end, rank begin, rank end); a partial rank range is narrower than the digit."""
    w = width(case.dtype)
    if case.bits == "default":
        return 0, w, w - case.rank_bits, w
    begin, end = (1, w - 2) if w > 8 else (2, 7)
    return begin, end, w - 3, w


def _host(dtype: str, bits: np.ndarray) -> np.ndarray:
    """Key bits as the kernel's arrays hold them (bfloat16: the bits)."""
    return bits if dtype == "bfloat16" else np.ascontiguousarray(bits).view(dtype)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"uint{8 * a.dtype.itemsize}")


def _launch(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    tiles = tiles_for(case.dtype, case.tile, KINDS, rng)
    ns, tile = counts(case.tile, case.count_type, rng), case.tile
    ks = np.array([2, 5, (tile - 1) // 2, tile + 1, tile // 3, 4, valid(ns[6], tile) + 7], np.int64)
    begin, end, rank_begin, rank_end = bit_ranges(case)
    blocked, striped = positions(case.threads, case.ipt, False), positions(case.threads, case.ipt, True)
    rank_pos = striped if case.algorithm == "match" else blocked
    poisoned = {name: np.stack([with_tail(tiles[b], pos >= valid(ns[b], tile), first_key(case.dtype, desc))
                                for b in range(KINDS)]).reshape(-1)
                for name, pos, desc in (("s", blocked, case.descending), ("o", blocked, not case.descending),
                                        ("t", blocked, case.largest), ("r", rank_pos, case.descending))}
    n = KINDS * tile
    v = (np.arange(n) + (0.25 if case.values == "float64" else 0)).astype(case.values or "int32")
    u = _ubits(case.dtype)
    poison_key = np.full(n, 0x5A5A if width(case.dtype) == 16 else np.iinfo(u).max // 3, u)
    b_rank = family.tracked(case.rank_bits, case.threads)
    outs = [_host(case.dtype, poison_key.copy()), np.full(n, -5, v.dtype), _host(case.dtype, poison_key.copy()),
            index_poison(case.index_type, n), _host(case.dtype, poison_key.copy()), np.full(n, POISON_VALUE, v.dtype),
            _host(case.dtype, np.zeros(2 * n, u)), np.full(n, -7, np.int32),
            np.full(KINDS * case.threads * b_rank, -7, np.int32)]
    d_outs = [cuda.to_device(o) for o in outs]
    make_kernel(case)[KINDS, case.block](
        *(cuda.to_device(_host(case.dtype, poisoned[k])) for k in "sotr"), cuda.to_device(v),
        cuda.to_device(np.array([begin, end, rank_begin, rank_end], np.int32)), cuda.to_device(ns),
        cuda.to_device(ks), *d_outs)
    got = [d.copy_to_host() for d in d_outs]
    keys_out, keys2_out, top_keys, after = (_bits(got[i]) for i in (0, 2, 4, 6))
    values_out, index_out, top_values, ranks_out, prefix_out = (got[i] for i in (1, 3, 5, 7, 8))
    for b in range(KINDS):
        _check_tile(case, b, tiles[b], valid(ns[b], tile), int(ks[b]), poisoned,
                    (keys_out, values_out, keys2_out, index_out, top_keys, top_values, after, ranks_out, prefix_out),
                    v, (begin, end, rank_begin, rank_end), rank_pos)


def _check_tile(case: Case, b: int, tile_bits: np.ndarray, nv: int, k: int, poisoned: dict[str, np.ndarray],
                got: tuple[np.ndarray, ...], v: np.ndarray, ranges: tuple[int, int, int, int],
                rank_pos: np.ndarray) -> None:
    keys_out, values_out, keys2_out, index_out, top_keys, top_values, after, ranks_out, prefix_out = got
    tile, (begin, end, rank_begin, rank_end) = case.tile, ranges
    sl, vt = slice(b * tile, (b + 1) * tile), v[b * tile : (b + 1) * tile]
    where = f"{case.id} tile {b} (valid {nv}, k {k})"
    good = model_view(case.dtype, tile_bits[:nv])
    o = family.order(good, case.descending, begin, end)
    np.testing.assert_array_equal(keys_out[sl][:nv], tile_bits[:nv][o], err_msg=f"radix_sort keys, {where}")
    if case.values:
        np.testing.assert_array_equal(values_out[sl][:nv], vt[:nv][o], err_msg=f"radix_sort values, {where}")
    o2 = family.order(good, not case.descending, begin, end)
    np.testing.assert_array_equal(keys2_out[sl][:nv], tile_bits[:nv][o2], err_msg=f"argsort keys, {where}")
    np.testing.assert_array_equal(index_out[sl][:nv], (o2 + b * tile + BASE_EXTRA).astype(case.index_type),
                                  err_msg=f"argsort indices, {where}")
    kk = min(max(k, 0), tile, nv)
    o3 = family.order(good, case.largest)  # top_k compares every bit
    np.testing.assert_array_equal(top_keys[sl][:kk], tile_bits[:nv][o3[:kk]], err_msg=f"top_k keys, {where}")
    assert (top_keys[sl][kk:] == (0x5A5A if width(case.dtype) == 16 else np.iinfo(top_keys.dtype).max // 3)).all(), (
        f"top_k wrote keys past min(k, valid_items), {where}")
    if case.values:
        np.testing.assert_array_equal(top_values[sl][:kk], vt[:nv][o3[:kk]], err_msg=f"top_k values, {where}")
    assert (top_values[sl][kk:] == POISON_VALUE).all(), f"top_k wrote values past min(k, valid_items), {where}"
    mine = after.reshape(-1, 2, case.ipt)[b * case.threads : (b + 1) * case.threads]
    inputs = {name: poisoned[name][sl].reshape(case.threads, case.ipt) for name in "tr"}
    np.testing.assert_array_equal(mine[:, 0], inputs["t"], err_msg=f"top_k changed its keys, {where}")
    np.testing.assert_array_equal(mine[:, 1], inputs["r"], err_msg=f"radix_rank changed its keys, {where}")
    padded = with_tail(poisoned["r"][sl], rank_pos >= nv, last_key(case.dtype, case.descending))
    rank_case = family.RankCase(case.dtype if case.dtype != "bfloat16" else "float16", case.block, case.ipt,
                                case.rank_bits, case.descending, rank_begin, rank_end, case.algorithm, case.rank_bits)
    want, want_prefix = family.expected_ranks(model_view(case.dtype, padded), rank_case, case.rank_bits,
                                              case.algorithm == "match", case.threads, case.ipt)
    ranks = ranks_out[sl]
    np.testing.assert_array_equal(ranks, want, err_msg=f"radix_rank ({case.algorithm}) ranks, {where}")
    assert (ranks[rank_pos < nv] < nv).all() and (ranks[rank_pos >= nv] >= nv).all(), where
    b_rank = family.tracked(case.rank_bits, case.threads)
    np.testing.assert_array_equal(prefix_out[b * case.threads * b_rank : (b + 1) * case.threads * b_rank],
                                  want_prefix, err_msg=f"radix_rank digit_prefix, {where}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_partial_tiles(case: Case, rng: np.random.Generator) -> None:
    _launch(case, rng)


# --- the warp forms ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WarpCase(warp.Case):
    """One kernel: warp.argsort and warp.top_k of every logical warp's tile, each warp with its own count (the warp
    module's case, with the count's type and as many blocks as the count kinds need)."""

    count_type: str = "int64"

    @property
    def blocks(self) -> int:
        """Enough blocks for a logical warp of every count kind."""
        return max(2, -(-KINDS * self.threads // self.block_threads))

    @property
    def warps(self) -> int:
        return self.blocks * self.block_threads // self.threads

    @property
    def id(self) -> str:
        return f"warp-{super().id}-{self.count_type}"


def warp_cases() -> list[WarpCase]:
    result = []
    for d, dtype in enumerate(KEYS):
        for j, descending in enumerate((False, True)):
            n = 2 * d + j
            block = ((64, 1, 1), (16, 8, 1), (4, 4, 4), (32, 1, 1))[n % 4]
            result.append(WarpCase(dtype, WARPS[n % len(WARPS)], (1, 3, 4)[d % 3], block, descending,
                                   largest=(n // 2) % 2 == 0, values=VALUES[n % 3],
                                   index_type=INDEX_TYPES[n % len(INDEX_TYPES)],
                                   algorithm=warp.ALGORITHMS[(d + j) % 2],  # each key type with both
                                   count_type=COUNT_TYPES[n % 4]))
    return result


WARP_CASES = warp_cases()


def make_warp_kernel(case: WarpCase) -> Any:
    """``k(xa, xt, v, ns, ks, keys_out, index_out, top_keys, top_values, after)``."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = _item_types(case.dtype)
    BF16 = case.dtype == "bfloat16"
    VT, IT = getattr(np, case.values or "int32"), getattr(np, case.index_type)
    IPT, LW, WT, BT = case.ipt, case.threads, case.warp_tile, case.block_threads
    PER_BLOCK, TILE = BT // LW, BT * case.ipt
    DESC, LARGEST, HAS_VALUES, POISON_V = case.descending, case.largest, case.values is not None, POISON_VALUE
    ALG = case.algorithm

    @cuda.jit
    def kernel(xa, xt, v, ns, ks, keys_out, index_out, top_keys, top_values, after):
        keys = cuda.local.array(IPT, item)
        keys2 = cuda.local.array(IPT, item)
        vals2 = cuda.local.array(IPT, VT)
        idx = cuda.local.array(IPT, IT)
        top_k_keys = cuda.shared.array(TILE, item)
        top_k_values = cuda.shared.array(TILE, VT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        local = coop.uniform(t // LW)
        w = coop.uniform(cuda.blockIdx.x * PER_BLOCK + local)
        n = ns[w]
        mine = w * WT + (t % LW) * IPT
        here = local * WT + (t % LW) * IPT
        for i in range(IPT):
            keys[i] = ushort_as_bfloat16(xa[mine + i]) if BF16 else xa[mine + i]
            keys2[i] = ushort_as_bfloat16(xt[mine + i]) if BF16 else xt[mine + i]
            vals2[i] = v[mine + i]
            top_k_keys[here + i] = ushort_as_bfloat16(top_keys[mine + i]) if BF16 else top_keys[mine + i]
            top_k_values[here + i] = POISON_V
        coop.warp.argsort(keys, idx, descending=DESC, base=w * WT + BASE_EXTRA, valid_items=n, threads=LW,
                          algorithm=ALG)
        cuda.syncwarp()
        if HAS_VALUES:
            coop.warp.top_k(keys2, top_k_keys, k=ks[w], values=vals2, out_values=top_k_values, largest=LARGEST,
                            offset=local * WT, valid_items=n, threads=LW, algorithm=ALG)
        else:
            coop.warp.top_k(keys2, top_k_keys, k=ks[w], largest=LARGEST, offset=local * WT, valid_items=n,
                            threads=LW, algorithm=ALG)
        cuda.syncwarp()
        for i in range(IPT):
            keys_out[mine + i] = bfloat16_as_ushort(keys[i]) if BF16 else keys[i]
            index_out[mine + i] = idx[i]
            top_keys[mine + i] = bfloat16_as_ushort(top_k_keys[here + i]) if BF16 else top_k_keys[here + i]
            top_values[mine + i] = top_k_values[here + i]
            after[mine + i] = bfloat16_as_ushort(keys2[i]) if BF16 else keys2[i]

    return kernel


def warp_signature(case: WarpCase) -> tuple[Any, ...]:
    from numba_cuda_mlir.numba_cuda import types

    k = _item_types(case.dtype)[1][::1]
    v = getattr(types, case.values or "int32")[::1]
    return (k, k, v, getattr(types, case.count_type)[::1], types.int64[::1], k, getattr(types, case.index_type)[::1],
            k, v, k)


def _launch_warp(case: WarpCase, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    wt, warps = case.warp_tile, case.warps
    tiles = tiles_for(case.dtype, wt, warps, rng)
    kinds = counts(wt, case.count_type, rng)
    ns = np.array([kinds[w % KINDS] for w in range(warps)], dtype=case.count_type)
    nv = [valid(c, wt) for c in ns]
    ks = np.array([(nv[w] + 2) if w % 2 else nv[w] // 2 for w in range(warps)], np.int64)
    pos = positions(case.threads, case.ipt, False)
    xa = np.stack([with_tail(tiles[w], pos >= nv[w], first_key(case.dtype, case.descending)) for w in range(warps)])
    xt = np.stack([with_tail(tiles[w], pos >= nv[w], first_key(case.dtype, case.largest)) for w in range(warps)])
    n = warps * wt
    v = (np.arange(n) + (0.25 if case.values == "float64" else 0)).astype(case.values or "int32")
    u = _ubits(case.dtype)
    poison_key = np.full(n, 0x5A5A if width(case.dtype) == 16 else np.iinfo(u).max // 3, u)
    outs = [_host(case.dtype, np.zeros(n, u)), index_poison(case.index_type, n), _host(case.dtype, poison_key.copy()),
            np.full(n, POISON_VALUE, v.dtype), _host(case.dtype, np.zeros(n, u))]
    d_outs = [cuda.to_device(o) for o in outs]
    make_warp_kernel(case)[case.blocks, case.block](
        cuda.to_device(_host(case.dtype, xa.reshape(-1))), cuda.to_device(_host(case.dtype, xt.reshape(-1))),
        cuda.to_device(v), cuda.to_device(ns), cuda.to_device(ks), *d_outs)
    got = [d.copy_to_host() for d in d_outs]
    keys_out, top_keys, after = (_bits(got[i]) for i in (0, 2, 4))
    index_out, top_values = got[1], got[3]
    np.testing.assert_array_equal(after, xt.reshape(-1), err_msg=f"{case.id}: top_k changed its keys")
    for w in range(warps):
        sl, m, k = slice(w * wt, (w + 1) * wt), nv[w], int(ks[w])
        where = f"{case.id} warp {w} (valid {m}, k {k})"
        good = model_view(case.dtype, tiles[w][:m])
        o = family.order(good, case.descending)
        np.testing.assert_array_equal(keys_out[sl][:m], tiles[w][:m][o], err_msg=f"argsort keys, {where}")
        np.testing.assert_array_equal(index_out[sl][:m], (o + w * wt + BASE_EXTRA).astype(case.index_type),
                                      err_msg=f"argsort indices, {where}")
        kk = min(max(k, 0), m)
        o2 = family.order(good, case.largest)
        np.testing.assert_array_equal(top_keys[sl][:kk], tiles[w][:m][o2[:kk]], err_msg=f"top_k keys, {where}")
        np.testing.assert_array_equal(top_keys[sl][kk:], poison_key[sl][kk:],
                                      err_msg=f"top_k wrote past min(k, valid_items), {where}")
        if case.values:
            np.testing.assert_array_equal(top_values[sl][:kk], v[sl][:m][o2[:kk]], err_msg=f"top_k values, {where}")
        assert (top_values[sl][kk:] == POISON_VALUE).all(), f"top_k wrote values past min(k, valid_items), {where}"


@pytest.mark.parametrize("case", WARP_CASES, ids=lambda c: c.id)
def test_warp_partial_tiles(case: WarpCase, rng: np.random.Generator) -> None:
    _launch_warp(case, rng)


# --- the host model ------------------------------------------------------------------------------------------------


def test_pad_keys_sort_last_and_poison_first(rng: np.random.Generator) -> None:
    """The host's pad and poison keys are the last and first in CUB's order (``order`` of the model), for every key
    type and both directions, with any bit range."""
    for dtype in KEYS:
        u = _ubits(dtype)
        bits = rng.integers(0, np.iinfo(u).max, 64, dtype=u, endpoint=True)
        for descending in (False, True):
            pad, poison = last_key(dtype, descending), first_key(dtype, descending)
            keys = np.concatenate([np.array([poison], u), bits, np.array([pad], u)])
            for begin, end in ((0, width(dtype)), (1, width(dtype) - 2)):
                o = family.order(model_view(dtype, keys), descending, begin, end)
                assert o[0] == 0 and o[-1] == keys.size - 1, (dtype, descending, begin, end)
    assert last_key("float32", False) == 0x7FFFFFFF and last_key("float32", True) == 0xFFFFFFFF
    assert last_key("int8", False) == 0x7F and last_key("int8", True) == 0x80 and last_key("uint16", True) == 0


def test_warp_striped_positions_are_a_permutation() -> None:
    for threads, ipt in ((33, 3), (64, 4), (128, 1)):
        p = positions(threads, ipt, True)
        assert sorted(p) == list(range(threads * ipt))


def test_cases_cover_every_axis() -> None:
    assert {c.dtype for c in CASES} == set(KEYS) == {c.dtype for c in WARP_CASES}
    for dtype in KEYS:
        assert {c.descending for c in CASES if c.dtype == dtype} == {False, True}
    for name, values in (("block", BLOCKS), ("ipt", ITEMS), ("values", VALUES), ("algorithm", ALGORITHMS),
                         ("count_type", COUNT_TYPES), ("index_type", INDEX_TYPES), ("output", ("blocked", "striped")),
                         ("bits", ("default", "partial")), ("largest", (False, True)), ("radix_bits", (None, 3, 5))):
        assert {getattr(c, name) for c in CASES} == set(values), name
    assert all(c.algorithm != "match" or c.block[1:] == (1, 1) for c in CASES)
    assert {c.threads for c in WARP_CASES} == set(WARPS)
    assert {c.index_type for c in WARP_CASES} == set(INDEX_TYPES) and {c.count_type for c in WARP_CASES} == set(
        COUNT_TYPES)
    assert all(c.block_threads % c.threads == 0 for c in WARP_CASES)
    assert {(c.dtype, c.algorithm) for c in WARP_CASES} == {(d, a) for d in KEYS for a in warp.ALGORITHMS}
