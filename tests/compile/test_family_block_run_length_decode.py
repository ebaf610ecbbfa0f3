"""``cub::BlockRunLengthDecode`` through real NVRTC and through the numba-cuda-mlir DSL, for sm_90 (no GPU).

Every overload (both constructors x relative offsets x window offset) compiles to LTO-IR in 1-D/2-D/3-D
blocks; the DSL kernels compile with inlined wrappers (no CALL, no local memory); misuse is a UsageError
naming the argument and the call's file:line; the GPU tier's kernels compile.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import Request
from cuda.coop.errors import CompileError, UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_block_run_length_decode as sanitizer
from tests.gpu import test_family_block_run_length_decode as gpu
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.nvrtc import compile_requests
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import block_rank, covering

OVERLOADS = [f"{c}{r}{w}" for c in ("lengths", "offsets") for r in ("", "_relative") for w in ("", "_window")]


@pytest.mark.parametrize("block", [(128,), (33,), (4, 4, 4)], ids=["128", "33", "4x4x4"])
def test_every_overload_compiles_with_nvrtc(
    block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """One provider (one NVRTC call) per block shape with every overload, value and offset types mixed."""
    values = ("int8", "float64", "uint64", "int32", "float32", "uint16", "int64", "uint8")
    offsets = ("uint32", "int64", "int32", "uint64")
    requests = []
    for i, overload in enumerate(OVERLOADS):
        params = {"dtype": values[i], "runs_per_thread": 1 + i % 3, "decoded_items_per_thread": 1 + (i * 5) % 4,
                  "decoded_offset_type": offsets[i % 4]}
        params["run_length_type" if overload.startswith("lengths") else "run_offset_type"] = offsets[(i + 1) % 4]
        if "relative" in overload:
            params["relative_offset_type"] = ("uint16", "int32")[i % 2]
        requests.append(Request("block_run_length_decode", "run_length_decode", overload, **params))
    p = compile_requests(requests, toolchain, compiler, block)
    assert p.source.count(".RunLengthDecode(") == len(OVERLOADS)


RUNS, DECODED = 2, 4


@cuda.jit
def decode_all(values, lengths, out, index_in_run, sizes):
    v = cuda.local.array(RUNS, np.int32)
    n = cuda.local.array(RUNS, np.uint32)
    decoded = cuda.local.array(DECODED, np.int32)
    rel = cuda.local.array(DECODED, np.uint32)
    total = cuda.local.array(1, np.int64)
    tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    threads = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
    for i in range(RUNS):
        v[i] = values[tid * RUNS + i]
        n[i] = lengths[tid * RUNS + i]
    total[0] = 1
    window = 0
    while window < total[0]:
        coop.block.run_length_decode(v, decoded, run_lengths=n, total_decoded_size=total, window_offset=window,
                                     relative_offsets=rel)
        for i in range(DECODED):
            if window + tid * DECODED + i < total[0]:
                out[window + tid * DECODED + i] = decoded[i]
                index_in_run[window + tid * DECODED + i] = rel[i]
        window += threads * DECODED
    if tid == 0:
        sizes[cuda.blockIdx.x] = total[0]


SIG = (types.int32[::1], types.uint32[::1], types.int32[::1], types.uint32[::1], types.int64[::1])


@pytest.mark.parametrize("block", [(128,), (16, 8), (4, 4, 4)], ids=["1d", "2d", "3d"])
def test_kernel_compiles_inlined(block: tuple[int, ...]) -> None:
    assert_inlined(compile_kernel(decode_all, SIG, block=block))


COVERING = covering([run for case in gpu.CASES for run in case.run_list], "block", "runs", "decoded",
                    lambda r: r.types[0], lambda r: r.types[1:])
"""Every block shape, runs and decoded items per thread, value dtype and set of index types of the GPU tier's runs,
each run a kernel of its own (the GPU tier's 25 kernels each hold a run of every value dtype)."""


@pytest.mark.parametrize("run", COVERING, ids=lambda r: f"{r.block[0]}x{r.block[1]}x{r.block[2]}-{'-'.join(r.types)}")
def test_gpu_tier_kernels_compile(run: gpu.Run) -> None:
    """The wrappers inline (no CALL); a run decodes three ways at once, so it may spill registers, which the
    single-decode kernel above never does."""
    assert_inlined(compile_kernel(gpu.make_kernel(run), gpu.signature(run), block=run.block), local=True)


NUMBA_CUDA_COVERING = covering(COVERING, block_rank)
"""The same kernels' sources under numba-cuda: every block rank."""


@pytest.mark.parametrize("run", NUMBA_CUDA_COVERING, ids=lambda r: f"{'x'.join(map(str, r.block))}-{'-'.join(r.types)}")
def test_gpu_tier_kernels_compile_under_numba_cuda(run: gpu.Run) -> None:
    kernel, sig = gpu.make_kernel(run, dsl=NUMBA_CUDA), gpu.signature(run, dsl=NUMBA_CUDA)
    assert_inlined(NUMBA_CUDA.compile_kernel(kernel, sig, block=run.block), local=True)


def test_gpu_tier_covers_the_wide_blocks_and_16_items() -> None:
    for case in gpu.CASES:  # every value dtype whose storage fits, in one kernel; each index type with several
        runs = case.run_list
        left_out = set(gpu.DTYPES) - {r.types[0] for r in runs}
        assert all(case.threads * case.runs * np.dtype(v).itemsize > gpu.STORAGE_BYTES // 2 for v in left_out), case.id
        assert len(runs) >= 7 and len({r.types[1:] for r in runs}) >= 4, case.id
        assert all(r.fits for r in runs)
    assert {c.block for c in gpu.CASES} == set(gpu.BLOCKS) >= {(256, 1, 1), (1024, 1, 1)}
    assert {c.block for c in gpu.CASES if 16 in (c.runs, c.decoded)} == set(gpu.BLOCKS)
    assert {(c.runs, c.decoded) for c in gpu.CASES if c.threads >= 256} >= {(1, 4), (4, 1), (1, 16), (16, 4)}


def test_runs_over_the_shared_memory_are_refused() -> None:
    """1024 threads x 16 runs of 8-byte values and offsets: CUB keeps every run's value and offset in shared memory,
    over the 48 KiB a block may have; this is the documented error."""
    case = gpu.Run((1024, 1, 1), 16, 4, gpu.TYPES[3])
    with pytest.raises(CompileError, match=r"static assertion failed.*exceeds the 48 KiB of static shared memory"):
        compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)


@pytest.mark.parametrize("block", sanitizer.BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_sanitizer_kernel_compiles(block: tuple[int, int, int]) -> None:
    sig = (types.int32[::1], types.uint16[::1], types.int32[::1], types.int32[::1])
    assert_inlined(compile_kernel(sanitizer.kernel_for(block[0] * block[1] * block[2]), sig, block=block))


# --- misuse ------------------------------------------------------------------------------------------------------


@cuda.jit
def no_runs(values, out):
    v = cuda.local.array(2, np.int32)
    decoded = cuda.local.array(4, np.int32)
    v[0] = values[0]
    coop.block.run_length_decode(v, decoded)


@cuda.jit
def lengths_without_total(values, out):
    v = cuda.local.array(2, np.int32)
    n = cuda.local.array(2, np.uint32)
    decoded = cuda.local.array(4, np.int32)
    v[0] = values[0]
    coop.block.run_length_decode(v, decoded, run_lengths=n)


@cuda.jit
def mismatched_runs(values, out):
    v = cuda.local.array(2, np.int32)
    n = cuda.local.array(3, np.uint32)
    total = cuda.local.array(1, np.uint32)
    decoded = cuda.local.array(4, np.int32)
    v[0] = values[0]
    coop.block.run_length_decode(v, decoded, run_lengths=n, total_decoded_size=total)


@cuda.jit
def float_lengths(values, out):
    v = cuda.local.array(2, np.int32)
    n = cuda.local.array(2, np.float32)
    total = cuda.local.array(1, np.uint32)
    decoded = cuda.local.array(4, np.int32)
    v[0] = values[0]
    coop.block.run_length_decode(v, decoded, run_lengths=n, total_decoded_size=total)


@cuda.jit
def decoded_of_another_type(values, out):
    v = cuda.local.array(2, np.int32)
    o = cuda.local.array(2, np.uint32)
    decoded = cuda.local.array(4, np.int64)
    v[0] = values[0]
    coop.block.run_length_decode(v, decoded, run_offsets=o)


@cuda.jit
def lossy_window(values, out):
    v = cuda.local.array(2, np.int32)
    n = cuda.local.array(2, np.uint32)
    total = cuda.local.array(1, np.uint32)
    decoded = cuda.local.array(4, np.int32)
    v[0] = values[0]
    coop.block.run_length_decode(v, decoded, run_lengths=n, total_decoded_size=total, window_offset=out[0])


@cuda.jit
def runs_in_global_memory(values, out):
    decoded = cuda.local.array(4, np.int32)
    o = cuda.local.array(2, np.uint32)
    coop.block.run_length_decode(values, decoded, run_offsets=o)


I32 = types.int32[::1]


@pytest.mark.parametrize(
    ("kernel", "sig", "pattern"),
    [
        (no_runs, (I32, I32), r"no form takes the arguments \(run_values\[\]\); the forms are"),
        (lengths_without_total, (I32, I32), r"no form takes the arguments \(run_values\[\], run_lengths\[\]\)"),
        (mismatched_runs, (I32, I32), r"run_lengths= has 3 items but another .* has 2"),
        (float_lengths, (I32, I32), r"run_lengths= holds float32; it must hold signed integer or unsigned"),
        (decoded_of_another_type, (I32, I32), r"decoded_items= holds int64 but must hold int32"),
        (lossy_window, (I32, types.int64[::1]), r"window_offset= is int64, which does not convert to uint32"),
        (runs_in_global_memory, (I32, I32), r"run_values= must be this thread's own cuda.local.array"),
    ],
    ids=lambda v: v.py_func.__name__ if hasattr(v, "py_func") else None,
)
def test_misuse_is_a_usage_error(kernel, sig, pattern: str) -> None:
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=(64,))
    message = str(info.value)
    assert re.search(pattern, message), message
    assert "test_family_block_run_length_decode.py:" in message
