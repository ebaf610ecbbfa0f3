"""The ``cuda.coop`` logger says where a kernel's compile time goes (docs/configuration.rst)."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.numba_mlir import compile_kernel


@cuda.jit
def logged_tile_sum(x, out):
    items = cuda.local.array(4, np.int32)
    coop.block.load(x, items)
    total = coop.block.sum(items)
    if cuda.threadIdx.x == 0:
        out[0] = total


def test_the_planner_and_the_provider_report_their_seconds(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="cuda.coop"):
        compile_kernel(logged_tile_sum, (types.int32[::1], types.int32[::1]), block=(96,), arch="sm_90")
    lines = [r.getMessage() for r in caplog.records if r.name == "cuda.coop"]
    assert any(re.fullmatch(r"cuda\.coop: planned \S*logged_tile_sum in \d+\.\d{3} s", m) for m in lines), lines
    assert any(re.search(r"cuda\.coop: provider \w+: (compiled|cache hit) in \d+\.\d{3} s", m) for m in lines), lines
