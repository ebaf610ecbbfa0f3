"""The families whose CUB code has a generic lambda in device code compile with every NVRTC cuda-coop accepts
(compile tier, no GPU).

NVRTC before 13.2 takes the call operator of a generic lambda (``[&](auto i) {...}``) in a ``__device__`` function
for a host function and refuses it; CCCL 3.6 has such lambdas in ``cub::WarpReduceBatched`` and
``cub::detail::WarpBitonicSort``, so there their providers are compiled with ``-default-device``
(``cuda_coop/_provider/_key.py``: ``GENERIC_LAMBDA_NVRTC``, ``lambda_options``; docs/known_issues.rst). One kernel
per family and algorithm that needs it; the option only where it is needed. scripts/test_cuda13.0.sh runs this file
against NVRTC 13.0, where each of these kernels failed to compile before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._provider._key import DEFAULT_DEVICE, GENERIC_LAMBDA_NVRTC
from cuda.coop._specs import Request
from cuda.coop.numba_mlir import compile_kernel
from tests.helpers.nvrtc import compile_requests

WARP = 16
ITEMS = 4
BLOCK = 64


@cuda.jit
def _sum_batched(x, out):
    """cub::WarpReduceBatched::Sum (16 batches over 16 lanes)."""
    items = cuda.local.array(WARP, np.float32)
    for i in range(WARP):
        items[i] = x[cuda.threadIdx.x * WARP + i]
    out[cuda.threadIdx.x] = coop.warp.sum_batched(items, threads=WARP)


@cuda.jit
def _reduce_batched(x, out):
    """cub::WarpReduceBatched::ReduceToStriped (40 batches over 16 lanes, 3 results per lane)."""
    items = cuda.local.array(40, np.int32)
    result = cuda.local.array(3, np.int32)
    for i in range(40):
        items[i] = x[cuda.threadIdx.x * 40 + i]
    coop.warp.reduce_batched(items, "max", output=result, arrangement="striped", threads=WARP)
    for i in range(3):
        out[cuda.threadIdx.x * 3 + i] = result[i]


@cuda.jit
def _merge_sort_bitonic(x):
    """cub::detail::WarpBitonicSort through cuda_coop::WarpSort (the network alone)."""
    keys = cuda.local.array(ITEMS, np.int32)
    for i in range(ITEMS):
        keys[i] = x[cuda.threadIdx.x * ITEMS + i]
    coop.warp.merge_sort(keys, ">", threads=WARP, algorithm="bitonic")
    for i in range(ITEMS):
        x[cuda.threadIdx.x * ITEMS + i] = keys[i]


@cuda.jit
def _argsort_bitonic(x, order):
    """The positioned network (ties broken by position)."""
    keys = cuda.local.array(ITEMS, np.float32)
    index = cuda.local.array(ITEMS, np.int32)
    for i in range(ITEMS):
        keys[i] = x[cuda.threadIdx.x * ITEMS + i]
    coop.warp.argsort(keys, index, threads=WARP, algorithm="bitonic")
    for i in range(ITEMS):
        order[cuda.threadIdx.x * ITEMS + i] = index[i]


@cuda.jit
def _top_k_bitonic(x, top):
    """The network's striped result, stored where it is."""
    keys = cuda.local.array(ITEMS, np.float32)
    for i in range(ITEMS):
        keys[i] = x[cuda.threadIdx.x * ITEMS + i]
    warp = coop.uniform(cuda.threadIdx.x // WARP)
    coop.warp.top_k(keys, top, k=5, offset=warp * 5, threads=WARP, algorithm="bitonic")


F32, I32 = types.float32[::1], types.int32[::1]
KERNELS: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "sum_batched": (_sum_batched, (F32, F32)),
    "reduce_batched": (_reduce_batched, (I32, I32)),
    "merge_sort-bitonic": (_merge_sort_bitonic, (I32,)),
    "argsort-bitonic": (_argsort_bitonic, (F32, I32)),
    "top_k-bitonic": (_top_k_bitonic, (F32, F32)),
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_the_kernel_compiles(name: str) -> None:
    kernel, signature = KERNELS[name]
    compiled = compile_kernel(kernel, signature, block=BLOCK)
    assert "call." not in compiled.ptx  # the wrappers inlined


def _options(requests: list[Request], toolchain: Toolchain, compiler: NvrtcCompiler) -> tuple[str, ...]:
    return compile_requests(requests, toolchain, compiler, (BLOCK,)).options


def test_default_device_only_where_this_nvrtc_needs_it(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    """With the generic lambdas' family (and compiles), without it for another algorithm of the same family."""
    needs = toolchain.nvrtc_version < GENERIC_LAMBDA_NVRTC
    sort = {"dtype": "int32", "items_per_thread": ITEMS, "threads": WARP, "compare": "<"}
    bitonic = Request("warp_merge_sort", "merge_sort", "keys", algorithm="bitonic", **sort)
    merge = Request("warp_merge_sort", "merge_sort", "keys", algorithm="merge_sort", **sort)
    batched = Request("warp_reduce_batched", "sum_batched", "one", dtype="float32", batches=WARP, threads=WARP)
    reduce = Request("block_reduce", "sum", "scalar", dtype="float32")
    assert (DEFAULT_DEVICE in _options([bitonic], toolchain, compiler)) is needs
    assert (DEFAULT_DEVICE in _options([batched, reduce], toolchain, compiler)) is needs
    assert DEFAULT_DEVICE not in _options([merge, reduce], toolchain, compiler)
