"""The warp sorts' ``algorithm="bitonic"`` against ``"merge_sort"``, bit for bit, and both against NumPy.

``"bitonic"`` is cuda-coop's composition of CCCL 3.6's ``cub::detail::WarpBitonicSort`` (CUB's ``detail``
namespace: no stability promise between CCCL releases, so this module pins its behaviour for the bundled one).
Where the contracts say the two algorithms agree, their outputs must be the same bits:

- ``coop.warp.argsort`` (both directions, ``valid_items``): keys and indices of the first ``valid_items``
  positions;
- ``coop.warp.top_k`` (largest or smallest, keys or pairs, ``valid_items``, ``k`` per warp): the
  ``min(k, valid_items)`` keys and values written, nothing written past them;
- ``coop.warp.merge_sort`` with ``stable=True`` and ``valid_items`` (``"<"`` or ``">"``, keys or pairs): the first
  ``valid_items`` keys and values. Keys come without NaN here (``"<"`` is not a strict weak order with NaN) but
  with -0.0 and +0.0 mixed, which ``"<"`` ties and stability must keep in input order.

``coop.warp.merge_sort`` without ``stable=True`` on a whole tile runs the bitonic network alone, which promises no
order among keys ``"<"`` ties: there the keys must equal NumPy's sort as values (-0.0 == +0.0), and bit for bit
for integer keys, whose ties have equal bits.

Two kernels per (case, algorithm) (:data:`PARTS`), the same inputs for both algorithms. Every logical warp of the
launch loads its own warp tile (lane ``l`` holding positions ``l*N .. l*N+N-1``) and gets its own count: 0, 1,
tile - 1, tile, tile + 5, -3 (clamped to 0) and one in between. Keys (``tests/gpu/test_partial_tiles.py``'s
``tiles_for``): random bit patterns spanning the type with the float specials (+-0.0, +-inf, NaNs of both signs
with payloads), tiles of a few distinct keys (many ties), reverse-sorted tiles. References:
:func:`tests.gpu.test_family_block_radix_sort.order` (CUB's radix order, NumPy's stable argsort) for argsort and
top-k; NumPy's stable argsort of the values for the merge sorts.

Axes (rotated, see :func:`cases`): every key type CUB sorts (int8..uint64, float16, bfloat16, float32, float64)
x logical warps of 1, 2, 4, 8, 16, 32 lanes (each in a block that is not a multiple of 32 too) x items per lane
1, 2, 3, 5, 7, 8 (the bitonic network splits a count that is not a power of two) x values none, int32, float64 x
both directions. The compile tier compiles a covering subset of the kernels (tests/compile/test_warp_bitonic.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from tests.gpu import test_family_block_radix_sort as family
from tests.gpu import test_partial_tiles as partial

KEYS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32",
        "float64")
WARPS = (1, 2, 4, 8, 16, 32)
ITEMS = (1, 2, 3, 5, 7, 8)
VALUES = (None, "int32", "float64")
ALGORITHMS = ("merge_sort", "bitonic")
ODD_BLOCKS = {1: (33, 1, 1), 2: (6, 5, 1), 4: (12, 1, 1), 8: (8, 3, 2), 16: (16, 3, 1), 32: (32, 3, 1)}
"""A block for each logical warp whose thread count is not a multiple of 32 (but of the warp; 96 for 32 lanes)."""
BLOCKS = ((64, 1, 1), (16, 8, 1), (4, 4, 4), (32, 1, 1))
KINDS = partial.KINDS
"""Counts per launch, one per logical warp in turn: 0, 1, tile - 1, tile, tile + 5, -3, in between."""
POISON_VALUE = partial.POISON_VALUE


@dataclass(frozen=True)
class Case(partial.WarpCase):
    """A launch of logical warps (``tests/gpu/test_partial_tiles.py``'s, with as many blocks as the count kinds
    need), each with its own count; ``descending`` orders the argsort and the merge sort (``">"``), ``largest`` (its
    opposite) the top k. The indices are int64, the counts int64; every case runs with both algorithms."""

    @property
    def id(self) -> str:
        return (f"{self.dtype}-lw{self.threads}-ipt{self.ipt}-{'x'.join(map(str, self.block))}-"
                f"{self.values or 'keys'}-{'desc' if self.descending else 'asc'}")


def cases() -> list[Case]:
    """Each key type twice: one logical warp in a block that is not a multiple of 32, another in a regular one;
    warps, items, values and directions rotate so that each key type meets several of each."""
    result = []
    for d, dtype in enumerate(KEYS):
        for j in range(2):
            n = 2 * d + j
            lanes = WARPS[(d + 3 * j) % len(WARPS)]
            block = ODD_BLOCKS[lanes] if j == 0 else BLOCKS[d % len(BLOCKS)]
            descending = n % 4 < 2
            result.append(Case(dtype, lanes, ITEMS[(2 * d + 3 * j) % len(ITEMS)], block, descending,
                               largest=not descending, values=VALUES[n % len(VALUES)], index_type="int64"))
    return result


CASES = cases()


# --- host side -----------------------------------------------------------------------------------------------------


def as_values(dtype: str, bits: np.ndarray) -> np.ndarray:
    """Key bits as numbers NumPy orders as ``"<"`` does on the GPU (bfloat16 exactly, as float32)."""
    if dtype == "bfloat16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return np.ascontiguousarray(bits).view(dtype)


def without_nan(dtype: str, bits: np.ndarray) -> np.ndarray:
    """The key bits with every NaN replaced by the bits of 1.5 (a strict weak order for ``"<"``)."""
    if partial._kind(dtype) != "f":
        return bits
    one_and_half = np.array([0x3FC0], np.uint16) if dtype == "bfloat16" else np.array([1.5], dtype).view(bits.dtype)
    return np.where(np.isnan(as_values(dtype, bits)), one_and_half[0], bits).astype(bits.dtype)


def stable_order(keys: np.ndarray, descending: bool) -> np.ndarray:
    """The stable sort of ``keys`` by value, ties (-0.0 and +0.0 too) in input order, either direction."""
    if not descending:
        return np.argsort(keys, kind="stable")
    return keys.size - 1 - np.argsort(keys[::-1], kind="stable")[::-1]


@dataclass(frozen=True)
class Inputs:
    """One launch's inputs (key bits per warp tile) and the host's view of them."""

    tiles: np.ndarray
    """Key bits, ``(warps, warp tile)``."""
    argsort: np.ndarray
    """``tiles`` with the keys past each warp's count poisoned: the key that sorts first in the argsort's direction
    (a key the padding missed would show in the first positions)."""
    top_k: np.ndarray
    """Likewise for the top-k's direction."""
    sortable: np.ndarray
    """``tiles`` without NaN: the merge sorts'."""
    values: np.ndarray
    counts: np.ndarray
    """Per warp, as passed (int64)."""
    ks: np.ndarray


def inputs(case: Case, rng: np.random.Generator) -> Inputs:
    wt, warps = case.warp_tile, case.warps
    tiles = partial.tiles_for(case.dtype, wt, warps, rng)
    kinds = partial.counts(wt, case.count_type, rng)
    ns = np.array([kinds[w % KINDS] for w in range(warps)], case.count_type)
    nv = [partial.valid(c, wt) for c in ns]
    ks = np.array([(nv[w] + 2) if w % 2 else max(nv[w] // 2, 1) for w in range(warps)], np.int64)
    n = warps * wt
    values = (rng.permutation(n) + (0.25 if case.values == "float64" else 0)).astype(case.values or "int32")
    past = partial.positions(case.threads, case.ipt, False)[None, :] >= np.array(nv)[:, None]
    by_argsort, by_top_k = (np.where(past, partial.first_key(case.dtype, d), tiles).astype(tiles.dtype)
                            for d in (case.descending, case.largest))
    return Inputs(tiles, by_argsort, by_top_k, without_nan(case.dtype, tiles), values, ns, ks)


PARTS = ("radix", "compare")
"""The two kernels of a case: ``coop.warp.argsort`` and ``top_k`` (radix order: tests/gpu/test_partial_tiles.py's warp
kernel, with the case's algorithm), and ``coop.warp.merge_sort`` (a comparator). Apart, each kernel stays small enough
for the linker to inline every wrapper (see docs/known_issues.rst, "a large wrapper can stay out of line")."""


def make_kernel(case: Case, algorithm: str) -> Any:
    """The ``"compare"`` kernel ``k(xm, v, ns, sorted_keys, sorted_values, unstable_keys)``: each logical warp
    stable-sorts (``valid_items``; ``">"`` if ``descending``, else ``"<"``, with values if the case has them) and sorts
    (whole tile, ``"<"``, not stable) its NaN-free tile with ``algorithm``."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = partial._item_types(case.dtype)
    BF16, ALG = case.dtype == "bfloat16", algorithm
    VT = getattr(np, case.values or "int32")
    IPT, LW, WT = case.ipt, case.threads, case.warp_tile
    PER_BLOCK = case.block_threads // LW
    DESC, HAS_VALUES = case.descending, case.values is not None

    @cuda.jit
    def compare(xm, v, ns, m_keys, m_vals, u_keys):
        keys = cuda.local.array(IPT, item)
        vals = cuda.local.array(IPT, VT)
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        w = coop.uniform(cuda.blockIdx.x * PER_BLOCK + t // LW)
        n = ns[w]
        mine = w * WT + (t % LW) * IPT
        for i in range(IPT):
            keys[i] = ushort_as_bfloat16(xm[mine + i]) if BF16 else xm[mine + i]
            vals[i] = v[mine + i]
        if DESC:
            if HAS_VALUES:
                coop.warp.merge_sort(keys, ">", values=vals, valid_items=n, stable=True, threads=LW, algorithm=ALG)
            else:
                coop.warp.merge_sort(keys, ">", valid_items=n, stable=True, threads=LW, algorithm=ALG)
        elif HAS_VALUES:
            coop.warp.merge_sort(keys, "<", values=vals, valid_items=n, stable=True, threads=LW, algorithm=ALG)
        else:
            coop.warp.merge_sort(keys, "<", valid_items=n, stable=True, threads=LW, algorithm=ALG)
        for i in range(IPT):
            m_keys[mine + i] = bfloat16_as_ushort(keys[i]) if BF16 else keys[i]
            m_vals[mine + i] = vals[i]
            keys[i] = ushort_as_bfloat16(xm[mine + i]) if BF16 else xm[mine + i]
        coop.warp.merge_sort(keys, "<", threads=LW, algorithm=ALG)
        for i in range(IPT):
            u_keys[mine + i] = bfloat16_as_ushort(keys[i]) if BF16 else keys[i]

    return compare


def kernel(case: Case, algorithm: str, part: str) -> Any:
    """The case's ``part`` kernel for ``algorithm``."""
    if part == "radix":
        return partial.make_warp_kernel(replace(case, algorithm=algorithm))
    return make_kernel(case, algorithm)


def signature(case: Case, part: str) -> tuple[Any, ...]:
    """The ``part`` kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    if part == "radix":
        return partial.warp_signature(case)
    k = partial._item_types(case.dtype)[1][::1]
    v = getattr(types, case.values or "int32")[::1]
    return (k, v, types.int64[::1], k, v, k)


def run(case: Case, algorithm: str, given: Inputs) -> dict[str, np.ndarray]:
    """Launch the case's kernels for ``algorithm``; their outputs (keys as their bits), which start poisoned, and the
    poison."""
    from numba_cuda_mlir import cuda

    n = case.warps * case.warp_tile
    u = partial._ubits(case.dtype)
    poison = np.full(n, 0x5A5A if partial.width(case.dtype) == 16 else np.iinfo(u).max // 3, u)
    radix = {"argsort_keys": np.zeros(n, u), "argsort_indices": partial.index_poison(case.index_type, n),
             "top_keys": poison, "top_values": np.full(n, POISON_VALUE, given.values.dtype), "after": np.zeros(n, u)}
    compare = {"sorted_keys": poison, "sorted_values": np.full(n, POISON_VALUE, given.values.dtype),
               "unstable_keys": poison}
    device = {name: cuda.to_device(partial._host(case.dtype, a.copy()) if a.dtype == u else a.copy())
              for name, a in (radix | compare).items()}
    host_keys = [cuda.to_device(partial._host(case.dtype, x.reshape(-1))) for x in (given.argsort, given.top_k)]
    values, counts = cuda.to_device(given.values), cuda.to_device(given.counts)
    kernel(case, algorithm, "radix")[case.blocks, case.block](*host_keys, values, counts, cuda.to_device(given.ks),
                                                              *(device[name] for name in radix))
    kernel(case, algorithm, "compare")[case.blocks, case.block](
        cuda.to_device(partial._host(case.dtype, given.sortable.reshape(-1))), values, counts,
        *(device[name] for name in compare))
    got = {name: d.copy_to_host() for name, d in device.items()}
    keys = {"argsort_keys", "top_keys", "after", "sorted_keys", "unstable_keys"}
    return {name: partial._bits(a) if name in keys else a for name, a in got.items()} | {"poison": poison}


def check_model(case: Case, algorithm: str, given: Inputs, got: dict[str, np.ndarray]) -> None:
    """Every output of one algorithm against NumPy."""
    wt = case.warp_tile
    for w in range(case.warps):
        sl, m = slice(w * wt, (w + 1) * wt), partial.valid(given.counts[w], wt)
        k = min(max(int(given.ks[w]), 0), m)
        where = f"{case.id} {algorithm} warp {w} (valid {m}, k {k})"
        bits, vals = given.tiles[w], given.values[sl]
        o = family.order(partial.model_view(case.dtype, bits[:m]), case.descending)
        np.testing.assert_array_equal(got["argsort_keys"][sl][:m], bits[:m][o], err_msg=f"argsort keys, {where}")
        np.testing.assert_array_equal(got["argsort_indices"][sl][:m], o + w * wt + partial.BASE_EXTRA,
                                      err_msg=f"argsort indices, {where}")
        top = family.order(partial.model_view(case.dtype, bits[:m]), case.largest)[:k]
        np.testing.assert_array_equal(got["top_keys"][sl][:k], bits[:m][top], err_msg=f"top_k keys, {where}")
        np.testing.assert_array_equal(got["top_keys"][sl][k:], got["poison"][sl][k:], err_msg=f"top_k past k, {where}")
        want_top_values = vals[:m][top] if case.values else np.full(0, POISON_VALUE)
        np.testing.assert_array_equal(got["top_values"][sl][: want_top_values.size], want_top_values,
                                      err_msg=f"top_k values, {where}")
        assert (got["top_values"][sl][want_top_values.size :] == POISON_VALUE).all(), f"top_k values past k, {where}"
        sortable = given.sortable[w]
        s = stable_order(as_values(case.dtype, sortable[:m]), case.descending)
        np.testing.assert_array_equal(got["sorted_keys"][sl][:m], sortable[:m][s], err_msg=f"stable sort keys, {where}")
        if case.values:
            np.testing.assert_array_equal(got["sorted_values"][sl][:m], vals[:m][s],
                                          err_msg=f"stable sort values, {where}")
        unstable = as_values(case.dtype, got["unstable_keys"][sl])
        np.testing.assert_array_equal(unstable, np.sort(as_values(case.dtype, sortable)), err_msg=f"sort, {where}")
    np.testing.assert_array_equal(got["after"], given.top_k.reshape(-1), err_msg=f"{case.id}: top_k changed its keys")


def check_same_bits(case: Case, given: Inputs, merge: dict[str, np.ndarray], bitonic: dict[str, np.ndarray]) -> None:
    """Where the contracts say the algorithms agree, the same bits: the valid prefixes, and the unwritten rest."""
    wt = case.warp_tile
    for w in range(case.warps):
        sl, m = slice(w * wt, (w + 1) * wt), partial.valid(given.counts[w], wt)
        where = f"{case.id} warp {w} (valid {m})"
        for name in ("argsort_keys", "argsort_indices", "sorted_keys") + (("sorted_values",) if case.values else ()):
            np.testing.assert_array_equal(bitonic[name][sl][:m], merge[name][sl][:m], err_msg=f"{name}, {where}")
        for name in ("top_keys", "top_values"):  # every position: written or still poisoned alike
            np.testing.assert_array_equal(bitonic[name][sl], merge[name][sl], err_msg=f"{name}, {where}")
        if partial._kind(case.dtype) != "f":  # integer ties have equal bits: even the unstable sort agrees
            np.testing.assert_array_equal(bitonic["unstable_keys"][sl], merge["unstable_keys"][sl],
                                          err_msg=f"unstable sort, {where}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bitonic_agrees_with_merge_sort(case: Case, rng: np.random.Generator) -> None:
    given = inputs(case, rng)
    results = {a: run(case, a, given) for a in ALGORITHMS}
    for algorithm, got in results.items():
        check_model(case, algorithm, given, got)
    check_same_bits(case, given, results["merge_sort"], results["bitonic"])


def test_cases_cover_every_axis() -> None:
    assert {c.dtype for c in CASES} == set(KEYS)
    assert {c.threads for c in CASES} == set(WARPS)
    assert {(c.threads, c.block) for c in CASES} >= set(ODD_BLOCKS.items())  # every warp in a block not of 32s ...
    assert all(c.block_threads % c.threads == 0 for c in CASES)
    assert {c.ipt for c in CASES} == set(ITEMS) and {c.values for c in CASES} == set(VALUES)
    assert {c.descending for c in CASES} == {False, True}
    assert any(c.block_threads % 32 for c in CASES)


def test_the_host_model(rng: np.random.Generator) -> None:
    """The references themselves: stable in both directions (-0.0 and +0.0 tie), NaN-free sortable keys, counts of
    every kind for each case's launch."""
    keys = np.array([0.0, -0.0, 1.0, -0.0, 0.0], np.float32)
    assert stable_order(keys, False).tolist() == [0, 1, 3, 4, 2]
    assert stable_order(keys, True).tolist() == [2, 0, 1, 3, 4]
    for case in CASES:
        given = inputs(case, rng)
        assert not np.isnan(as_values(case.dtype, given.sortable)).any() if partial._kind(case.dtype) == "f" else True
        assert case.warps >= KINDS and {partial.valid(c, case.warp_tile) for c in given.counts} >= {0, case.warp_tile}
