"""BlockExchange and WarpExchange through real NVRTC and numba-cuda-mlir for sm_90 (no GPU).

Every method and algorithm compiles for every dtype CUB moves (NVRTC); the GPU tier's kernels compile
through ``compile_kernel`` in 1-D, 2-D and 3-D blocks, with every wrapper inlined (no CALL, no local
memory); misuse is a UsageError naming the argument and the call's file:line.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import BUILTIN_TYPES, Request, user_type
from cuda.coop.errors import CompileError, UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_exchange
from tests.gpu import test_family_exchange as gpu
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.nvrtc import compile_requests, every_overload
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import block_rank, covering

BLOCK_TYPES = [*BUILTIN_TYPES, user_type(12, 4), user_type(3, 1)]
SHUFFLE_TYPES = ("int8", "uint16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
WARP_STRIPED = ("warp_striped_to_blocked", "blocked_to_warp_striped")
UNSLICED = ("scatter_to_striped_guarded", "scatter_to_striped_flagged")
F32 = types.float32[::1]


def _block_requests(block_threads: int) -> list[Request]:
    """Every BlockExchange overload x each dtype (rotating) x warp_time_slicing, items 3, 4 and 8 (padded)."""
    requests = []
    for k, (method, overload) in enumerate(every_overload("block_exchange")):
        if method in WARP_STRIPED and block_threads % 32:
            continue
        for s, slicing in enumerate((False, True)):
            if slicing and method in UNSLICED and block_threads > 32:
                continue
            for j, ipt in enumerate((3, 4, 8)):
                dtype = BLOCK_TYPES[(3 * k + 2 * s + j) % len(BLOCK_TYPES)]
                params: dict[str, object] = {"dtype": dtype, "items_per_thread": ipt, "warp_time_slicing": slicing}
                if "scatter" in method:
                    params["rank_type"] = ("int16", "int32", "int64")[j] if "guarded" in method else (
                        ("uint8", "int32", "uint64")[j])
                if "flagged" in method:
                    params["flag_type"] = ("bool", "uint8", "int32")[j]
                requests.append(Request("block_exchange", method, overload, **params))
    return requests


@pytest.mark.parametrize("block", [(96,), (16, 4, 2), (33,)], ids=["96", "16x4x2", "33"])
def test_every_block_overload_compiles(block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    threads = int(np.prod(block))
    requests = _block_requests(threads)
    p = compile_requests(requests, toolchain, compiler, block)
    assert len(p.symbols) == len(requests)
    methods = {r.method for r in requests}
    assert methods == {m for m, _ in every_overload("block_exchange")} - (set(WARP_STRIPED) if threads % 32 else set())


def _warp_requests() -> list[Request]:
    requests = []
    for k, (method, overload) in enumerate(every_overload("warp_exchange")):
        for j, width in enumerate((1, 2, 4, 8, 16, 32)):
            params: dict[str, object] = {"dtype": BLOCK_TYPES[(k + j) % len(BLOCK_TYPES)], "items_per_thread": 1 + j,
                                         "threads": width}
            if "scatter" in method:
                params["rank_type"] = ("int8", "uint16", "int32", "uint32", "int64", "uint64")[j]
            requests.append(Request("warp_exchange", method, overload, **params))
            if "scatter" not in method:
                shuffle_type = SHUFFLE_TYPES[(k + j) % len(SHUFFLE_TYPES)]
                requests.append(Request("warp_exchange", method, overload, dtype=shuffle_type, items_per_thread=width,
                                        threads=width, algorithm="shuffle"))
    return requests


def test_every_warp_overload_and_algorithm_compiles(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests = _warp_requests()
    p = compile_requests(requests, toolchain, compiler, (64,))
    assert len(p.symbols) == len(requests)
    assert {dict(r.params).get("algorithm", "smem") for r in requests} == {"smem", "shuffle"}


def test_shuffle_of_every_builtin_scalar_type_compiles(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    """The spec lets the shuffle move every int, uint and float type: each passes through __shfl_xor_sync."""
    names = [n for n, vt in BUILTIN_TYPES.items() if vt.kind in ("int", "uint", "float")]
    requests = [Request("warp_exchange", "blocked_to_striped", "array", dtype=n, items_per_thread=4, threads=4,
                        algorithm="shuffle") for n in names]
    compile_requests(requests, toolchain, compiler, (32,))


# -- the DSL ------------------------------------------------------------------------------------------------


def _register_bound(case) -> bool:  # type: ignore[no-untyped-def]
    """The cases the strict check predates: 256 or 1024 threads, or 16 items a thread."""
    return bool(case.threads >= 256 or case.ipt == 16)


BLOCK_COVERING = covering(
    [gpu.BlockCase(c.block, c.ipt, (d,)) for c in gpu.BLOCK_CASES for d in c.dtypes], "block", "ipt", "dtypes"
)
"""Every block shape, item count and dtype of the GPU tier's block kernels, one dtype a kernel (the GPU tier's 21
kernels each hold every dtype that fits)."""
WARP_COVERING = covering(gpu.WARP_MATRIX, "dtype", "block", "width", "ipt", also=gpu.WARP_CASES[-2:])
"""Every dtype, block shape, logical warp size and item count of the GPU tier's warp kernels, and the two widest."""


@pytest.mark.parametrize("case", BLOCK_COVERING, ids=lambda c: f"{c.id}-{c.dtypes[0]}")
def test_gpu_block_kernel_compiles_inlined(case) -> None:
    """No CALL and no local memory: one dtype's exchanges (the GPU tier's kernels, holding every dtype, may spill)."""
    assert_inlined(compile_kernel(gpu.make_block_kernel(case), gpu.block_signature(case), block=case.block),
                    spills=_register_bound(case))


@pytest.mark.parametrize("case", WARP_COVERING, ids=lambda c: c.id)
def test_gpu_warp_kernel_compiles_inlined(case) -> None:
    assert_inlined(compile_kernel(gpu.make_warp_kernel(case), gpu.warp_signature(case), block=case.block),
                    spills=_register_bound(case))


NUMBA_CUDA_BLOCK = covering(BLOCK_COVERING, block_rank, lambda c: c.whole_warps)
NUMBA_CUDA_WARP = covering(WARP_COVERING, block_rank)
"""The same kernels' sources under numba-cuda: every block rank, whole and partial warps."""


@pytest.mark.parametrize("case", NUMBA_CUDA_BLOCK, ids=lambda c: f"{c.id}-{c.dtypes[0]}")
def test_gpu_block_kernel_compiles_inlined_under_numba_cuda(case) -> None:
    kernel, sig = gpu.make_block_kernel(case, dsl=NUMBA_CUDA), gpu.block_signature(case, dsl=NUMBA_CUDA)
    assert_inlined(NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block), spills=_register_bound(case))


@pytest.mark.parametrize("case", NUMBA_CUDA_WARP, ids=lambda c: c.id)
def test_gpu_warp_kernel_compiles_inlined_under_numba_cuda(case) -> None:
    kernel, sig = gpu.make_warp_kernel(case, dsl=NUMBA_CUDA), gpu.warp_signature(case, dsl=NUMBA_CUDA)
    assert_inlined(NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block), spills=_register_bound(case))


@pytest.mark.parametrize("block", _sanitizer_exchange.BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_sanitizer_kernel_compiles_inlined(block: tuple[int, int, int]) -> None:
    i32 = types.int32[::1]
    kernel = _sanitizer_exchange.kernel_for(int(np.prod(block)))
    assert_inlined(compile_kernel(kernel, (i32,) * 5, block=block))


def test_gpu_cases_cover_the_shapes() -> None:
    assert {c.block for c in gpu.BLOCK_CASES} == set(gpu.BLOCKS)
    assert {(c.block, c.ipt) for c in gpu.BLOCK_CASES} == {(b, i) for b in gpu.BLOCKS for i in gpu.ITEMS}
    for c in gpu.BLOCK_CASES:  # the full product: every dtype whose tile fits in shared memory, in one kernel
        assert c.dtypes == tuple(d for d in gpu.DTYPES if c.tile * np.dtype(d).itemsize <= gpu.TILE_BYTES), c.id
    left_out = {(c.id, d) for c in gpu.BLOCK_CASES for d in gpu.DTYPES if d not in c.dtypes}
    assert left_out == {("1024x1x1-ipt16", d) for d in gpu.DTYPES if np.dtype(d).itemsize >= 4}
    assert {c.width for c in gpu.WARP_CASES} == {1, 2, 4, 8, 16, 32}
    assert {c.ipt for c in gpu.WARP_CASES} == set(gpu.ITEMS)
    assert {(256, 1, 1), (1024, 1, 1)} <= {c.block for c in gpu.WARP_CASES}
    assert {len([d for d in c.block if d > 1]) for c in gpu.WARP_CASES} == {1, 2, 3}


SMEM_REFUSAL = r"static assertion failed.*exceeds the 48 KiB of static shared memory a block may have"


@pytest.mark.parametrize("dtype", [d for d in gpu.DTYPES if np.dtype(d).itemsize >= 4])
def test_a_tile_over_the_shared_memory_is_refused(dtype: str) -> None:
    """1024 threads x 16 items of 4 or 8 bytes: the GPU matrix leaves those dtypes out there, because CUB's
    storage for the tile is over the 48 KiB a block may have; this is the documented error."""
    case = gpu.BlockCase((1024, 1, 1), 16, (dtype,))
    assert not gpu.fits(case.block, case.ipt, dtype)
    with pytest.raises(CompileError, match=SMEM_REFUSAL):
        compile_kernel(gpu.make_block_kernel(case), gpu.block_signature(case), block=case.block)


def test_warp_striped_kernel_refused_on_a_partial_warp() -> None:
    case = gpu.BlockCase((33, 1, 1), 4, ("int32",))
    with pytest.raises(UsageError, match=r"test_family_exchange.py:\d+: .*needs whole warps"):
        compile_kernel(gpu.make_block_kernel(case, whole_warps=True), gpu.block_signature(case), block=(33,))


# -- misuse ---------------------------------------------------------------------------------------------------


@cuda.jit
def _unsigned_guarded_ranks(x):
    items = cuda.local.array(4, np.float32)
    ranks = cuda.local.array(4, np.uint32)
    for i in range(4):
        items[i] = x[i]
        ranks[i] = i
    coop.block.scatter_to_striped_guarded(items, ranks)
    x[0] = items[0]


@cuda.jit
def _float_ranks(x):
    items = cuda.local.array(4, np.float32)
    ranks = cuda.local.array(4, np.float32)
    for i in range(4):
        items[i] = x[i]
        ranks[i] = i
    coop.block.scatter_to_blocked(items, ranks)
    x[0] = items[0]


@cuda.jit
def _short_ranks(x):
    items = cuda.local.array(4, np.float32)
    ranks = cuda.local.array(2, np.int32)
    for i in range(4):
        items[i] = x[i]
    coop.block.scatter_to_blocked(items, ranks)
    x[0] = items[0]


@cuda.jit
def _other_output_type(x):
    items = cuda.local.array(4, np.float32)
    out = cuda.local.array(4, np.float64)
    for i in range(4):
        items[i] = x[i]
    coop.block.blocked_to_striped(items, output=out)
    x[0] = out[0]


@cuda.jit
def _shuffle_not_square(x):
    items = cuda.local.array(4, np.float32)
    for i in range(4):
        items[i] = x[i]
    coop.warp.blocked_to_striped(items, threads=8, algorithm="shuffle")
    x[0] = items[0]


@cuda.jit
def _sliced_guarded(x):
    items = cuda.local.array(4, np.float32)
    ranks = cuda.local.array(4, np.int32)
    for i in range(4):
        items[i] = x[i]
        ranks[i] = i
    coop.block.scatter_to_striped_guarded(items, ranks, warp_time_slicing=True)
    x[0] = items[0]


@cuda.jit
def _float_flags(x):
    items = cuda.local.array(4, np.float32)
    ranks = cuda.local.array(4, np.int32)
    flags = cuda.local.array(4, np.float32)
    for i in range(4):
        items[i] = x[i]
        ranks[i] = i
        flags[i] = 1.0
    coop.block.scatter_to_striped_flagged(items, ranks, flags)
    x[0] = items[0]


@cuda.jit
def _global_ranks(x, r):
    items = cuda.local.array(4, np.float32)
    for i in range(4):
        items[i] = x[i]
    coop.block.scatter_to_blocked(items, r)
    x[0] = items[0]


@cuda.jit
def _scalar_items(x):
    coop.warp.striped_to_blocked(x[0])


@cuda.jit
def _warp_too_wide(x):
    items = cuda.local.array(4, np.float32)
    for i in range(4):
        items[i] = x[i]
    coop.warp.striped_to_blocked(items, threads=32)
    x[0] = items[0]


MISUSE = [
    (_unsigned_guarded_ranks, (F32,), 64,
     r"scatter_to_striped_guarded\(\) at .*:\d+: .*ranks= holds uint32; it must hold signed integer values"),
    (_float_ranks, (F32,), 64,
     r"scatter_to_blocked\(\) at .*:\d+: .*ranks= holds float32; it must hold signed integer or unsigned"),
    (_short_ranks, (F32,), 64, r"ranks= has 2 items but another per-thread array .*has 4"),
    (_other_output_type, (F32,), 64, r"output= holds float64 but must hold float32 \(as x= does\)"),
    (_shuffle_not_square, (F32,), 64, r"algorithm='shuffle' needs items_per_thread equal to threads \(got "
                                      r"items_per_thread=4, threads=8\); use algorithm='smem'"),
    (_sliced_guarded, (F32,), 64, r"does not time-slice: with warp_time_slicing=True .*use warp_time_slicing=False"),
    (_float_flags, (F32,), 64, r"valid_flags= holds float32; it must hold bool or signed"),
    (_global_ranks, (F32, types.int32[::1]), 64, r"ranks= must be this thread's own cuda.local.array"),
    (_scalar_items, (F32,), 64, r"striped_to_blocked\(\) at .*: .*\(x\[\]\)"),
    (_warp_too_wide, (F32,), 48, r"threads=32 must be a power of two up to 32 that divides the block size"),
]


@pytest.mark.parametrize(("kernel", "sig", "block", "match"), MISUSE, ids=lambda v: getattr(v, "__name__", ""))
def test_misuse_is_a_usage_error(kernel, sig, block, match) -> None:
    with pytest.raises(UsageError, match=match) as info:
        compile_kernel(kernel, sig, block=block)
    assert "test_family_exchange.py:" in str(info.value)
