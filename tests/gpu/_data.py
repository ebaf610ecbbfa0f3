"""Inputs, sentinels and NumPy references for the GPU tests.

Integer inputs span their whole type (64-bit values above 2**32, unsigned values above the signed
maximum, negatives for signed types), so a 32-bit truncation or a signedness slip changes results.
Two values of each integer type are reserved as sentinels and never drawn: ``poison`` (fills
outputs and guard regions before a launch) and ``oob`` (the ``oob_default`` of partial tiles).
Floats have random mantissas over a wide range of exponents; their references are computed in
float64 and compared with a tolerance derived from the magnitudes of the terms.

Integer references wrap as C++ does: NumPy's reductions and accumulations with ``dtype=`` the
input's dtype wrap modulo 2**bits, exactly like CUB's functors after conversion back to ``T``.
"""

from __future__ import annotations

import math

import numpy as np

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
INT_OPS = ("+", "*", "&", "|", "^", "min", "max")
FLOAT_OPS = ("+", "*", "min", "max")
UFUNCS = {
    "+": np.add,
    "*": np.multiply,
    "&": np.bitwise_and,
    "|": np.bitwise_or,
    "^": np.bitwise_xor,
    "min": np.minimum,
    "max": np.maximum,
}
FLOAT_MAGNITUDE = 2.0**12  # |float input| < this; the float oob_default lies beyond it


def ops_for(dtype: str) -> tuple[str, ...]:
    """The documented operators CUB defines for ``dtype`` (bitwise ones for integers only)."""
    return INT_OPS if np.dtype(dtype).kind in "iu" else FLOAT_OPS


def sentinels(dtype: str) -> tuple[np.generic, np.generic]:
    """``(poison, oob)``: two values of ``dtype`` that :func:`random_values` never draws (neither is 0)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return dt.type(np.nan), dt.type(-3 * FLOAT_MAGNITUDE)
    info = np.iinfo(dt)
    if dt.kind == "u":
        return dt.type(info.max), dt.type(info.max - 1)
    return dt.type(info.min), dt.type(info.min + 1)


def random_values(rng: np.random.Generator, dtype: str, n: int, op: str = "+") -> np.ndarray:
    """``n`` values of ``dtype`` spanning the type, never 0 and never a sentinel; shaped for ``op``.

    ``"*"``: odd integers (a product of odd numbers never becomes 0 modulo 2**bits) and floats
    near +-1 (products stay finite); ``"&"``/``"|"``: integers OR-ed/AND-ed with one random mask
    (so a long AND is not 0 and a long OR not all ones); otherwise the whole range.
    """
    dt = np.dtype(dtype)
    if dt.kind == "f":
        if op == "*":
            magnitude = np.exp(rng.normal(0.0, 0.05, n))
        else:
            magnitude = rng.uniform(0.5, 1.0, n) * np.exp2(rng.integers(-24, 12, n))
        return (np.where(rng.random(n) < 0.5, -1.0, 1.0) * magnitude).astype(dt)
    info = np.iinfo(dt)
    poison, oob = sentinels(dtype)
    values = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    mask = rng.integers(info.min, info.max, dtype=dt, endpoint=True)  # one random mask for the array
    if op == "*":
        values |= dt.type(1)
    elif op == "&":
        values |= mask  # an AND of many values is the mask, not 0
    elif op == "|":
        values &= mask  # an OR of many values is the mask, not all ones
    bad = (values == 0) | (values == poison) | (values == oob)
    values[bad] = dt.type(info.max // 3) | dt.type(1)  # odd, positive, neither sentinel
    return values


def reduce_ref(op: str, values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``op`` over ``axis``: integers wrap in their dtype, floats in float64."""
    if values.dtype.kind == "f":
        return UFUNCS[op].reduce(values.astype(np.float64), axis=axis)
    return UFUNCS[op].reduce(values, axis=axis, dtype=values.dtype)


def scan_ref(op: str, values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Inclusive scan with ``op`` over ``axis``: integers wrap in their dtype, floats in float64."""
    if values.dtype.kind == "f":
        return UFUNCS[op].accumulate(values.astype(np.float64), axis=axis)
    return UFUNCS[op].accumulate(values, axis=axis, dtype=values.dtype)


def exclusive_ref(op: str, values: np.ndarray, initial: np.generic) -> np.ndarray:
    """Exclusive scan along the last axis seeded with ``initial`` (its first output is ``initial``)."""
    seeded = np.concatenate([np.full((*values.shape[:-1], 1), initial, values.dtype), values[..., :-1]], axis=-1)
    return scan_ref(op, seeded)


def depth(items_per_thread: int, threads: int) -> int:
    """A bound on the longest chain of dependent operator applications in a block/warp reduction or scan.

    Each thread combines its items in sequence; raking threads combine up to ``threads / 32``
    partials in sequence; warp-synchronous steps and serial combinations of warp aggregates add
    at most ``threads / 32 + 2 * log2(threads)``.
    """
    return items_per_thread + 2 * math.ceil(threads / 32) + 2 * max(1, math.ceil(math.log2(max(threads, 2)))) + 2


def assert_matches(got: np.ndarray, expected: np.ndarray, op: str, terms: np.ndarray | None, chain: int,
                   what: str) -> None:
    """Compare a kernel's output with a NumPy reference.

    Integers and min/max/bitwise results must be equal (bit for bit). Float sums may differ by
    ``chain * eps * sum|x_i|`` of their terms (``terms``: per output, the sum of the absolute
    values that were added; ``chain``: :func:`depth`), float products by ``chain_total * eps``
    relative, where every multiplication counts (``terms`` then holds the number of factors).
    """
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    if got.dtype.kind != "f" or op not in ("+", "*"):
        np.testing.assert_array_equal(got, expected.astype(got.dtype), err_msg=what, strict=True)
        return
    assert terms is not None, f"{what}: float {op} needs its terms for a tolerance"
    eps = float(np.finfo(got.dtype).eps)
    g = got.astype(np.float64)
    if op == "+":
        bound = 2 * chain * eps * np.asarray(terms, np.float64) + float(np.finfo(got.dtype).tiny)
    else:  # terms: number of factors; each rounding is relative
        bound = 2 * (np.asarray(terms, np.float64) + 1) * eps * np.abs(expected)
    err = np.abs(g - expected)
    bad = ~(err <= bound)  # NaN (poison left in place) is bad
    if bad.any():
        i = np.flatnonzero(bad.reshape(-1))[:5]
        raise AssertionError(
            f"{what}: {bad.sum()} of {bad.size} outside tolerance; first at {i.tolist()}: got "
            f"{g.reshape(-1)[i].tolist()}, expected {expected.reshape(-1)[i].tolist()}, "
            f"bound {np.broadcast_to(bound, bad.shape).reshape(-1)[i].tolist()}"
        )


def abs_terms(op: str, values: np.ndarray, scan: bool) -> np.ndarray:
    """What :func:`assert_matches` needs as ``terms`` for reductions (``scan=False``) or inclusive scans."""
    if op == "*":
        n = values.shape[-1]
        count = np.arange(1, n + 1, dtype=np.float64) if scan else np.float64(n)
        return np.broadcast_to(count, values.shape if scan else values.shape[:-1]).copy()
    a = np.abs(values.astype(np.float64))
    return np.cumsum(a, axis=-1) if scan else a.sum(axis=-1)


def exclusive_terms(op: str, values: np.ndarray, initial: np.generic) -> np.ndarray:
    """:func:`abs_terms` of an exclusive scan seeded with ``initial`` (the seed counts as a term)."""
    seeded = np.concatenate([np.full((*values.shape[:-1], 1), initial, values.dtype), values[..., :-1]], axis=-1)
    return abs_terms(op, seeded, scan=True)


def assert_bits_equal(got: np.ndarray, expected: np.ndarray, what: str) -> None:
    """Equality of the bit patterns (NaN poison compares equal to itself)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape, what
    size = got.dtype.itemsize  # complex128 has no 16-byte unsigned type: compare its halves
    view = np.dtype(f"u{size}") if size <= 8 else np.dtype(("u8", size // 8))
    np.testing.assert_array_equal(got.view(view), expected.view(view), err_msg=what)
