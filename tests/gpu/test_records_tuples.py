"""Records (NumPy structured dtypes, ``align=True``) and tuples as per-thread items of the block and warp
reductions and scans, with Python operators, on the GPU, checked exactly against NumPy.

One kernel per block shape (``CASES``: (128,), (33,), (16,8), (4,4,4); each kernel of this module is compiled in
the compile tier by tests/compile/test_records_tuples.py), ``TILES`` blocks, one value per thread:

- ``coop.block.reduce((v, i), argmax)``: a (float64, int32) tuple; values on a coarse grid (many ties): the
  lowest index wins, as ``np.argmax``.
- ``coop.block.inclusive_scan((v, i), running_max)`` and ``coop.block.exclusive_scan(..., initial_value=
  (-inf, -1))``: the running maximum and the position of its first occurrence.
- ``coop.block.reduce(rec, rec_best)`` over ``REC`` (uint8, int64, float32, int16 fields: interior and tail
  padding): the record with the largest key (keys above 2**32 and below -2**32, with ties), then the smallest
  val, then the smallest rank; its uint8 tag rides along. Compared field by field.
- per logical warp (``Case.warp``): ``coop.warp.reduce`` of the (v, i) tuple; the same over the first 7 lanes
  only (``valid_items=7``, where the warp has more); ``coop.warp.inclusive_scan`` of the records;
  ``coop.warp.exclusive_scan`` of a (int64, int64) UniTuple (lexicographic maximum, keys above 2**32).

``test_two_layouts`` reduces two records with the same field names in different layouts (``AB``, ``BA``: both
16 bytes, aligned to 8) and a tuple of the same members in one kernel, with one Python operator: each must be
handled with its own layout (the compile tier checks they are three C++ types and three operator symbols).

``test_prefix_and_valid_items`` runs the (v, i) running maximum over ``EXTRA_TILES`` tiles in a loop, carried
from tile to tile by a ``prefix_op`` callback that takes and returns the tuple, and a record reduction of the
first ``VALID`` threads only (``valid_items=``), in a block of 33 threads.

``test_built_tuples`` has an operator that builds a new tuple of small members, (count: int32, max: float16,
any: bool, max: uint8), in a warp inclusive scan and a block reduction, and reduces ``SMALL`` records (float16,
bool, uint8, uint64 fields) in a (4,4,4) block.

Every output starts poisoned (NaN, -7777, records of 0xA5 bytes), so a value nobody wrote fails.
Logical warps are powers of two (CUB's WarpReduce/WarpScan; threads=7 is refused at compile time, see the
compile tier); the 7 of the brief is covered as a partial warp reduction of 7 lanes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.helpers.shapes import Threads

TILES = 2
REC = np.dtype([("tag", np.uint8), ("key", np.int64), ("val", np.float32), ("rank", np.int16)], align=True)
"""24 bytes, aligned to 8: 7 padding bytes after tag, 2 after rank."""
POISON_INT = -7777
KEYS = np.array([-(2**40) - 3, -5, 7, 3 * 2**33 + 1, 2**62 - 11], np.int64)
PARTIAL = 7


@dataclass(frozen=True)
class Case(Threads):
    block: tuple[int, int, int]
    warp: int

    @property
    def id(self) -> str:
        return f"{'x'.join(map(str, self.block))}-w{self.warp}"


CASES = [Case((128, 1, 1), 32), Case((33, 1, 1), 1), Case((16, 8, 1), 16), Case((4, 4, 4), 8)]
SMALL = np.dtype([("h", np.float16), ("ok", np.bool_), ("u", np.uint8), ("q", np.uint64)], align=True)
SMALL_BLOCK = (4, 4, 4)
EXTRA_BLOCK = (33, 1, 1)
EXTRA_TILES = 3
VALID = 20
AB = np.dtype([("a", np.int32), ("b", np.float64)], align=True)  # a@0, b@8
BA = np.dtype([("b", np.float64), ("a", np.int32)], align=True)  # b@0, a@8


# --- operators (plain Python: compiled by cuda-coop as device functions) ---------------------------------


def argmax(a, b):
    """The larger value; on a tie the lower index (commutative and associative)."""
    if b[0] > a[0] or (b[0] == a[0] and b[1] < a[1]):
        return b
    return a


def running_max(a, b):
    """``a`` is the earlier prefix: the later value wins only when it is strictly larger."""
    if b[0] > a[0]:
        return b
    return a


def rec_best(a, b):
    """The largest key, then the smallest val, then the smallest rank (a total order on the inputs)."""
    if b.key > a.key or (b.key == a.key and (b.val < a.val or (b.val == a.val and b.rank < a.rank))):
        return b
    return a


def pick_larger_a(x, y):
    """One Python operator for both record layouts (compiled once per layout); ties: the lower b."""
    if y.a > x.a or (y.a == x.a and y.b < x.b):
        return y
    return x


def pick_larger_first(x, y):
    if y[0] > x[0] or (y[0] == x[0] and y[1] < x[1]):
        return y
    return x


def carry(state, aggregate):
    """Block prefix callback: returns the running (max, position) before this tile and adds the tile's."""
    old = (state[0], np.int32(state[1]))
    if aggregate[0] > state[0]:
        state[0] = aggregate[0]
        state[1] = aggregate[1]
    return old


def tally(a, b):
    """Builds a new tuple: (count, max of the halves, any flag, max of the bytes). The bytes' maximum is a
    comparison: numba-cuda-mlir 0.5.4 compiles the builtin max() of unsigned integers to a signed max
    (max.s16 for uint8, max.s32/.s64 for uint32/uint64), whatever cuda-coop passes it."""
    return (a[0] + b[0], max(a[1], b[1]), a[2] or b[2], a[3] if a[3] > b[3] else b[3])


def largest_q(a, b):
    if b.q > a.q or (b.q == a.q and b.u < a.u):
        return b
    return a


def lex_max(a, b):
    if b[0] > a[0] or (b[0] == a[0] and b[1] > a[1]):
        return b
    return a


# --- kernels --------------------------------------------------------------------------------------------


def record_type() -> Any:
    from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

    return from_dtype(REC)


def signature(case: Case) -> tuple[Any, ...]:
    from numba_cuda_mlir.numba_cuda import types

    rec = record_type()
    f64, i32, i64 = types.float64[::1], types.int32[::1], types.int64[::1]
    return (f64, rec[::1], f64, i32, f64, i32, rec[::1], f64, i32, f64, i32, rec[::1], i64, i64)


def make_kernel(case: Case) -> Any:
    """``k(vals, recs, block_v, block_i, scan_v, scan_i, block_rec, warp_v, warp_i, part_v, part_i, warp_rec,
    lex_a, lex_b)``: see the module docstring. Per-block results at ``blockIdx.x``, per-warp ones at the
    warp's global number, per-thread ones at the thread's global rank; ``scan_v/scan_i`` hold the inclusive
    scan in the first half and the exclusive scan in the second."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    (bx, by, _bz), threads, lw = case.block, case.threads, case.warp
    total = TILES * threads
    partial = PARTIAL if lw > PARTIAL else lw

    @cuda.jit
    def kernel(vals, recs, block_v, block_i, scan_v, scan_i, block_rec, warp_v, warp_i, part_v, part_i, warp_rec,
               lex_a, lex_b):
        tid = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        g = cuda.blockIdx.x * threads + tid
        pair = (vals[g], np.int32(tid))
        best = coop.block.reduce(pair, argmax)
        inc = coop.block.inclusive_scan(pair, running_max)
        exc = coop.block.exclusive_scan(pair, running_max, initial_value=(-np.inf, np.int32(-1)))
        rec = coop.block.reduce(recs[g], rec_best)
        wbest = coop.warp.reduce(pair, argmax, threads=lw)
        pbest = coop.warp.reduce(pair, argmax, threads=lw, valid_items=partial)
        wrec = coop.warp.inclusive_scan(recs[g], rec_best, threads=lw)
        lex = coop.warp.exclusive_scan((recs[g].key, np.int64(tid)), lex_max, initial_value=(np.int64(-(2**63)),
                                       np.int64(-1)), threads=lw)
        if tid == 0:
            block_v[cuda.blockIdx.x] = best[0]
            block_i[cuda.blockIdx.x] = best[1]
            block_rec[cuda.blockIdx.x] = rec
        if tid % lw == 0:
            w = g // lw
            warp_v[w] = wbest[0]
            warp_i[w] = wbest[1]
            part_v[w] = pbest[0]
            part_i[w] = pbest[1]
        scan_v[g] = inc[0]
        scan_i[g] = inc[1]
        scan_v[total + g] = exc[0]
        scan_i[total + g] = exc[1]
        warp_rec[g] = wrec
        lex_a[g] = lex[0]
        lex_b[g] = lex[1]

    return kernel


def odr_signature() -> tuple[Any, ...]:
    from numba_cuda_mlir.numba_cuda import types
    from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

    ab, ba = from_dtype(AB)[::1], from_dtype(BA)[::1]
    return (ab, ba, ab, ba, types.int32[::1], types.float64[::1])


def make_odr_kernel() -> Any:
    """``k(ab, ba, out_ab, out_ba, out_a, out_b)``: per block, the reduction of each layout and of the tuple."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    @cuda.jit
    def kernel(ab, ba, out_ab, out_ba, out_a, out_b):
        g = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        r1 = coop.block.reduce(ab[g], pick_larger_a)
        r2 = coop.block.reduce(ba[g], pick_larger_a)
        r3 = coop.block.reduce((ab[g].a, ab[g].b), pick_larger_first)
        if cuda.threadIdx.x == 0:
            out_ab[cuda.blockIdx.x] = r1
            out_ba[cuda.blockIdx.x] = r2
            out_a[cuda.blockIdx.x] = r3[0]
            out_b[cuda.blockIdx.x] = r3[1]

    return kernel


ODR_BLOCK = (96, 1, 1)


def small_signature() -> tuple[Any, ...]:
    from numba_cuda_mlir.numba_cuda import types
    from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

    small = from_dtype(SMALL)[::1]
    return (small, types.int32[::1], types.float16[::1], types.uint8[::1], types.uint8[::1], small)


def make_small_kernel() -> Any:
    """``k(recs, counts, halves, flags, bytes_, best)``: per thread the warp scan of tally (first 4*TILES*64
    entries), then per block the block reduction of tally (after them) and of the records (``best``)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    threads = math.prod(SMALL_BLOCK)
    total = TILES * threads

    @cuda.jit
    def kernel(recs, counts, halves, flags, bytes_, best):
        tid = cuda.threadIdx.x + 4 * (cuda.threadIdx.y + 4 * cuda.threadIdx.z)
        g = cuda.blockIdx.x * threads + tid
        r = recs[g]
        item = (np.int32(1), r.h, r.ok, r.u)
        w = coop.warp.inclusive_scan(item, tally, threads=16)
        b = coop.block.reduce(item, tally)
        rb = coop.block.reduce(r, largest_q)
        counts[g], halves[g], flags[g], bytes_[g] = w[0], w[1], np.uint8(w[2]), w[3]
        if tid == 0:
            at = total + cuda.blockIdx.x
            counts[at], halves[at], flags[at], bytes_[at] = b[0], b[1], np.uint8(b[2]), b[3]
            best[cuda.blockIdx.x] = rb

    return kernel


def extra_signature() -> tuple[Any, ...]:
    from numba_cuda_mlir.numba_cuda import types

    rec = record_type()[::1]
    return (types.float64[::1], rec, types.float64[::1], types.int32[::1], rec, types.int32)


def make_extra_kernel() -> Any:
    """``k(vals, recs, scan_v, scan_i, rec_out, valid)``: see the module docstring (one block)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    threads = EXTRA_BLOCK[0]

    @cuda.jit
    def kernel(vals, recs, scan_v, scan_i, rec_out, valid):
        tid = cuda.threadIdx.x
        state = cuda.local.array(2, np.float64)
        state[0] = -np.inf
        state[1] = -1.0
        for tile in range(EXTRA_TILES):
            g = tile * threads + tid
            r = coop.block.inclusive_scan((vals[g], np.int32(g)), running_max, prefix_op=carry, prefix_state=state)
            scan_v[g] = r[0]
            scan_i[g] = r[1]
        best = coop.block.reduce(recs[tid], rec_best, valid_items=valid)
        if tid == 0:
            rec_out[0] = best

    return kernel


# --- host side ------------------------------------------------------------------------------------------


def inputs(case: Case, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = TILES * case.threads
    vals = rng.integers(-3, 4, n).astype(np.float64) * 0.75  # 7 values: many ties
    recs = np.zeros(n, REC)
    recs["tag"] = rng.integers(0, 256, n)
    recs["key"] = KEYS[rng.integers(0, len(KEYS), n)]
    recs["val"] = rng.integers(-2, 3, n).astype(np.float32) * 1.5  # ties in val too
    recs["rank"] = np.arange(n) % case.threads
    return vals, recs


def _poisoned(shape: int, kind: str) -> np.ndarray:
    if kind == "f":
        return np.full(shape, np.nan)
    if kind == "rec":
        return np.frombuffer(b"\xa5" * (shape * REC.itemsize), REC).copy()
    return np.full(shape, POISON_INT, np.int32 if kind == "i" else np.int64)


def _best(values: np.ndarray, positions: np.ndarray) -> tuple[float, int]:
    k = int(np.argmax(values))  # the first maximum: the lowest position among ties
    return float(values[k]), int(positions[k])


def _running(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v, i = np.empty_like(values), np.empty(values.size, np.int64)
    for k, x in enumerate(values):
        if k == 0 or x > v[k - 1]:
            v[k], i[k] = x, k
        else:
            v[k], i[k] = v[k - 1], i[k - 1]
    return v, i


def _rec_key(r: np.void) -> tuple[int, float, int]:
    return (-int(r["key"]), float(r["val"]), int(r["rank"]))


def assert_record(got: np.void, want: np.void, what: str) -> None:
    for name in REC.names:
        assert got[name] == want[name], f"{what}: field {name} is {got[name]!r}, expected {want[name]!r} ({want})"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_records_tuples(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    vals, recs = inputs(case, rng)
    threads, lw = case.threads, case.warp
    n, warps = TILES * threads, TILES * threads // lw
    shapes = [(TILES, "f"), (TILES, "i"), (2 * n, "f"), (2 * n, "i"), (TILES, "rec"), (warps, "f"), (warps, "i"),
              (warps, "f"), (warps, "i"), (n, "rec"), (n, "l"), (n, "l")]
    outs = [cuda.to_device(_poisoned(size, kind)) for size, kind in shapes]
    make_kernel(case)[TILES, case.block](cuda.to_device(vals), cuda.to_device(recs), *outs)
    (block_v, block_i, scan_v, scan_i, block_rec, warp_v, warp_i, part_v, part_i, warp_rec, lex_a,
     lex_b) = (o.copy_to_host() for o in outs)
    partial = PARTIAL if lw > PARTIAL else lw
    for t in range(TILES):
        tile = slice(t * threads, (t + 1) * threads)
        v, r = vals[tile], recs[tile]
        ranks = np.arange(threads)
        assert (block_v[t], block_i[t]) == _best(v, ranks), f"tile {t}: block argmax"
        inc_v, inc_i = _running(v)
        got_v, got_i = scan_v[tile], scan_i[tile]
        assert np.array_equal(got_v, inc_v) and np.array_equal(got_i, inc_i), f"tile {t}: inclusive running max"
        exc_v, exc_i = np.r_[-np.inf, inc_v[:-1]], np.r_[-1, inc_i[:-1]]
        got_v, got_i = scan_v[n:][tile], scan_i[n:][tile]
        assert np.array_equal(got_v, exc_v) and np.array_equal(got_i, exc_i), f"tile {t}: exclusive running max"
        assert_record(block_rec[t], min(r, key=_rec_key), f"tile {t}: block record reduce")
        for w in range(threads // lw):
            lanes = slice(w * lw, (w + 1) * lw)
            at = t * (threads // lw) + w
            assert (warp_v[at], warp_i[at]) == _best(v[lanes], ranks[lanes]), f"tile {t} warp {w}: argmax"
            first = slice(w * lw, w * lw + partial)
            assert (part_v[at], part_i[at]) == _best(v[first], ranks[first]), f"tile {t} warp {w}: 7-lane argmax"
            acc: Any = None
            prefix = (-(2**63), -1)
            for lane in range(w * lw, (w + 1) * lw):
                g = t * threads + lane
                acc = r[lane] if acc is None else min(acc, r[lane], key=_rec_key)
                assert_record(warp_rec[g], acc, f"tile {t} lane {lane}: warp record scan")
                assert (lex_a[g], lex_b[g]) == prefix, f"tile {t} lane {lane}: warp exclusive lex-max"
                prefix = max(prefix, (int(r[lane]["key"]), lane))


def test_two_layouts(rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    n = TILES * ODR_BLOCK[0]
    ab = np.zeros(n, AB)
    ab["a"] = rng.integers(-(2**31), 2**31 - 1, n)
    ab["a"][rng.integers(0, n, 8)] = 2**31 - 1  # ties in a: the lower b wins
    ab["b"] = rng.normal(size=n) * 1e10
    ba = np.zeros(n, BA)
    ba["a"] = rng.integers(-(2**31), 2**31 - 1, n)
    ba["b"] = rng.normal(size=n)
    outs = [np.frombuffer(b"\xa5" * (TILES * dt.itemsize), dt).copy() for dt in (AB, BA)]
    outs += [np.full(TILES, POISON_INT, np.int32), np.full(TILES, np.nan)]
    dev = [cuda.to_device(o) for o in outs]
    make_odr_kernel()[TILES, ODR_BLOCK](cuda.to_device(ab), cuda.to_device(ba), *dev)
    out_ab, out_ba, out_a, out_b = (d.copy_to_host() for d in dev)
    for t in range(TILES):
        tile = slice(t * ODR_BLOCK[0], (t + 1) * ODR_BLOCK[0])
        for got, recs in ((out_ab[t], ab[tile]), (out_ba[t], ba[tile])):
            want = min(recs, key=lambda r: (-int(r["a"]), float(r["b"])))
            assert got["a"] == want["a"] and got["b"] == want["b"], (t, got, want)
        want = min(ab[tile], key=lambda r: (-int(r["a"]), float(r["b"])))
        assert (out_a[t], out_b[t]) == (want["a"], want["b"]), (t, out_a[t], out_b[t], want)


def test_prefix_and_valid_items(rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    case = Case(EXTRA_BLOCK, 1)
    vals, recs = inputs(Case(EXTRA_BLOCK, EXTRA_TILES), rng)  # TILES * 33 records; the first 33 are reduced
    vals = np.resize(vals, EXTRA_TILES * case.threads)
    outs = [cuda.to_device(_poisoned(vals.size, "f")), cuda.to_device(_poisoned(vals.size, "i")),
            cuda.to_device(_poisoned(1, "rec"))]
    make_extra_kernel()[1, EXTRA_BLOCK](cuda.to_device(vals), cuda.to_device(recs), *outs, VALID)
    scan_v, scan_i, rec_out = (o.copy_to_host() for o in outs)
    want_v, want_i = _running(vals)
    assert np.array_equal(scan_v, want_v) and np.array_equal(scan_i, want_i), "running max carried by prefix_op"
    assert_record(rec_out[0], min(recs[:VALID], key=_rec_key), "record reduce of the first VALID threads")


def test_built_tuples(rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    threads = math.prod(SMALL_BLOCK)
    n = TILES * threads
    recs = np.zeros(n, SMALL)
    recs["h"] = rng.integers(-2048, 2048, n).astype(np.float16) / np.float16(8)
    recs["ok"] = rng.random(n) < 0.05
    recs["u"] = rng.integers(0, 256, n)
    recs["q"] = rng.choice(np.array([2**63 + 5, 2**40, 3, 2**64 - 1], np.uint64), n)
    size = n + TILES
    outs = [cuda.to_device(a) for a in (np.full(size, POISON_INT, np.int32), np.full(size, np.nan, np.float16),
                                         np.full(size, 0xA5, np.uint8), np.full(size, 0xA5, np.uint8))]
    best = cuda.to_device(np.frombuffer(b"\xa5" * (TILES * SMALL.itemsize), SMALL).copy())
    make_small_kernel()[TILES, SMALL_BLOCK](cuda.to_device(recs), *outs, best)
    counts, halves, flags, bytes_ = (o.copy_to_host() for o in outs)
    got_best = best.copy_to_host()
    for t in range(TILES):
        tile = recs[t * threads:(t + 1) * threads]
        for w in range(threads // 16):
            lanes = tile[w * 16:(w + 1) * 16]
            at = t * threads + w * 16 + np.arange(16)
            assert np.array_equal(counts[at], np.arange(1, 17)), (t, w, counts[at])
            assert np.array_equal(halves[at], np.maximum.accumulate(lanes["h"])), (t, w, halves[at])
            assert np.array_equal(flags[at], np.logical_or.accumulate(lanes["ok"]).astype(np.uint8)), (t, w)
            assert np.array_equal(bytes_[at], np.maximum.accumulate(lanes["u"])), (t, w, bytes_[at])
        at = n + t
        want = (threads, tile["h"].max(), np.uint8(tile["ok"].any()), tile["u"].max())
        assert (counts[at], halves[at], flags[at], bytes_[at]) == want, (t, counts[at], halves[at], flags[at])
        r = got_best[t]
        k = min(range(threads), key=lambda i: (-int(tile[i]["q"]), int(tile[i]["u"])))
        assert (r["q"], r["u"], r["ok"], r["h"]) == (tile[k]["q"], tile[k]["u"], tile[k]["ok"], tile[k]["h"]), t
