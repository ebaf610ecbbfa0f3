"""The footprint query equals the static shared memory the driver reports for the launched kernel (GPU tier).

``shared_memory_bytes(kernel, signature, block=...)``, computed before the launch for the device's
architecture, against ``CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`` of the function the launch loaded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.numba_mlir import shared_memory_bytes

THREADS = 128


@cuda.jit
def sum_and_scan(x, y):
    v = coop.block.sum(x[cuda.threadIdx.x], algorithm="warp_reductions")
    w = coop.block.exclusive_sum(y[cuda.threadIdx.x], algorithm="raking")
    if cuda.threadIdx.x == 0:
        x[0] = v
    y[cuda.threadIdx.x] = w


@cuda.jit
def with_own_shared(x, y):
    scratch = cuda.shared.array(64, np.float64)
    items = cuda.local.array(4, np.int32)
    for i in range(4):
        items[i] = y[cuda.threadIdx.x * 4 + i]
    coop.warp.blocked_to_striped(items, algorithm="smem")
    scratch[cuda.threadIdx.x % 64] = x[cuda.threadIdx.x]
    cuda.syncthreads()
    for i in range(4):
        y[cuda.threadIdx.x * 4 + i] = items[i] + np.int32(scratch[(cuda.threadIdx.x + 1) % 64])


def _driver_static_shared(kernel: Any) -> int:
    """CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES of the kernel's (only) launch-specialised function."""
    from cuda.bindings import driver
    from cuda.core import Device

    (cres,) = kernel._launch_config_compile_results()
    Device().set_current()
    err, module = driver.cuModuleLoadData(bytes(cres.metadata["cubin"]))
    assert err == driver.CUresult.CUDA_SUCCESS, err
    err, function = driver.cuModuleGetFunction(module, cres.metadata["func_name"].encode())
    assert err == driver.CUresult.CUDA_SUCCESS, err
    err, value = driver.cuFuncGetAttribute(driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function)
    assert err == driver.CUresult.CUDA_SUCCESS, err
    driver.cuModuleUnload(module)
    return int(value)


@pytest.mark.parametrize("kernel", [sum_and_scan, with_own_shared], ids=lambda k: k.py_func.__name__)
def test_query_equals_driver(kernel: Any) -> None:
    cc = cuda.get_current_device().compute_capability
    arch = f"sm_{cc[0]}{cc[1]}"
    sig = (types.float32[::1], types.int32[::1])
    predicted = shared_memory_bytes(kernel, sig, block=THREADS, arch=arch)
    x = cuda.to_device(np.ones(THREADS, np.float32))
    y = cuda.to_device(np.arange(THREADS * 4, dtype=np.int32))
    kernel[1, THREADS](x, y)
    cuda.synchronize()
    assert predicted == _driver_static_shared(kernel), f"predicted {predicted} bytes for {arch}"
