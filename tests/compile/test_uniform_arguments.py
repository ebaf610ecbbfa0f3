"""Arguments CUB reads as one value for all cooperating threads are refused when thread-dependent.

A parameter the spec marks ``Param.uniform`` (``valid_items``, ``begin_bit``/``end_bit``, ``k``, a
tile's ``offset``, the arrays of load/store/top-k/histogram, scan seeds...) must be the same in every
thread of the block (block primitives) or every lane of the logical warp (warp primitives). A value
the uniformity analysis finds thread-dependent is refused with a UsageError naming the call, the
argument, where the thread dependence comes from and the fix; the common correct forms (kernel
arguments, blockIdx arithmetic, ``n - tile * TILE``, ``min`` of uniform values, loop counters of
uniform loops, shared memory read at a uniform index, a warp index for warp primitives) compile.
"""

from __future__ import annotations

import inspect
import operator

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel

F32 = types.float32[::1]
I32 = types.int32[::1]
U32 = types.uint32[::1]
SIG = (F32, F32, types.int64)
ITEMS = 4
THREADS = 64
TILE = THREADS * ITEMS
WARP = 32
WARP_TILE = WARP * ITEMS


def _line(kernel, marker: str) -> str:
    """``file:line`` of the kernel source line that ends with ``# <marker>``."""
    lines, start = inspect.getsourcelines(kernel.py_func)
    hits = [start + i for i, text in enumerate(lines) if text.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, marker
    return f"{kernel.py_func.__code__.co_filename}:{hits[0]}"


def _refused(kernel, primitive: str, argument: str, source: str, *, block=THREADS, sig=SIG) -> str:
    """Compile ``kernel``; assert the error names the call, ``argument=``, the source of the thread
    dependence (text and the ``# src`` line) and both fixes."""
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=block)
    message = str(info.value)
    assert message.startswith(f"coop.{primitive}() at {_line(kernel, 'call')}: {argument}= "), message
    assert source in message and _line(kernel, "src") in message, message
    assert "must be the same in every" in message
    assert f"`{argument}=coop.uniform(value)`" in message and "cuda.coop.uniform" in message
    return message


def _accepted(kernel, *, block=THREADS, sig=SIG) -> None:
    compile_kernel(kernel, sig, block=block)


# --- refused: block primitives ------------------------------------------------------------------------


def test_thread_index_valid_items_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        valid = n - cuda.threadIdx.x  # src
        coop.block.load(x, items, valid_items=valid)  # call
        coop.block.store(out, items)

    message = _refused(kernel, "block.load", "valid_items", "cuda.threadIdx")
    assert "every thread of the block" in message


def test_grid_offset_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        i = cuda.grid(1)  # src
        coop.block.load(x, items, offset=i * ITEMS)  # call
        coop.block.store(out, items)

    _refused(kernel, "block.load", "offset", "cuda.grid()")


def test_per_thread_oob_default_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        fill = x[cuda.threadIdx.x]  # src
        coop.block.load(x, items, valid_items=n, oob_default=fill)  # call
        coop.block.store(out, items)

    _refused(kernel, "block.load", "oob_default", "cuda.threadIdx")


def test_per_thread_array_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items)
        mine = out[cuda.threadIdx.x :]  # src
        coop.block.store(mine, items)  # call

    message = _refused(kernel, "block.store", "dst", "cuda.threadIdx")
    assert "dst= (the array" in message


def test_primitive_result_as_valid_items_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        count = coop.block.sum(np.int32(x[cuda.threadIdx.x] > 0))  # src
        out[0] = coop.block.sum(x[cuda.threadIdx.x], valid_items=count)  # call

    _refused(kernel, "block.sum", "valid_items", "the result of coop.block.sum()")


def test_value_assigned_under_thread_dependent_branch_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        valid = n
        if cuda.threadIdx.x == 0:  # src
            valid = 0
        out[0] = coop.block.sum(x[cuda.threadIdx.x], valid_items=valid)  # call

    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, SIG, block=THREADS)
    message = str(info.value)
    assert message.startswith(f"coop.block.sum() at {_line(kernel, 'call')}: valid_items= must be the same")
    assert f"a value assigned under the thread-dependent branch of {_line(kernel, 'src')}" in message


def test_per_thread_local_data_as_valid_items_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)  # src
        coop.block.load(x, items)
        out[0] = coop.block.sum(x[cuda.blockIdx.x], valid_items=np.int32(items[0]))  # call

    message = _refused(kernel, "block.sum", "valid_items", "per-thread data in the cuda.local.array")
    assert "written by coop.block.load()" in message


def test_lane_dependent_end_bit_is_refused() -> None:
    @cuda.jit
    def kernel(keys_in, out, n):
        keys = cuda.local.array(ITEMS, np.uint32)
        coop.block.load(keys_in, keys)
        bits = 16 + cuda.laneid  # src
        coop.block.radix_sort(keys, begin_bit=0, end_bit=bits)  # call
        coop.block.store(out, keys)

    _refused(kernel, "block.radix_sort", "end_bit", "cuda.laneid", sig=(U32, U32, types.int64))


def test_thread_dependent_begin_bit_of_radix_rank_is_refused() -> None:
    @cuda.jit
    def kernel(keys_in, out, n):
        keys = cuda.local.array(ITEMS, np.uint32)
        ranks = cuda.local.array(ITEMS, np.int32)
        coop.block.load(keys_in, keys)
        low = cuda.threadIdx.x % 2  # src
        coop.block.radix_rank(keys, ranks, radix_bits=4, begin_bit=low, end_bit=8)  # call
        coop.block.store(out, ranks)

    _refused(kernel, "block.radix_rank", "begin_bit", "cuda.threadIdx", sig=(U32, I32, types.int64))


def test_per_thread_k_of_top_k_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        keys = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, keys)
        k = 1 + cuda.threadIdx.x % 4  # src
        coop.block.top_k(keys, out, k=k)  # call

    _refused(kernel, "block.top_k", "k", "cuda.threadIdx")


def test_per_thread_offset_of_top_k_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        keys = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, keys)
        first = cuda.threadIdx.x  # src
        coop.block.top_k(keys, out, k=4, offset=first)  # call

    _refused(kernel, "block.top_k", "offset", "cuda.threadIdx")


def test_per_thread_argsort_base_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        keys = cuda.local.array(ITEMS, np.float32)
        index = cuda.local.array(ITEMS, np.int32)
        coop.block.load(x, keys)
        base = cuda.threadIdx.x * ITEMS  # src
        coop.block.argsort(keys, index, base=base)  # call
        coop.block.store(out, keys)

    _refused(kernel, "block.argsort", "base", "cuda.threadIdx")


def test_per_thread_scan_seed_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        seed = x[cuda.threadIdx.x]  # src
        out[cuda.threadIdx.x] = coop.block.exclusive_scan(x[cuda.threadIdx.x], "+", initial_value=seed)  # call

    _refused(kernel, "block.exclusive_scan", "initial_value", "cuda.threadIdx")


def test_per_thread_partial_tile_of_adjacent_difference_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        diffs = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items)
        valid = cuda.threadIdx.x * ITEMS  # src
        coop.block.subtract_left_partial_tile(items, operator.sub, valid_items=valid, output=diffs)  # call
        coop.block.store(out, diffs)

    _refused(kernel, "block.subtract_left_partial_tile", "valid_items", "cuda.threadIdx")


def test_per_thread_merge_sort_valid_items_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        keys = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, keys)
        valid = n - cuda.threadIdx.x  # src
        coop.block.merge_sort(keys, "<", valid_items=valid, oob_default=np.float32(np.inf))  # call
        coop.block.store(out, keys)

    _refused(kernel, "block.merge_sort", "valid_items", "cuda.threadIdx")


def test_per_thread_histogram_counters_are_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        samples = cuda.local.array(ITEMS, np.uint8)
        for i in range(ITEMS):
            samples[i] = x[cuda.threadIdx.x * ITEMS + i]
        counters = cuda.shared.array(512, np.uint32)
        mine = counters[cuda.threadIdx.x % 2 * 256 :]  # src
        coop.block.histogram(samples, mine, bins=256)  # call
        cuda.syncthreads()
        out[cuda.threadIdx.x] = counters[cuda.threadIdx.x]

    _refused(kernel, "block.histogram", "counters", "cuda.threadIdx", sig=(types.uint8[::1], U32, types.int64))


def test_per_thread_window_offset_of_run_length_decode_is_refused() -> None:
    @cuda.jit
    def kernel(values, out, n):
        v = cuda.local.array(2, np.int32)
        lengths = cuda.local.array(2, np.uint32)
        decoded = cuda.local.array(ITEMS, np.int32)
        total = cuda.local.array(1, np.int64)
        for i in range(2):
            v[i] = values[cuda.threadIdx.x * 2 + i]
            lengths[i] = 1
        window = cuda.threadIdx.x  # src
        coop.block.run_length_decode(v, decoded, run_lengths=lengths, total_decoded_size=total,  # call
                                     window_offset=window)
        out[cuda.threadIdx.x] = decoded[0]

    _refused(kernel, "block.run_length_decode", "window_offset", "cuda.threadIdx", sig=(I32, I32, types.int64))


# --- refused: warp primitives -------------------------------------------------------------------------


def test_lane_offset_of_warp_load_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        base = cuda.threadIdx.x * ITEMS  # src
        coop.warp.load(x, items, offset=base)  # call
        coop.warp.store(out, items)

    message = _refused(kernel, "warp.load", "offset", "cuda.threadIdx")
    assert "every lane of its logical warp (threads=32)" in message


def test_lane_valid_items_of_warp_sum_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        lane = cuda.threadIdx.x % 32  # src
        out[cuda.threadIdx.x] = coop.warp.sum(x[cuda.threadIdx.x], valid_items=lane)  # call

    _refused(kernel, "warp.sum", "valid_items", "cuda.threadIdx")


def test_half_warp_index_for_a_32_thread_warp_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        half = cuda.threadIdx.x // 16  # src
        coop.warp.load(x, items, offset=half * 16 * ITEMS, threads=32)  # call
        coop.warp.store(out, items, offset=half * 16 * ITEMS, threads=32)

    _refused(kernel, "warp.load", "offset", "cuda.threadIdx")


def test_row_index_when_a_warp_spans_two_rows_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        row = cuda.threadIdx.y  # src
        coop.warp.load(x, items, offset=row * WARP_TILE)  # call
        coop.warp.store(out, items)

    _refused(kernel, "warp.load", "offset", "cuda.threadIdx", block=(16, 4))


def test_grid_index_divided_by_less_than_the_warp_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        base = cuda.grid(1) // 8 * 8 * ITEMS  # src
        coop.warp.load(x, items, offset=base, threads=16)  # call
        coop.warp.store(out, items, offset=base, threads=16)

    _refused(kernel, "warp.load", "offset", "cuda.grid()", block=48)


def test_per_lane_valid_items_of_warp_merge_sort_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        keys = cuda.local.array(ITEMS, np.float32)
        coop.warp.load(x, keys)
        valid = cuda.laneid * ITEMS  # src
        coop.warp.merge_sort(keys, "<", valid_items=valid, oob_default=np.float32(np.inf))  # call
        coop.warp.store(out, keys)

    _refused(kernel, "warp.merge_sort", "valid_items", "cuda.laneid")


def test_per_lane_scan_seed_of_warp_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        seed = x[cuda.laneid]  # src
        out[cuda.threadIdx.x] = coop.warp.exclusive_scan(x[cuda.threadIdx.x], "+", initial_value=seed)  # call

    _refused(kernel, "warp.exclusive_scan", "initial_value", "cuda.laneid")


# --- accepted -----------------------------------------------------------------------------------------


def test_kernel_arguments_and_block_index_arithmetic_are_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        base = cuda.blockIdx.x * TILE
        coop.block.load(x, items, offset=base, valid_items=n - base, oob_default=np.float32(0))
        coop.block.store(out, items, offset=cuda.blockIdx.x * cuda.blockDim.x * ITEMS, valid_items=n)

    _accepted(kernel)


def test_min_of_uniform_values_and_grid_stride_tiles_are_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        tiles = (n + TILE - 1) // TILE
        for tile in range(cuda.blockIdx.x, tiles, cuda.gridDim.x):
            base = tile * TILE
            valid = min(n - base, TILE)
            coop.block.load(x, items, offset=base, valid_items=valid, oob_default=np.float32(0))
            total = coop.block.sum(items[0], valid_items=valid)
            coop.block.store(out, items, offset=base, valid_items=valid)
            if cuda.threadIdx.x == 0:
                out[tile] = total

    _accepted(kernel)


def test_shared_memory_read_at_a_uniform_index_after_syncthreads_is_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        shared = cuda.shared.array(1, np.int64)
        if cuda.threadIdx.x == 0:
            shared[0] = n // 2
        cuda.syncthreads()
        valid = shared[0]
        out[cuda.blockIdx.x] = coop.block.sum(x[cuda.grid(1)], valid_items=valid)

    _accepted(kernel)


def test_uniform_loop_counter_bits_are_accepted() -> None:
    @cuda.jit
    def kernel(keys_in, out, n):
        keys = cuda.local.array(ITEMS, np.uint32)
        coop.block.load(keys_in, keys, offset=cuda.blockIdx.x * TILE)
        for low in range(0, 32, 16):
            coop.block.radix_sort(keys, begin_bit=low, end_bit=low + 16)
        coop.block.store(out, keys, offset=cuda.blockIdx.x * TILE)

    _accepted(kernel, sig=(U32, U32, types.int64))


def test_broadcast_result_and_block_aggregate_are_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        count = coop.block.sum(np.int32(x[cuda.grid(1)] > 0), broadcast=True)
        out[0] = coop.block.sum(x[cuda.grid(1)], valid_items=count)
        aggregate = cuda.local.array(1, np.float32)
        out[cuda.grid(1)] = coop.block.exclusive_scan(x[cuda.grid(1)], "+", initial_value=np.float32(0),
                                                      block_aggregate=aggregate)
        out[cuda.grid(1)] += coop.block.exclusive_scan(x[cuda.grid(1)], "+", initial_value=aggregate[0])

    _accepted(kernel)


def test_top_k_with_argument_k_and_block_offset_is_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        keys = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, keys, offset=cuda.blockIdx.x * TILE)
        coop.block.top_k(keys, out, k=n, offset=cuda.blockIdx.x * n)

    _accepted(kernel)


def test_per_thread_arguments_cub_allows_are_accepted() -> None:
    """Shuffle distances (a gather in CUB), predecessor items (thread 0's is read) and the item
    of each thread stay per-thread."""

    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        diffs = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items)
        out[cuda.threadIdx.x] = coop.block.shuffle_offset(x[cuda.threadIdx.x], distance=np.int32(cuda.threadIdx.x % 3))
        coop.block.subtract_left(items, operator.sub, output=diffs, tile_predecessor_item=x[cuda.threadIdx.x])
        coop.block.store(out, diffs)

    _accepted(kernel)


def test_uniform_assertion_is_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        base = cuda.grid(1) // THREADS * TILE  # blockIdx.x * TILE, spelled through grid()
        coop.block.load(x, items, offset=coop.uniform(base), valid_items=coop.uniform(n - base))
        coop.block.store(out, items, offset=coop.uniform(base))

    _accepted(kernel)


def test_grid_index_divided_by_the_block_size_is_accepted() -> None:
    """``cuda.grid(1) // THREADS`` is ``blockIdx.x``: the exact evaluation sees it for a block primitive."""

    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        base = cuda.grid(1) // THREADS * TILE
        coop.block.load(x, items, offset=base, valid_items=n - base)
        coop.block.store(out, items, offset=base, valid_items=n - base)

    _accepted(kernel)


def test_warp_index_offsets_are_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        warp = cuda.threadIdx.x // WARP
        base = cuda.blockIdx.x * TILE + warp * WARP_TILE
        coop.warp.load(x, items, offset=base, valid_items=n - base, oob_default=np.float32(0))
        coop.warp.store(out, items, offset=base, valid_items=n - base)
        # a 16-lane logical warp inside the 32-thread one: the 32-thread index is the same in its lanes
        coop.warp.store(out, items, offset=base, valid_items=n - base, threads=16)

    _accepted(kernel)


def test_grid_based_warp_index_is_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        base = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP * WARP_TILE
        coop.warp.load(x, items, offset=base)
        coop.warp.store(out, items, offset=cuda.grid(1) // WARP * WARP_TILE)

    _accepted(kernel)


def test_linear_thread_index_of_multidimensional_blocks_is_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = cuda.blockIdx.x * TILE + (tid // 16) * 16 * ITEMS
        coop.warp.load(x, items, offset=base, valid_items=n - base, threads=16)
        coop.warp.store(out, items, offset=base, valid_items=n - base, threads=16)

    _accepted(kernel, block=(8, 4, 2))


def test_row_index_when_rows_are_whole_warps_is_accepted() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(ITEMS, np.float32)
        base = (cuda.blockIdx.x * 2 + cuda.threadIdx.y) * WARP_TILE
        coop.warp.load(x, items, offset=base)
        coop.warp.store(out, items, offset=base)

    _accepted(kernel, block=(32, 2))


def test_warp_index_read_from_global_memory_is_accepted() -> None:
    @cuda.jit
    def kernel(x, out, counts):
        warp = cuda.threadIdx.x // WARP
        out[cuda.threadIdx.x] = coop.warp.sum(x[cuda.threadIdx.x], valid_items=counts[warp])

    _accepted(kernel, sig=(F32, F32, types.int64[::1]))


def test_warp_broadcast_result_is_accepted_for_its_warp_only() -> None:
    @cuda.jit
    def kernel(x, out, n):
        count = coop.warp.sum(np.int32(x[cuda.threadIdx.x] > 0), broadcast=True)  # the same in the warp
        out[cuda.threadIdx.x] = coop.warp.sum(x[cuda.threadIdx.x], valid_items=count)

    _accepted(kernel)

    @cuda.jit
    def wider(x, out, n):
        count = coop.warp.sum(np.int32(x[cuda.threadIdx.x] > 0), threads=16, broadcast=True)  # src
        out[cuda.threadIdx.x] = coop.warp.sum(x[cuda.threadIdx.x], valid_items=count)  # call

    _refused(wider, "warp.sum", "valid_items", "the result of coop.warp.sum()")


# --- the spec flag and its docs -----------------------------------------------------------------------


def test_generated_docs_say_which_arguments_must_be_uniform() -> None:
    def doc_of(fn, name: str) -> str:
        lines = fn.__doc__.split("\n")
        start = lines.index(f"{name}:")
        return lines[start + 1]

    same_block = "Must be the same in every thread of the block"
    for name in ("src", "offset", "valid_items", "oob_default"):
        assert same_block in doc_of(coop.block.load, name), name
    assert same_block in doc_of(coop.block.radix_sort, "end_bit")
    assert same_block in doc_of(coop.block.top_k, "k")
    assert "Must be the same in every lane of the logical warp" in doc_of(coop.warp.store, "valid_items")
    assert "Must be the same" not in doc_of(coop.block.shuffle_offset, "distance")
    assert "Must be the same" not in doc_of(coop.block.load, "items")


def test_only_scalars_and_pointers_can_be_uniform() -> None:
    from cuda.coop._specs import ArgKind, Param

    with pytest.raises(ValueError, match="only SCALAR and POINTER parameters are uniform"):
        Param(name="items", kind=ArgKind.ARRAY, type="dtype", extent="items_per_thread", uniform=True)


def test_a_logical_warp_that_does_not_divide_the_block_is_reported_as_such() -> None:
    @cuda.jit
    def kernel(x, out, n):
        lane = cuda.threadIdx.x % 32
        out[cuda.threadIdx.x] = coop.warp.sum(x[cuda.threadIdx.x], valid_items=lane, threads=24)

    with pytest.raises(UsageError, match="threads=24"):
        compile_kernel(kernel, SIG, block=THREADS)


def test_conversions_of_uniform_values_are_accepted() -> None:
    """Half-precision conversions (``ushort_as_bfloat16``) and numba type casts are pure functions:
    their result is uniform when their argument is."""
    from numba_cuda_mlir.numba_cuda.bf16 import ushort_as_bfloat16

    @cuda.jit
    def kernel(x, out, n):
        seed = ushort_as_bfloat16(x[64])
        v = ushort_as_bfloat16(x[cuda.threadIdx.x])
        out[cuda.threadIdx.x] = coop.block.exclusive_scan(v, "+", initial_value=seed)
        out[0] = coop.block.sum(v, valid_items=types.int32(n))

    _accepted(kernel, sig=(types.uint16[::1], types.bfloat16[::1], types.int64))

    @cuda.jit
    def per_thread(x, out, n):
        seed = ushort_as_bfloat16(x[cuda.threadIdx.x])  # src
        out[cuda.threadIdx.x] = coop.block.exclusive_scan(seed, "+", initial_value=seed)  # call

    _refused(per_thread, "block.exclusive_scan", "initial_value", "cuda.threadIdx",
             sig=(types.uint16[::1], types.bfloat16[::1], types.int64))
