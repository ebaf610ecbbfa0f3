"""``coop.warp.load`` / ``coop.warp.store`` compiled for sm_90 without a GPU (compile tier).

Every overload x algorithm through real NVRTC; DSL kernels in 1-D/2-D/3-D blocks with inlined wrappers (no CALL,
LDL, STL); the GPU tier's kernels; misuse errors naming the argument and the call's file:line.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import Request, user_type
from cuda.coop.errors import CompileError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_warp_load_store as sanitizer_kernel
from tests.gpu import test_family_warp_load_store as gpu_matrix
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.nvrtc import compile_requests
from tests.helpers.refusal import refused
from tests.helpers.sass import assert_inlined, instructions
from tests.helpers.subset import block_rank, covering

ALGORITHMS = ("direct", "striped", "vectorize", "transpose")
F32 = types.float32[::1]
I32 = types.int32[::1]
I64 = types.int64[::1]


def _requests(dtype: object, ipt: int, threads: int) -> list[Request]:
    result = []
    for algorithm in ALGORITHMS:
        common = {"dtype": dtype, "items_per_thread": ipt, "algorithm": algorithm, "threads": threads}
        result += [
            Request("warp_load", "load", "full", **common),
            Request("warp_load", "load", "guarded", count_type="uint64", **common),
            Request("warp_load", "load", "guarded_default", count_type="int8", **common),
            Request("warp_store", "store", "full", **common),
            Request("warp_store", "store", "guarded", count_type="int64", **common),
        ]
    return result


@pytest.mark.parametrize(
    ("dtype", "ipt", "threads", "block"),
    [
        ("int8", 4, 32, (128,)),
        ("float64", 1, 1, (33,)),
        ("float16", 3, 16, (16, 8)),
        ("complex64", 2, 8, (4, 4, 4)),
        (user_type(12, 4), 5, 4, (64,)),
    ],
    ids=["int8", "float64", "float16", "complex64", "udt"],
)
def test_every_overload_and_algorithm_compiles_with_nvrtc(
    toolchain: Toolchain, compiler: NvrtcCompiler, dtype: object, ipt: int, threads: int, block: tuple[int, ...]
) -> None:
    provider = compile_requests(_requests(dtype, ipt, threads), toolchain, compiler, block)
    assert len(provider.symbols) == 5 * len(ALGORITHMS)


# -- the DSL ---------------------------------------------------------------------------------------------------


@cuda.jit
def every_algorithm(x, out, n):
    items = cuda.local.array(4, np.float32)
    tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    base32 = cuda.blockIdx.x * 512 + (tid // 32) * 128
    base8 = cuda.blockIdx.x * 512 + (tid // 8) * 32
    coop.warp.load(x, items, offset=base32)
    coop.warp.store(out, items, offset=base32, algorithm="striped")
    coop.warp.load(x, items, offset=base8, valid_items=n - base8, algorithm="striped", threads=8)
    coop.warp.store(out, items, offset=base8, valid_items=n - base8, algorithm="vectorize", threads=8)
    coop.warp.load(x, items, offset=base32, valid_items=n - base32, oob_default=-1.0, algorithm="vectorize")
    coop.warp.store(out, items, offset=base32, algorithm="transpose")
    coop.warp.load(x, items, offset=base8, valid_items=n - base8, oob_default=0.0, algorithm="transpose", threads=8)
    coop.warp.store(out, items, offset=base8, valid_items=n - base8, threads=8)


@pytest.mark.parametrize("block", [(128,), (16, 8), (4, 4, 8)], ids=["1d", "2d", "3d"])
def test_every_algorithm_compiles_inlined(block: tuple[int, ...]) -> None:
    assert_inlined(compile_kernel(every_algorithm, (F32, F32, types.int64), block=block))


@pytest.mark.parametrize("algorithm", ["vectorize", "direct"])
def test_vectorize_uses_vector_loads_and_stores(algorithm: str) -> None:
    ALGO = algorithm

    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, np.float32)
        base = cuda.blockIdx.x * 128 + (cuda.threadIdx.x // 32) * 128
        coop.warp.load(x, items, offset=base, algorithm=ALGO)
        coop.warp.store(out, items, offset=base, algorithm=ALGO)

    sass = compile_kernel(kernel, (F32, F32), block=32).sass()
    wide = [line for line in instructions(sass) if re.search(r"\b(LDG|STG)\.E\.128\b", line)]
    assert bool(wide) == (algorithm == "vectorize"), wide


def test_one_storage_slot_per_logical_warp(tmp_path, monkeypatch) -> None:
    """The transposing algorithms get one TempStorage per logical warp (not per block): a warp of 8 lanes indexes
    its own slot, so warps never share the exchange buffer."""
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))

    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(2, np.int64)
        base = (cuda.threadIdx.x // 8) * 16
        coop.warp.load(x, items, offset=base, algorithm="transpose", threads=8)
        coop.warp.store(out, items, offset=base, algorithm="transpose", threads=8)

    compile_kernel(kernel, (I64, I64), block=64)
    (source,) = tmp_path.glob("*.cu")
    text = source.read_text()
    assert "cub::WarpLoad<long long, 2, cub::WARP_LOAD_TRANSPOSE, 8>" in text
    assert "prim_0::TempStorage s0[4];" in text and "warp_storage_t warp[2];" in text
    assert text.count("storage.warp[tid / 32].w8.s") == 2


# -- the GPU tier's kernels ------------------------------------------------------------------------------------


def test_gpu_matrix_covers_what_it_claims() -> None:
    cases = gpu_matrix.CASES
    full = {(d, b, i) for d in gpu_matrix.DTYPES for b in gpu_matrix.BLOCKS for i in gpu_matrix.ITEMS}
    refused = {(d, (1024, 1, 1), 16) for d in gpu_matrix.DTYPES if np.dtype(d).itemsize >= 4}
    assert {(c.dtype, c.block, c.ipt) for c in cases} == full - refused  # the full product, but the documented error
    by_shape: dict = {}
    kernels: dict = {}
    for group in gpu_matrix.GROUPS:
        assert len({(c.block, c.ipt) for c in group}) == 1 and len({c.dtype for c in group}) == len(group)
        assert gpu_matrix._storage(list(group)) <= gpu_matrix.TILE_BYTES, gpu_matrix.group_id(group)
        earlier = kernels.setdefault((group[0].block, group[0].ipt), [])
        assert all(gpu_matrix._storage([*k, group[0]]) > gpu_matrix.TILE_BYTES for k in earlier), (
            f"{gpu_matrix.group_id(group)}: a kernel more than needed (its first run fits an earlier kernel)")
        earlier.append(group)  # one kernel per (block, items), but where the storage of one would pass TILE_BYTES
        by_shape.setdefault((group[0].block, group[0].ipt), []).extend(group)
    for (block, _), runs in by_shape.items():
        widths = {w for w in gpu_matrix.WIDTHS if math.prod(block) % w == 0}
        got = {c.width for c in runs}  # every logical warp the block allows (as many as there are runs)
        assert got == widths if len(runs) >= len(widths) else len(got) == len(runs), (block, got)
    for c in cases:
        assert math.prod(c.block) % c.width == 0
        last_block_first_warp = (gpu_matrix.GRID - 1) * c.threads * c.ipt
        assert c.n < c.total and (c.threads == c.width or c.n > last_block_first_warp), c.id  # a partial tile
    gpu_matrix.test_reference_arrangements()


COVERING = covering(gpu_matrix.CASES, "dtype", "block", "width", "ipt")
"""Every dtype, block shape, logical warp size and item count of the GPU tier's runs, each run compiled as a kernel of
its own (the GPU tier compiles its multi-run kernels)."""


@pytest.mark.parametrize("case", COVERING, ids=lambda c: c.id)
def test_gpu_kernel_compiles(case) -> None:
    compiled = compile_kernel(gpu_matrix.make_kernel((case,)), gpu_matrix.signature((case,)), block=case.block,
                              grid=gpu_matrix.GRID)
    assert compiled.cubin


NUMBA_CUDA_COVERING = covering(COVERING, block_rank)
"""The same kernels' sources under numba-cuda: every block rank."""


@pytest.mark.parametrize("case", NUMBA_CUDA_COVERING, ids=lambda c: c.id)
def test_gpu_kernel_compiles_under_numba_cuda(case) -> None:
    kernel, sig = gpu_matrix.make_kernel((case,), dsl=NUMBA_CUDA), gpu_matrix.signature((case,), dsl=NUMBA_CUDA)
    assert NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block, grid=gpu_matrix.GRID).cubin


@pytest.mark.parametrize(("block", "width"), sanitizer_kernel.CASES)
def test_sanitizer_kernel_compiles(block: tuple[int, int, int], width: int) -> None:
    kernel = sanitizer_kernel._kernel(math.prod(block), width)
    assert compile_kernel(kernel, (I32, I32, I32, types.int64), block=block, grid=sanitizer_kernel.GRID).cubin


def test_shifted_vectorize_kernel_compiles() -> None:
    kernel = gpu_matrix.make_shift_kernel()
    compiled = compile_kernel(kernel, (I32, I32, types.int64), block=gpu_matrix.SHIFT_T, grid=gpu_matrix.GRID)
    assert re.search(r"\bLDG\.E\.128\b", compiled.sass())  # the aligned path is there, next to the fallback


# -- misuse ----------------------------------------------------------------------------------------------------


def _refused(kernel, *needles: str, sig=(F32, F32, types.int64), block=(128,)) -> str:  # type: ignore[no-untyped-def]
    return refused(kernel, sig, *needles, block=block)


def test_transposed_tiles_over_the_shared_memory_are_refused() -> None:
    """1024 threads x 16 items of 4 bytes: ``"transpose"`` keeps every logical warp's tile in shared memory, over the
    48 KiB a block may have (the GPU matrix gives that block fewer items); this is the documented error."""
    case = gpu_matrix.Case("int32", (1024, 1, 1), 32, 16)
    assert not gpu_matrix.fits(case.dtype, case.block, case.ipt)
    with pytest.raises(CompileError, match=r"static assertion failed.*exceeds the 48 KiB of static shared memory"):
        compile_kernel(gpu_matrix.make_kernel((case,)), gpu_matrix.signature((case,)), block=case.block,
                       grid=gpu_matrix.GRID)


def test_logical_warp_that_does_not_divide_the_block_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.warp.load(x, items, threads=16)  # call
        out[0] = items[0]

    _refused(kernel, "coop.warp.load()", "threads=16", "divides the block size", block=(40,))


def test_block_algorithm_names_are_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.warp.load(x, items)
        coop.warp.store(out, items, algorithm="warp_transpose")  # call

    _refused(kernel, "coop.warp.store()", "algorithm", "'warp_transpose'", "'transpose'")


def test_items_must_be_a_local_array_of_the_source_type() -> None:
    @cuda.jit
    def wrong_type(x, out, n):
        items = cuda.local.array(4, np.int32)
        coop.warp.load(x, items)  # call
        out[0] = items[0]

    @cuda.jit
    def global_items(x, out, n):
        coop.warp.load(x, out)  # call

    _refused(wrong_type, "coop.warp.load()", "items=", "float32")
    _refused(global_items, "coop.warp.load()", "items=", "cuda.local.array")


def test_counts_and_offsets_must_be_integers() -> None:
    @cuda.jit
    def float_count(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.warp.load(x, items, valid_items=x[0])  # call
        out[0] = items[0]

    @cuda.jit
    def float_offset(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.warp.load(x, items)
        coop.warp.store(out, items, offset=x[0])  # call

    _refused(float_count, "valid_items=", "integer")
    _refused(float_offset, "offset=", "integer")


def test_oob_default_without_valid_items_is_refused() -> None:
    @cuda.jit
    def kernel(x, out, n):
        items = cuda.local.array(4, np.float32)
        coop.warp.load(x, items, oob_default=0.0)  # call
        out[0] = items[0]

    _refused(kernel, "coop.warp.load()", "oob_default")
