"""The recipe gallery (examples/recipes/) on the GPU, against NumPy.

Each recipe runs through its own launch helper (the shape ``coop.row_shape`` picks) over row lengths that make a
partial tile, exactly one tile and several tiles (a row longer than 1024 threads' tile), and through its kernel
factory with shapes ``row_shape`` does not pick: a block of 96 threads (not a power of two), and the loads the
peers benchmark compares (``"vectorize"``, ``"transpose"``, ``"direct"``). Outputs are poisoned before the launch
and a guard past each output must stay poisoned. Integer inputs span their type (tests/gpu/_data.py); float rows
hold ties, -inf and (argmax) NaNs where the recipe defines them.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from tests.gpu._data import abs_terms, assert_matches, depth, random_values, sentinels
from tests.helpers.scripts import load_script

RECIPES = Path(__file__).resolve().parents[2] / "examples" / "recipes"
GUARD = 37
"""Poisoned items past every output: a kernel writing past its rows shows."""
LENGTHS = (1, 33, 1000, 1024, 4096, 8192, 8193, 20000)
"""Row lengths: partial tiles (1, 33, 1000), one whole tile at the shape picked (1024, 4096, 8192), several tiles."""
SHAPES = [("96x8", "auto"), ("128x8", "vectorize"), ("256x4", "transpose"), ("64x16", "direct")]
"""Shapes and loads through the kernel factories (threads x items, load algorithm)."""


def recipe(name: str) -> ModuleType:
    return load_script(RECIPES / f"{name}.py", f"_gpu_recipe_{name}")


def shape_of(text: str) -> Any:
    import cuda.coop as coop

    threads, items = map(int, text.split("x"))
    return coop.RowShape(threads=threads, items_per_thread=items)


def device(host: np.ndarray) -> Any:
    """``host`` flattened, on the device. bfloat16 goes as its bits: Numba-CUDA-MLIR copies a host array through
    its buffer, which NumPy does not export for ``ml_dtypes.bfloat16`` (docs/known_issues.rst)."""
    from numba_cuda_mlir import cuda

    flat = np.ascontiguousarray(host).ravel()
    if flat.dtype.name == "bfloat16":
        return cuda.to_device(flat.view(np.uint16)).view(flat.dtype)
    return cuda.to_device(flat)


def poisoned(n: int, dtype: Any, poison: Any) -> Any:
    """A device array of ``n`` items and the guard after them, all ``poison``."""
    return device(np.full(n + GUARD, poison, dtype))


def output(d: Any, n: int) -> np.ndarray:
    """The first ``n`` items of ``d``; its guard must still hold the poison it was made with."""
    host = d.copy_to_host()
    guard = host[n:]
    assert (guard == guard[0]).all() or np.isnan(guard.astype(np.float64)).all(), "written past the output"
    return host[:n]


# --- softmax and layer norm --------------------------------------------------------------------------------------

FLOATS = ["float32", "float16", "bfloat16"]


def _float_dtype(name: str) -> Any:
    import ml_dtypes

    return ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


def _rows(rng: np.random.Generator, rows: int, n: int, dtype: Any) -> np.ndarray:
    x = (rng.standard_normal((rows, n)) * 4).astype(dtype)
    x[rows // 2, 1::7] = -np.inf                             # masked logits (exp(-inf) = 0)
    return x


def _tolerance(dtype: Any) -> float:
    """Relative error: float32 sums of up to 3 tiles of 8192 terms, exp's ulps; 2-byte results rounded to their type."""
    return {"float32": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2}[np.dtype(dtype).name]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", LENGTHS)
def test_row_softmax(rng: np.random.Generator, n: int, dtype: str) -> None:
    m = recipe("row_softmax")
    dt = _float_dtype(dtype)
    rows = 5
    x = _rows(rng, rows, n, dt)
    y = poisoned(rows * n, dt, np.nan)
    m.softmax_rows(device(x), y, n)
    got = output(y, rows * n).astype(np.float64).reshape(rows, n)
    want = m.softmax_reference(x.astype(np.float32))
    np.testing.assert_allclose(got, want, rtol=_tolerance(dt), atol=1e-7 if dtype == "float32" else 1e-5)


@pytest.mark.parametrize(("shape", "load"), SHAPES)
def test_row_softmax_other_shapes_and_loads(rng: np.random.Generator, shape: str, load: str) -> None:
    m = recipe("row_softmax")
    rows, n = 4, 3000                                         # several tiles at every shape here, the last partial
    x = _rows(rng, rows, n, np.float32)
    y = poisoned(rows * n, np.float32, np.nan)
    s = shape_of(shape)
    m.softmax_kernel(s, np.dtype(np.float32), load)[rows, s.threads](device(x), y, n)
    np.testing.assert_allclose(output(y, rows * n).reshape(rows, n), m.softmax_reference(x), rtol=1e-5, atol=1e-7)


def _layer_norm_inputs(rng: np.random.Generator, rows: int, n: int, dtype: Any) -> tuple[np.ndarray, ...]:
    x = (rng.standard_normal((rows, n)) * 3 + 10).astype(dtype)   # a mean far from 0: the variance is centred
    weight, bias = rng.standard_normal((2, n)).astype(dtype)
    return x, weight, bias


def _layer_norm_bound(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, want: np.ndarray, dtype: Any,
                      chain: int, eps: float) -> np.ndarray:
    """The largest error of a correct kernel against the float64 reference, per item (broadcast to ``want``).

    The kernel computes in float32 (``e`` = float32's epsilon, twice its unit roundoff) and rounds ``y`` to its type:
    the mean is a float32 sum along at most ``chain`` dependent additions (:func:`depth`), off by at most
    ``(chain + 1) e mean|x|``, and moves ``y`` by that times ``rstd |w|``; the variance is a sum of squares along the
    same chain, so ``rstd`` (a square root and a division after it) is off by at most ``(chain + 4) e`` relative, and
    ``xhat = (x - mean) rstd`` by ``(chain + 6) e`` relative; the multiply-add by ``weight`` and ``bias`` rounds
    twice (``e (|xhat w| + |b|)``); the result is rounded to its type (half an ulp: ``eps_out / 2`` relative, and
    half the smallest subnormal near 0).
    """
    import ml_dtypes

    x64, w, b = (np.abs(a.astype(np.float64)) for a in (x, weight, bias))
    rstd = 1 / np.sqrt(x.astype(np.float64).var(axis=1, keepdims=True) + eps)
    e = float(np.finfo(np.float32).eps)
    xhat_w = np.abs(want - bias.astype(np.float64))          # |xhat * w| of the reference
    in_float32 = (rstd * w * (chain + 1) * e * x64.mean(axis=1, keepdims=True) + (chain + 6) * e * xhat_w
                  + e * (xhat_w + b))
    info = ml_dtypes.finfo(dtype)
    return in_float32 + float(info.eps) / 2 * (np.abs(want) + in_float32) + float(info.smallest_subnormal) / 2


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", LENGTHS)
def test_row_layer_norm(rng: np.random.Generator, n: int, dtype: str) -> None:
    import cuda.coop as coop

    m = recipe("row_layer_norm")
    dt = _float_dtype(dtype)
    rows = 5
    x, weight, bias = _layer_norm_inputs(rng, rows, n, dt)
    y = poisoned(rows * n, dt, np.nan)
    m.layer_norm_rows(device(x), device(weight), device(bias), y, n, 1e-5)
    got = output(y, rows * n).astype(np.float64).reshape(rows, n)
    want = m.layer_norm_reference(*(a.astype(np.float32) for a in (x, weight, bias)), 1e-5)
    shape = coop.row_shape(n, dt)
    chain = depth(shape.items_per_thread * shape.tiles(n), shape.threads)
    bound = _layer_norm_bound(x, weight, bias, want, dt, chain, 1e-5)
    bad = ~(np.abs(got - want) <= bound)                     # NaN (the poison left in place) is bad
    assert not bad.any(), (f"{bad.sum()} items off, e.g. got {got[bad][:5]}, want {want[bad][:5]}, "
                           f"allowed {bound[bad][:5]}")


@pytest.mark.parametrize(("shape", "load"), SHAPES)
def test_row_layer_norm_other_shapes_and_loads(rng: np.random.Generator, shape: str, load: str) -> None:
    m = recipe("row_layer_norm")
    rows, n = 4, 3000
    x, weight, bias = _layer_norm_inputs(rng, rows, n, np.float32)
    y = poisoned(rows * n, np.float32, np.nan)
    s = shape_of(shape)
    m.layer_norm_kernel(s, np.dtype(np.float32), load)[rows, s.threads](device(x), device(weight), device(bias), y,
                                                                         n, np.float32(1e-5))
    got = output(y, rows * n).reshape(rows, n)
    np.testing.assert_allclose(got, m.layer_norm_reference(x, weight, bias), rtol=1e-4, atol=1e-4)


# --- argmax and argmin --------------------------------------------------------------------------------------------


def _arg_inputs(rng: np.random.Generator, rows: int, n: int, dtype: str) -> np.ndarray:
    if dtype in ("int32", "uint8", "int64"):
        x = random_values(rng, dtype, rows * n).reshape(rows, n)
        x[:, n // 2] = x[:, 0]                               # a tie with the first item
        return x
    x = np.round(rng.standard_normal((rows, n)) * 2).astype(_float_dtype(dtype))   # few values: ties everywhere
    x[1 % rows, [n // 3, n - 1]] = np.nan                    # the first NaN wins both
    x[2 % rows, :] = -np.inf if rows > 2 else x[2 % rows, :]  # a row of -inf: position 0
    return x


@pytest.mark.parametrize("largest", [True, False], ids=["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "int32", "uint8", "int64"])
@pytest.mark.parametrize("n", LENGTHS)
def test_row_argmax_argmin(rng: np.random.Generator, n: int, dtype: str, largest: bool) -> None:
    m = recipe("row_argmax")
    rows = 4
    x = _arg_inputs(rng, rows, n, dtype)
    best = poisoned(rows, x.dtype, sentinels(dtype)[0] if dtype in ("int32", "uint8", "int64") else np.nan)
    where = poisoned(rows, np.int64, -7)
    m.arg_rows(device(x), best, where, n, largest=largest)
    reference = np.argmax if largest else np.argmin
    want = reference(x.astype(np.float64) if x.dtype.kind not in "iu" else x, axis=1)
    np.testing.assert_array_equal(output(where, rows), want)
    got_best = output(best, rows)
    np.testing.assert_array_equal(got_best.astype(np.float64), x[np.arange(rows), want].astype(np.float64))


@pytest.mark.parametrize(("shape", "load"), SHAPES)
def test_row_argmax_other_shapes_and_loads(rng: np.random.Generator, shape: str, load: str) -> None:
    m = recipe("row_argmax")
    rows, n = 4, 3000
    x = _arg_inputs(rng, rows, n, "float32")
    best, where = poisoned(rows, np.float32, np.nan), poisoned(rows, np.int64, -7)
    s = shape_of(shape)
    m.arg_kernel(s, np.dtype(np.float32), True, load)[rows, s.threads](device(x), best, where, n)
    np.testing.assert_array_equal(output(where, rows), np.argmax(x, axis=1))


# --- cumsum -------------------------------------------------------------------------------------------------------


def _check_cumsum(got: np.ndarray, x: np.ndarray, tiles: int, threads: int, items: int) -> None:
    if x.dtype.kind in "iu":                                  # wraps in the type, as C++ does
        np.testing.assert_array_equal(got, np.cumsum(x, axis=1, dtype=x.dtype))
        return
    want = np.cumsum(x.astype(np.float64), axis=1)
    assert_matches(got, want, "+", abs_terms("+", x, scan=True), depth(items, threads) + tiles, "row cumsum")


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "float64"])
@pytest.mark.parametrize("n", LENGTHS)
def test_row_cumsum(rng: np.random.Generator, n: int, dtype: str) -> None:
    import cuda.coop as coop

    m = recipe("row_cumsum")
    rows = 4
    x = random_values(rng, dtype, rows * n).reshape(rows, n)
    y = poisoned(rows * n, x.dtype, sentinels(dtype)[0])
    m.cumsum_rows(device(x), y, n)
    shape = coop.row_shape(n, x.dtype)
    _check_cumsum(output(y, rows * n).reshape(rows, n), x, shape.tiles(n), shape.threads, shape.items_per_thread)


@pytest.mark.parametrize(("shape", "load"), SHAPES)
def test_row_cumsum_other_shapes_and_loads(rng: np.random.Generator, shape: str, load: str) -> None:
    m = recipe("row_cumsum")
    rows, n = 4, 3000
    x = random_values(rng, "int32", rows * n).reshape(rows, n)
    y = poisoned(rows * n, np.int32, sentinels("int32")[0])
    s = shape_of(shape)
    m.cumsum_kernel(s, np.dtype(np.int32), load)[rows, s.threads](device(x), y, n)
    _check_cumsum(output(y, rows * n).reshape(rows, n), x, s.tiles(n), s.threads, s.items_per_thread)


# --- sort ---------------------------------------------------------------------------------------------------------


def _sort_keys(rng: np.random.Generator, rows: int, n: int, dtype: str) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        return random_values(rng, dtype, rows * n).reshape(rows, n)
    return np.round(rng.standard_normal((rows, n)) * 100).astype(dtype)   # ties: stability shows


SORTS = [(n, dtype) for dtype in ("float32", "int32", "uint8", "float64") for n in (1, 33, 1000, 1024, 4096, 8192)
         if n <= 1024 * 32 // np.dtype(dtype).itemsize]     # a row fits one tile: 4096 float64 keys at most


@pytest.mark.parametrize("pairs", [False, True], ids=["keys", "pairs"])
@pytest.mark.parametrize(("n", "dtype"), SORTS)
def test_row_sort(rng: np.random.Generator, n: int, dtype: str, pairs: bool) -> None:
    m = recipe("row_sort")
    rows = 4
    keys = _sort_keys(rng, rows, n, dtype)
    keys_out = poisoned(rows * n, keys.dtype, sentinels(dtype)[0])
    order = np.argsort(keys, axis=1, kind="stable")
    if not pairs:
        m.sort_rows(device(keys), keys_out, n)
    else:
        values = random_values(rng, "int32", rows * n).reshape(rows, n)
        values_out = poisoned(rows * n, np.int32, sentinels("int32")[0])
        m.sort_rows(device(keys), keys_out, n, values_in=device(values), values_out=values_out)
        np.testing.assert_array_equal(output(values_out, rows * n).reshape(rows, n),
                                      np.take_along_axis(values, order, axis=1))
    np.testing.assert_array_equal(output(keys_out, rows * n).reshape(rows, n),
                                  np.take_along_axis(keys, order, axis=1))


def test_row_sort_refuses_a_row_longer_than_a_tile() -> None:
    m = recipe("row_sort")
    with pytest.raises(ValueError, match="do not fit one block's tile"):
        m.sort_shape(8193, np.float32)


@pytest.mark.parametrize(("shape", "load"), SHAPES)
def test_row_sort_other_shapes_and_loads(rng: np.random.Generator, shape: str, load: str) -> None:
    m = recipe("row_sort")
    s = shape_of(shape)
    rows, n = 4, s.tile - 5                                  # a partial tile
    keys = _sort_keys(rng, rows, n, "float32")
    keys_out = poisoned(rows * n, np.float32, np.nan)
    m.sort_kernel(s, np.dtype(np.float32), None, load)[rows, s.threads](device(keys), keys_out, n)
    np.testing.assert_array_equal(output(keys_out, rows * n).reshape(rows, n), np.sort(keys, axis=1))


# --- top-k --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("n", "k"), [(1, 1), (33, 33), (1000, 10), (1024, 1), (1024, 64), (4096, 8), (8192, 32),
                                      (8193, 64), (20000, 8), (20000, 64)])
def test_row_top_k(rng: np.random.Generator, n: int, k: int, dtype: str) -> None:
    m = recipe("row_top_k")
    dt = _float_dtype(dtype)
    rows = 4
    x = np.round(rng.standard_normal((rows, n)) * 30).astype(dt)   # ties: the earlier position wins
    x[1 % rows, n // 2 :] = -np.inf                          # -inf ties among the top k where k is large
    values = poisoned(rows * k, dt, np.nan)
    indices = poisoned(rows * k, np.int32, -7)
    m.top_k_rows(device(x), values, indices, n, k)
    want_values, want_indices = m.top_k_reference(x.astype(np.float32), k)
    np.testing.assert_array_equal(output(indices, rows * k).reshape(rows, k), want_indices)
    np.testing.assert_array_equal(output(values, rows * k).reshape(rows, k).astype(np.float32), want_values)


@pytest.mark.parametrize(("shape", "load"), SHAPES)
def test_row_top_k_other_shapes_and_loads(rng: np.random.Generator, shape: str, load: str) -> None:
    m = recipe("row_top_k")
    rows, n, k = 4, 3000, 24
    x = np.round(rng.standard_normal((rows, n)) * 30).astype(np.float32)
    values, indices = poisoned(rows * k, np.float32, np.nan), poisoned(rows * k, np.int32, -7)
    s = shape_of(shape)
    m.top_k_kernel(s, np.dtype(np.float32), k, load)[rows, s.threads](device(x), values, indices, n)
    want_values, want_indices = m.top_k_reference(x, k)
    np.testing.assert_array_equal(output(indices, rows * k).reshape(rows, k), want_indices)
    np.testing.assert_array_equal(output(values, rows * k).reshape(rows, k), want_values)


def test_row_top_k_refuses_k_outside_the_row_and_the_tile() -> None:
    m = recipe("row_top_k")
    for n, k in ((10, 11), (10, 0), (100, 256)):
        with pytest.raises(ValueError, match=f"k={k} must be"):
            m.top_k_rows(np.zeros(n, np.float32), None, None, n, k)


# --- whole arrays: histogram and sum ----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 1000, 32767, 32768, (1 << 20) + 7, (1 << 26) + 12345])
def test_byte_histogram(rng: np.random.Generator, n: int) -> None:
    m = recipe("byte_histogram")
    data = rng.integers(0, 256, n, dtype=np.uint8)
    data[: n // 4] = 0                                       # a crowded bin 0: the padding is taken out of it
    hist = poisoned(m.BINS, np.int64, -1)
    m.byte_histogram(device(data), hist)
    np.testing.assert_array_equal(output(hist, m.BINS), np.bincount(data, minlength=m.BINS))


@pytest.mark.parametrize(("shape", "load"), [("96x32", "auto"), ("256x16", "vectorize"), ("128x32", "transpose")])
def test_byte_histogram_other_shapes_and_loads(rng: np.random.Generator, shape: str, load: str) -> None:
    m = recipe("byte_histogram")
    from numba_cuda_mlir import cuda

    n, blocks = 1_000_003, 7
    data = rng.integers(0, 256, n, dtype=np.uint8)
    s = shape_of(shape)
    count, add = m.histogram_kernels(s, load)
    partial, hist = cuda.device_array(blocks * m.BINS, np.uint32), poisoned(m.BINS, np.int64, -1)
    count[blocks, s.threads](device(data), n, partial)
    add[1, m.BINS](partial, blocks, hist)
    np.testing.assert_array_equal(output(hist, m.BINS), np.bincount(data, minlength=m.BINS))


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "uint8"])
@pytest.mark.parametrize("n", [1, 1000, 8193, (1 << 20) + 7, (1 << 26) + 12345])
def test_array_sum(rng: np.random.Generator, n: int, dtype: str) -> None:
    import cuda.coop as coop

    m = recipe("array_sum")
    x = random_values(rng, dtype, n)
    total = poisoned(1, x.dtype, sentinels(dtype)[0])
    m.array_sum(device(x), total)
    got = output(total, 1)
    if x.dtype.kind in "iu":                                  # wraps in the type, whatever the order
        np.testing.assert_array_equal(got, np.array([x.sum(dtype=x.dtype)]))
        return
    shape = coop.row_shape(n, x.dtype)
    per_thread = shape.items_per_thread * shape.tiles(n)    # at most, with one block
    chain = per_thread + depth(1, shape.threads) + 2 * math.ceil(math.log2(max(n, 2)))
    assert_matches(got, np.array([x.astype(np.float64).sum()]), "+", np.array([np.abs(x.astype(np.float64)).sum()]),
                   chain, "array sum")
