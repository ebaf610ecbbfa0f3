"""The numba-cuda-mlir integration, compiled for sm_90 without a GPU (compile tier).

Every primitive compiles in 1-D, 2-D and 3-D blocks; the wrappers inline away (no CALL, no local
memory); one kernel makes one NVRTC call; block shapes specialise; misuse gives a clear error.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.helpers.sass import assert_inlined, instructions

ITEMS = 4
F32 = types.float32[::1]
I32 = types.int32[::1]


@cuda.jit
def every_block_primitive(x, out, scalars):
    items = cuda.local.array(ITEMS, np.float32)
    scanned = cuda.local.array(ITEMS, np.float32)
    aggregate = cuda.local.array(1, np.float32)
    tile = cuda.blockIdx.x * 512
    coop.block.load(x, items, offset=tile, valid_items=500, oob_default=0.0, algorithm="warp_transpose")
    total = coop.block.sum(items, algorithm="raking")
    biggest = coop.block.reduce(items, "max")
    coop.block.exclusive_sum(items, output=scanned, block_aggregate=aggregate, algorithm="warp_scans")
    coop.block.inclusive_sum(scanned)
    coop.block.exclusive_scan(items, "min", initial_value=1.0e30, output=scanned)
    coop.block.inclusive_scan(scanned, "+", algorithm="raking_memoize")
    coop.block.store(out, scanned, offset=tile, algorithm="transpose")
    v = coop.block.sum(items[0], valid_items=100)
    v += coop.block.exclusive_sum(items[1]) + coop.block.inclusive_scan(items[2], "max")
    scalars[cuda.blockIdx.x] = total + biggest + aggregate[0] + v


@cuda.jit
def every_warp_primitive(x, out):
    i = cuda.blockIdx.x * 128 + cuda.threadIdx.x + 32 * cuda.threadIdx.y
    v = x[i]
    a = coop.warp.sum(v) + coop.warp.reduce(v, "min", threads=16, valid_items=7)
    b = coop.warp.exclusive_sum(v, threads=8) + coop.warp.inclusive_sum(v, threads=4)
    c = coop.warp.exclusive_scan(v, "max", initial_value=-1.0, threads=2) + coop.warp.inclusive_scan(v, "+", threads=1)
    out[i] = a + b + c


@pytest.mark.parametrize("block", [(128,), (16, 8), (4, 4, 8)], ids=["1d", "2d", "3d"])
def test_every_block_primitive_compiles_inlined(block) -> None:
    compiled = compile_kernel(every_block_primitive, (F32, F32, F32), block=block)
    assert_inlined(compiled)
    assert ".entry" in compiled.ptx and "call." not in compiled.ptx  # PTX after LTO: wrappers inlined


@pytest.mark.parametrize("block", [(128,), (32, 4), (8, 4, 4)], ids=["1d", "2d", "3d"])
def test_every_warp_primitive_compiles_inlined(block) -> None:
    assert_inlined(compile_kernel(every_warp_primitive, (F32, F32), block=block))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64", "float64"])
def test_dtypes_compile(dtype: str) -> None:
    DT = getattr(np, dtype)

    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(ITEMS, DT)
        coop.block.load(x, items, offset=cuda.blockIdx.x * 64 * ITEMS)
        coop.block.inclusive_sum(items)
        coop.block.store(out, items, offset=cuda.blockIdx.x * 64 * ITEMS)
        out[0] = coop.warp.reduce(items[0], "max")

    array = getattr(types, dtype)[::1]
    assert_inlined(compile_kernel(kernel, (array, array), block=64))


def test_python_operator_is_compiled_and_inlined() -> None:
    def absmax(a, b):
        return max(abs(a), abs(b))

    @cuda.jit
    def kernel(x, out):
        v = coop.block.reduce(x[cuda.threadIdx.x], absmax)
        out[0] = coop.warp.inclusive_scan(v, absmax)

    assert_inlined(compile_kernel(kernel, (F32, F32), block=64))


def test_prefix_callback_compiles_inlined() -> None:
    def running_total(state, block_aggregate):
        old = state[0]
        state[0] = old + block_aggregate
        return old

    @cuda.jit
    def kernel(x, y, tiles):
        items = cuda.local.array(ITEMS, np.int32)
        total = cuda.local.array(1, np.int32)
        total[0] = 0
        for tile in range(tiles):
            coop.block.load(x, items, offset=tile * 128 * ITEMS)
            coop.block.exclusive_sum(items, prefix_op=running_total, prefix_state=total)
            coop.block.store(y, items, offset=tile * 128 * ITEMS)

    assert_inlined(compile_kernel(kernel, (I32, I32, types.int64), block=128))


def test_prefix_state_without_prefix_op_is_an_error() -> None:
    @cuda.jit
    def kernel(x, out):
        total = cuda.local.array(1, np.float32)
        out[0] = coop.block.exclusive_sum(x[0], prefix_state=total)

    assert "prefix_state= is only used with prefix_op=" in _compile_error(kernel)


def test_entry_block_calls_skip_barriers_no_earlier_call_needs() -> None:
    """A storage-free load before an exchange leaves the exchange without a leading barrier (CUB C++ has
    none there): only CUB's own barrier between its shared-memory writes and reads remains."""

    @cuda.jit
    def entry(x, out):
        items = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items, algorithm="direct")  # no storage
        coop.block.blocked_to_striped(items)  # first user of the storage: no leading barrier
        coop.block.store(out, items, algorithm="striped")

    @cuda.jit
    def after_transpose(x, out):
        items = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items, algorithm="transpose")  # uses the storage (one barrier of its own)
        coop.block.blocked_to_striped(items)  # so the exchange must wait for it: leading barrier kept
        coop.block.store(out, items, algorithm="striped")

    def barriers(kernel) -> int:
        return sum("BAR.SYNC" in line for line in instructions(compile_kernel(kernel, (F32, F32), block=64).sass()))

    assert barriers(entry) == 1
    assert barriers(after_transpose) == 3


def test_only_the_first_call_in_the_entry_block_skips_the_barrier(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))

    @cuda.jit
    def straight(x, out):
        items = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items, algorithm="transpose")  # first use: no barrier
        out[0] = coop.block.sum(items)  # reuses the storage: barrier

    @cuda.jit
    def looped(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        for tile in range(n):  # a loop revisits its first call: barrier kept
            coop.block.load(x, items, offset=tile * 64 * ITEMS, algorithm="transpose")
            out[tile] = coop.block.sum(items)

    compile_kernel(straight, (F32, F32), block=64)
    (source,) = tmp_path.glob("*.cu")
    text = source.read_text()
    assert text.count("first use of the shared storage") == 1
    assert text.count("__syncthreads();") == 1
    source.unlink()
    compile_kernel(looped, (F32, F32, types.int64), block=64)
    (source,) = tmp_path.glob("*.cu")
    text = source.read_text()
    assert "first use of the shared storage" not in text
    assert text.count("__syncthreads();") == 2


def test_one_nvrtc_call_per_kernel_and_one_specialisation_per_block_shape() -> None:
    from cuda.coop._provider import default_compiler

    @cuda.jit
    def three(x, out):
        items = cuda.local.array(ITEMS, np.int32)
        coop.block.load(x, items, offset=cuda.blockIdx.x * 96 * ITEMS)
        coop.block.exclusive_sum(items)
        coop.block.store(out, items, offset=cuda.blockIdx.x * 96 * ITEMS)

    compiler = default_compiler()
    before = compiler.calls
    a = compile_kernel(three, (I32, I32), block=96)
    assert compiler.calls - before == 1
    b = compile_kernel(three, (I32, I32), block=(48, 2))
    assert compiler.calls - before == 2
    assert a.cubin != b.cubin
    again = compile_kernel(three, (I32, I32), block=96, grid=7)  # a new grid: no new NVRTC call
    assert compiler.calls - before == 2
    assert again.cubin


def _compile_error(kernel, sig=(F32, F32), block=(128,)) -> str:
    with pytest.raises(Exception) as info:  # numba wraps typing errors; the message must be ours
        compile_kernel(kernel, sig, block=block)
    return str(info.value)


def test_host_call_is_an_error() -> None:
    with pytest.raises(UsageError, match=r"coop\.block\.sum\(\) was called on the host"):
        coop.block.sum(1.0)


def test_kernel_compiled_without_launch_is_an_error() -> None:
    @cuda.jit
    def kernel(x, out):
        out[0] = coop.block.sum(x[cuda.threadIdx.x])

    from cuda.coop.numba_mlir._seams import assumed_compute_capability

    with assumed_compute_capability((9, 0)), pytest.raises(Exception, match=r"needs the block shape of a launch"):
        kernel.compile((F32, F32))


def test_non_constant_extent_is_an_error() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(x.size, np.float32)
        coop.block.load(x, items)

    assert "must be a compile-time constant integer" in _compile_error(kernel)


def test_non_constant_algorithm_is_an_error() -> None:
    @cuda.jit
    def kernel(x, out):
        algo = "raking" if x[0] > 0 else "warp_scans"
        out[0] = coop.block.exclusive_sum(x[0], algorithm=algo)

    assert "algorithm= must be a compile-time constant" in _compile_error(kernel)


def test_wrong_types_are_an_error() -> None:
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(ITEMS, np.int32)
        coop.block.load(x, items)

    message = _compile_error(kernel)
    assert "coop.block.load()" in message and "items= holds int32 but must hold float32 (as src= does)" in message

    @cuda.jit
    def complex_kernel(x, out):
        out[0] = coop.block.sum((x[0], x[1]))  # tuple items: not (yet) a dtype; complex is one since issue 13

    assert "coop.block.sum()" in _compile_error(complex_kernel)


def test_unsupported_operator_is_an_error() -> None:
    @cuda.jit
    def bitwise_on_floats(x, out):
        out[0] = coop.block.reduce(x[0], "&")

    assert "is not defined for float32" in _compile_error(bitwise_on_floats)

    @cuda.jit
    def not_an_operator(x, out):
        out[0] = coop.block.reduce(x[0], 42)

    assert "op=42" in _compile_error(not_an_operator)


def test_block_larger_than_1024_is_an_error() -> None:
    @cuda.jit
    def kernel(x, out):
        out[0] = coop.block.sum(x[0])

    assert "at most 1024" in _compile_error(kernel, block=(64, 32))


@pytest.mark.parametrize("threads", [3, 64, 0])
def test_invalid_logical_warp_size_is_an_error(threads: int) -> None:
    THREADS = threads

    @cuda.jit
    def kernel(x, out):
        out[0] = coop.warp.sum(x[0], threads=THREADS)

    assert f"threads={threads} must be a power of two" in _compile_error(kernel) or (
        threads == 0 and "threads=0 is out of range; it must be between 1 and" in _compile_error(kernel)
    )


def test_unknown_algorithm_is_an_error() -> None:
    @cuda.jit
    def kernel(x, out):
        out[0] = coop.block.sum(x[0], algorithm="fastest")

    message = _compile_error(kernel)
    assert "algorithm='fastest'" in message and "is not one of the algorithms" in message and "'raking'" in message
