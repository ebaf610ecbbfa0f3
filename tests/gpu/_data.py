"""Random inputs and NumPy references for the GPU tests (never zeros; fresh per test)."""

from __future__ import annotations

import numpy as np

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
BLOCKS = ((32, 1, 1), (128, 1, 1), (256, 1, 1), (1024, 1, 1), (16, 8, 1), (4, 4, 4))
ITEMS = (1, 4, 16)


def random_values(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.uniform(-1.0, 1.0, n).astype(dt)
    lo, hi = (0, 7) if dt.kind == "u" else (-7, 8)
    values = rng.integers(lo, hi, n, dtype=np.int64)
    values[values == 0] = 1  # never zeros: a kernel that writes nothing must not pass
    return values.astype(dt)


def tolerance(dtype: str, count: int) -> dict[str, float]:
    """assert_allclose tolerances for a sum/scan of ``count`` values in [-1, 1] (0 for integers: exact)."""
    dt = np.dtype(dtype)
    if dt.kind != "f":
        return {"rtol": 0.0, "atol": 0.0}
    eps = float(np.finfo(dt).eps)
    return {"rtol": 4 * eps, "atol": 4 * eps * count}


def wrap_cumsum(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Inclusive prefix sums in the values' own dtype (integers wrap as in C++), floats in float64."""
    if values.dtype.kind == "f":
        return np.cumsum(values.astype(np.float64), axis=axis)
    return np.cumsum(values, axis=axis, dtype=values.dtype)


def wrap_sum(values: np.ndarray, axis: int = -1) -> np.ndarray:
    if values.dtype.kind == "f":
        return np.sum(values.astype(np.float64), axis=axis)
    return np.sum(values, axis=axis, dtype=values.dtype)
