"""The argument contracts on the GPU (issue 29): what cuda-coop accepts is right against NumPy, what it refuses
never reaches the GPU.

- ``"max"``/``"min"``, builtin ``max``/``min`` and ``np.maximum``/``np.minimum`` give NaN for a tile holding one
  (NumPy's maximum), ``np.fmax``/``np.fmin`` drop it; block and warp reductions and a block scan, float32 and
  float64, tiles with no NaN, one NaN anywhere, a NaN in the first thread, and only NaNs;
- a reduction of no item (``valid_items`` 0 or negative, at run time) gives the operator's identity, in every
  thread with ``broadcast=True``; a partial count still reduces the first items;
- one-value outputs of float16, bfloat16, complex64 and complex128 (``block_aggregate``, ``warp_aggregate``,
  ``block_prefix``, ``block_suffix``) hold the right values;
- a scan in place (``output=x``), and compile-time arguments given as NumPy scalars, are right;
- a histogram into too few shared counters is refused before anything is launched.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu.test_dtypes import assert_close, depth, device_input, host_output, host_values

T = 128
TILES = 4
W = 32


# --- NumPy's maximum and minimum, and fmax/fmin ---------------------------------------------------------------

EXTREMA = {"max": np.maximum, "min": np.minimum, "np.maximum": np.maximum, "np.minimum": np.minimum,
           "builtin max": np.maximum, "np.fmax": np.fmax, "np.fmin": np.fmin}


def _operator(name: str):  # type: ignore[no-untyped-def]
    return {"np.maximum": np.maximum, "np.minimum": np.minimum, "builtin max": max, "np.fmax": np.fmax,
            "np.fmin": np.fmin}.get(name, name)


def _nan_tiles(rng: np.random.Generator, dtype: str) -> np.ndarray:
    """TILES tiles of T values: no NaN, one NaN at a random place, a NaN in thread 0, all NaN."""
    x = rng.uniform(-100, 100, (TILES, T)).astype(dtype)
    x[1, rng.integers(1, T)] = np.nan
    x[2, 0] = np.nan
    x[3, :] = np.nan
    return x


def nan_kernel(name: str):  # type: ignore[no-untyped-def]
    """Block and warp reductions and a block inclusive scan of one item per thread with the operator ``name``."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    OP = _operator(name)

    @cuda.jit
    def kernel(x, block_out, warp_out, scan_out):
        tid = cuda.threadIdx.x
        g = cuda.blockIdx.x * T + tid
        r = coop.block.reduce(x[g], OP)
        w = coop.warp.reduce(x[g], OP)
        scan_out[g] = coop.block.inclusive_scan(x[g], OP)
        if tid == 0:
            block_out[cuda.blockIdx.x] = r
        if tid % W == 0:
            warp_out[g // W] = w

    return kernel


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(EXTREMA))
def test_nan_follows_numpy(name: str, dtype: str, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    kernel = nan_kernel(name)
    x = _nan_tiles(rng, dtype)
    ufunc = EXTREMA[name]
    outs = [cuda.to_device(np.full(n, 7, dtype)) for n in (TILES, TILES * T // W, TILES * T)]
    kernel[TILES, T](cuda.to_device(x.reshape(-1)), *outs)
    block, warp, scan = (o.copy_to_host() for o in outs)
    np.testing.assert_array_equal(block, ufunc.reduce(x, axis=1))  # NaNs compare equal here
    np.testing.assert_array_equal(warp, ufunc.reduce(x.reshape(-1, W), axis=1))
    np.testing.assert_array_equal(scan, ufunc.accumulate(x, axis=1).reshape(-1))
    assert np.isnan(block[1]) == (ufunc not in (np.fmax, np.fmin)), block  # the test can tell them apart


# --- reductions of no item ------------------------------------------------------------------------------------

IDENTITY_OPS = ("+", "*", "max", "min", "&", "|", "^", "np.fmax")
IDENTITY_CASES = [(op, dtype) for dtype in ("int32", "uint64", "float32", "float64") for op in IDENTITY_OPS
                  if np.dtype(dtype).kind in "iu" or op not in ("&", "|", "^")]


def _identity(op: str, dtype: str) -> np.generic:
    dt = np.dtype(dtype)
    lowest = -np.inf if dt.kind == "f" else np.iinfo(dt).min
    highest = np.inf if dt.kind == "f" else np.iinfo(dt).max
    value = {"+": 0, "*": 1, "max": lowest, "np.fmax": lowest, "min": highest, "&": -1 if dt.kind == "i" else
             (np.iinfo(dt).max if dt.kind == "u" else 0), "|": 0, "^": 0}[op]
    return dt.type(value)


def identity_kernel(op: str):  # type: ignore[no-untyped-def]
    """Block and warp reductions, broadcast, of the first ``counts[block]`` items (a runtime count)."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    OP = _operator(op)

    @cuda.jit
    def kernel(x, counts, block_out, warp_out):
        tid = cuda.threadIdx.x
        g = cuda.blockIdx.x * T + tid
        n = counts[cuda.blockIdx.x]
        block_out[g] = coop.block.reduce(x[g], OP, valid_items=n, broadcast=True)
        warp_out[g] = coop.warp.reduce(x[g], OP, valid_items=n, broadcast=True)

    return kernel


@pytest.mark.parametrize(("op", "dtype"), IDENTITY_CASES)
def test_an_empty_reduction_is_the_identity(op: str, dtype: str, rng: np.random.Generator) -> None:
    """Items of 1 and 2 (and their negatives): every sum and product is exact in any order (|partial products|
    only grow), so the results compare exactly."""
    from numba_cuda_mlir import cuda

    kernel = identity_kernel(op)
    signs = rng.choice([-1, 1], TILES * T) if dtype != "uint64" else 1
    x = (rng.integers(1, 3, TILES * T) * signs).astype(dtype)
    counts = np.array([0, -3, 5, 2**40], np.int64)  # nothing, nothing, five items, everything
    outs = [cuda.to_device(np.full(TILES * T, 7, dtype)) for _ in range(2)]
    kernel[TILES, T](cuda.to_device(x), cuda.to_device(counts), *outs)
    block, warp = (o.copy_to_host().reshape(TILES, T) for o in outs)
    ufunc = {"+": np.add, "*": np.multiply, "max": np.maximum, "np.fmax": np.fmax, "min": np.minimum,
             "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op]
    tiles, warps = x.reshape(TILES, T), x.reshape(TILES, T // W, W)
    identity = _identity(op, dtype)
    for t, n in enumerate(counts):
        k = int(min(max(n, 0), T))
        want_block = ufunc.reduce(tiles[t, :k], dtype=dtype) if k else identity
        np.testing.assert_array_equal(block[t], np.full(T, want_block, dtype), err_msg=f"block, tile {t}, n={n}")
        kw = int(min(max(n, 0), W))
        want_warp = ufunc.reduce(warps[t, :, :kw], axis=1, dtype=dtype) if kw else np.full(T // W, identity)
        np.testing.assert_array_equal(warp[t], np.repeat(want_warp, W).astype(dtype), err_msg=f"warp, tile {t}, n={n}")


# --- one-value outputs of the types passed by pointer -----------------------------------------------------------


ONE_VALUE_TYPES = ("float16", "bfloat16", "complex64", "complex128")


def one_value_kernel(dtype: str):  # type: ignore[no-untyped-def]
    """Each one-value output of a pointer-ABI type, written out per thread (bfloat16 as its bits)."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda import types
    from numba_cuda_mlir.numba_cuda.bf16 import bfloat16_as_ushort, ushort_as_bfloat16

    import cuda.coop as coop

    bf16 = dtype == "bfloat16"
    DT = np.uint16 if bf16 else getattr(np, dtype)  # NumPy has no bfloat16: the kernel takes and gives its bits
    ITEM = types.bfloat16 if bf16 else DT

    @cuda.jit
    def kernel(x, agg_out, wagg_out, first_out, last_out):
        tid = cuda.threadIdx.x
        g = cuda.blockIdx.x * T + tid
        agg = cuda.local.array(1, ITEM)
        wagg = cuda.local.array(1, ITEM)
        items = cuda.local.array(1, ITEM)
        shifted = cuda.local.array(1, ITEM)
        first = cuda.local.array(1, ITEM)
        last = cuda.local.array(1, ITEM)
        v = ushort_as_bfloat16(x[g]) if bf16 else x[g]
        items[0] = v
        coop.block.exclusive_sum(v, block_aggregate=agg)
        coop.warp.inclusive_sum(v, warp_aggregate=wagg)
        coop.block.shuffle_down(items, output=shifted, block_prefix=first)
        coop.block.shuffle_up(items, output=shifted, block_suffix=last)
        agg_out[g] = bfloat16_as_ushort(agg[0]) if bf16 else agg[0]
        wagg_out[g] = bfloat16_as_ushort(wagg[0]) if bf16 else wagg[0]
        first_out[g] = bfloat16_as_ushort(first[0]) if bf16 else first[0]
        last_out[g] = bfloat16_as_ushort(last[0]) if bf16 else last[0]

    return kernel


@pytest.mark.parametrize("dtype", ONE_VALUE_TYPES)
def test_one_value_outputs(dtype: str, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    kernel = one_value_kernel(dtype)
    DT = np.uint16 if dtype == "bfloat16" else getattr(np, dtype)
    x = host_values(rng, dtype, TILES * T)
    outs = [cuda.to_device(np.zeros(TILES * T, DT)) for _ in range(4)]
    kernel[TILES, T](cuda.to_device(device_input(dtype, x)), *outs)
    agg, wagg, first, last = (host_output(dtype, o.copy_to_host()).reshape(TILES, T) for o in outs)
    tiles, warps = x.reshape(TILES, T), x.reshape(TILES, T // W, W)
    for t in range(TILES):
        wide = np.complex128 if "complex" in dtype else np.float64
        sums = np.full(T, tiles[t].astype(wide).sum())
        assert_close(dtype, agg[t], sums, tiles[t], depth(1, T), f"block_aggregate, tile {t}")
        for w in range(T // W):
            wsum = np.full(W, warps[t, w].astype(wide).sum())
            assert_close(dtype, wagg[t, w * W:(w + 1) * W], wsum, warps[t, w], depth(1, W), f"warp {w}, tile {t}")
        np.testing.assert_array_equal(first[t], np.full(T, tiles[t, 0]))  # data movement: exact
        np.testing.assert_array_equal(last[t], np.full(T, tiles[t, -1]))


# --- in place, NumPy scalars, refusals that never launch ---------------------------------------------------------


IPT = 4


def in_place_kernel():  # type: ignore[no-untyped-def]
    """A block scan in place, and a radix sort whose compile-time arguments are NumPy scalars."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    @cuda.jit
    def kernel(x, scanned, keys_out):
        items = cuda.local.array(IPT, np.int64)
        keys = cuda.local.array(IPT, np.uint32)
        base = cuda.blockIdx.x * T * IPT
        coop.block.load(x, items, offset=base)
        coop.block.inclusive_sum(items, output=items)  # in place: output=x
        coop.block.store(scanned, items, offset=base)
        for i in range(IPT):
            keys[i] = np.uint32(x[base + cuda.threadIdx.x * IPT + i] & 0xFFFFFFFF)
        coop.block.radix_sort(keys, descending=np.True_, radix_bits=np.int64(5), items_per_thread=np.int32(IPT))
        coop.block.store(keys_out, keys, offset=base)

    return kernel


def test_a_scan_in_place_and_numpy_scalar_arguments(rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    kernel = in_place_kernel()
    x = rng.integers(-(2**40), 2**40, TILES * T * IPT, dtype=np.int64)
    scanned = cuda.to_device(np.zeros_like(x))
    keys = cuda.to_device(np.zeros(x.size, np.uint32))
    kernel[TILES, T](cuda.to_device(x), scanned, keys)
    tiles = x.reshape(TILES, -1)
    np.testing.assert_array_equal(scanned.copy_to_host(), np.cumsum(tiles, axis=1).reshape(-1))
    want = -np.sort(-(tiles & 0xFFFFFFFF).astype(np.int64), axis=1)
    np.testing.assert_array_equal(keys.copy_to_host(), want.astype(np.uint32).reshape(-1))


def test_a_histogram_into_too_few_shared_counters_never_launches() -> None:
    from numba_cuda_mlir import cuda

    import cuda.coop as coop
    from cuda.coop.errors import UsageError

    @cuda.jit
    def kernel(x, y):
        samples = cuda.local.array(4, np.uint8)
        counters = cuda.shared.array(16, np.uint32)
        for i in range(4):
            samples[i] = x[cuda.threadIdx.x * 4 + i]
        coop.block.histogram(samples, counters, bins=64)
        y[cuda.threadIdx.x] = counters[cuda.threadIdx.x % 16]

    y = cuda.to_device(np.full(T, 99, np.uint32))
    with pytest.raises(UsageError, match=r"counters= is a cuda.shared.array of shape \(16,\): 16 items"):
        kernel[1, T](cuda.to_device(np.arange(4 * T, dtype=np.uint8) % 64), y)
    assert (y.copy_to_host() == 99).all()  # nothing ran
