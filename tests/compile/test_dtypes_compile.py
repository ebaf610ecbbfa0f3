"""float16, bfloat16 and complex through the DSL, compiled for sm_90 without a GPU (compile tier).

- Every kernel of tests/gpu/test_dtypes.py compiles (NVRTC for each new dtype's wrappers, numba-cuda-mlir
  for the kernel, nvJitLink for the link), with no local memory: the stack slots through which
  pointer-ABI scalars cross (``_seams.lower_extern_call_slots``) are promoted to registers after inlining.
- bfloat16 arrays load and store through ``coop.block.load``/``store`` (the GPU tier takes raw bits).
- A half sum's SASS has the instruction classes of its nvcc twin (same CCCL): native HADD2, no F2F
  conversion round trip through float.
- Misuse names the dtype and the primitive: min/max of complex (no order), a lossy scalar.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._numba._inspect import _tool
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import test_dtypes as gpu
from tests.helpers import requires
from tests.helpers.tiers import uncompiled

_OPCODE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9]+)", re.M)


def _opcodes(sass: str) -> Counter[str]:
    return Counter(_OPCODE.findall(sass))


def test_every_gpu_tier_kernel_is_compiled_here() -> None:
    assert not uncompiled(gpu, sys.modules[__name__])
    assert {c.dtype for c in gpu.CASES} == set(gpu.DTYPES)
    assert {c.block for c in gpu.CASES} == set(gpu.BLOCKS)
    assert {c.items for c in gpu.CASES} == set(gpu.ITEMS)


@pytest.mark.parametrize("case", gpu.CASES, ids=lambda c: c.id)
def test_gpu_kernel_compiles(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block, grid=gpu.TILES)
    assert compiled.resource_usage().get("local", 0) == 0, "a pointer-ABI stack slot was not promoted to registers"


@pytest.mark.parametrize("case", gpu.OP_CASES, ids=lambda c: c.id)
def test_gpu_operator_kernel_compiles(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_op_kernel(case), gpu.op_signature(case), block=case.block)
    assert compiled.resource_usage().get("local", 0) == 0


@pytest.mark.parametrize("case", gpu.BROADCAST_CASES, ids=lambda c: c.id)
def test_gpu_broadcast_kernel_compiles(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_broadcast_kernel(case), gpu.broadcast_signature(case), block=case.block,
                              grid=gpu.TILES)
    assert compiled.resource_usage().get("local", 0) == 0


@pytest.mark.parametrize("case", gpu.SCALAR_CASES, ids=lambda c: c.id)
def test_gpu_scalar_kernel_compiles(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_scalar_kernel(case), gpu.signature(case), block=case.block)
    assert compiled.resource_usage().get("local", 0) == 0


def _bf16_kernel():
    from numba_cuda_mlir.numba_cuda.types.ext_types import bfloat16

    @cuda.jit
    def kernel(x, y):
        items = cuda.local.array(4, bfloat16)
        coop.block.load(x, items, algorithm="vectorize")
        coop.block.exclusive_sum(items)
        coop.block.store(y, items, algorithm="transpose")

    return kernel


def test_bfloat16_arrays_load_and_store() -> None:
    compiled = compile_kernel(_bf16_kernel(), (types.bfloat16[::1], types.bfloat16[::1]), block=128)
    ops = _opcodes(compiled.sass())
    assert ops["HADD2"] > 0, "the bfloat16 scan should add with HADD2.BF16"
    assert ops["F2F"] == 0


def _less(a, b):
    return a < b


def _less_real(a, b):
    return a.real < b.real


def _difference(a, b):
    return a - b


def _movement_kernel(item, less):
    """Warp load/store, warp scans (a constant seed), a block shuffle and a scalar scan (pointer-ABI results),
    discontinuity ("!="), adjacent difference (a Python difference through the shim), warp exchange, merge sort."""

    @cuda.jit
    def kernel(x, y, flags):
        tid = cuda.threadIdx.x
        items = cuda.local.array(4, item)
        out = cuda.local.array(4, item)
        f = cuda.local.array(4, np.int32)
        coop.warp.load(x, items, algorithm="direct")
        a = coop.warp.exclusive_scan(items[0], "+", initial_value=0)
        b = coop.warp.inclusive_sum(items[1])
        c = coop.block.shuffle_offset(items[2], distance=1)
        d = coop.block.exclusive_scan(items[3], "*", initial_value=1)
        coop.block.flag_heads(items, f, "!=")
        coop.block.subtract_left(items, _difference, output=out)
        coop.warp.blocked_to_striped(items)
        coop.block.merge_sort(items, less)
        coop.warp.store(y, items, algorithm="direct")
        y[tid] = a + b + c + d
        flags[tid] = f[0]

    return kernel


@pytest.mark.parametrize("dtype", gpu.DTYPES)
def test_other_accepting_primitives_compile(dtype: str) -> None:
    from numba_cuda_mlir.numba_cuda.types.ext_types import bfloat16

    item = bfloat16 if dtype == "bfloat16" else getattr(types, dtype)
    less = _less_real if dtype.startswith("complex") else _less
    compiled = compile_kernel(_movement_kernel(item, less), (item[::1], item[::1], types.int32[::1]), block=64)
    assert compiled.resource_usage().get("local", 0) == 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_known_operators_compile(dtype: str) -> None:
    from numba_cuda_mlir.numba_cuda.types.ext_types import bfloat16

    item = bfloat16 if dtype == "bfloat16" else types.float16

    @cuda.jit
    def kernel(x, y):
        v = x[cuda.threadIdx.x]
        y[0] = coop.block.reduce(v, "min") + coop.block.reduce(v, "*") + coop.warp.reduce(v, "max")
        y[1] = coop.warp.reduce(v, "min") + coop.block.reduce(v, "+")

    ops = _opcodes(compile_kernel(kernel, (item[::1], item[::1]), block=64).sass())
    assert ops["HMNMX2"] > 0 and ops["HMUL2"] + ops["HFMA2"] > 0, ops


# --- SASS against the nvcc twin --------------------------------------------------------------------------

_TWIN = r"""
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
template <class T>
__device__ void tile_sum(const T* x, T* out)
{
  using Load = cub::BlockLoad<T, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;
  using Reduce = cub::BlockReduce<T, 128>;
  __shared__ union { typename Load::TempStorage load; typename Reduce::TempStorage reduce; } temp;
  T items[4];
  Load(temp.load).Load(x + blockIdx.x * 512, items);
  __syncthreads();
  T total = Reduce(temp.reduce).Sum(items);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
extern "C" __global__ void __launch_bounds__(128) twin_float16(const __half* x, __half* out) { tile_sum(x, out); }
extern "C" __global__ void __launch_bounds__(128) twin_bfloat16(const __nv_bfloat16* x, __nv_bfloat16* out)
{
  tile_sum(x, out);
}
"""


def _sum_kernel(item):
    @cuda.jit
    def kernel(x, out):
        items = cuda.local.array(4, item)
        coop.block.load(x, items, offset=cuda.blockIdx.x * 512, algorithm="transpose")
        total = coop.block.sum(items)
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = total

    return kernel


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Counter[str]]:
    nvcc = requires.nvcc("the CUB twins")
    tmp = tmp_path_factory.mktemp("half_twins")
    (tmp / "twin.cu").write_text(_TWIN)
    cubin = tmp / "twin.cubin"
    subprocess.run(
        [nvcc, "-O3", "-std=c++17", "-arch=sm_90", f"-I{coop.header_bundle().include_dir}", "-cubin", "-o",
         str(cubin), str(tmp / "twin.cu")],
        check=True, capture_output=True, text=True,
    )
    sass = subprocess.run([_tool("nvdisasm"), "-c", str(cubin)], check=True, capture_output=True, text=True).stdout
    out: dict[str, Counter[str]] = {}
    for name, body in re.findall(r"\.text\.(twin_\w+):(.*?)(?=\.text\.|\Z)", sass, re.S):
        out[name.removeprefix("twin_")] = _opcodes(body)
    return out


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_sum_sass_matches_twin_classes(dtype: str, twins: dict[str, Counter[str]]) -> None:
    from numba_cuda_mlir.numba_cuda.types.ext_types import bfloat16

    item = bfloat16 if dtype == "bfloat16" else types.float16
    compiled = compile_kernel(_sum_kernel(item), (item[::1], item[::1]), block=128, grid=4)
    ours, twin = _opcodes(compiled.sass()), twins[dtype]
    conversions = ("F2F", "F2FP", "HADD2.F32")
    for op in conversions:
        assert ours[op] <= twin[op], f"{dtype} sum converts ({op}: {ours[op]} vs the twin's {twin[op]})"
    # It adds in the type (HADD2), as many times as the twin, within test_sass_parity's margin; never in float32.
    assert 0 < ours["HADD2"] <= 1.05 * twin["HADD2"], f"{dtype}: HADD2 {ours['HADD2']}, the twin's {twin['HADD2']}"
    assert ours["FADD"] == 0 and ours["LDL"] == ours["STL"] == 0, ours


# --- misuse ----------------------------------------------------------------------------------------------


def _compile_error(kernel, sig, block=128) -> str:
    with pytest.raises(UsageError) as info:
        compile_kernel(kernel, sig, block=block)
    return str(info.value)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_has_no_order(dtype: str, op: str) -> None:
    @cuda.jit
    def kernel(x, out):
        out[0] = coop.block.reduce(x[cuda.threadIdx.x], op)

    nt = getattr(types, dtype)
    message = _compile_error(kernel, (nt[::1], nt[::1]))
    assert "coop.block.reduce()" in message and dtype in message and "no order" in message, message


def test_complex_warp_max_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        out[0] = coop.warp.reduce(x[cuda.threadIdx.x], "max")

    message = _compile_error(kernel, (types.complex64[::1], types.complex64[::1]))
    assert "coop.warp.reduce()" in message and "complex64" in message and "no order" in message, message


def test_complex_radix_sort_refused() -> None:
    @cuda.jit
    def kernel(x):
        keys = cuda.local.array(4, np.complex64)
        coop.block.load(x, keys)
        coop.block.radix_sort(keys)
        coop.block.store(x, keys)

    message = _compile_error(kernel, (types.complex64[::1],))
    assert "coop.block.radix_sort()" in message and "complex64" in message, message


def test_lossy_scalar_for_bfloat16_refused() -> None:
    from numba_cuda_mlir.numba_cuda.types.ext_types import bfloat16

    @cuda.jit
    def kernel(x, y, init):
        items = cuda.local.array(4, bfloat16)
        coop.block.load(x, items)
        coop.block.exclusive_scan(items, "+", initial_value=init[0])
        coop.block.store(y, items)

    message = _compile_error(kernel, (bfloat16[::1], bfloat16[::1], types.float32[::1]))
    assert "coop.block.exclusive_scan()" in message and "initial_value" in message and "bfloat16" in message, message


def test_user_function_errors_show_the_users_signature() -> None:
    @cuda.jit
    def kernel(x):
        keys = cuda.local.array(4, np.float16)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, _less_real)  # float16 has no .real in numba-cuda-mlir
        coop.block.store(x, keys)

    message = _compile_error(kernel, (types.float16[::1],))
    assert "compare='_less_real'" in message and "(float16, float16) -> bool" in message, message
    assert "float16*" not in message, message


def _minus(a, b):
    return a - b


def test_half_predicate_returning_a_number_is_refused_in_users_terms() -> None:
    @cuda.jit
    def kernel(x):
        keys = cuda.local.array(4, np.float16)
        coop.block.load(x, keys)
        coop.block.merge_sort(keys, _minus)
        coop.block.store(x, keys)

    message = _compile_error(kernel, (types.float16[::1],))
    assert "must return a bool" in message and "float16*" not in message, message
