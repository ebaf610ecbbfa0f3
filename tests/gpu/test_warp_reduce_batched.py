"""``coop.warp.reduce_batched`` / ``coop.warp.sum_batched`` on the GPU, against a NumPy model of CUB's arrangement.

One kernel per case; a 2-block launch. Every thread (linear rank ``t`` of the block, global ``g``) holds B items,
``x[g*B : g*B+B]``, item ``b`` of batch ``b``; a logical warp of ``threads`` lanes (consecutive ranks) reduces each
batch over its lanes. The kernel writes what each lane got: the returned value (``form="one"``, B at most ``threads``)
or its ``output`` array of ``M = ceil(B / threads)`` items. The model (:func:`expected`): lane ``l`` of logical warp
``w`` gets batch ``l*M + i`` (blocked) or ``l + i*threads`` (striped) in its slot ``i``, the reduction of
``x[w, :, batch]`` over the lanes; a slot whose batch is past B holds a value of no batch and is not checked. The
output buffer is poisoned first (``tests/gpu/_data.sentinels``: values the inputs never take), so a slot that should
have been written and was not fails.

Axes (rotated, see :func:`cases`): every item type CUB reduces here (int8..int64, uint8..uint64, float16, bfloat16,
float32, float64, complex64, complex128) x logical warps 1, 2, 4, 8, 16, 32 (every one for each type) x batch counts
relative to the warp (1, threads - 1, threads, threads + 1, 2 * threads, 2 * threads + 3) x both arrangements x both
forms x operators (``reduce_batched`` with every known operator the type has, a Python function; ``sum_batched``) x
blocks (64,), (96,), (48,), (40,), (33,), (16, 3), (4, 4, 4), (16, 4): 48, 40 and 33 threads are not multiples of 32
(their last hardware warp is partial) x ``sync_physical_warp`` (only in blocks of whole hardware warps, as the spec
requires). Three more cases take CUB's ``redux.sync`` path (32-lane warps, at most 8 batches: an int32 ``fmin``, a
uint8 sum, a uint64 ``^``). Integer results are exact (they wrap as C++ does); float and complex sums and products
are compared within ``chain * u * sum|terms|`` (``chain`` = log2(threads) + 2: each result is a tree of the lanes'
values), min/max exactly. The compile tier compiles a covering subset of these kernels
(tests/compile/test_warp_reduce_batched.py). These tests have not run on a GPU yet (written in a session without one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.gpu._data import random_values, sentinels
from tests.gpu.test_dtypes import from_bfloat16_bits, host_values, to_bfloat16_bits
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.shapes import Threads

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128")
WARPS = (1, 2, 4, 8, 16, 32)
SHAPES = ("one", "fewer", "equal", "more", "twice", "twice_plus")
"""Batch counts relative to the logical warp: 1, threads - 1, threads, threads + 1, 2 * threads, 2 * threads + 3."""
BLOCKS = ((64, 1, 1), (96, 1, 1), (48, 1, 1), (40, 1, 1), (33, 1, 1), (16, 3, 1), (4, 4, 4), (16, 4, 1))
GRID = 2
ROUNDOFF = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53,
            "complex64": 2.0**-24, "complex128": 2.0**-53}


def ops_for(dtype: str) -> tuple[str, ...]:
    """``"sum"`` (``sum_batched``), every known operator ``reduce_batched`` takes for the type, ``"user"``."""
    kind = "c" if dtype.startswith("complex") else "f" if dtype in ("float16", "bfloat16") else np.dtype(dtype).kind
    if kind == "c":
        return ("sum", "+", "*", "user")
    if kind == "f":
        return ("sum", "+", "*", "min", "max", "fmin", "fmax", "user")
    return ("sum", "+", "*", "&", "|", "^", "min", "max", "fmin", "fmax", "user")


def batches_for(shape: str, threads: int) -> int:
    return {"one": 1, "fewer": max(threads - 1, 1), "equal": threads, "more": threads + 1, "twice": 2 * threads,
            "twice_plus": 2 * threads + 3}[shape]


@dataclass(frozen=True)
class Case(Threads):
    dtype: str
    lanes: int
    """The logical warp (``threads=``)."""
    shape: str
    block: tuple[int, int, int]
    arrangement: str
    op: str
    sync: bool
    one: bool
    """The returned form (no ``output=``): only where B <= lanes."""

    @property
    def batches(self) -> int:
        return batches_for(self.shape, self.lanes)

    @property
    def per_lane(self) -> int:
        return -(-self.batches // self.lanes)

    @property
    def form(self) -> str:
        return "one" if self.one else "array"

    @property
    def method(self) -> str:
        return "sum_batched" if self.op == "sum" else "reduce_batched"

    @property
    def id(self) -> str:
        return (f"{self.dtype}-lw{self.lanes}-b{self.batches}-{'x'.join(map(str, self.block))}-{self.arrangement}-"
                f"{self.form}-{self.op}{'-sync' if self.sync else ''}")


def _blocks_for(lanes: int) -> list[tuple[int, int, int]]:
    return [b for b in BLOCKS if math.prod(b) % lanes == 0]


def cases() -> list[Case]:
    result = []
    n = 0
    for d, dtype in enumerate(DTYPES):
        ops = ops_for(dtype)
        for j, lanes in enumerate(WARPS):
            blocks = _blocks_for(lanes)
            block = blocks[(d + 2 * j) % len(blocks)]
            shape = SHAPES[(d + j) % len(SHAPES)]
            one = batches_for(shape, lanes) <= lanes and (n // 2) % 2 == 0
            sync = math.prod(block) % 32 == 0 and lanes < 32 and (d + j) % 3 == 0
            result.append(Case(dtype, lanes, shape, block, ("blocked", "striped")[n % 2], ops[(d + j) % len(ops)],
                               sync, one))
            n += 1
    # CUB's redux.sync path (sm_80+): 32-lane warps, at most 8 batches, integers of at most 32 bits with a sum, a
    # bitwise operator or cuda::minimum/maximum ("fmin"/"fmax"), or 64-bit unsigned integers with a bitwise one
    result += [Case("int32", 32, "one", (64, 1, 1), "blocked", "fmin", False, True),
               Case("uint8", 32, "one", (96, 1, 1), "striped", "sum", False, False),
               Case("uint64", 32, "one", (16, 4, 1), "blocked", "^", False, True)]
    return result


CASES = cases()


# --- host side ----------------------------------------------------------------------------------------------------


def _device_type(dtype: str) -> str:
    """The element type of the kernel's arrays: bfloat16 travels as its raw 16 bits (NumPy has no bfloat16)."""
    return "uint16" if dtype == "bfloat16" else dtype


def inputs(case: Case, rng: np.random.Generator) -> np.ndarray:
    """The items as the device sees them (bfloat16: float32 values that are exact bfloat16), never 0 and never a
    sentinel; shaped for the operator (products of values near 1, AND/OR of masked values: see ``random_values``)."""
    n = GRID * case.threads * case.batches
    op = {"sum": "+", "user": "+", "fmin": "min", "fmax": "max"}.get(case.op, case.op)
    if case.dtype in ("float16", "bfloat16") or case.dtype.startswith("complex"):
        return host_values(rng, case.dtype, n, near_one=op == "*")
    return random_values(rng, case.dtype, n, op)


def _reduce(op: str, values: np.ndarray) -> np.ndarray:
    """``op`` over axis 1 of (warps, lanes, batches): integers wrap in their type, floats in float64, complex in
    complex128."""
    if values.dtype.kind in "iu":
        ufunc = {"sum": np.add, "+": np.add, "user": np.add, "*": np.multiply, "&": np.bitwise_and,
                 "|": np.bitwise_or, "^": np.bitwise_xor, "min": np.minimum, "max": np.maximum, "fmin": np.fmin,
                 "fmax": np.fmax}[op]
        return ufunc.reduce(values, axis=1, dtype=values.dtype)
    wide = values.astype(np.complex128 if values.dtype.kind == "c" else np.float64)
    ufunc = {"sum": np.add, "+": np.add, "user": np.add, "*": np.multiply, "min": np.minimum, "max": np.maximum,
             "fmin": np.fmin, "fmax": np.fmax}[op]
    return ufunc.reduce(wide, axis=1)


def slot_batches(case: Case) -> np.ndarray:
    """(lanes, M): the batch each lane's slot gets in the case's arrangement (>= B: no batch)."""
    lane = np.arange(case.lanes)[:, None]
    slot = np.arange(case.per_lane)[None, :]
    if case.arrangement == "blocked":
        return lane * case.per_lane + slot
    return lane + slot * case.lanes


def expected(case: Case, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(want, valid, terms), each (threads of the launch, M): every lane's slots, which of them hold a batch, and the
    sum of the absolute values each result combines (its tolerance)."""
    warps = GRID * case.threads // case.lanes
    tiles = x.reshape(warps, case.lanes, case.batches)
    reduced = _reduce(case.op, tiles)  # (warps, B)
    abs_sum = np.abs(tiles.astype(np.complex128 if tiles.dtype.kind == "c" else np.float64)).sum(axis=1) \
        if tiles.dtype.kind in "fc" else np.zeros(reduced.shape)
    batch = np.broadcast_to(slot_batches(case), (warps, case.lanes, case.per_lane))
    valid = batch < case.batches
    index = np.where(valid, batch, 0)
    want = np.take_along_axis(reduced[:, None, :], index.reshape(warps, 1, -1), axis=2).reshape(batch.shape)
    terms = np.take_along_axis(abs_sum[:, None, :], index.reshape(warps, 1, -1), axis=2).reshape(batch.shape)
    shape = (GRID * case.threads, case.per_lane)
    return want.reshape(shape), valid.reshape(shape), terms.reshape(shape)


def check(case: Case, got: np.ndarray, x: np.ndarray) -> None:
    want, valid, terms = expected(case, x)
    got = got.reshape(want.shape)
    where = case.id
    assert valid.any(), where
    g, w = got[valid], want[valid]
    if got.dtype.kind in "iu":
        np.testing.assert_array_equal(g, w.astype(got.dtype), err_msg=where, strict=True)
        return
    if case.op in ("min", "max", "fmin", "fmax"):
        np.testing.assert_array_equal(g.astype(np.float64), w, err_msg=where)
        return
    u = ROUNDOFF[case.dtype]
    chain = math.ceil(math.log2(case.lanes)) + 2
    wide = g.astype(np.complex128 if g.dtype.kind == "c" else np.float64)
    products = case.op == "*"  # each rounding is relative; a sum's is relative to its terms
    bound = 2 * (case.lanes + 1) * u * np.abs(w) if products else chain * u * terms[valid] + u * np.abs(w)
    bad = ~(np.abs(wide - w) <= bound)  # NaN (poison left in place) is bad
    if bad.any():
        i = np.flatnonzero(bad)[:5]
        raise AssertionError(f"{where}: {bad.sum()} of {bad.size} results off; first {g[i].tolist()} vs "
                             f"{w[i].tolist()} (bound {bound[i].tolist()})")


def poison(case: Case) -> np.ndarray:
    n = GRID * case.threads * case.per_lane
    if case.dtype == "bfloat16":
        return np.full(n, 0x7FC1, np.uint16)  # a bfloat16 NaN
    if case.dtype.startswith("complex") or case.dtype.startswith("float"):
        return np.full(n, np.nan, case.dtype)
    return np.full(n, sentinels(case.dtype)[0], case.dtype)


# --- kernels ------------------------------------------------------------------------------------------------------


def user_add(a, b):
    return a + b


def _numba_types(dtype: str, *, dsl: Dsl = NUMBA_MLIR) -> tuple[Any, Any]:
    """(item type, element type of the kernel's arrays)."""
    types = dsl.types

    return getattr(types, dtype), getattr(types, _device_type(dtype))


def signature(case: Case, *, dsl: Dsl = NUMBA_MLIR) -> tuple[Any, ...]:
    _, elem = _numba_types(case.dtype, dsl=dsl)
    return (elem[::1], elem[::1])


def make_kernel(case: Case, *, dsl: Dsl = NUMBA_MLIR) -> Any:
    """``k(x, out)``: each thread's B items from ``x``, its result(s) to ``out[g*M : g*M+M]``."""
    cuda = dsl.cuda
    bfloat16_as_ushort, ushort_as_bfloat16 = dsl.bf16.bfloat16_as_ushort, dsl.bf16.ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = _numba_types(case.dtype, dsl=dsl)
    B, M, LW, ARR, SYNC = case.batches, case.per_lane, case.lanes, case.arrangement, case.sync
    bx, by, _bz = case.block
    threads = case.threads
    bf16, one, summed = case.dtype == "bfloat16", case.one, case.op == "sum"
    op = user_add if case.op == "user" else case.op

    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        g = cuda.blockIdx.x * threads + t
        items = cuda.local.array(B, item)
        res = cuda.local.array(M, item)
        for b in range(B):
            items[b] = ushort_as_bfloat16(x[g * B + b]) if bf16 else x[g * B + b]
        if one:
            if summed:
                res[0] = coop.warp.sum_batched(items, arrangement=ARR, sync_physical_warp=SYNC, threads=LW)
            else:
                res[0] = coop.warp.reduce_batched(items, op, arrangement=ARR, sync_physical_warp=SYNC, threads=LW)
        elif summed:
            coop.warp.sum_batched(items, output=res, arrangement=ARR, sync_physical_warp=SYNC, threads=LW)
        else:
            coop.warp.reduce_batched(items, op, output=res, arrangement=ARR, sync_physical_warp=SYNC, threads=LW)
        for i in range(M):
            out[g * M + i] = bfloat16_as_ushort(res[i]) if bf16 else res[i]

    return kernel


def run(case: Case, rng: np.random.Generator, *, dsl: Dsl = NUMBA_MLIR) -> None:
    cuda = dsl.cuda

    x = inputs(case, rng)
    out = cuda.to_device(poison(case))
    x_dev = to_bfloat16_bits(x) if case.dtype == "bfloat16" else x
    make_kernel(case, dsl=dsl)[GRID, case.block](cuda.to_device(x_dev), out)
    got = out.copy_to_host()
    check(case, from_bfloat16_bits(got) if case.dtype == "bfloat16" else got, x)


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_warp_reduce_batched(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    run(case, rng, dsl=dsl)


def test_cases_cover_every_axis() -> None:
    assert {c.dtype for c in CASES} == set(DTYPES)
    for dtype in DTYPES:
        assert {c.lanes for c in CASES if c.dtype == dtype} == set(WARPS)
    assert {c.shape for c in CASES} == set(SHAPES)
    assert {c.block for c in CASES} == set(BLOCKS)
    assert {c.arrangement for c in CASES} == {"blocked", "striped"}
    assert {c.one for c in CASES} == {False, True} and {c.sync for c in CASES} == {False, True}
    assert {c.op for c in CASES} == set(ops_for("int32"))
    assert all(c.batches <= c.lanes for c in CASES if c.one)
    assert all(c.threads % 32 == 0 for c in CASES if c.sync)
    assert any(c.batches > c.lanes and c.arrangement == a and c.per_lane > 1 for c in CASES for a in ("striped",))
    assert any(c.dtype in ("int8", "int16", "int32", "uint8", "uint16", "uint32") and c.lanes == 32 and c.batches <= 8
               and c.op in ("sum", "+", "fmin", "fmax", "&", "|", "^") for c in CASES), "no case takes redux.sync"


def test_model_on_a_hand_example() -> None:
    """The model's arrangement on 2 lanes and 5 batches (CUB's docs: blocked lane 0 gets 0, 1, 2; striped 0, 2, 4)."""
    blocked = Case("int32", 2, "more", (64, 1, 1), "blocked", "+", False, False)
    striped = Case("int32", 2, "more", (64, 1, 1), "striped", "+", False, False)
    assert blocked.batches == 3 and blocked.per_lane == 2
    assert slot_batches(blocked).tolist() == [[0, 1], [2, 3]]
    assert slot_batches(striped).tolist() == [[0, 2], [1, 3]]
    x = np.arange(GRID * 64 * 3, dtype=np.int32)
    want, valid, _ = expected(blocked, x)
    assert valid[:2].tolist() == [[True, True], [True, False]]
    assert want[0, 0] == x[0] + x[3] and want[1, 0] == x[2] + x[5]  # lane 1's slot 0: batch 2 of warp 0
