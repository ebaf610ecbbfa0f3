"""``coop.block.top_k``'s algorithms on the GPU: ``"air"``, ``"air_or_radix_sort"`` and ``"auto"`` write exactly what
``"radix_sort"`` writes (bit for bit, keys and values), and both are the NumPy model.

``"air"`` runs CCCL's ``cub::detail::block_topk`` (AIR radix select), which lives in CUB's ``detail`` namespace: no
stability promise between CCCL releases. These tests pin the behaviour cuda-coop relies on, so a CCCL upgrade that
changes it turns them red (tests/compile/test_block_top_k_air.py pins the declarations).

Each kernel's block loads its tile (and values), calls ``top_k`` twice on it, ``algorithm="radix_sort"`` into one
pair of shared-memory outputs and the case's algorithm into another (both poisoned first), then checks nothing
itself: the host compares the two outputs byte for byte, the first ``min(k, valid)`` entries with the model, the
rest still poisoned, and the caller's keys unchanged. The model is :func:`tests.gpu.test_family_block_radix_sort.order`
(CUB's bit-ordered key, -0.0 read as +0.0; NumPy's stable argsort) of the valid keys: the k best in order, ties in
input order (the earliest positions chosen among equal keys), largest first for ``largest=True``.

Every launch has 14 tiles, each with its own k: 0, 1, 2, 3, 31, 32, 33, 64 (AIR_MAX_K), 65, tile/2, tile - 1, tile,
tile + 5, -3 (k runtime, clamped to [0, tile]); with ``valid_items`` each its own count too (the whole tile, one
less, 1, k - 1, k + 1, a random one, 0, -3...). Tiles of keys: random bit patterns with the float specials (+-0.0,
+-inf, NaNs of both signs with payloads), reverse-sorted, many ties (a few distinct keys, so the k-th key ties with
many), signed zeros only (-0.0 and +0.0 mixed: one key, positions decide), and ties around the boundary.

Axes: key type (every one CUB's radix sort takes: int8..uint64, float16, bfloat16, float32, float64) x 1-D block
((1,), (32,), (33,), (128,), (256,), (1024,)): every pair once, 72 kernels; the algorithm ("air" on two blocks of
each key type, "air_or_radix_sort" and "auto" on two each), values (none, int32, float64, uint8), ``largest``,
``valid_items`` or not, items per thread (1, 3, 4, 8, 16 within shared memory) and the type of ``valid_items``
rotate so that every value of every axis appears (the compile tier compiles a covering subset). "air" on a 2-D or
3-D block is refused at compile time (tests/compile/test_block_top_k_air.py); "auto" there is "radix_sort", which
tests/gpu/test_partial_tiles.py and test_family_block_radix_sort.py run.

compute-sanitizer (memcheck, racecheck, synccheck) runs ``tests/gpu/_sanitizer_block_top_k.py``: "air" and
"air_or_radix_sort" sharing a kernel's storage over three tiles.

    pytest -m gpu tests/gpu/test_block_top_k_algorithms.py
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.gpu import test_family_block_radix_sort as family
from tests.gpu import test_partial_tiles as partial
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Tile

KEYS = partial.KEYS
BLOCKS = ((32, 1, 1), (128, 1, 1), (33, 1, 1), (1, 1, 1), (256, 1, 1), (1024, 1, 1))
ITEMS = (1, 3, 4, 8, 16)
VALUES = (None, "int32", "float64", "uint8")
ALGORITHMS = ("air", "air_or_radix_sort", "auto")
COUNT_TYPES = ("int32", "int64", "uint32", "uint16")
AIR_MAX_K = 64
SHARED = 48 * 1024
POISON_VALUE = 77
TILE_KINDS = ("random", "reversed", "few", "zeros", "boundary")


@dataclass(frozen=True)
class Case(Tile):
    dtype: str
    block: tuple[int, int, int]
    ipt: int
    algorithm: str
    values: str | None
    largest: bool
    partial: bool
    count_type: str

    @property
    def key_bytes(self) -> int:
        return partial.width(self.dtype) // 8

    @property
    def id(self) -> str:
        return (f"{self.dtype}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-{self.algorithm}-{self.values or 'keys'}-"
                f"{'largest' if self.largest else 'smallest'}-{'valid_' + self.count_type if self.partial else 'full'}")


def shared_bytes(threads: int, ipt: int, key_bytes: int, value_bytes: int) -> int:
    """The kernel's shared memory: two poisoned outputs of keys and values, and top-k's storage (the larger of the
    radix sort's and AIR's: about the tile of the wider of keys and values, with CUB's padding)."""
    tile = threads * ipt
    return 2 * tile * (key_bytes + value_bytes) + (tile + tile // 32) * max(key_bytes, value_bytes) + 4096


def cases() -> list[Case]:
    result = []
    for d, dtype in enumerate(KEYS):
        for b, block in enumerate(BLOCKS):
            n = d + b
            values = VALUES[(d + 2 * b) % len(VALUES)]
            key_bytes = partial.width(dtype) // 8
            value_bytes = np.dtype(values or "int32").itemsize  # the kernel's value outputs exist without values too
            order = [ITEMS[(n + j) % len(ITEMS)] for j in range(len(ITEMS))]
            ipt = next((i for i in order if shared_bytes(block[0], i, key_bytes, value_bytes) <= SHARED), 1)
            result.append(Case(dtype, block, ipt, algorithm=ALGORITHMS[(b + d // 2) % 3], values=values,
                               largest=n % 2 == 0, partial=(d // 2 + b) % 2 == 1,
                               count_type=COUNT_TYPES[(d + 3 * b) % len(COUNT_TYPES)]))
    return result


CASES = cases()


def ks_for(tile: int) -> np.ndarray:
    """One k per tile of a launch (see the module docstring)."""
    return np.array([0, 1, 2, 3, 31, 32, 33, AIR_MAX_K, AIR_MAX_K + 1, tile // 2, tile - 1, tile, tile + 5, -3],
                    np.int64)


def counts_for(case: Case, ks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One ``valid_items`` per tile: the whole tile where the kernel takes none."""
    tile = case.tile
    if not case.partial:
        return np.full(ks.size, tile, np.int64)
    negative = -3 if np.dtype(case.count_type).kind == "i" else np.iinfo(case.count_type).max
    limit = np.iinfo(case.count_type).max
    picks = [tile, tile - 1, 1, int(ks[4]) - 1, int(ks[5]) + 1, int(rng.integers(0, tile + 1)), 0, negative]
    out = [min(picks[j % len(picks)], limit) if picks[j % len(picks)] >= 0 else picks[j % len(picks)]
           for j in range(ks.size)]
    return np.array(out, np.int64)


def tile_bits(case: Case, kind: str, rng: np.random.Generator) -> np.ndarray:
    """One tile of key bits of ``kind`` (see ``TILE_KINDS``)."""
    tile, dtype = case.tile, case.dtype
    u = np.dtype(f"uint{partial.width(dtype)}")
    base = partial.tiles_for(dtype, tile, 3, rng)
    if kind == "random":
        return base[0]
    if kind == "reversed":
        return base[2]
    if kind == "few":  # three distinct keys: the k-th ties with about a third of the tile
        return rng.choice(base[0][: max(1, min(3, tile))], tile)
    if kind == "zeros":  # one key: -0.0 and +0.0 for floats (equal, each keeps its sign), 0 and 1 for integers
        high = 1 << (partial.width(dtype) - 1)
        pair = np.array([0, high] if partial._kind(dtype) == "f" else [0, 1], u)
        return pair[rng.integers(0, 2, tile)]
    # "boundary": random keys, then a run of one key placed at both ends and the middle, so a k-th key ties across
    # the whole tile with earlier and later positions
    bits = base[1].copy()
    key = bits[rng.integers(0, tile)]
    bits[rng.choice(tile, max(1, tile // 4), replace=False)] = key
    return bits.astype(u)


def make_kernel(case: Case) -> Any:
    """``k(keys_in, values_in, ks, ns, out_keys, out_values, keys_after)``: out_* hold two regions per tile (the
    radix sort's, then the algorithm's)."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = partial._item_types(case.dtype)
    BF16, HAS_VALUES, PARTIAL = case.dtype == "bfloat16", case.values is not None, case.partial
    VT = getattr(np, case.values or "int32")
    IPT, TILE, LARGEST, ALG = case.ipt, case.tile, case.largest, case.algorithm
    POISON_V = POISON_VALUE

    @cuda.jit
    def kernel(keys_in, values_in, ks, ns, poison, out_keys, out_values, keys_after):
        keys = cuda.local.array(IPT, item)
        vals = cuda.local.array(IPT, VT)
        sorted_keys = cuda.shared.array(TILE, item)
        sorted_values = cuda.shared.array(TILE, VT)
        chosen_keys = cuda.shared.array(TILE, item)
        chosen_values = cuda.shared.array(TILE, VT)
        t = cuda.threadIdx.x
        bid = cuda.blockIdx.x
        mine = bid * TILE + t * IPT
        k, n = ks[bid], ns[bid]
        for i in range(IPT):
            keys[i] = ushort_as_bfloat16(keys_in[mine + i]) if BF16 else keys_in[mine + i]
            vals[i] = values_in[mine + i]
            p = ushort_as_bfloat16(poison[0]) if BF16 else poison[0]
            sorted_keys[t * IPT + i] = p
            chosen_keys[t * IPT + i] = p
            sorted_values[t * IPT + i] = POISON_V
            chosen_values[t * IPT + i] = POISON_V
        cuda.syncthreads()
        if HAS_VALUES:
            if PARTIAL:
                coop.block.top_k(keys, sorted_keys, k=k, values=vals, out_values=sorted_values, largest=LARGEST,
                                 valid_items=n, algorithm="radix_sort")
                coop.block.top_k(keys, chosen_keys, k=k, values=vals, out_values=chosen_values, largest=LARGEST,
                                 valid_items=n, algorithm=ALG)
            else:
                coop.block.top_k(keys, sorted_keys, k=k, values=vals, out_values=sorted_values, largest=LARGEST,
                                 algorithm="radix_sort")
                coop.block.top_k(keys, chosen_keys, k=k, values=vals, out_values=chosen_values, largest=LARGEST,
                                 algorithm=ALG)
        elif PARTIAL:
            coop.block.top_k(keys, sorted_keys, k=k, largest=LARGEST, valid_items=n, algorithm="radix_sort")
            coop.block.top_k(keys, chosen_keys, k=k, largest=LARGEST, valid_items=n, algorithm=ALG)
        else:
            coop.block.top_k(keys, sorted_keys, k=k, largest=LARGEST, algorithm="radix_sort")
            coop.block.top_k(keys, chosen_keys, k=k, largest=LARGEST, algorithm=ALG)
        cuda.syncthreads()
        for i in range(IPT):
            j = t * IPT + i
            out_keys[2 * bid * TILE + j] = bfloat16_as_ushort(sorted_keys[j]) if BF16 else sorted_keys[j]
            out_keys[(2 * bid + 1) * TILE + j] = bfloat16_as_ushort(chosen_keys[j]) if BF16 else chosen_keys[j]
            out_values[2 * bid * TILE + j] = sorted_values[j]
            out_values[(2 * bid + 1) * TILE + j] = chosen_values[j]
            keys_after[mine + i] = bfloat16_as_ushort(keys[i]) if BF16 else keys[i]

    return kernel


def signature(case: Case) -> tuple[Any, ...]:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    k = partial._item_types(case.dtype)[1][::1]
    v = getattr(types, case.values or "int32")[::1]
    return (k, v, types.int64[::1], getattr(types, case.count_type)[::1], k, k, v, k)


def poison_bits(case: Case) -> int:
    """A key no tile holds in its top k here: its bits (a NaN-free pattern chosen per width)."""
    return 0x5A5A if partial.width(case.dtype) == 16 else int(np.iinfo(f"uint{partial.width(case.dtype)}").max // 3)


def expected(case: Case, bits: np.ndarray, values: np.ndarray, k: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The model: the first ``min(k, valid)`` keys (bits) and values of the valid keys in CUB's order."""
    nv = partial.valid(count, case.tile)
    kk = min(max(k, 0), case.tile, nv)
    o = family.order(partial.model_view(case.dtype, bits[:nv]), case.largest)
    return bits[:nv][o[:kk]], values[:nv][o[:kk]]


def run(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    tile, u = case.tile, np.dtype(f"uint{partial.width(case.dtype)}")
    ks = ks_for(tile)
    ns = counts_for(case, ks, rng)
    tiles = np.stack([tile_bits(case, TILE_KINDS[b % len(TILE_KINDS)], rng) for b in range(ks.size)]).astype(u)
    n = tiles.size
    values = rng.permutation(n).astype(case.values or "int32")
    if case.values == "float64":
        values = values + 0.25
    poison = np.array([poison_bits(case)], u)
    outs = [partial._host(case.dtype, np.full(2 * n, poison[0], u)), np.full(2 * n, POISON_VALUE, values.dtype),
            partial._host(case.dtype, np.zeros(n, u))]
    d_outs = [cuda.to_device(o) for o in outs]
    make_kernel(case)[ks.size, case.block](
        cuda.to_device(partial._host(case.dtype, tiles.reshape(-1))), cuda.to_device(values), cuda.to_device(ks),
        cuda.to_device(ns.astype(case.count_type)), cuda.to_device(partial._host(case.dtype, poison)), *d_outs)
    out_keys, out_values, after = (d.copy_to_host() for d in d_outs)
    out_bits = partial._bits(out_keys).reshape(ks.size, 2, tile)
    out_values = out_values.reshape(ks.size, 2, tile)
    np.testing.assert_array_equal(partial._bits(after).reshape(ks.size, tile), tiles,
                                  err_msg=f"the caller's keys changed, {case.id}")
    for b in range(ks.size):
        where = f"{case.id} tile {b} ({TILE_KINDS[b % len(TILE_KINDS)]}, k {ks[b]}, valid_items {ns[b]})"
        sorted_, chosen = out_bits[b, 0], out_bits[b, 1]
        assert sorted_.tobytes() == chosen.tobytes(), f"{case.algorithm} keys differ from radix_sort's, {where}"
        assert out_values[b, 0].tobytes() == out_values[b, 1].tobytes(), (
            f"{case.algorithm} values differ from radix_sort's, {where}")
        want_keys, want_values = expected(case, tiles[b], values[b * tile : (b + 1) * tile], int(ks[b]), int(ns[b]))
        kk = want_keys.size
        np.testing.assert_array_equal(chosen[:kk], want_keys, err_msg=f"keys, {where}")
        assert (chosen[kk:] == poison[0]).all(), f"keys written past min(k, valid_items), {where}"
        if case.values:
            np.testing.assert_array_equal(out_values[b, 1][:kk], want_values, err_msg=f"values, {where}")
            assert (out_values[b, 1][kk:] == POISON_VALUE).all(), f"values written past min(k, valid_items), {where}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_algorithm_writes_the_radix_sorts_top_k(case: Case, rng: np.random.Generator) -> None:
    run(case, rng)


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """``tests/gpu/_sanitizer_block_top_k.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_block_top_k", tool, "block_top_k", 2, rng=rng)
