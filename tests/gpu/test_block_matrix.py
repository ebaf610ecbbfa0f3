"""Block primitives on the GPU: every dtype x block shape x algorithm, against NumPy.

One kernel per case. Every block of a 3-tile launch

- loads a full tile with no ``valid_items`` (the path ``"vectorize"`` turns into vector loads),
  stores it back with no ``valid_items`` and, directly, as the load arranged it;
- loads a tile of an array of ``n`` items with ``valid_items = n - offset`` (at or above the tile
  size in all blocks but the last, which is partial) and a nonzero ``oob_default`` that no input
  takes, stores it with and without ``valid_items`` (a guard region after item ``n`` stays
  poisoned, and the input has poison after item ``n`` too, so reading past it shows);
- reduces and scans those items: array ``sum``/``reduce``, scalar ``sum``/``reduce`` with
  ``valid_items``, array ``exclusive_sum``/``inclusive_sum``/``exclusive_scan`` (an operator and an
  ``initial_value``)/``inclusive_scan``, scalar scans and a block aggregate.

Block shapes include sizes that are not multiples of 32 (1, 33, 100, 7x5x3), which take only
the algorithms CUB runs on them; ``test_refusals.py`` checks the others are refused. Algorithms
are swept together: case ``a`` of a block uses the a-th load/store algorithm and rotates
through the reduce and scan algorithms the dtype and block allow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import (
    DTYPES,
    abs_terms,
    assert_bits_equal,
    assert_matches,
    depth,
    exclusive_ref,
    random_values,
    reduce_ref,
    scan_ref,
    sentinels,
)
from tests.helpers.shapes import Tile

BLOCKS = ((1, 1, 1), (33, 1, 1), (100, 1, 1), (7, 5, 3), (32, 1, 1), (128, 1, 1), (1024, 1, 1), (16, 8, 1),
          (4, 4, 4))
ITEMS = (1, 4, 3, 16, 2)
LOAD_STORE = ("direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced")
WARP_ONLY_LOAD_STORE = ("warp_transpose", "warp_transpose_timesliced")  # need a multiple of 32 threads
ATOMIC_SUM_TYPES = ("int32", "uint32", "int64", "uint64", "float32", "float64")
TILES = 3
GUARD = 64
TILE_BYTES = 16 * 1024  # a tile's exchange through shared memory stays well below 48 KiB


def load_store_algorithms(threads: int) -> tuple[str, ...]:
    return LOAD_STORE if threads % 32 == 0 else tuple(a for a in LOAD_STORE if a not in WARP_ONLY_LOAD_STORE)


def reduce_algorithms(threads: int, dtype: str) -> tuple[str, ...]:
    """The BlockReduce algorithms CUB runs as asked for ``threads`` threads and ``dtype`` (sums)."""
    algos = ["raking", "warp_reductions"]
    if threads % 32 == 0 and threads > 32:
        algos.append("raking_commutative_only")
    if dtype in ATOMIC_SUM_TYPES:
        algos.append("warp_reductions_nondeterministic")
    return tuple(algos)


def scan_algorithms(threads: int) -> tuple[str, ...]:
    return ("raking", "raking_memoize", "warp_scans") if threads % 32 == 0 else ("raking", "raking_memoize")


@dataclass(frozen=True)
class Case(Tile):
    dtype: str
    block: tuple[int, int, int]
    ipt: int
    ls: str  # load and store algorithm
    reduce: str
    scan: str

    @property
    def id(self) -> str:
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-{self.ls}-{self.reduce}-{self.scan}"

    def site_algorithms(self) -> dict[str, str]:
        """The reduce algorithm of each call site: the nondeterministic one sums only, full tiles only
        (cuda-coop refuses it with valid_items: CUB ignores the count there), and the commutative-only
        one takes no valid_items."""
        ra = self.reduce
        return {
            "sum": ra,
            "max": "warp_reductions" if ra == "warp_reductions_nondeterministic" else ra,
            "vmin": "raking" if ra in ("raking_commutative_only", "warp_reductions_nondeterministic") else ra,
            "vsum": {"raking_commutative_only": "raking", "warp_reductions_nondeterministic": "warp_reductions"}.get(
                ra, ra
            ),
        }


def cases() -> list[Case]:
    result = []
    for d, dtype in enumerate(DTYPES):
        itemsize = np.dtype(dtype).itemsize
        for b, block in enumerate(BLOCKS):
            threads = math.prod(block)
            ls_algos, red, scans = load_store_algorithms(threads), reduce_algorithms(threads, dtype), \
                scan_algorithms(threads)
            for a, ls in enumerate(ls_algos):
                ipt = ITEMS[(a + b + d) % len(ITEMS)]
                if ls == "vectorize":
                    ipt = (4, 16, 8)[(b + d) % 3]  # vector loads need a multiple of the vector width
                while ipt > 1 and threads * ipt * itemsize > TILE_BYTES:
                    ipt //= 2
                result.append(Case(dtype, block, ipt, ls, red[(a + d) % len(red)], scans[(a + b) % len(scans)]))
    return result


CASES = cases()
OUTPUTS = ("copyf", "arranged", "copyp", "padded", "sums", "maxes", "vmins", "vsums", "exsum", "incsum", "exmax",
           "incmin", "s_ex", "s_inc", "s_exmin", "aggs")


def make_kernel(case: Case):
    """The case's kernel (a numba-cuda-mlir dispatcher; compiled at its first launch)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    DT, IPT, TILE, T = getattr(np, case.dtype), case.ipt, case.tile, case.threads
    LS, SCA = case.ls, case.scan
    site = case.site_algorithms()
    RS, RM, RVM, RVS = site["sum"], site["max"], site["vmin"], site["vsum"]

    @cuda.jit
    def kernel(xf, xp, n, vt, initial, oob, copyf, arranged, copyp, padded, sums, maxes, vmins, vsums, exsum,
               incsum, exmax, incmin, s_ex, s_inc, s_exmin, aggs):
        items = cuda.local.array(IPT, DT)
        scan = cuda.local.array(IPT, DT)
        agg = cuda.local.array(1, DT)
        bid = cuda.blockIdx.x
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = bid * TILE
        mine = base + tid * IPT
        # A full tile: no valid_items anywhere.
        coop.block.load(xf, items, offset=base, algorithm=LS)
        coop.block.store(copyf, items, offset=base, algorithm=LS)
        coop.block.store(arranged, items, offset=base)
        # n - base items remain: more than a tile but in the last block.
        valid = n - base
        coop.block.load(xp, items, offset=base, valid_items=valid, oob_default=oob, algorithm=LS)
        coop.block.store(copyp, items, offset=base, valid_items=valid, algorithm=LS)
        coop.block.store(padded, items, offset=base, algorithm=LS)
        total = coop.block.sum(items, algorithm=RS)
        biggest = coop.block.reduce(items, "max", algorithm=RM)
        vmin = coop.block.reduce(items[IPT - 1], "min", valid_items=vt, algorithm=RVM)
        vsum = coop.block.sum(items[0], valid_items=vt, algorithm=RVS)
        if tid == 0:
            sums[bid] = total
            maxes[bid] = biggest
            vmins[bid] = vmin
            vsums[bid] = vsum
        coop.block.exclusive_sum(items, output=scan, algorithm=SCA)
        for i in range(IPT):
            exsum[mine + i] = scan[i]
        coop.block.inclusive_sum(items, output=scan, algorithm=SCA)
        for i in range(IPT):
            incsum[mine + i] = scan[i]
        coop.block.exclusive_scan(items, "max", initial_value=initial, output=scan, algorithm=SCA)
        for i in range(IPT):
            exmax[mine + i] = scan[i]
        coop.block.inclusive_scan(items, "min", output=scan, algorithm=SCA)
        for i in range(IPT):
            incmin[mine + i] = scan[i]
        g = bid * T + tid
        s_ex[g] = coop.block.exclusive_sum(items[0], block_aggregate=agg, algorithm=SCA)
        s_inc[g] = coop.block.inclusive_sum(items[0], algorithm=SCA)
        s_exmin[g] = coop.block.exclusive_scan(items[0], "min", initial_value=initial, algorithm=SCA)
        if tid == 0:
            aggs[bid] = agg[0]

    return kernel


def signature(case: Case) -> tuple:
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    from numba_cuda_mlir.numba_cuda import types

    scalar = getattr(types, case.dtype)
    arr = scalar[::1]
    return (arr, arr, types.int64, types.int64, scalar, scalar, *(arr,) * len(OUTPUTS))


def _inputs(case: Case, rng: np.random.Generator) -> dict[str, object]:
    poison, oob = sentinels(case.dtype)
    tile, dt = case.tile, np.dtype(case.dtype)
    n = TILES * tile - (tile // 3 + 1)  # the last tile is partial (empty when the tile is one item)
    xf = random_values(rng, case.dtype, TILES * tile)
    xp = np.full(TILES * tile + GUARD, poison, dt)
    xp[:n] = random_values(rng, case.dtype, n)
    vt = max(1, (case.threads * 2) // 3)  # scalar reductions of the first vt threads
    return {"xf": xf, "xp": xp, "n": n, "vt": vt, "initial": random_values(rng, case.dtype, 1)[0], "oob": oob}


def _expected(case: Case, inp: dict[str, object]) -> dict[str, np.ndarray]:
    xf, xp, n, vt, initial, oob = (inp[k] for k in ("xf", "xp", "n", "vt", "initial", "oob"))
    assert isinstance(xf, np.ndarray) and isinstance(xp, np.ndarray) and isinstance(n, int) and isinstance(vt, int)
    tile, threads, ipt = case.tile, case.threads, case.ipt
    striped = case.ls == "striped"

    def held(flat: np.ndarray) -> np.ndarray:
        """(tiles, threads, ipt): thread t's items; striped loads leave thread t with t, t+threads, ..."""
        t = flat.reshape(TILES, tile)
        return t.reshape(TILES, ipt, threads).transpose(0, 2, 1) if striped else t.reshape(TILES, threads, ipt)

    padded = xp[: TILES * tile].copy()
    padded[n:] = oob
    h = held(padded)
    seq = h.reshape(TILES, tile)  # the order the block scans
    first, last = h[:, :, 0], h[:, :, ipt - 1]
    copyp = xp.copy()
    copyp[n:] = sentinels(case.dtype)[0]
    return {
        "copyf": xf,
        "arranged": held(xf).reshape(-1),
        "copyp": copyp,
        "padded": padded,
        "sums": reduce_ref("+", seq),
        "maxes": reduce_ref("max", seq),
        "vmins": reduce_ref("min", last[:, :vt]),
        "vsums": reduce_ref("+", first[:, :vt]),
        "exsum": exclusive_ref("+", seq, np.zeros((), seq.dtype)[()]).reshape(-1),
        "incsum": scan_ref("+", seq).reshape(-1),
        "exmax": exclusive_ref("max", seq, initial).reshape(-1),
        "incmin": scan_ref("min", seq).reshape(-1),
        "s_ex": exclusive_ref("+", first, np.zeros((), seq.dtype)[()]).reshape(-1),
        "s_inc": scan_ref("+", first).reshape(-1),
        "s_exmin": exclusive_ref("min", first, initial).reshape(-1),
        "aggs": reduce_ref("+", first),
    }


def _terms(case: Case, name: str, padded: np.ndarray, vt: int) -> np.ndarray | None:
    """Sums of |x_i| behind each float sum output (for its tolerance)."""
    h = padded.reshape(TILES, case.tile)
    if case.ls == "striped":
        h = h.reshape(TILES, case.ipt, case.threads).transpose(0, 2, 1)
    else:
        h = h.reshape(TILES, case.threads, case.ipt)
    seq, first = h.reshape(TILES, case.tile), h[:, :, 0]
    terms = {
        "sums": lambda: abs_terms("+", seq, scan=False),
        "vsums": lambda: abs_terms("+", first[:, :vt], scan=False),
        "exsum": lambda: abs_terms("+", seq, scan=True).reshape(-1),
        "incsum": lambda: abs_terms("+", seq, scan=True).reshape(-1),
        "s_ex": lambda: abs_terms("+", first, scan=True).reshape(-1),
        "s_inc": lambda: abs_terms("+", first, scan=True).reshape(-1),
        "aggs": lambda: abs_terms("+", first, scan=False),
    }
    return terms[name]() if name in terms else None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_primitives(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    inp = _inputs(case, rng)
    poison = sentinels(case.dtype)[0]
    dt = np.dtype(case.dtype)
    per_thread = TILES * case.threads
    sizes = {"copyp": TILES * case.tile + GUARD, "sums": TILES, "maxes": TILES, "vmins": TILES, "vsums": TILES,
             "s_ex": per_thread, "s_inc": per_thread, "s_exmin": per_thread, "aggs": TILES}
    d_out = {k: cuda.to_device(np.full(sizes.get(k, TILES * case.tile), poison, dt)) for k in OUTPUTS}
    args = (cuda.to_device(inp["xf"]), cuda.to_device(inp["xp"]), inp["n"], inp["vt"], inp["initial"], inp["oob"])
    make_kernel(case)[TILES, case.block](*args, *d_out.values())
    got = {k: v.copy_to_host() for k, v in d_out.items()}

    expected = _expected(case, inp)
    for name in ("copyf", "arranged", "copyp", "padded"):  # data movement: bit for bit, guard included
        assert_bits_equal(got[name], expected[name], f"{name} ({case.id})")
    padded = expected["padded"]
    assert isinstance(inp["vt"], int)
    chain = depth(case.ipt, case.threads)
    ops = {"sums": "+", "vsums": "+", "exsum": "+", "incsum": "+", "s_ex": "+", "s_inc": "+", "aggs": "+",
           "maxes": "max", "vmins": "min", "exmax": "max", "incmin": "min", "s_exmin": "min"}
    for name, op in ops.items():
        terms = _terms(case, name, padded, inp["vt"]) if op == "+" else None
        assert_matches(got[name], expected[name], op, terms, chain, f"{name} ({case.id})")
