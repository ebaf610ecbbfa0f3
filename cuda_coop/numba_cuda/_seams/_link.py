"""The kernel's link (numba-cuda 0.30 ``CUDACodeLibrary``): 32-bit shared-memory pointers, then the shared link.

A code library holding a cuda-coop provider (``_seams.LTOIR`` among its linking files) is linked by cuda-coop:

- its LLVM IR gets names that do not depend on what the process compiled before (``_names``), so that its LTO-IR
  and cubin are the same in every process;
- ``_link_all`` adds, before its own LTO-IR, a layout-only module whose data layout is numba-cuda's NVVM layout
  with 32-bit shared pointers (``_numba._layout``): nvJitLink keeps the first module's layout, and numba-cuda's
  has 64-bit shared pointers;
- ``get_cubin`` links through the shared :mod:`cuda_coop._numba._link`: the modules after the kernel's in an order
  of their own (numba-cuda keeps linking files in a set), retried with recompiled providers if cached ones fail
  the link, the cubin kept in the persistent cache of linked kernels and taken from a precompiled pack built for
  numba-cuda kernels. The cubin goes where numba-cuda's own ``get_cubin`` puts it (``_cubin_cache``, by compute
  capability), which is also where numba-cuda's ``cache=True`` puts the cubins it loads from disk: a launch then
  loads it (``get_cufunc``) as it loads any cubin. numba-cuda still types and lowers the kernel and NVVM compiles
  it to LTO-IR, as for a cache hit under numba-cuda-mlir: the kernel's own LTO-IR is part of the key.

Other kernels link as numba-cuda links them. Imported by the package after its version gate; installed once at
activation (``functools.cache``).
"""

from __future__ import annotations

import functools
from typing import Any

from ..._numba import _layout, _link
from ..._provider import _packs
from ..._provider._cache import default_link_cache
from . import LTOIR
from ._names import canonical_names

__all__ = ["install_link_layout", "layout_ltoir", "short_shared_layout"]

DSL = "numba_cuda"


def short_shared_layout() -> str:
    """numba-cuda's NVVM data layout with 32-bit shared-memory pointers (``p3``), as nvcc's."""
    from numba.cuda.cudadrv import nvvm

    return _layout.short_shared_layout(nvvm.NVVM().data_layout)


@functools.cache
def layout_ltoir(arch: str) -> bytes:
    """LTO-IR for ``arch`` (``sm_90``, ``sm_90a``, ...) of a module with no code and :func:`short_shared_layout`."""
    from numba.cuda.cudadrv import nvvm

    return _layout.layout_module(nvvm, short_shared_layout(), arch)


def _holds_provider(library: Any) -> bool:
    return any(isinstance(f, LTOIR) for f in library._linking_files)


def _in_order(linker: Any) -> None:
    """The layout and kernel modules first, as ``_link_all`` added them; then the others by name and content."""
    head, rest = linker._object_codes[:2], linker._object_codes[2:]
    linker._object_codes = [*head, *sorted(rest, key=lambda o: (str(o.name), _link.digest(bytes(o.code))))]


def _get_cubin(library: Any, cc: Any) -> Any:
    """``CUDACodeLibrary.get_cubin`` for a library holding a cuda-coop provider (see the module's docstring)."""
    from numba.cuda.cudadrv import driver

    cc = library._ensure_cc(cc)
    cubin = library._cubin_cache.get(cc)
    if cubin:
        return cubin
    canonical_names(library)
    linker = driver._Linker(max_registers=library._max_registers, cc=cc, lto=library._lto)
    library._link_all(linker, cc, ignore_nonlto=False)
    if _link.link_inputs(linker) is not None:
        _in_order(linker)
    again = _link.recompiles(linker)
    cache = default_link_cache()
    if cache is not None or _packs.active():
        cubin = _link.complete_cached(linker, again, cache, DSL)
    else:
        cubin = _link.complete(linker, again)
    library._cubin_cache[cc] = cubin
    library._linkerinfo_cache[cc] = getattr(linker, "_info_log", "")
    return cubin


@functools.cache
def install_link_layout() -> None:
    from numba.cuda.codegen import CUDACodeLibrary

    cls: Any = CUDACodeLibrary
    link_all, get_cubin = cls._link_all, cls.get_cubin

    def _link_all(self: Any, linker: Any, cc: Any, ignore_nonlto: bool = False) -> Any:
        if linker.lto and _holds_provider(self):
            canonical_names(self)  # get_lto_ptx links too
            linker.add_ltoir(layout_ltoir(linker.arch), name="cuda_coop_layout")
        return link_all(self, linker, cc, ignore_nonlto=ignore_nonlto)

    def _cubin(self: Any, cc: Any = None) -> Any:
        return _get_cubin(self, cc) if _holds_provider(self) else get_cubin(self, cc=cc)

    cls._link_all = _link_all
    cls.get_cubin = _cubin
