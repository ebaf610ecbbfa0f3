"""BlockMergeSort and the warp sorts (cuda_coop::WarpSort: ``"merge_sort"`` and ``"bitonic"``) for sm_90 without a
GPU: NVRTC of every overload, the GPU tier's kernels through numba-cuda-mlir (inlined: no CALL, no local memory), the
48 KiB refusal, and misuse errors.

CUB's merge sort keeps its tile in registers and shared memory: none of the compiled shapes (up to 8 items per
thread, 8-byte keys and values) uses local memory, and neither does the bitonic warp sort's under numba-cuda-mlir, so
every kernel here is held to no CALL/LDL/STL and no nvcc twin is needed to excuse a spill; the one exception is a
register spill of the bitonic warp sorts under numba-cuda (see its test).
"""

from __future__ import annotations

import numpy as np
import pytest

from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import Request, UserOp
from tests.helpers.nvrtc import compile_requests

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import CompileError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_merge_sort as sanitizer
from tests.gpu import test_family_merge_sort as gpu
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.refusal import refused
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import block_rank, covering

OVERLOADS = ("keys", "pairs", "keys_valid", "pairs_valid", "keys_valid_default", "pairs_valid_default")
KEY_TYPES = ("int8", "uint16", "int32", "uint64", "float16", "float32", "float64", "complex64")
VALUE_TYPES = ("int32", "float64", "uint8", "complex128", "int64")
COMPARES: tuple[object, ...] = ("<", ">", "user")


def _requests(spec: str, extra: dict[str, object]) -> list[Request]:
    """Every overload x stable, key types rotating; user comparators for some (always for complex keys)."""
    requests = []
    for i, dtype in enumerate(KEY_TYPES):
        for j, overload in enumerate(OVERLOADS):
            n = i + j
            compare: object = COMPARES[n % 3]
            if compare == "user" or dtype.startswith("complex"):
                compare = UserOp(f"cmp_{dtype}")
            kw: dict[str, object] = {"dtype": dtype, "items_per_thread": 1 + n % 4, "compare": compare,
                                     "stable": n % 2 == 0, **extra}
            if "pairs" in overload:
                kw["value_type"] = VALUE_TYPES[n % len(VALUE_TYPES)]
            if "valid" in overload:
                kw["count_type"] = ("int32", "uint64", "int64")[n % 3]
            if spec == "warp_merge_sort":  # both algorithms, each with every overload, stable or not
                kw["algorithm"] = ("merge_sort", "bitonic")[(n // 2 + j) % 2]
            requests.append(Request(spec, "merge_sort", overload, **kw))
    return requests


@pytest.mark.parametrize("block", [(128,), (16, 8), (4, 4, 4)], ids=["1d", "2d", "3d"])
def test_every_block_overload_compiles(block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests = _requests("block_merge_sort", {})
    p = compile_requests(requests, toolchain, compiler, block)
    assert len(p.plan.signatures) == len(requests) == len(KEY_TYPES) * len(OVERLOADS)


@pytest.mark.parametrize("threads", [1, 2, 4, 8, 16, 32])
def test_every_warp_overload_compiles(threads: int, toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests = _requests("warp_merge_sort", {"threads": threads})
    p = compile_requests(requests, toolchain, compiler, (64,))
    assert len(p.plan.signatures) == len(requests)
    forms = {(dict(r.params)["algorithm"], r.overload, dict(r.params)["stable"]) for r in requests}
    assert forms == {(a, o, s) for a in ("merge_sort", "bitonic") for o in OVERLOADS for s in (False, True)}


# --- the GPU tier's kernels ----------------------------------------------------------------------------------


def _sort(case: gpu.Case) -> str:
    """What sorts the tile: the block's merge sort, or the warp's algorithm."""
    return f"warp {case.algorithm}" if case.warp else "block"


def _spread(cases: list[gpu.Case]) -> list[gpu.Case]:
    """The first case of each block shape, warp width, key dtype, value type and items per thread not seen yet."""
    seen: set[tuple[int, object]] = set()
    picked = []
    for case in cases:
        keys = {(0, case.block), (1, case.dtype), (2, case.values), (3, case.ipt), (4, case.warp), (5, _sort(case))}
        if keys - seen:
            seen |= keys
            picked.append(case)
    return picked


CASES = _spread(gpu.BLOCK_CASES + sorted(gpu.WARP_CASES, key=lambda c: (c.algorithm == "merge_sort", -c.warp)))
"""The bitonic warp case first is a 32-lane one (several items and values: both exchanges back to blocked)."""


def test_the_subset_covers_the_gpu_matrix() -> None:
    every = gpu.BLOCK_CASES + gpu.WARP_CASES
    for axis in ("block", "dtype", "values", "ipt", "warp"):
        assert {getattr(c, axis) for c in CASES} == {getattr(c, axis) for c in every}, axis
    assert {_sort(c) for c in CASES} == {_sort(c) for c in every} == {"block", "warp merge_sort", "warp bitonic"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gpu_kernel_compiles_inlined(case: gpu.Case, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    kernels = gpu.make_kernel(case)
    for kernel in kernels:
        compiled = compile_kernel(kernel, gpu.signature(case), block=case.block, grid=case.grid)
        assert_inlined(compiled)
    text = "".join(source.read_text() for source in sorted(tmp_path.glob("*.cu")))
    assert len(list(tmp_path.glob("*.cu"))) == len(kernels) == (2 if case.warp else 1)
    assert ("cuda_coop::WarpSort<" if case.warp else "cub::BlockMergeSort<") in text
    if case.warp:
        assert text.count(f"cuda_coop::WARP_SORT_{case.algorithm.upper()}>;") == 6  # the six sorts, one algorithm
    assert ".StableSort(" in text and ".Sort(" in text
    assert text.count(f"clamp_count<{case.tile}>(valid_items)") == 3  # the three partial sorts, clamped to the tile


NUMBA_CUDA_CASES = covering(CASES, block_rank, _sort)
"""The same kernels' sources under numba-cuda: every block rank; the block sort and both warp algorithms."""


def test_the_numba_cuda_subset_covers_every_sort() -> None:
    assert {_sort(c) for c in NUMBA_CUDA_CASES} == {"block", "warp merge_sort", "warp bitonic"}
    assert {block_rank(c) for c in NUMBA_CUDA_CASES} == {1, 2, 3}


@pytest.mark.parametrize("case", NUMBA_CUDA_CASES, ids=lambda c: c.id)
def test_gpu_kernel_compiles_inlined_under_numba_cuda(case: gpu.Case) -> None:
    """Every wrapper inlined. Register spills are allowed for the bitonic warp sorts only: numba-cuda's kernel of the
    three positioned partial sorts by a Python comparator, with values, keeps 64 registers a thread and spills one
    8-byte pair (measured: 2 LDL.64, 2 STL.64; numba-cuda-mlir's compile of the same kernel spills nothing)."""
    sig = gpu.signature(case, dsl=NUMBA_CUDA)
    for kernel in gpu.make_kernel(case, dsl=NUMBA_CUDA):
        compiled = NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block, grid=case.grid)
        assert_inlined(compiled, spills=case.algorithm == "bitonic")


@pytest.mark.parametrize("block", sanitizer.BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_sanitizer_kernel_compiles_inlined(block: tuple[int, int, int]) -> None:
    i32, f64 = types.int32[::1], types.float64[::1]
    sig = (i32, f64, i32, f64, i32, f64, i32, i32, i32, i32, i32, f64)
    assert_inlined(compile_kernel(sanitizer.kernel_for(int(np.prod(block))), sig, block=block))


SMEM_REFUSAL = r"static assertion failed.*exceeds the 48 KiB of static shared memory a block may have"


def test_a_tile_over_the_shared_memory_is_refused() -> None:
    """1024 threads x 8 float64 keys: CUB's storage is the tile plus one key (64 KiB): the documented error."""
    case = gpu.Case("float64", None, (1024, 1, 1), 8)
    assert (case.tile + 1) * 8 > 48 * 1024
    assert all((c.tile + 1) * 8 * c.threads // c.group <= 48 * 1024 for c in gpu.BLOCK_CASES + gpu.WARP_CASES)
    with pytest.raises(CompileError, match=SMEM_REFUSAL):
        compile_kernel(gpu.make_kernel(case)[0], gpu.signature(case), block=case.block)


# --- misuse --------------------------------------------------------------------------------------------------

F32, I32 = types.float32[::1], types.int32[::1]


def _refused(kernel, *needles: str, sig=(F32, I32), block=(128,)) -> str:  # type: ignore[no-untyped-def]
    return refused(kernel, sig, *needles, block=block)


def test_a_comparator_takes_two_keys() -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.float32)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, lambda a: a < 0)  # call

    _refused(kernel, "merge_sort", "compare=", "takes 1 argument(s)", "2")


def test_a_comparator_returns_a_bool() -> None:
    def difference(a, b):  # type: ignore[no-untyped-def]
        return a - b

    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.float32)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, difference)  # call

    _refused(kernel, "merge_sort", "compare=", "bool")


@pytest.mark.parametrize(("compare", "needle"), [("+", "compare='+' is not a comparison"),
                                                 ("==", "compare='==' is not a strict weak order")])
def test_a_comparator_is_an_order(compare: str, needle: str) -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.float32)
        coop.block.load(x, keys)
        coop.warp.merge_sort(keys, compare)  # call

    _refused(kernel, needle)


def test_oob_default_has_the_keys_type() -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.int32)
        coop.block.load(n, keys)
        coop.block.merge_sort(keys, "<", valid_items=n[0], oob_default=x[0])  # call

    _refused(kernel, "oob_default=", "float32", "int32")


def test_oob_default_needs_valid_items() -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.float32)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, "<", oob_default=x[0])  # call

    _refused(kernel, "merge_sort", "oob_default", "valid_items")


def test_valid_items_is_an_integer() -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.float32)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, "<", valid_items=x[0])  # call

    _refused(kernel, "valid_items=", "integer")


def test_values_need_the_keys_extent() -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.float32)
        values = cuda.local.array(3, np.int32)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, "<", values=values)  # call

    _refused(kernel, "merge_sort", "3 items")


def test_a_block_that_is_not_a_power_of_two_is_refused() -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(4, np.float32)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, "<")  # call

    _refused(kernel, "power of two", "(33, 1, 1) has 33 threads", block=(33,))
    _refused(kernel, "power of two", "(12, 8, 1) has 96 threads", block=(12, 8))


@pytest.mark.parametrize("threads", [3, 12, 64])
def test_a_logical_warp_cub_refuses(threads: int) -> None:
    @cuda.jit
    def kernel(x, n):
        keys = cuda.local.array(2, np.float32)
        coop.warp.load(x, keys)
        coop.warp.merge_sort(keys, "<", threads=threads)  # call

    _refused(kernel, f"threads={threads} must be a power of two up to 32", block=(192,))
