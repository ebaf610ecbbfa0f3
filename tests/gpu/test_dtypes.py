"""float16, bfloat16, complex64 and complex128 through the block and warp primitives, on the GPU.

Kernels (each compiled in the compile tier by tests/compile/test_dtypes_compile.py):

- ``CASES``: each dtype x block (128,), (33,), (16,8), (4,4,4), items per thread rotating through
  1/4/16. Every block loads its tile (``coop.block.load`` "transpose"; bfloat16 from raw 16-bit values,
  see below), sums it (array ``block.sum``: a pointer-ABI result), scans it in place
  (``block.inclusive_sum``), exchanges it to striped order (``block.blocked_to_striped``) and stores it
  striped; each logical warp sums one value per lane (``warp.sum``).
- ``OP_CASES``: each dtype with a user operator (a Python function, compiled through the pointer-ABI
  shim) in ``block.reduce`` and ``block.exclusive_scan`` (a runtime ``initial_value``: a pointer-ABI
  scalar argument), plus a known operator (``"max"`` for half types, ``"*"`` for complex).

References: float16/bfloat16 inputs are rounded to the type on the host and summed in float64; the
tolerance is ``depth * u * sum|x|`` (``u`` the type's unit roundoff, ``depth`` the longest chain of
additions CUB's order can have for the tile: items per thread + log2 of the warp + the warps), a bound
for any summation order of that depth. complex64 against complex128 the same way; complex128 with
float64's roundoff. NumPy has no bfloat16 without ml_dtypes, so bfloat16 kernels take and give raw bits
(uint16) and convert in the kernel (``ushort_as_bfloat16``); loads and stores of bfloat16 arrays are
compiled (compile tier) but not run here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.helpers.shapes import Threads

DTYPES = ("float16", "bfloat16", "complex64", "complex128")
BLOCKS = ((128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4))
ITEMS = (1, 4, 16)
TILES = 2
ROUNDOFF = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "complex64": 2.0**-24, "complex128": 2.0**-53}
COMPLEX_PART = {"complex64": np.float32, "complex128": np.float64}


@dataclass(frozen=True)
class Case(Threads):
    dtype: str
    block: tuple[int, int, int]
    items: int

    @property
    def warp(self) -> int:
        """The logical warp of the warp.sum: 32, or 1 where the block is not a multiple of 32 threads."""
        return 32 if self.threads % 32 == 0 else 1

    @property
    def id(self) -> str:
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-n{self.items}"


CASES = [Case(d, b, ITEMS[(i + j) % len(ITEMS)]) for i, d in enumerate(DTYPES) for j, b in enumerate(BLOCKS)]
OP_CASES = [Case(d, (64, 1, 1), 4) for d in DTYPES]
BROADCAST_CASES = [
    Case("int32", (128, 1, 1), 8),
    Case("float64", (33, 1, 1), 1),
    Case("int64", (4, 4, 4), 16),
    Case("float32", (16, 8, 1), 4),
]
"""Integer and float broadcasts, ``items`` is the logical warp width; each block reduces two tiles in a loop
(the broadcast slot is reused)."""
SCALAR_CASES = [Case(d, (64, 1, 1), 1) for d in DTYPES]
"""One value per thread: scalar scans and a shuffle, whose results come back through the pointer ABI."""


# --- host side: values, bfloat16 bits, references ------------------------------------------------------


def to_bfloat16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, rounding to nearest even (finite inputs)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def from_bfloat16_bits(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def host_values(rng: np.random.Generator, dtype: str, n: int, *, near_one: bool = False) -> np.ndarray:
    """``n`` values of ``dtype`` as the device sees them (bfloat16: float32 values that are exact bfloat16)."""
    if dtype.startswith("complex"):
        if near_one:
            angle = rng.uniform(-np.pi, np.pi, n)
            return np.exp(1j * angle).astype(dtype)
        return (rng.uniform(-1, 1, n) + 1j * rng.uniform(-1, 1, n)).astype(dtype)
    x = rng.uniform(0.1, 1.0, n) * rng.choice([-1.0, 1.0], n)
    return from_bfloat16_bits(to_bfloat16_bits(x)) if dtype == "bfloat16" else x.astype(np.float16)


def device_input(dtype: str, x: np.ndarray) -> np.ndarray:
    return to_bfloat16_bits(x) if dtype == "bfloat16" else x


def host_output(dtype: str, y: np.ndarray) -> np.ndarray:
    return from_bfloat16_bits(y) if dtype == "bfloat16" else y


def wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def depth(items: int, threads: int) -> int:
    """The longest chain of additions a CUB reduction or scan of the tile can have (a generous bound)."""
    return 2 * (items + 5 + math.ceil(threads / 32)) + 2


def assert_close(dtype: str, got: np.ndarray, want: np.ndarray, terms: np.ndarray, chain: int, what: str) -> None:
    """|got - want| <= chain * u * sum|terms| + u * |want| (the result's own rounding), elementwise."""
    tol = chain * ROUNDOFF[dtype] * np.abs(wide(terms)).sum() + np.abs(wide(want)) * ROUNDOFF[dtype]
    err = np.abs(wide(got) - wide(want))
    bad = np.flatnonzero(~(err <= tol))
    if bad.size:
        i = bad[0]
        raise AssertionError(
            f"{what} ({dtype}): {bad.size} values off, first at {i}: {got.flat[i]} vs {want.flat[i]} "
            f"(tol {np.max(tol):.3g})"
        )


# --- kernels --------------------------------------------------------------------------------------------


def _types(dtype: str) -> tuple[Any, Any]:
    """(numba item type, numba type of the kernel's array elements)."""
    from numba_cuda_mlir.numba_cuda import types

    if dtype == "bfloat16":
        return types.bfloat16, types.uint16
    return getattr(types, dtype), getattr(types, dtype)


def signature(case: Case) -> tuple[Any, ...]:
    _, elem = _types(case.dtype)
    return (elem[::1], elem[::1], elem[::1], elem[::1])


def make_kernel(case: Case) -> Any:
    """``k(x, scan, sums, warp_sums)``: see the module docstring."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = _types(case.dtype)
    n, (bx, by, _bz) = case.items, case.block
    tile = case.threads * n
    bf16 = case.dtype == "bfloat16"
    lw = case.warp

    @cuda.jit
    def kernel(x, scan, sums, warp_sums):
        tid = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        base = cuda.blockIdx.x * tile
        items = cuda.local.array(n, item)
        if bf16:
            for i in range(n):
                items[i] = ushort_as_bfloat16(x[base + tid * n + i])
        else:
            coop.block.load(x, items, offset=base, algorithm="transpose")
        total = coop.block.sum(items, broadcast=True)
        coop.block.inclusive_sum(items)
        coop.block.blocked_to_striped(items)
        if bf16:
            for i in range(n):
                scan[base + i * (tile // n) + tid] = bfloat16_as_ushort(items[i])
        else:
            coop.block.store(scan, items, offset=base, algorithm="striped")
        one = ushort_as_bfloat16(x[base + tid]) if bf16 else x[base + tid]
        wsum = coop.warp.sum(one, threads=lw, broadcast=True)
        at = cuda.blockIdx.x * (tile // n) + tid  # every thread's copy of the broadcast results
        sums[at] = bfloat16_as_ushort(total) if bf16 else total
        warp_sums[at] = bfloat16_as_ushort(wsum) if bf16 else wsum

    return kernel


def user_add(a, b):
    return a + b


def make_op_kernel(case: Case) -> Any:
    """``k(x, prefix, out, _)``: block.reduce with a user operator and a known one, exclusive_scan with a
    user operator and a runtime initial value (``x[0]`` of the tile)."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    item, _ = _types(case.dtype)
    n = case.items
    tile = case.threads * n
    bf16 = case.dtype == "bfloat16"
    known = "*" if case.dtype.startswith("complex") else "max"

    @cuda.jit
    def kernel(x, prefix, out, unused):
        tid = cuda.threadIdx.x
        items = cuda.local.array(n, item)
        for i in range(n):
            items[i] = ushort_as_bfloat16(x[tid * n + i]) if bf16 else x[tid * n + i]
        init = ushort_as_bfloat16(x[tile]) if bf16 else x[tile]
        r = coop.block.reduce(items, user_add)
        k = coop.block.reduce(items, known)
        coop.block.exclusive_scan(items, user_add, initial_value=init)
        for i in range(n):
            prefix[tid * n + i] = bfloat16_as_ushort(items[i]) if bf16 else items[i]
        if tid == 0:
            out[0] = bfloat16_as_ushort(r) if bf16 else r
            out[1] = bfloat16_as_ushort(k) if bf16 else k

    return kernel


def op_signature(case: Case) -> tuple[Any, ...]:
    return signature(case)


def make_broadcast_kernel(case: Case) -> Any:
    """``k(x, maxes, mins, sums, _)``: per tile (two per block, in a loop) every thread writes the block max,
    its logical warp's min and the block sum (raking), all with ``broadcast=True``."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    bx, by, _bz = case.block
    threads, lw = case.threads, case.items

    @cuda.jit
    def kernel(x, maxes, mins, sums):
        tid = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        for j in range(2):
            at = (2 * cuda.blockIdx.x + j) * threads + tid
            v = x[at]
            maxes[at] = coop.block.reduce(v, "max", broadcast=True)
            mins[at] = coop.warp.reduce(v, "min", threads=lw, broadcast=True)
            sums[at] = coop.block.sum(v, algorithm="raking", broadcast=True)

    return kernel


def make_scalar_kernel(case: Case) -> Any:
    """``k(x, out, _, _)``: out[0::4] warp.exclusive_scan(v, "+", 1) (a constant seed), out[1::4]
    warp.inclusive_sum(v), out[2::4] block.shuffle_offset(v, 1) (the next thread's v), out[3::4]
    block.exclusive_scan(v, "+", x[64]) (a runtime seed)."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    bf16 = case.dtype == "bfloat16"
    threads = case.threads

    @cuda.jit
    def kernel(x, out, unused, unused2):
        tid = cuda.threadIdx.x
        v = ushort_as_bfloat16(x[tid]) if bf16 else x[tid]
        seed = ushort_as_bfloat16(x[threads]) if bf16 else x[threads]
        a = coop.warp.exclusive_scan(v, "+", initial_value=1)
        b = coop.warp.inclusive_sum(v)
        c = coop.block.shuffle_offset(v, distance=1)
        d = coop.block.exclusive_scan(v, "+", initial_value=seed)
        out[4 * tid] = bfloat16_as_ushort(a) if bf16 else a
        out[4 * tid + 1] = bfloat16_as_ushort(b) if bf16 else b
        out[4 * tid + 2] = bfloat16_as_ushort(c) if bf16 else c
        out[4 * tid + 3] = bfloat16_as_ushort(d) if bf16 else d

    return kernel


def broadcast_signature(case: Case) -> tuple[Any, ...]:
    from numba_cuda_mlir.numba_cuda import types

    t = getattr(types, case.dtype)
    return (t[::1], t[::1], t[::1], t[::1])


# --- GPU tests ------------------------------------------------------------------------------------------


def _launch(kernel: Any, grid: int, block: tuple[int, int, int], *arrays: np.ndarray) -> list[np.ndarray]:
    from numba_cuda_mlir import cuda

    dev = [cuda.to_device(a) for a in arrays]
    kernel[grid, block](*dev)
    cuda.synchronize()
    return [d.copy_to_host() for d in dev]


def _elem(dtype: str) -> Any:
    return np.uint16 if dtype == "bfloat16" else np.dtype(dtype)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_sum_scan_exchange(case: Case, rng: np.random.Generator) -> None:
    tile, n, threads = case.threads * case.items, case.items, case.threads
    lw = case.warp
    warps = threads // lw
    x = host_values(rng, case.dtype, TILES * tile)
    e = _elem(case.dtype)
    _, scan, sums, wsums = _launch(
        make_kernel(case), TILES, case.block, device_input(case.dtype, x),
        np.zeros(TILES * tile, e), np.zeros(TILES * threads, e), np.zeros(TILES * threads, e),
    )
    scan, sums, wsums = (host_output(case.dtype, a) for a in (scan, sums, wsums))
    for t in range(TILES):
        terms = wide(x[t * tile:(t + 1) * tile])
        chain = depth(n, threads)
        mine = sums[t * threads:(t + 1) * threads]
        assert np.array_equal(mine, np.full(threads, mine[0])), f"block.sum(broadcast) tile {t}: {mine}"
        assert_close(case.dtype, mine[:1], terms.sum(keepdims=True), terms, chain, f"block.sum tile {t}")
        assert_close(case.dtype, scan[t * tile:(t + 1) * tile], np.cumsum(terms), terms, depth(n, threads),
                     f"block.inclusive_sum + blocked_to_striped tile {t}")
        firsts = wide(x[t * tile:t * tile + threads])
        for w in range(warps):
            lanes = firsts[w * lw:(w + 1) * lw]
            got = wsums[t * threads + w * lw:t * threads + (w + 1) * lw]
            assert np.array_equal(got, np.full(lw, got[0])), f"warp.sum(broadcast) tile {t} warp {w}: {got}"
            assert_close(case.dtype, got[:1], lanes.sum(keepdims=True), lanes, depth(1, lw),
                         f"warp.sum tile {t} warp {w}")


@pytest.mark.parametrize("case", OP_CASES, ids=lambda c: c.id)
def test_user_and_known_operators(case: Case, rng: np.random.Generator) -> None:
    tile = case.threads * case.items
    complex_ = case.dtype.startswith("complex")
    x = host_values(rng, case.dtype, tile + 1, near_one=complex_)
    e = _elem(case.dtype)
    _, prefix, out, _ = _launch(
        make_op_kernel(case), 1, case.block, device_input(case.dtype, x), np.zeros(tile, e), np.zeros(2, e),
        np.zeros(1, e),
    )
    prefix, out = host_output(case.dtype, prefix), host_output(case.dtype, out)
    terms, init = wide(x[:tile]), wide(x[tile:])
    d = depth(case.items, case.threads)
    assert_close(case.dtype, out[:1], terms.sum(keepdims=True), terms, d, "block.reduce(user_add)")
    want = np.concatenate([init, init + np.cumsum(terms)[:-1]])
    assert_close(case.dtype, prefix, want, np.concatenate([init, terms]), d, "block.exclusive_scan(user_add, init)")
    if complex_:
        product = np.prod(terms, keepdims=True)  # unit-modulus factors: the product stays on the unit circle
        assert_close(case.dtype, out[1:], product, np.ones(tile), d, "block.reduce('*')")
    else:
        assert out[1] == terms.max(), f"block.reduce('max') ({case.dtype}): {out[1]} vs {terms.max()}"


@pytest.mark.parametrize("case", BROADCAST_CASES, ids=lambda c: c.id)
def test_broadcast_in_every_thread(case: Case, rng: np.random.Generator) -> None:
    threads, lw = case.threads, case.items
    n = 2 * TILES * threads
    if case.dtype.startswith("int"):
        x = rng.integers(-(2**20), 2**20, n).astype(case.dtype)
    else:
        x = rng.uniform(-1, 1, n).astype(case.dtype)
    _, maxes, mins, sums = _launch(
        make_broadcast_kernel(case), TILES, case.block, x, np.zeros(n, x.dtype), np.zeros(n, x.dtype),
        np.zeros(n, x.dtype),
    )
    tiles = x.reshape(-1, threads)
    np.testing.assert_array_equal(maxes.reshape(-1, threads), np.repeat(tiles.max(axis=1, keepdims=True), threads, 1))
    warp_min = tiles.reshape(-1, threads // lw, lw).min(axis=2, keepdims=True)
    np.testing.assert_array_equal(mins.reshape(-1, threads // lw, lw), np.repeat(warp_min, lw, 2))
    want = np.repeat(tiles.astype(np.float64).sum(axis=1, keepdims=True), threads, 1)
    got = sums.reshape(-1, threads)
    if case.dtype.startswith("int"):
        np.testing.assert_array_equal(got, want.astype(case.dtype))
    else:
        assert np.all(got == got[:, :1]), "block.sum(broadcast=True) differs between threads"
        tol = depth(1, threads) * np.finfo(case.dtype).eps * np.abs(tiles).sum(axis=1, keepdims=True)
        assert np.all(np.abs(got - want) <= tol)


@pytest.mark.parametrize("case", SCALAR_CASES, ids=lambda c: c.id)
def test_scalar_results(case: Case, rng: np.random.Generator) -> None:
    threads = case.threads
    x = host_values(rng, case.dtype, threads + 1)
    e = _elem(case.dtype)
    _, out, _, _ = _launch(
        make_scalar_kernel(case), 1, case.block, device_input(case.dtype, x), np.zeros(4 * threads, e),
        np.zeros(1, e), np.zeros(1, e),
    )
    out = host_output(case.dtype, out).reshape(threads, 4)
    v, seed = wide(x[:threads]), wide(x[threads:])
    warps = v.reshape(-1, 32)
    inclusive = np.cumsum(warps, axis=1)
    exclusive = np.concatenate([np.zeros((len(warps), 1)), inclusive[:, :-1]], axis=1) + 1
    d = depth(1, threads)
    assert_close(case.dtype, out[:, 0], exclusive.ravel(), np.concatenate([v, [1.0]]), d, "warp.exclusive_scan")
    assert_close(case.dtype, out[:, 1], inclusive.ravel(), v, d, "warp.inclusive_sum")
    np.testing.assert_array_equal(out[:-1, 2], x[1:threads].astype(out.dtype), "block.shuffle_offset")
    block_excl = np.concatenate([seed, seed + np.cumsum(v)[:-1]])
    assert_close(case.dtype, out[:, 3], block_excl, np.concatenate([v, seed]), d, "block.exclusive_scan(seed)")
