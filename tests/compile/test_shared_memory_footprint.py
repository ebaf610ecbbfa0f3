"""The static shared memory footprint of a kernel, known before any launch (compile tier, no GPU).

``cuda.coop.numba_mlir.shared_memory_bytes`` and ``CompiledKernel.shared_memory_bytes`` read the
compiled cubin. The expected figures come from elsewhere: ``sizeof`` of the same CUB TempStorage
types, printed by a host program that nvcc builds against the bundled CCCL, and ptxas's "bytes
smem" for the nvcc twins of the benchmark kernels (benchmarks/cub_twins.cu). The GPU tier
(tests/gpu/test_shared_memory_footprint.py) checks the figure against the driver's.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.helpers import requires

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._numba._inspect import RESERVED_SHARED_BYTES
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import compile_kernel, shared_memory_bytes
from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
F32 = (types.float32[::1], types.float32[::1])
I32 = (types.int32[::1], types.int32[::1])
F32_I32 = (types.float32[::1], types.int32[::1])

SIZES = r"""
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cstdio>
using Reduce = cub::BlockReduce<float, 128, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
using Scan = cub::BlockScan<int, 128, cub::BLOCK_SCAN_RAKING>;
using Exchange = cub::WarpExchange<int, 4, 32, cub::WARP_EXCHANGE_SMEM>;
union Both { Reduce::TempStorage a; Scan::TempStorage b; };
int main()
{
  std::printf("reduce %zu\nscan %zu\nboth %zu\nexchange %zu\n", sizeof(Reduce::TempStorage),
              sizeof(Scan::TempStorage), sizeof(Both), sizeof(Exchange::TempStorage));
}
"""


def _nvcc() -> str:
    return requires.nvcc("the reference sizes")


@pytest.fixture(scope="module")
def cub_sizes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    """``sizeof`` of the CUB TempStorage types, from a host program (no GPU needed to run it)."""
    tmp = tmp_path_factory.mktemp("sizes")
    (tmp / "sizes.cu").write_text(SIZES)
    include = coop.header_bundle().include_dir
    subprocess.run([_nvcc(), "-std=c++17", f"-I{include}", "-o", str(tmp / "sizes"), str(tmp / "sizes.cu")],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([str(tmp / "sizes")], check=True, capture_output=True, text=True).stdout
    return {name: int(value) for name, value in re.findall(r"(\w+) (\d+)", out)}


@cuda.jit
def block_sum(x, y):
    v = coop.block.sum(x[cuda.threadIdx.x], algorithm="warp_reductions")
    if cuda.threadIdx.x == 0:
        y[cuda.blockIdx.x] = v


@cuda.jit
def sum_and_scan(x, y):
    v = coop.block.sum(x[cuda.threadIdx.x], algorithm="warp_reductions")  # float32
    w = coop.block.exclusive_sum(y[cuda.threadIdx.x], algorithm="raking")  # int32
    if cuda.threadIdx.x == 0:
        x[0] = v
    y[cuda.threadIdx.x] = w


@cuda.jit
def warp_exchange(x, y):
    items = cuda.local.array(4, np.int32)
    for i in range(4):
        items[i] = x[cuda.threadIdx.x * 4 + i]
    coop.warp.blocked_to_striped(items, algorithm="smem")
    for i in range(4):
        y[cuda.threadIdx.x * 4 + i] = items[i]


def test_block_reduce_128_threads(cub_sizes: dict[str, int]) -> None:
    assert shared_memory_bytes(block_sum, F32, block=128) == cub_sizes["reduce"]


def test_two_block_call_sites_share_one_region(cub_sizes: dict[str, int]) -> None:
    """A reduction and a scan: the footprint is the larger TempStorage (their union), not the sum."""
    got = shared_memory_bytes(sum_and_scan, F32_I32, block=128)
    assert got == cub_sizes["both"] == max(cub_sizes["reduce"], cub_sizes["scan"])
    assert got < cub_sizes["reduce"] + cub_sizes["scan"]


def test_warp_primitive_has_one_slot_per_warp(cub_sizes: dict[str, int]) -> None:
    """Four warps of 32 threads: four WarpExchange TempStorages."""
    assert shared_memory_bytes(warp_exchange, I32, block=128) == 4 * cub_sizes["exchange"]
    assert shared_memory_bytes(warp_exchange, I32, block=64) == 2 * cub_sizes["exchange"]


def test_query_is_compiled_kernels_figure() -> None:
    """One static figure (the query, the CompiledKernel, its resource usage) and one launch figure, which adds the
    driver-reserved 1 KiB, as cuobjdump's own figure does."""
    from cuda.coop._numba._inspect import _run_on_cubin

    compiled = compile_kernel(sum_and_scan, F32_I32, block=256)
    static = compiled.shared_memory_bytes
    assert static == shared_memory_bytes(sum_and_scan, F32_I32, block=256)
    assert compiled.resource_usage()["shared"] == static
    assert compiled.launch_shared_memory_bytes == static + RESERVED_SHARED_BYTES
    cuobjdump = _run_on_cubin("cuobjdump", ["--dump-resource-usage"], compiled.cubin)
    assert f"SHARED:{static + RESERVED_SHARED_BYTES}" in cuobjdump, cuobjdump


def test_no_reservation_before_sm_80() -> None:
    compiled = compile_kernel(sum_and_scan, F32_I32, block=256, arch="sm_75")
    assert compiled.launch_shared_memory_bytes == compiled.shared_memory_bytes > 0


@functools.cache
def _benchmarks() -> Any:
    return load_script(ROOT / "benchmarks" / "run.py", "cuda_coop_benchmark_kernels")


@pytest.fixture(scope="module")
def twin_smem(tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    """ptxas's "bytes smem" of every kernel of benchmarks/cub_twins.cu."""
    tmp = tmp_path_factory.mktemp("twins")
    include = coop.header_bundle().include_dir
    result = subprocess.run(
        [_nvcc(), "-O3", "-std=c++17", "-arch=sm_90", f"-I{include}", "-cubin", "-Xptxas", "-v",
         "-o", str(tmp / "twins.cubin"), str(ROOT / "benchmarks" / "cub_twins.cu")],
        check=True, capture_output=True, text=True,
    )
    found: dict[str, int] = {}
    function = None
    for line in (result.stdout + result.stderr).splitlines():
        if match := re.search(r"Function properties for (\w+)", line):
            function = match[1]
        elif (match := re.search(r"(\d+) bytes smem", line)) and function:
            found[function] = int(match[1])
    assert found, result.stderr
    return found


@pytest.mark.parametrize(
    ("name", "signature"),
    [
        ("tile_sum_f32", F32),
        ("tile_inclusive_sum_i32", I32),
        ("exchange_b2s_i32", I32),
        ("histogram_sort_u8", (types.uint8[::1], types.uint32[::1])),
        ("histogram_atomic_u8", (types.uint8[::1], types.uint32[::1])),
    ],
)
def test_benchmark_kernels_match_nvcc_twins(name: str, signature: tuple[Any, ...], twin_smem: dict[str, int]) -> None:
    """The same CUB code (and, for the histograms, the kernel's own shared counters) as ptxas counts it."""
    assert shared_memory_bytes(getattr(_benchmarks(), name), signature, block=256) == twin_smem[name]


def test_not_a_kernel_is_refused() -> None:
    with pytest.raises(UsageError, match="compile_kernel"):
        shared_memory_bytes(block_sum.py_func, F32, block=128)
