"""Records and tuples as per-thread items of block/warp reductions and scans, compiled for sm_90 without a GPU.

- Every kernel of tests/gpu/test_records_tuples.py compiles (1-D, 2-D and 3-D blocks), with no local memory.
- Two records with the same field names and different layouts (and a tuple of the same bytes) in one kernel
  are three C++ types and three operator symbols: no specialisation is shared between layouts (ODR).
- Misuse names the dtype and the primitive: sums and known operators of records/tuples, arrays of records,
  records that C cannot lay out, tuples of unsupported members, an initial_value of another type, primitives
  that take no records, a logical warp of 7 threads.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

import cuda.coop as coop
from cuda.coop._numba import _kernel_provider
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import test_records_tuples as gpu
from tests.helpers.refusal import refused
from tests.helpers.tiers import uncompiled

F64 = types.float64[::1]
I32 = types.int32[::1]


def test_every_gpu_tier_kernel_is_compiled_here() -> None:
    assert not uncompiled(gpu, sys.modules[__name__])
    assert {len([d for d in c.block if d > 1]) for c in gpu.CASES} == {1, 2, 3}
    assert gpu.REC.itemsize == 24 and gpu.REC.alignment == 8


@pytest.mark.parametrize("case", gpu.CASES, ids=lambda c: c.id)
def test_gpu_kernel_compiles(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block, grid=gpu.TILES)
    assert compiled.resource_usage().get("local", 0) == 0


def test_gpu_built_tuple_kernel_compiles() -> None:
    compiled = compile_kernel(gpu.make_small_kernel(), gpu.small_signature(), block=gpu.SMALL_BLOCK, grid=gpu.TILES)
    assert compiled.resource_usage().get("local", 0) == 0


def test_gpu_prefix_kernel_compiles() -> None:
    compiled = compile_kernel(gpu.make_extra_kernel(), gpu.extra_signature(), block=gpu.EXTRA_BLOCK)
    assert compiled.resource_usage().get("local", 0) == 0


pick_larger_a = gpu.pick_larger_a
pick_larger_first = gpu.pick_larger_first
AB, BA = gpu.AB, gpu.BA


def test_two_layouts_of_the_same_fields_are_distinct_types(monkeypatch: pytest.MonkeyPatch) -> None:
    providers: list[_kernel_provider.KernelProvider] = []
    original = _kernel_provider.KernelProvider.__init__

    def record(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        providers.append(self)

    monkeypatch.setattr(_kernel_provider.KernelProvider, "__init__", record)
    compiled = compile_kernel(gpu.make_odr_kernel(), gpu.odr_signature(), block=gpu.ODR_BLOCK, grid=gpu.TILES)
    assert compiled.resource_usage().get("local", 0) == 0
    (kp,) = providers
    source = kp.provider.source
    structs = set(re.findall(r"struct alignas\(8\) (cuda_coop_storage_16_8_[0-9a-f]+)", source))
    assert len(structs) == 3, source  # record AB, record BA, tuple (int32, float64)
    ops = {item.name for item in kp.link_items[1:]}  # the user operators' LTO-IR, by symbol
    assert len(ops) == 3 and all(s.startswith("cuda_coop_op_") for s in ops), ops
    assert set(re.findall(r"cuda_coop_op_[0-9a-f]+", source)) == ops
    assert len({b.canonical() for b in kp.provider.plan.bindings}) == 3


# --- misuse ---------------------------------------------------------------------------------------------


_refused = refused


@pytest.mark.parametrize(
    ("primitive", "instead"),
    [
        (coop.block.sum, "block.reduce"),
        (coop.warp.sum, "warp.reduce"),
        (coop.block.inclusive_sum, "block.inclusive_scan"),
        (coop.warp.exclusive_sum, "warp.exclusive_scan"),
    ],
)
def test_sums_of_tuples_are_refused(primitive, instead) -> None:
    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x
        r = primitive((x[t], np.int32(t)))  # call
        out[t] = r[0]

    message = _refused(kernel, (F64, F64), "Tuple(float64, int32)", primitive.__name__, instead, "Python op")
    assert "'+'" in message


@pytest.mark.parametrize("op", ["+", "max", "min"])
def test_known_operators_of_records_are_refused(op) -> None:
    @cuda.jit
    def kernel(x, out):
        r = coop.block.reduce(x[cuda.threadIdx.x], op)  # call
        out[0] = r

    rec = from_dtype(AB)
    _refused(kernel, (rec[::1], rec[::1]), "record {a: int32, b: float64}", "coop.block.reduce", "Python op")


def test_arrays_of_records_are_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        coop.block.store(out, x)  # call

    rec = from_dtype(AB)
    _refused(kernel, (rec[::1], rec[::1]), "record {a: int32, b: float64}", "cuda.local.array of a record dtype")


def test_a_record_array_as_items_is_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        r = coop.warp.reduce(x, pick_larger_a)  # call
        out[0] = r

    rec = from_dtype(AB)
    _refused(kernel, (rec[::1], rec[::1]), "record {a: int32, b: float64}", "coop.warp.reduce",
             "numba-cuda-mlir 0.5 cannot make a cuda.local.array")


def test_records_c_cannot_lay_out_are_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        r = coop.block.reduce(x[cuda.threadIdx.x], pick_larger_a)  # call
        out[0] = r

    packed = from_dtype(np.dtype([("a", np.int32), ("b", np.float64)]))
    _refused(kernel, (packed[::1], packed[::1]), "record {a: int32, b: float64}", "coop.block.reduce", "align=True")
    nested = from_dtype(np.dtype([("a", np.int32), ("v", np.float32, 3)], align=True))
    _refused(kernel, (nested[::1], nested[::1]), "coop.block.reduce", "field(s) v")


def test_tuples_of_unsupported_members_are_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x
        r = coop.warp.inclusive_scan((x[t], np.int32(t)), pick_larger_first)  # call
        out[t] = r[1]

    _refused(kernel, (types.complex64[::1], I32), "complex64", "coop.warp.inclusive_scan")


def test_initial_value_of_another_type_is_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x
        r = coop.block.exclusive_scan((x[t], np.int32(t)), pick_larger_first, initial_value=(0.0, 2**40))  # call
        out[t] = r[0]

    _refused(kernel, (F64, F64), "initial_value=", "Tuple(float64, int64)", "Tuple(float64, int32)")

    @cuda.jit
    def variable(x, out):
        t = cuda.threadIdx.x
        r = coop.warp.inclusive_scan((x[t], np.int32(t)), pick_larger_first, initial_value=(x[0], x.size))  # call
        out[t] = r[0]

    _refused(variable, (F64, F64), "initial_value=", "Tuple(float64, int64)", "np.int32(i)")


def test_exact_constants_convert_to_the_member_types() -> None:
    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x
        r = coop.block.exclusive_scan((x[t], np.int32(t)), pick_larger_first, initial_value=(-1.5, -1))
        out[t] = r[1]

    assert compile_kernel(kernel, (F64, F64), block=(64,)).resource_usage().get("local", 0) == 0


def test_primitives_without_records_refuse_them() -> None:
    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x
        r = coop.block.shuffle_up((x[t], np.int32(t)))  # call
        out[t] = r[0]

    _refused(kernel, (F64, F64), "Tuple(float64, int32)", "coop.block.shuffle_up", "coop.block.reduce")


def test_a_logical_warp_of_seven_is_refused() -> None:
    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x
        r = coop.warp.reduce((x[t], np.int32(t)), pick_larger_first, threads=7)  # call
        out[t] = r[0]

    _refused(kernel, (F64, F64), "threads=7", "power of two", block=(56,))


def test_tuple_and_record_in_1d_2d_3d_blocks_with_uni_tuples() -> None:
    @cuda.jit
    def kernel(x, out):
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        r = coop.block.inclusive_scan((np.int64(t), np.int64(-t)), pick_larger_first)
        s = coop.warp.exclusive_scan((x[t], x[t]), pick_larger_first, initial_value=(-1.0, -1.0), threads=8)
        out[t] = r[0] + s[1]

    for block in ((64,), (8, 8), (4, 4, 4)):
        assert compile_kernel(kernel, (F64, F64), block=block).resource_usage().get("local", 0) == 0


def test_support_rows_follow_the_list_the_dsl_checks() -> None:
    from cuda.coop._specs._support import RECORD_PRIMITIVES, record_support

    rows = {r.primitive: r for r in record_support()}
    assert {p for p, r in rows.items() if r.supported} == set(RECORD_PRIMITIVES)
    assert "initial_value=" in rows["warp.inclusive_scan"].note and "valid_items=" in rows["block.reduce"].note
    assert "initial_value=" not in rows["block.inclusive_scan"].note  # only its array forms take one
    assert all("'+'" in rows[p].note for p in ("block.sum", "warp.exclusive_sum", "block.inclusive_sum"))
