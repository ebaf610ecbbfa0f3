"""The kernel's link (numba-cuda 0.30 ``CUDACodeLibrary._link_all``): 32-bit shared-memory pointers.

A code library holding a cuda-coop provider (``_seams.LTOIR`` among its linking files) adds, before its own
LTO-IR, a layout-only module whose data layout is numba-cuda's NVVM layout with 32-bit shared pointers
(``_numba._layout``): nvJitLink keeps the first module's layout, and numba-cuda's has 64-bit shared
pointers. Other kernels link as numba-cuda links them. Imported by the package after its version gate; installed once at
activation (``functools.cache``).
"""

from __future__ import annotations

import functools
from typing import Any

from ..._numba import _layout
from . import LTOIR

__all__ = ["install_link_layout", "layout_ltoir", "short_shared_layout"]


def short_shared_layout() -> str:
    """numba-cuda's NVVM data layout with 32-bit shared-memory pointers (``p3``), as nvcc's."""
    from numba.cuda.cudadrv import nvvm

    return _layout.short_shared_layout(nvvm.NVVM().data_layout)


@functools.cache
def layout_ltoir(arch: str) -> bytes:
    """LTO-IR for ``arch`` (``sm_90``, ``sm_90a``, ...) of a module with no code and :func:`short_shared_layout`."""
    from numba.cuda.cudadrv import nvvm

    return _layout.layout_module(nvvm, short_shared_layout(), arch)


@functools.cache
def install_link_layout() -> None:
    from numba.cuda.codegen import CUDACodeLibrary

    cls: Any = CUDACodeLibrary
    original = cls._link_all

    def _link_all(self: Any, linker: Any, cc: Any, ignore_nonlto: bool = False) -> Any:
        if linker.lto and any(isinstance(f, LTOIR) for f in self._linking_files):
            linker.add_ltoir(layout_ltoir(linker.arch), name="cuda_coop_layout")
        return original(self, linker, cc, ignore_nonlto=ignore_nonlto)

    cls._link_all = _link_all
