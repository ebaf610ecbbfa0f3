"""Primitives that only some of the cooperating threads reach are refused at compile time.

A block primitive under a thread-dependent condition (or after a thread-dependent early return,
or in a loop with a thread-dependent trip count) and a warp primitive under a lane-dependent
condition raise UsageError naming the call, its file:line and the condition's line; uniform
conditions and calls after a thread-dependent ``if`` that rejoins compile. ``coop.uniform(v)``
asserts uniformity and compiles to nothing.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel

F32 = types.float32[::1]
SIG = (F32, F32, types.int64)
ITEMS = 4


def _line(kernel, marker: str) -> str:
    """``file:line`` of the kernel source line that ends with ``# <marker>``."""
    lines, start = inspect.getsourcelines(kernel.py_func)
    hits = [start + i for i, text in enumerate(lines) if text.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, marker
    return f"{kernel.py_func.__code__.co_filename}:{hits[0]}"


def _refused(kernel, primitive: str, *, block: int | tuple[int, ...] = 64, sig: tuple = SIG) -> str:
    """Compile ``kernel``; assert the divergence error names ``primitive``, the call and the condition."""
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=block)
    message = str(info.value)
    assert f"coop.{primitive}() at {_line(kernel, 'call')} is reached by only some" in message
    assert f"at {_line(kernel, 'cond')}" in message
    assert "cuda.coop.uniform" in message
    return message


# --- refused --------------------------------------------------------------------------------------


def test_thread_index_condition_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        if cuda.threadIdx.x < 16:  # cond
            out[0] = coop.block.sum(x[0])  # call

    message = _refused(kernel, "block.sum")
    assert "some threads of the block" in message and "cuda.threadIdx" in message
    assert "__syncthreads()" in message


def test_early_return_of_out_of_range_threads_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        i = cuda.grid(1)
        if i >= n:  # cond
            return
        v = coop.block.sum(x[i])  # call
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = v

    message = _refused(kernel, "block.sum")
    assert "cuda.grid()" in message
    assert "valid_items=" in message  # the fix for the idiom


def test_break_under_thread_dependent_condition_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        for k in range(n):
            if x[cuda.threadIdx.x + k] > 0:  # cond
                break
            out[k] = coop.block.sum(x[k])  # call

    _refused(kernel, "block.sum")


@pytest.mark.parametrize("form", ["for", "grid_stride", "while"])
def test_loop_with_thread_dependent_trip_count_is_refused(form: str) -> None:
    if form == "for":
        @cuda.jit
        def kernel(x, out, n):
            for k in range(cuda.threadIdx.x % 4):  # cond
                out[k] = coop.block.sum(x[k])  # call
    elif form == "grid_stride":
        @cuda.jit
        def kernel(x, out, n):
            for i in range(cuda.grid(1), n, cuda.gridsize(1)):  # cond
                out[i] = coop.block.sum(x[i])  # call
    else:
        @cuda.jit
        def kernel(x, out, n):
            k = cuda.grid(1)
            while k < n:  # cond
                out[k] = coop.block.sum(x[k])  # call
                k += 4096

    message = _refused(kernel, "block.sum")
    assert "inside the loop at" in message and "trip count" in message


def test_warp_primitive_under_lane_condition_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        if cuda.laneid < 16:  # cond
            out[0] = coop.warp.sum(x[0])  # call

    message = _refused(kernel, "warp.sum")
    assert "some lanes of its logical warp" in message and "cuda.laneid" in message
    assert "__syncwarp" in message


def test_warp_index_condition_is_refused_unless_asserted() -> None:
    """Documented conservative rule: a warp index derived from threadIdx is lane-dependent too."""

    @cuda.jit
    def kernel(x, out, n):
        warp = cuda.threadIdx.x // 32
        if warp < 1:  # cond
            out[0] = coop.warp.sum(x[0])  # call

    _refused(kernel, "warp.sum")


def test_continue_under_thread_dependent_condition_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        for k in range(n):
            if cuda.threadIdx.x > k:  # cond
                continue
            out[k] = coop.block.sum(x[k])  # call

    _refused(kernel, "block.sum")


def test_condition_on_a_thread_indexed_load_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        i = cuda.threadIdx.x
        v = x[i]
        if v > 0:  # cond
            out[0] = coop.block.sum(x[0])  # call

    message = _refused(kernel, "block.sum")
    assert "cuda.threadIdx" in message


def test_value_assigned_under_thread_dependent_condition_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        flag = False
        if cuda.threadIdx.x == 0:
            flag = True
        if flag:  # cond
            out[0] = coop.block.sum(x[0])  # call

    assert "assigned under the thread-dependent branch" in _refused(kernel, "block.sum")


def test_thread_index_read_in_an_inlined_device_function_is_refused() -> None:
    @cuda.jit(device=True)
    def first_half():
        return cuda.threadIdx.x < 32

    @cuda.jit
    def kernel(x, out, n):
        if first_half():  # cond
            out[0] = coop.block.sum(x[0])  # call

    _refused(kernel, "block.sum")


def test_condition_on_a_reduction_result_is_refused() -> None:
    """``block.sum``'s result is valid in thread 0 only: it is not uniform."""

    @cuda.jit
    def kernel(x, out, n):
        total = coop.block.sum(x[cuda.threadIdx.x])
        if total > 0:  # cond
            out[0] = coop.block.sum(x[0])  # call

    assert "the result of coop.block.sum()" in _refused(kernel, "block.sum")


@pytest.mark.parametrize("writer", ["block.load", "block.inclusive_sum"])
def test_condition_on_per_thread_items_is_refused(writer: str) -> None:
    """A load's output and an in-place scan's array hold per-thread data (a reduction's input does not change)."""
    if writer == "block.load":
        @cuda.jit
        def kernel(x, out, n):
            items = cuda.local.array(ITEMS, np.float32)
            coop.block.load(x, items)
            if items[0] > 0:  # cond
                out[0] = coop.block.sum(items)  # call
    else:
        @cuda.jit
        def kernel(x, out, n):
            items = cuda.local.array(ITEMS, np.float32)
            for k in range(ITEMS):
                items[k] = x[k]
            if items[0] > 0:  # accepted: every thread loaded the same items, and sum reads them only
                out[1] = coop.block.sum(items)
            coop.block.inclusive_sum(items)
            if items[0] > 0:  # cond
                out[0] = coop.block.sum(items)  # call

    message = _refused(kernel, "block.sum")
    assert f"per-thread data in the cuda.local.array of {kernel.py_func.__code__.co_filename}" in message
    assert f"written by coop.{writer}()" in message


def test_local_array_holds_per_thread_data_only_after_such_a_write() -> None:
    """The first condition reads uniform contents (accepted); a per-thread write comes later."""

    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        for k in range(ITEMS):
            items[k] = x[k]
        if items[1] > 0:
            out[0] = coop.block.sum(items)
        items[0] = cuda.threadIdx.x
        if items[2] > 0:  # cond
            out[0] = coop.block.sum(items)  # call

    assert "written at" in _refused(kernel, "block.sum")


def test_atomic_result_is_thread_dependent() -> None:
    @cuda.jit
    def kernel(x, out, n):
        ticket = cuda.atomic.add(out, 0, 1.0)
        if ticket < 1.0:  # cond
            out[1] = coop.block.sum(x[0])  # call

    assert "cuda.atomic.add()" in _refused(kernel, "block.sum")


# --- accepted -------------------------------------------------------------------------------------


def test_uniform_conditions_and_loops_compile() -> None:
    """blockIdx, kernel scalars, constants, uniform loop bounds, a rejoining thread-dependent ``if``,
    shared memory read at a uniform index, syncthreads_count and a block scan's block_aggregate."""

    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        aggregate = cuda.local.array(1, np.float32)
        flag = cuda.shared.array(1, np.int32)
        i = cuda.grid(1)
        for k in range(ITEMS):
            items[k] = 0.0
        v = 0.0
        if i < n:  # thread-dependent, but it rejoins before the calls
            v = x[i]
        total = coop.block.sum(v)
        if cuda.blockIdx.x % 2 == 0:
            total += coop.block.sum(v)
        if n > 10:
            for tile in range(cuda.blockIdx.x, n, cuda.gridDim.x):
                for k in range(ITEMS):
                    items[k] = x[tile * ITEMS + k]
                total += coop.block.reduce(items, "max")
        if cuda.threadIdx.x == 0:
            flag[0] = n > 3
        cuda.syncthreads()
        if flag[0] != 0:
            total += coop.warp.sum(v)
        if cuda.syncthreads_count(1 if v > 0 else 0) > 5:
            total += coop.block.sum(v)
        coop.block.exclusive_sum(items, block_aggregate=aggregate)
        if aggregate[0] > 0:
            total += coop.block.sum(v)
        out[i] = total

    compile_kernel(kernel, SIG, block=64)


def test_asserted_uniform_condition_compiles_and_costs_nothing() -> None:
    @cuda.jit
    def kernel(x, out, n):
        i = cuda.grid(1)
        if coop.uniform(x[i // 64] > 0):  # 64 threads per block: the same element in every thread
            out[i] = coop.block.sum(x[i])
        warp = cuda.threadIdx.x // 32
        if coop.uniform(warp) == 0:
            out[i] += coop.warp.sum(x[i])

    compiled = compile_kernel(kernel, SIG, block=64)
    assert "call." not in compiled.ptx  # the assertion compiles to nothing: no call left


def test_uniform_without_primitives_compiles() -> None:
    @cuda.jit
    def kernel(x, out, n):
        out[0] = coop.uniform(x[0]) + coop.uniform(value=n)

    compile_kernel(kernel, SIG, block=32)


def test_uniform_is_the_identity_on_the_host() -> None:
    marker = object()
    assert coop.uniform(marker) is marker
    assert coop.uniform(3) == 3


def test_uniform_takes_exactly_one_value() -> None:
    @cuda.jit
    def kernel(x, out, n):
        if coop.uniform(n, 1) > 0:  # call
            out[0] = coop.block.sum(x[0])

    with pytest.raises(UsageError, match="takes exactly one value") as info:
        compile_kernel(kernel, SIG, block=64)
    assert f"coop.uniform() at {_line(kernel, 'call')}" in str(info.value)
