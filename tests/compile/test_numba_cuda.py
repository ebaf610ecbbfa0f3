"""cuda.coop.numba_cuda: classic numba-cuda kernels, from the same source as numba-cuda-mlir's, for sm_90 without a GPU.

What the integration adds to the shared core is checked here: the block shape from a launch's configuration
(``numba.cuda.launchconfig``, faked: a launch needs a GPU), kernels without cuda-coop calls left as they are,
``compile_kernel``, device functions, the ``cache=True`` rule, source dumps, and both DSLs in one process. The
family kernels under numba-cuda are compiled by each family's compile tests (``tests/helpers/dsl.py``).
"""

from __future__ import annotations

import subprocess
import sys
import types as pytypes
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cuda.coop as coop
from cuda.coop.errors import UsageError
from tests.helpers.dsl import DSLS, NUMBA_CUDA, Dsl
from tests.helpers.sass import assert_inlined

ITEMS = 4


def tile_sums(dsl: Dsl) -> Any:
    """README's kernel; only its ``cuda`` differs between the DSLs."""
    cuda = dsl.cuda

    @cuda.jit
    def kernel(x, partial):
        items = cuda.local.array(ITEMS, np.float32)
        coop.block.load(x, items, offset=cuda.blockIdx.x * cuda.blockDim.x * ITEMS, algorithm="transpose")
        total = coop.block.sum(items)
        if cuda.threadIdx.x == 0:
            partial[cuda.blockIdx.x] = total

    return kernel


def _f32(dsl: Dsl) -> tuple[Any, Any]:
    return dsl.types.float32[::1], dsl.types.float32[::1]


def test_one_source_compiles_under_both_dsls_in_one_process() -> None:
    shared = {}
    for dsl in DSLS:
        compiled = dsl.compile_kernel(tile_sums(dsl), _f32(dsl), block=(16, 8))
        assert_inlined(compiled)
        assert compiled.arch == "sm_90" and compiled.block == (16, 8, 1)
        shared[dsl.name] = compiled.shared_memory_bytes
    assert shared["numba_cuda"] == shared["numba_mlir"] > 0, shared  # one CUB specialisation, one footprint
    status = coop.backend_status()
    assert status["numba_cuda"].active and status["numba_mlir"].active


class _Launch:
    """What ``numba.cuda.launchconfig.current_launch_config()`` is while a launch compiles its kernel."""

    def __init__(self, kernel: Any, block: tuple[int, int, int]) -> None:
        self.dispatcher = self
        self.py_func = kernel.py_func
        self.targetoptions: dict[str, Any] = {}
        self.griddim, self.blockdim, self.sharedmem = (2, 1, 1), block, 0
        self.marked = 0

    def mark_launch_config_sensitive(self) -> None:
        self.marked += 1

    def _is_kernel_launch_config_sensitive(self) -> bool:
        return self.marked > 0


def _compile_as_launched(monkeypatch: pytest.MonkeyPatch, kernel: Any, sig: tuple[Any, ...], launch: Any) -> Any:
    from numba.cuda import compiler, launchconfig, types

    monkeypatch.setattr(launchconfig, "current_launch_config", lambda: launch)
    return compiler.compile_cuda(kernel.py_func, types.void, sig, cc=(9, 0))


@pytest.mark.parametrize("dsl", DSLS, ids=str)
def test_a_fresh_process_gets_each_dsls_cuda_module(dsl: Dsl) -> None:
    """The sanitizer scripts ask for ``dsl.cuda`` before anything imported the DSL (``numba_cuda_mlir.cuda`` is a
    submodule: an attribute only once imported); seen failing on the GPU machine, not inside pytest."""
    code = f"from tests.helpers.dsl import {str(dsl).upper()} as d; assert callable(d.cuda.jit)"
    result = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], check=False,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


def test_a_launch_gives_the_block_and_makes_the_kernel_launch_specialised(monkeypatch: pytest.MonkeyPatch) -> None:
    from cuda.coop.numba_cuda._seams import LTOIR

    kernel = tile_sums(NUMBA_CUDA)
    launch = _Launch(kernel, (64, 1, 1))
    cres = _compile_as_launched(monkeypatch, kernel, _f32(NUMBA_CUDA), launch)
    assert launch.marked == 1
    assert cres.metadata["launch_config_sensitive"] is True  # numba-cuda keeps one kernel per launch configuration
    items = [f for f in cres.library._linking_files if isinstance(f, LTOIR)]
    assert len(items) == 1 and cres.library._lto  # one provider; the kernel is LTO-IR, so its wrappers inline
    assert items[0]._produce.__self__.provider.plan.block_dim == (64, 1, 1)
    assert bytes(cres.library.get_cubin(cc=(9, 0)).code)[:4] == b"\x7fELF"


def test_kernels_without_cuda_coop_calls_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    cuda = NUMBA_CUDA.cuda

    @cuda.jit
    def plain(x):
        x[cuda.grid(1)] = cuda.threadIdx.x

    launch = _Launch(plain, (64, 1, 1))
    cres = _compile_as_launched(monkeypatch, plain, (NUMBA_CUDA.types.int32[::1],), launch)
    assert launch.marked == 0 and not cres.metadata.get("launch_config_sensitive")
    assert not cres.library._lto and not cres.library._linking_files


def test_a_device_function_another_launch_compiles_is_not_planned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the kernel the launch compiles is planned: the launch's configuration is this thread's, and other
    functions compile meanwhile (device functions, user operators)."""
    kernel = tile_sums(NUMBA_CUDA)
    other = tile_sums(NUMBA_CUDA)  # the same source, another function: not the launch's kernel
    launch = _Launch(other, (64, 1, 1))
    with pytest.raises(Exception, match="needs the block shape of a launch"):
        _compile_as_launched(monkeypatch, kernel, _f32(NUMBA_CUDA), launch)
    assert launch.marked == 0


def test_device_functions_that_call_primitives_are_inlined() -> None:
    """As numba-cuda-mlir does: a device function calling cuda-coop (itself, or through another device function, or
    only coop.uniform) is inlined into the kernel and planned with it; numba-cuda would compile it on its own."""
    cuda = NUMBA_CUDA.cuda

    @cuda.jit(device=True, inline="always")
    def inlined(v):
        return coop.block.sum(v)

    @cuda.jit(device=True)
    def separate(v):
        return coop.block.sum(v)

    @cuda.jit(device=True)
    def outer(v):
        return separate(v) + 1

    @cuda.jit(device=True)
    def asserted(v):
        return coop.uniform(v)

    def kernel_calling(helper: Any) -> Any:
        @cuda.jit
        def kernel(x, out):
            total = helper(x[cuda.grid(1)])
            if cuda.threadIdx.x == 0:
                out[cuda.blockIdx.x] = total

        return kernel

    i32 = NUMBA_CUDA.types.int32[::1]
    for helper in (inlined, separate, outer):
        assert_inlined(NUMBA_CUDA.compile_kernel(kernel_calling(helper), (i32, i32), block=96))

    @cuda.jit(device=True)
    def unasserted(v):
        return v

    def guarded_by(helper: Any) -> Any:
        @cuda.jit
        def kernel(x, out):
            if helper(cuda.threadIdx.x < 64):  # true in every thread of a 64-thread block
                out[0] = coop.block.sum(x[cuda.grid(1)])

        return kernel

    NUMBA_CUDA.compile_kernel(guarded_by(asserted), (i32, i32), block=64)  # asserted in the device function
    with pytest.raises(UsageError, match="reached by only some threads"):
        NUMBA_CUDA.compile_kernel(guarded_by(unasserted), (i32, i32), block=64)


def divergent(dsl: Dsl) -> Any:
    cuda = dsl.cuda

    @cuda.jit
    def kernel(x, out):
        if cuda.threadIdx.x < 16:
            out[0] = coop.block.sum(x[cuda.grid(1)])

    return kernel


def test_misuse_is_refused_with_the_same_message_under_both_dsls() -> None:
    messages = []
    for dsl in DSLS:
        with pytest.raises(UsageError, match="reached by only some threads of the block") as info:
            dsl.compile_kernel(divergent(dsl), (dsl.types.int32[::1],) * 2, block=32)
        messages.append(str(info.value))
    assert messages[0] == messages[1]  # one source: the same file:line too


def test_compile_kernel_refuses_what_is_not_a_numba_cuda_kernel() -> None:
    cuda = NUMBA_CUDA.cuda
    compile_kernel = NUMBA_CUDA.integration.compile_kernel

    @cuda.jit(device=True)
    def device(x):
        return x

    sig = _f32(NUMBA_CUDA)
    for kernel, message in ((tile_sums(NUMBA_CUDA).py_func, "a plain Python function"), (device, "a device function"),
                            (tile_sums(DSLS[0]), "MLIRDispatcher, another DSL's kernel")):
        with pytest.raises(UsageError, match=message):
            compile_kernel(kernel, sig, block=32)
    with pytest.raises(UsageError, match="block="):
        compile_kernel(tile_sums(NUMBA_CUDA), sig, block=0)
    with pytest.raises(UsageError, match="arch="):
        compile_kernel(tile_sums(NUMBA_CUDA), sig, block=32, arch="90")


def test_an_arch_specific_target_links() -> None:
    compiled = NUMBA_CUDA.compile_kernel(tile_sums(NUMBA_CUDA), _f32(NUMBA_CUDA), block=128, arch="sm_90a")
    assert compiled.arch == "sm_90a" and "sm_90a" in compiled.ptx
    assert_inlined(compiled)


def test_kernels_holding_cuda_coop_code_stay_out_of_the_disk_cache() -> None:
    """numba-cuda cannot pickle a kernel with linked code: cuda-coop kernels are not written (warned once), others
    are."""
    from numba.cuda.dispatcher import CUDACacheImpl

    from cuda.coop.numba_cuda import _seams

    cuda = NUMBA_CUDA.cuda

    @cuda.jit
    def plain(x):
        x[0] = 1

    impl: Any = object.__new__(CUDACacheImpl)
    _, library, _ = _seams.compile_for_arch(tile_sums(NUMBA_CUDA), _f32(NUMBA_CUDA), (128, 1, 1), "sm_90")
    _, plain_library, _ = _seams.compile_for_arch(plain, (NUMBA_CUDA.types.int32[::1],), (32, 1, 1), "sm_90")
    with pytest.warns(_seams.CacheSkippedWarning, match="not kept in numba-cuda's cache=True disk cache"):
        assert impl.check_cachable(pytypes.SimpleNamespace(library=library)) is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert impl.check_cachable(pytypes.SimpleNamespace(library=library)) is False  # warned once only
        assert impl.check_cachable(pytypes.SimpleNamespace(library=plain_library)) is True


def test_sources_are_dumped_under_the_backend_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    NUMBA_CUDA.compile_kernel(tile_sums(NUMBA_CUDA), _f32(NUMBA_CUDA), block=(8, 4, 2))
    dumped = sorted(p.name for p in tmp_path.iterdir())
    assert len(dumped) == 1 and dumped[0].startswith("cuda_coop_numba_cuda_") and dumped[0].endswith(".cu"), dumped


# --- the C ABI of numba-cuda's lowering: values that cross by pointer, records and tuples ------------------------


def _sum_and_scan(dsl: Dsl, dtype: str) -> Any:
    """A scalar sum (the result through a slot), a warp scan with a user operator (a shim) and an initial value."""
    cuda = dsl.cuda

    def add(a, b):
        return a + b

    @cuda.jit
    def kernel(x, out):
        i = cuda.grid(1)
        total = coop.block.sum(x[i])
        prefix = coop.warp.exclusive_scan(x[i], add, initial_value=x[0])
        out[i] = prefix
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = total

    return kernel


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64", "complex128"])
def test_pointer_abi_values_cross_in_registers(dtype: str) -> None:
    data = getattr(NUMBA_CUDA.types, dtype)[::1]
    assert_inlined(NUMBA_CUDA.compile_kernel(_sum_and_scan(NUMBA_CUDA, dtype), (data, data), block=96))


def _larger_a(a, b):  # type: ignore[no-untyped-def]
    return a if a[0] >= b[0] else b


def test_records_and_tuples_cross_as_their_c_layout() -> None:
    cuda = NUMBA_CUDA.cuda
    record = NUMBA_CUDA.from_dtype(np.dtype([("a", np.int32), ("b", np.float64)], align=True))

    @cuda.jit
    def kernel(x, y, rec, out, outi, outr):
        i = cuda.grid(1)
        best = coop.warp.reduce((y[i], x[i]), _larger_a)
        r = coop.block.reduce(rec[i], _larger_a)
        if cuda.laneid == 0:
            out[i // 32] = best[0]
            outi[i // 32] = best[1]
        if cuda.threadIdx.x == 0:
            outr[cuda.blockIdx.x] = r

    t = NUMBA_CUDA.types
    sig = (t.int32[::1], t.float64[::1], record[::1], t.float64[::1], t.int32[::1], record[::1])
    compiled = NUMBA_CUDA.compile_kernel(kernel, sig, block=128)
    assert_inlined(compiled, local=True)  # a record operator selects a pointer: a stack copy, as under numba-cuda-mlir
    assert compiled.resource_usage().get("local", 0) == 0


class _RecordingLinker:
    """What ``CUDACodeLibrary._link_all`` gives nvJitLink, in order (an LTO link for sm_90)."""

    lto, arch = True, "sm_90"

    def __init__(self) -> None:
        self.added: list[str] = []

    def add_ltoir(self, data: bytes, name: str = "<cudapy-ltoir>") -> None:
        self.added.append(name)

    def add_file_guess_ext(self, item: Any, ignore_nonlto: bool = False) -> None:
        self.added.append(str(getattr(item, "name", item)))


def test_a_link_holding_a_provider_starts_with_32_bit_shared_pointers() -> None:
    """nvJitLink keeps the first module's data layout: a cuda-coop kernel's link starts with a layout-only module
    with numba-cuda's layout and 32-bit shared pointers, as nvcc's (NVRTC 13.0 declares 64-bit ones); other kernels'
    links are numba-cuda's."""
    from numba.cuda.cudadrv import nvvm

    from cuda.coop.numba_cuda._seams import _link, compile_for_arch
    from tests.helpers.nvrtc import LTOIR_MAGIC

    specs = _link.short_shared_layout().split("-")
    assert "p3:32:32:32" in specs and [s for s in specs if s != "p3:32:32:32"] == nvvm.NVVM().data_layout.split("-")
    assert _link.layout_ltoir("sm_90a").startswith(LTOIR_MAGIC)
    cuda = NUMBA_CUDA.cuda

    @cuda.jit(lto=True)
    def plain(x):
        x[0] = 1

    _, library, _ = compile_for_arch(tile_sums(NUMBA_CUDA), _f32(NUMBA_CUDA), (128, 1, 1), "sm_90")
    _, plain_library, _ = compile_for_arch(plain, (NUMBA_CUDA.types.int32[::1],), (32, 1, 1), "sm_90")
    for lib, first in ((library, "cuda_coop_layout"), (plain_library, "<cudapy-ltoir>")):
        linker = _RecordingLinker()
        lib._link_all(linker, (9, 0))
        assert linker.added[0] == first, linker.added
