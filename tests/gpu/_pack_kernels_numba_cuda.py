"""The kernels of ``_pack_kernels`` (one source) as numba-cuda kernels, with their ``cuda_coop_precompile`` list."""

from __future__ import annotations

from typing import Any

from tests.gpu._pack_kernels import build
from tests.helpers.dsl import NUMBA_CUDA

_KERNELS = build(NUMBA_CUDA)
sort_scan: Any = _KERNELS.sort_scan
byte_histogram: Any = _KERNELS.byte_histogram
SORT_SIGNATURE, HISTOGRAM_SIGNATURE, types = _KERNELS.SORT_SIGNATURE, _KERNELS.HISTOGRAM_SIGNATURE, _KERNELS.types
cuda_coop_precompile = _KERNELS.cuda_coop_precompile
