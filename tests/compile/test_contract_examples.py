"""The misuses found by trying the newer primitives as a new user would, each as its own case (compile tier).

Every one of these compiled before the argument contracts were declared in the specs, and most gave wrong
answers on the GPU (issue 29). Each is now refused at its call with a ``cuda.coop.errors.UsageError`` naming the
argument, or, where the input was valid and refused, accepted. ``tests/compile/test_contracts.py`` generates the
same kinds of misuse for every parameter of every primitive; the GPU tier runs the accepted ones against NumPy
(``tests/gpu/test_contracts.py``).
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

import cuda.coop as coop
from cuda.coop.numba_mlir import compile_kernel
from tests.helpers.refusal import refused

I32, U8, U32 = types.int32[::1], types.uint8[::1], types.uint32[::1]
SIG = (I32, I32)


# --- 1. memory space: what the block or warp writes together is never a thread's local array -------------------


@cuda.jit
def top_k_into_local(x, y):
    keys = cuda.local.array(4, np.int32)
    out = cuda.local.array(16, np.int32)
    keys[0] = x[0]
    coop.block.top_k(keys, out, k=3)  # call
    y[0] = out[0]


@cuda.jit
def warp_top_k_into_local(x, y):
    keys = cuda.local.array(4, np.int32)
    out = cuda.local.array(16, np.int32)
    keys[0] = x[0]
    coop.warp.top_k(keys, out, k=3)  # call
    y[0] = out[0]


@cuda.jit
def histogram_into_local(x, y):
    samples = cuda.local.array(4, np.uint8)
    counters = cuda.local.array(64, np.uint32)
    samples[0] = x[0]
    coop.block.histogram(samples, counters, bins=64)  # call
    y[0] = counters[0]


@cuda.jit
def warp_store_into_local(x, y):
    items = cuda.local.array(4, np.int32)
    dst = cuda.local.array(128, np.int32)
    coop.warp.load(x, items)
    coop.warp.store(dst, items)  # call
    y[0] = dst[0]


@pytest.mark.parametrize(("kernel", "sig", "argument"), [
    (top_k_into_local, SIG, "out_keys="), (warp_top_k_into_local, SIG, "out_keys="),
    (histogram_into_local, (U8, U32), "counters="), (warp_store_into_local, SIG, "dst="),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_local_array_is_refused_where_the_threads_share_one(kernel, sig, argument: str) -> None:
    refused(kernel, sig, argument, "is a cuda.local.array", "private copy", "cuda.shared.array")


# --- 2. extent: a constant-size array holds what the call touches ------------------------------------------------


@cuda.jit
def top_k_16_into_4(x, y):
    keys = cuda.local.array(4, np.int32)
    out = cuda.shared.array(4, np.int32)
    keys[0] = x[0]
    coop.block.top_k(keys, out, k=16)  # call
    y[0] = out[0]


@cuda.jit
def histogram_64_bins_into_16(x, y):
    samples = cuda.local.array(4, np.uint8)
    counters = cuda.shared.array(16, np.uint32)
    samples[0] = x[0]
    coop.block.histogram(samples, counters, bins=64)  # call
    y[0] = counters[0]


def test_a_too_small_shared_array_is_refused() -> None:
    refused(top_k_16_into_4, SIG, "out_keys= is a cuda.shared.array of shape (4,): 4 items", "writes 16 items",
            "at least 16")
    refused(histogram_64_bins_into_16, (U8, U32), "counters=", "16 items", "updates 64 items (bins = 64)")


# --- 3. offsets: never before the array --------------------------------------------------------------------------


@cuda.jit
def top_k_at_minus_3(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.top_k(keys, y, k=3, offset=-3)  # call


@cuda.jit
def warp_load_at_minus_8(x, y):
    items = cuda.local.array(4, np.int32)
    coop.warp.load(x, items, offset=-8)  # call
    y[0] = items[0]


@cuda.jit
def decode_window_at_minus_8(x, y):
    values = cuda.local.array(2, np.int32)
    lengths = cuda.local.array(2, np.int32)
    decoded = cuda.local.array(2, np.int32)
    values[0] = x[0]
    lengths[0] = 1
    coop.block.run_length_decode(values, decoded, run_lengths=lengths, window_offset=-8)  # call
    y[0] = decoded[0]


def test_a_negative_constant_offset_is_refused() -> None:
    refused(top_k_at_minus_3, SIG, "offset=-3 is out of range", "between 0 and")
    refused(warp_load_at_minus_8, SIG, "offset=-8 is negative", "before src[0]")
    refused(decode_window_at_minus_8, SIG, "window_offset=-8 is out of range", "between 0 and")


# --- 4. aliasing: one array for two parameters CUB needs distinct ------------------------------------------------


@cuda.jit
def radix_sort_keys_as_values(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, values=keys)  # call
    y[0] = keys[0]


@cuda.jit
def argsort_keys_as_indices(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.argsort(keys, keys)  # call
    y[0] = keys[0]


@cuda.jit
def heads_as_tails(x, y):
    items = cuda.local.array(4, np.int32)
    flags = cuda.local.array(4, np.int32)
    items[0] = x[0]
    coop.block.flag_heads_and_tails(items, flags, flags, "!=")  # call
    y[0] = flags[0]


@cuda.jit
def top_k_values_into_the_keys(x, y):
    keys = cuda.local.array(4, np.int32)
    values = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    values[0] = x[1]
    coop.block.top_k(keys, y, k=3, values=values, out_values=y)  # call


@cuda.jit
def scan_in_place(x, y):
    items = cuda.local.array(4, np.int32)
    coop.block.load(x, items)
    coop.block.inclusive_sum(items, output=items)
    coop.block.store(y, items)


@pytest.mark.parametrize(("kernel", "first", "second"), [
    (radix_sort_keys_as_values, "keys", "values"), (argsort_keys_as_indices, "keys", "indices"),
    (heads_as_tails, "head_flags", "tail_flags"), (top_k_values_into_the_keys, "out_keys", "out_values"),
], ids=lambda v: getattr(v, "__name__", v))
def test_one_array_for_two_written_parameters_is_refused(kernel, first: str, second: str) -> None:
    refused(kernel, SIG, f"{first}= and {second}= are the same array", "pass two different arrays")


def test_a_scan_in_place_is_accepted() -> None:
    """``output=x``: the wrapper copies ``x`` before CUB runs, so in place is right (its GPU test checks it)."""
    assert compile_kernel(scan_in_place, SIG, block=128).cubin


# --- 5. items_per_thread= agrees with the array ------------------------------------------------------------------


@cuda.jit
def radix_sort_first_2_of_4(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.radix_sort(keys, items_per_thread=2)  # call
    y[0] = keys[0]


@cuda.jit
def top_k_first_2_of_4(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.top_k(keys, y, k=3, items_per_thread=2)  # call


@cuda.jit
def histogram_first_2_of_4(x, y):
    samples = cuda.local.array(4, np.uint8)
    samples[0] = x[0]
    coop.block.histogram(samples, y, bins=16, items_per_thread=2)  # call


@cuda.jit
def warp_merge_sort_first_2_of_4(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.warp.merge_sort(keys, "<", items_per_thread=2)  # call
    y[0] = keys[0]


@cuda.jit
def decode_first_run_of_2(x, y):
    values = cuda.local.array(2, np.int32)
    lengths = cuda.local.array(2, np.int32)
    decoded = cuda.local.array(2, np.int32)
    values[0] = x[0]
    lengths[0] = 1
    coop.block.run_length_decode(values, decoded, run_lengths=lengths, runs_per_thread=1)  # call
    y[0] = decoded[0]


@pytest.mark.parametrize(("kernel", "sig", "message"), [
    (radix_sort_first_2_of_4, SIG, "keys= has 4 items but items_per_thread=2"),
    (top_k_first_2_of_4, SIG, "keys= has 4 items but items_per_thread=2"),
    (histogram_first_2_of_4, (U8, U32), "samples= has 4 items but items_per_thread=2"),
    (warp_merge_sort_first_2_of_4, SIG, "keys= has 4 items but items_per_thread=2"),
    (decode_first_run_of_2, SIG, "run_values= has 2 items but runs_per_thread=1"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_an_extent_that_disagrees_with_the_array_is_refused(kernel, sig, message: str) -> None:
    refused(kernel, sig, message, "they must match")


# --- 6. operators ------------------------------------------------------------------------------------------------


@cuda.jit
def merge_sort_by_le(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.merge_sort(keys, operator.le)  # call
    y[0] = keys[0]


@cuda.jit
def reduce_by_truediv(x, y):
    y[0] = coop.block.reduce(x[0], operator.truediv)  # call


def test_a_non_strict_comparison_does_not_sort() -> None:
    refused(merge_sort_by_le, SIG, "compare='<=' is not a strict weak order", "Pass '<' (ascending)")


def test_an_operator_result_that_does_not_fit_the_items_is_refused() -> None:
    refused(reduce_by_truediv, SIG, "op='truediv' returns float64 for (int32, int32)", "does not fit int32",
            "a // b")


def test_numpy_maximum_propagates_nan_and_fmax_drops_it(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``np.maximum``/``"max"`` render cuda-coop's NaN-propagating functor, ``np.fmax`` libcu++'s ``cuda::maximum``
    (fmax); the GPU tier checks both against NumPy on NaN inputs."""
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))

    @cuda.jit
    def both(x, y):
        y[0] = coop.block.reduce(x[0], np.maximum) + coop.block.reduce(x[1], np.fmax)
        y[1] = coop.block.reduce(x[2], np.minimum) + coop.block.reduce(x[3], np.fmin)

    compile_kernel(both, (types.float32[::1], types.float32[::1]), block=64)
    (source,) = tmp_path.glob("*.cu")
    text = source.read_text()
    for functor in ("::cuda_coop_detail::maximum{}", "::cuda::maximum<>{}", "::cuda_coop_detail::minimum{}",
                    "::cuda::minimum<>{}"):
        assert functor in text, functor


# --- 7. empty tiles ----------------------------------------------------------------------------------------------


def _largest(a, b):  # type: ignore[no-untyped-def]
    return a if a > b else b


@cuda.jit
def user_reduce_of_nothing(x, y):
    y[0] = coop.block.reduce(x[0], _largest, valid_items=0)  # call


def test_an_empty_user_reduction_is_refused_and_a_known_one_has_its_identity(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    refused(user_reduce_of_nothing, SIG, "valid_items=0 leaves no item", "no identity")
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))

    @cuda.jit
    def sum_of_nothing(x, y):
        y[0] = coop.block.sum(x[0], valid_items=0, broadcast=True)

    compile_kernel(sum_of_nothing, SIG, block=64)
    (source,) = tmp_path.glob("*.cu")
    guard = "if (cuda_coop_detail::clamp_count<64>(valid_items) == 0)\n  {\n    return cuda_coop_detail::zero<int>();"
    assert guard in source.read_text()


def test_every_identity_compiles_for_every_item_type(toolchain, compiler) -> None:  # type: ignore[no-untyped-def]
    """The identity of each known operator, rendered for each item type it is defined for (C++ spellings of several
    words, ``unsigned long long``, half and complex types included), in block and warp reductions: one NVRTC
    compile."""
    from cuda.coop._specs import KnownOp, Request, value_type
    from cuda.coop.numba_mlir._lowering import SUPPORTED
    from tests.helpers.nvrtc import compile_requests

    requests = []
    for dtype in SUPPORTED:
        vt = value_type(dtype)
        for spec in ("block_reduce", "warp_reduce"):
            requests.append(Request(spec, "sum", "scalar_valid", dtype=dtype, count_type="int64"))
            requests += [Request(spec, "reduce", "scalar_valid", dtype=dtype, op=op, count_type="uint16")
                         for op in KnownOp if op.identity is not None and op.supports(vt)]
    p = compile_requests(requests, toolchain, compiler, (64,))
    assert p.source.count("== 0)") == len(requests) and "unsigned long long" in p.source


# --- documented types that crashed the compiler: the one-value outputs of float16, bfloat16, complex64 and complex128
# (``block_aggregate``, ``warp_aggregate``, ``block_prefix``, ``block_suffix``; was "Type cast not implemented:
# memref<1xcomplex<f32>> ...") compile in the GPU tier's kernels below (``one_value_kernel``), run there too.


# --- someone else's error, and valid inputs that were refused ----------------------------------------------------


@cuda.jit
def histogram_of_2_pow_31_bins(x, y):
    samples = cuda.local.array(4, np.uint8)
    samples[0] = x[0]
    coop.block.histogram(samples, y, bins=2**31)  # call


@cuda.jit
def radix_rank_of_1100_bits(x, y):
    keys = cuda.local.array(4, np.uint32)
    ranks = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.radix_rank(keys, ranks, radix_bits=1100)  # call
    y[0] = ranks[0]


@cuda.jit
def top_k_of_2_pow_64(x, y):
    keys = cuda.local.array(4, np.int32)
    keys[0] = x[0]
    coop.block.top_k(keys, y, k=2**64)  # call


def test_out_of_range_compile_time_integers_are_refused_before_nvrtc() -> None:
    refused(histogram_of_2_pow_31_bins, (U8, U32), "bins=2147483648 is out of range", "between 1 and 2147483647")
    refused(radix_rank_of_1100_bits, (U32, I32), "radix_bits=1100")
    refused(top_k_of_2_pow_64, SIG, "k=18446744073709551616 does not fit a 64-bit integer")


def test_numpy_scalars_are_compile_time_constants() -> None:
    @cuda.jit
    def kernel(x, y):
        keys = cuda.local.array(4, np.uint8)
        keys[0] = x[0]
        coop.block.radix_sort(keys, radix_bits=np.int64(4), descending=np.True_)
        coop.block.histogram(keys, y, bins=np.int32(16))
        y[1] = coop.warp.sum(y[0], threads=np.int32(16), broadcast=np.True_)

    assert compile_kernel(kernel, (U8, U32), block=64).cubin


# --- messages: the fix they suggest works, and they speak the public names ---------------------------------------

RECORD = np.dtype([("a", np.int32), ("b", np.float32)], align=True)


@cuda.jit
def radix_sort_of_records(x, y):
    coop.block.radix_sort(x)  # call


@cuda.jit
def a_2d_local_array(x, y):
    items = cuda.local.array((2, 2), np.int32)
    coop.block.load(x, items)  # call
    y[0] = items[0, 0]


@cuda.jit
def match_rank_over_shared_memory(x, y):
    keys = cuda.local.array(1, np.uint32)
    ranks = cuda.local.array(1, np.int32)
    keys[0] = x[0]
    coop.block.radix_rank(keys, ranks, radix_bits=12, algorithm="match")  # call
    y[0] = ranks[0]


@cuda.jit
def shuffle_up_without_its_array(x, y):
    coop.block.shuffle_up(x[0])  # call


def test_messages_suggest_what_works_in_public_names() -> None:
    message = refused(radix_sort_of_records, (from_dtype(RECORD)[::1], I32), "coop.block.radix_sort takes no records")
    assert "radix_sort(x[i]" not in message
    refused(a_2d_local_array, SIG, "is a 2-D cuda.local.array (2, 2)", "a 1-D array")
    message = refused(match_rank_over_shared_memory, (U32, I32), "radix_bits=12 with algorithm='match'",
                      "use fewer radix_bits")
    assert "algorithm='match' (1-D" not in message
    message = refused(shuffle_up_without_its_array, SIG, "no form takes the arguments")
    for cub in ("Up ", "Up(", "cub::", "block_shuffle"):
        assert cub not in message, message


# --- the GPU tier's kernels (tests/gpu/test_contracts.py) --------------------------------------------------------


def _gpu_kernels() -> list[tuple[str, object, tuple]]:
    from cuda.coop._specs import coerce_operator
    from tests.gpu import test_contracts as gpu
    from tests.helpers.subset import covering

    f32, f64 = types.float32[::1], types.float64[::1]
    cases: list[tuple[str, object, tuple]] = []
    nan = covering([(n, d) for n in gpu.EXTREMA for d in ("float32", "float64")],
                   lambda c: coerce_operator(gpu._operator(c[0])), lambda c: c[1])
    cases += [(f"nan-{n}-{d}", lambda n=n: gpu.nan_kernel(n), ((f32 if d == "float32" else f64),) * 4) for n, d in nan]
    empty = covering(gpu.IDENTITY_CASES, lambda c: coerce_operator(gpu._operator(c[0])), lambda c: c[1])
    cases += [(f"empty-{op}-{d}", lambda op=op: gpu.identity_kernel(op),
               (getattr(types, d)[::1], types.int64[::1], getattr(types, d)[::1], getattr(types, d)[::1]))
              for op, d in empty]
    for d in gpu.ONE_VALUE_TYPES:
        t = types.uint16 if d == "bfloat16" else getattr(types, d)
        cases.append((f"one-value-{d}", lambda d=d: gpu.one_value_kernel(d), (t[::1],) * 5))
    cases.append(("in-place", gpu.in_place_kernel, (types.int64[::1], types.int64[::1], U32)))
    return cases


@pytest.mark.parametrize("case", _gpu_kernels(), ids=lambda c: c[0])
def test_gpu_tier_kernels_compile(case) -> None:  # type: ignore[no-untyped-def]
    _, make, sig = case
    assert compile_kernel(make(), sig, block=128).cubin
