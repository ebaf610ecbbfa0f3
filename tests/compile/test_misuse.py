"""Every input that would compile into wrong code is refused at compile time (compile tier, sm_90, no GPU).

Each refused call raises :class:`cuda.coop.errors.UsageError` naming the primitive, the argument, the
call's file:line and the fix; each accepted neighbour compiles. What the accepted forms compute is
checked on the GPU (tests/gpu).
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.helpers.refusal import refused

F32 = types.float32[::1]
I32 = types.int32[::1]
SIG = (F32, F32, types.int64)


def _refused(kernel, *needles: str, sig=SIG, block=(128,)) -> str:  # type: ignore[no-untyped-def]
    return refused(kernel, sig, *needles, block=block)


# --- 1. strided, reversed and layout-"A" arrays ---------------------------------------------------------


def test_strided_and_reversed_views_are_refused() -> None:
    @cuda.jit
    def strided(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x[::2], items)  # call

    @cuda.jit
    def reversed_(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.store(out[::-1], items)  # call

    _refused(strided, "coop.block.load()", "src=", "C-contiguous")
    _refused(reversed_, "coop.block.store()", "dst=", "C-contiguous")


def test_layout_a_argument_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)  # call

    _refused(kernel, "src=", "array(float32, 1d, A)", sig=(types.float32[:], F32, types.int64))
    compile_kernel(kernel, SIG, block=(128,))  # the C-contiguous neighbour compiles


# --- 2. per-thread arrays must be the thread's own cuda.local.array ------------------------------------


def test_global_items_are_refused_without_recommending_items_per_thread() -> None:
    @cuda.jit
    def kernel(x, out, n):
        coop.block.load(x, out, items_per_thread=4)  # call

    message = _refused(kernel, "items=", "kernel argument 'out'", "cuda.local.array")
    assert "give items_per_thread" not in message


def test_shared_and_sliced_items_are_refused() -> None:
    @cuda.jit
    def shared(x, out, n):
        tile = cuda.shared.array(4, np.float32)
        coop.block.load(x, tile)  # call

    @cuda.jit
    def sliced(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items[1:], items_per_thread=4)  # call

    _refused(shared, "items=", "cuda.shared.array")
    _refused(sliced, "items=", "slice")


def test_items_per_thread_larger_than_the_array_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items, items_per_thread=8)  # call

    _refused(kernel, "items=", "4 items", "items_per_thread=8")


def test_aggregate_must_be_a_local_array() -> None:
    @cuda.jit
    def scalar_aggregate(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.exclusive_sum(items, block_aggregate=items[0])  # call

    @cuda.jit
    def global_aggregate(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.exclusive_sum(items, block_aggregate=out)  # call

    _refused(scalar_aggregate, "block_aggregate=", "scalar")
    _refused(global_aggregate, "block_aggregate=", "kernel argument 'out'")


# --- 3-5. forms and kinds of arguments ------------------------------------------------------------------


def test_scalar_scan_with_an_output_array_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        out[0] = coop.block.exclusive_sum(items[0], output=items)  # call

    _refused(kernel, "coop.block.exclusive_sum()", "output=", "result is returned")


def test_exclusive_scan_needs_a_seed() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.exclusive_scan(items, "max")  # call

    _refused(kernel, "coop.block.exclusive_scan()", "initial_value", "prefix_op")


@pytest.mark.parametrize("case", ["output_third", "aggregate_scalar", "valid_items_array", "warp_valid_items_array"])
def test_wrong_kind_of_argument_is_our_error(case: str) -> None:
    @cuda.jit
    def output_third(x, out, n):
        items = cuda.local.array(4, np.float32)
        scanned = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        coop.block.exclusive_scan(items, "+", initial_value=scanned)  # call

    @cuda.jit
    def aggregate_scalar(x, out, n):
        total = x[0]
        out[0] = coop.block.exclusive_sum(x[1], block_aggregate=total)  # call

    @cuda.jit
    def valid_items_array(x, out, n):
        out[0] = coop.block.sum(x[0], valid_items=out)  # call

    @cuda.jit
    def warp_valid_items_array(x, out, n):
        out[0] = coop.warp.sum(x[0], valid_items=out)  # call

    kernel, needle = {
        "output_third": (output_third, "initial_value="),
        "aggregate_scalar": (aggregate_scalar, "block_aggregate="),
        "valid_items_array": (valid_items_array, "valid_items="),
        "warp_valid_items_array": (warp_valid_items_array, "valid_items="),
    }[case]
    message = _refused(kernel, needle)
    assert "compiler bug" not in message


# --- 6. operators ----------------------------------------------------------------------------------------


def _three(a, b, c):
    return a


def test_operators_that_are_ordinary_functions_compile() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items)
        a = coop.block.reduce(items, operator.truediv)
        b = coop.block.reduce(items[0], np.hypot)
        coop.block.inclusive_scan(items, lambda p, q: p * q + p)
        out[0] = a + b + items[0]

    compile_kernel(kernel, SIG, block=(128,))


def test_function_numba_cannot_compile_is_our_error() -> None:
    @cuda.jit
    def kernel(x, out, n):
        out[0] = coop.block.reduce(x[0], np.logaddexp2)  # call

    message = _refused(kernel, "op='logaddexp2'", "does not compile as a device function")
    assert "compiler bug" not in message


def test_operator_with_the_wrong_arity_names_the_call() -> None:
    @cuda.jit
    def kernel(x, out, n):
        out[0] = coop.block.reduce(x[0], _three)  # call

    _refused(kernel, "op=", "takes 3 argument(s)", "called with 2")


def test_lambda_capturing_kernel_variables_is_refused() -> None:
    """numba-cuda-mlir itself refuses such a lambda before cuda-coop sees the call, naming the variable."""

    @cuda.jit
    def kernel(x, out, n):
        scale = x[1]
        out[0] = coop.block.reduce(x[0], lambda a, b: a + b * scale)  # call

    with pytest.raises(Exception, match="Cannot capture the non-constant value associated with variable 'scale'"):
        compile_kernel(kernel, SIG, block=(128,))


@pytest.mark.parametrize("op", ["<", "==", operator.lt])
def test_comparisons_are_not_reduction_operators(op) -> None:
    OP = op

    @cuda.jit
    def kernel(x, out, n):
        out[0] = coop.block.reduce(x[0], OP)  # call

    _refused(kernel, "op=", "not a binary operator returning a value")


def test_closures_capturing_different_arrays_get_different_symbols() -> None:
    """Two closures whose captured values print the same must never share one compiled operator."""
    from cuda.coop._numba._operators import user_function
    from cuda.coop.numba_mlir._frontend import FRONTEND

    def make(table):
        def op(a, b):
            return a + b * table[0]

        return op

    big_a = np.zeros(5000)
    big_b = np.zeros(5000)
    big_b[2500] = 1.0  # repr() of both is "array([0., 0., ..., 0.])"
    assert repr(big_a) == repr(big_b)

    class Site:
        arch = None

        def error(self, message: str) -> Exception:
            return UsageError(message)

    from cuda.coop.numba_mlir._seams import assumed_compute_capability

    sig = types.float64(types.float64, types.float64)
    with assumed_compute_capability((9, 0)):  # user functions are compiled as they are typed
        first, _, _ = user_function(FRONTEND, Site(), "op", make(big_a), sig)  # type: ignore[arg-type]
        second, _, _ = user_function(FRONTEND, Site(), "op", make(big_b), sig)  # type: ignore[arg-type]
        again, _, _ = user_function(FRONTEND, Site(), "op", make(big_a.copy()), sig)  # type: ignore[arg-type]
    assert first != second
    assert first == again  # same content: same symbol (stable for the persistent cache)


# --- 7. numbers -----------------------------------------------------------------------------------------


def test_counts_and_offsets_must_be_integers() -> None:
    @cuda.jit
    def float_valid_items(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items, valid_items=2.5)  # call

    @cuda.jit
    def float_offset(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items, offset=2.5)  # call

    _refused(float_valid_items, "valid_items=", "integer")
    _refused(float_offset, "offset=", "integer")


def test_int64_valid_items_reach_cub_untruncated(tmp_path, monkeypatch) -> None:
    """``valid_items=n - base`` in int64 reaches the wrapper as a 64-bit value and is clamped to the tile
    there (never cut to 32 bits first); what it computes is checked on the GPU."""

    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        base = cuda.blockIdx.x * 512
        coop.block.load(x, items, offset=base, valid_items=n - base)
        coop.block.store(out, items, offset=base, valid_items=np.uint64(n))
        out[0] = coop.warp.sum(items[0], valid_items=np.int8(3))

    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    compile_kernel(kernel, SIG, block=(128,))
    (source,) = [p.read_text() for p in tmp_path.glob("cuda_coop_numba_mlir_*.cu")]
    assert "long long valid_items" in source and "unsigned long long valid_items" in source
    assert "signed char valid_items" in source
    assert "clamp_count<512>(valid_items)" in source and "clamp_count<32>(valid_items)" in source


@pytest.mark.parametrize(
    ("value", "dtype"), [(0.75, np.int32), (2**40, np.int32), (-1, np.uint8), (2**53 + 1, np.float64)]
)
def test_lossy_constants_are_refused(value, dtype) -> None:
    VALUE, DT = value, dtype

    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, DT)
        coop.block.load(x, items)
        coop.block.exclusive_scan(items, "+", initial_value=VALUE)  # call

    t = getattr(types, np.dtype(dtype).name)[::1]
    _refused(kernel, "initial_value=", "does not convert", sig=(t, t, types.int64))


def test_lossy_runtime_values_are_refused_and_exact_ones_accepted() -> None:
    @cuda.jit
    def wide_into_narrow(x, out, n):
        items = cuda.local.array(4, np.int32)
        coop.block.load(x, items, valid_items=5, oob_default=n)  # call

    _refused(wide_into_narrow, "oob_default=", "int64", "np.int32", sig=(I32, I32, types.int64))

    @cuda.jit
    def exact(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.block.load(x, items, valid_items=n, oob_default=0.0)
        coop.block.exclusive_scan(items, "max", initial_value=-1)
        out[0] = items[0]

    compile_kernel(exact, SIG, block=(128,))


# --- wording: public names, suggestions -----------------------------------------------------------------


def test_unknown_keyword_gets_a_suggestion() -> None:
    @cuda.jit
    def kernel(x, out, n):
        out[0] = coop.block.sum(x[0], algoritm="raking")  # call

    _refused(kernel, "no parameter 'algoritm'", "did you mean algorithm=?")


def test_errors_speak_public_names() -> None:
    @cuda.jit
    def bad_warp(x, out, n):
        out[0] = coop.warp.sum(x[0], threads=24)  # call

    @cuda.jit
    def bad_algorithm(x, out, n):
        out[0] = coop.block.sum(x[0], algorithm="rakin")  # call

    @cuda.jit
    def downgraded(x, out, n):
        out[0] = coop.block.sum(x[0], algorithm="raking_commutative_only")  # call

    message = _refused(bad_warp, "threads=24")
    assert "logical_warp_threads" not in message
    _refused(bad_algorithm, "algorithm='rakin'", "did you mean 'raking'")
    message = _refused(downgraded, "algorithm='raking_commutative_only'", "algorithm='raking'", block=(100,))
    assert "BLOCK_REDUCE" not in message


def test_nondeterministic_sum_refuses_valid_items() -> None:
    """CUB's atomic path ignores num_valid (a wrong sum on the GPU); full tiles stay accepted."""

    @cuda.jit
    def partial(x, out, n):
        out[0] = coop.block.sum(x[0], valid_items=n, algorithm="warp_reductions_nondeterministic")  # call

    @cuda.jit
    def full(x, out, n):
        out[0] = coop.block.sum(x[0], algorithm="warp_reductions_nondeterministic")

    _refused(partial, "algorithm='warp_reductions_nondeterministic'", "valid_items", "'warp_reductions'")
    compile_kernel(full, SIG, block=(128,))
