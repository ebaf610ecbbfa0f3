"""The kernel's link (numba-cuda-mlir 0.5.x ``linker.Linker``): 32-bit shared pointers, then the shared link.

- :func:`link_with_short_shared_pointers` registers a provider's LTO-IR; a link that holds one starts
  with a layout-only module (:func:`layout_ltoir`), see the comment below.
- The link itself goes through the shared :mod:`cuda_coop._numba._link`: retried with recompiled providers if
  cached ones fail it, its cubin kept in the persistent cache and looked up in the packs built for
  numba-cuda-mlir kernels.

Imported by the package after its version gate; the wrapper is installed once (``functools.cache``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..._numba import _layout, _link
from ..._provider import _packs
from ..._provider._cache import DiskCache, default_link_cache
from ..._provider._pack import PackIdentity
from ...errors import BackendError
from . import VERSION, _backend

# --- the linked kernel's data layout (numba-cuda-mlir 0.5.x) ---------------------------------------------
#
# nvJitLink's LTO link merges every module into the *first* one and keeps that module's data layout.
# numba-cuda-mlir puts the kernel's LTO-IR first, and its layout (``NVPTX64_DATALAYOUT``) has no
# "p3:32:32:32": shared-memory pointers are 64-bit in the linked module, so every CUB TempStorage
# address is a sign-extended 64-bit computation (mul.wide.s32 + add.s64) that is not folded into the
# immediate offsets nvcc's 32-bit shared pointers get. Putting the provider's LTO-IR first is not
# enough: NVRTC 13.0 declares 64-bit shared pointers too (13.1 and later declare 32-bit ones). So a
# link that holds a cuda-coop provider starts with a module of its own: no code, only numba-cuda-mlir's
# layout with 32-bit shared pointers (nvcc's), compiled to LTO-IR by the libnvvm numba-cuda-mlir uses.
# Measured (exchange f64 256x16, sm_90, NVRTC and nvJitLink 13.0): 206 SASS instructions with the
# shared stores and loads addressed register by register; 161 with the layout module, every shared
# access at the nvcc twin's immediate offset (the twin: 145); on an H200 the kernel ran 1.099x its
# twin before.

def link_with_short_shared_pointers(
    ltoir: bytes,
    *,
    toolkit: str,
    recompile: Callable[[], bytes] | None = None,
    pack: tuple[PackIdentity, str] | None = None,
) -> bytes:
    """Have every kernel link that holds ``ltoir`` use 32-bit shared-memory pointers; returns ``ltoir``.

    See the comment above: a layout-only module goes first in such a link and sets its data layout. The
    provider is noted for the link's caches, packs and retry (:func:`~cuda_coop._numba._link.register_provider`
    says what ``toolkit``, ``recompile`` and ``pack`` are).
    """
    _install_link_layout()
    return _link.register_provider(ltoir, toolkit=toolkit, recompile=recompile, pack=pack)


def _complete_cached(linker: Any, again: dict[bytes, Callable[[], bytes]], cache: DiskCache | None) -> Any:
    """The shared :func:`~cuda_coop._numba._link.complete_cached`, once numba-cuda-mlir's pending CUDA C++ is
    compiled (it is part of what is linked)."""
    linker._materialize_pending_cu()
    return _link.complete_cached(linker, again, cache, "numba_mlir")


def short_shared_layout() -> str:
    """numba-cuda-mlir's NVPTX data layout with 32-bit shared-memory pointers (``p3``), as nvcc's."""
    from numba_cuda_mlir.lowering_utilities.llvm_utils import NVPTX64_DATALAYOUT

    return _layout.short_shared_layout(NVPTX64_DATALAYOUT)


@functools.cache
def layout_ltoir(arch: str) -> bytes:
    """LTO-IR for ``arch`` (``sm_90``, ``sm_90a``, ...) of a module with no code and :func:`short_shared_layout`."""
    from numba_cuda_mlir.numba_cuda.cudadrv import nvvm

    return _layout.layout_module(nvvm, short_shared_layout(), arch)


@functools.cache
def _install_link_layout() -> None:
    from cuda.core import ObjectCode
    from numba_cuda_mlir import linker as _linker

    cls: Any = _linker.Linker
    original = cls.recreate_with_lto
    laid_out = (
        all(hasattr(cls, name) for name in ("complete", "_materialize_pending_cu", "_get_linker_options"))
        and "kernel_ltoir" in inspect.signature(original).parameters
        and hasattr(cls(cc=(9, 0)), "_object_codes")
    )
    if not laid_out:
        raise BackendError(
            f"cuda.coop.numba_mlir cannot set the kernel link's data layout in numba-cuda-mlir {VERSION}: its "
            f"linker is not laid out as in 0.5.x; install numba-cuda-mlir{_backend.supported}"
        )

    def recreate_with_lto(
        self: Any, lto: bool = True, ltoir_only: bool = False, kernel_ltoir: bytes | None = None
    ) -> Any:
        new = original(self, lto=lto, ltoir_only=ltoir_only, kernel_ltoir=kernel_ltoir)
        if kernel_ltoir is None:
            return new
        codes = new._object_codes
        digests = [_link.digest(bytes(o.code)) if getattr(o, "code_type", None) == "ltoir" else None for o in codes]
        if not _link.holds_provider(digests):
            return new
        layout = layout_ltoir(new.arch)
        previous = _link.digest(layout)  # a relinked link holds the layout module already
        others = [o for o, d in zip(codes, digests, strict=True) if d != previous]
        new._object_codes = [ObjectCode.from_ltoir(layout, name="cuda_coop_layout"), *others]
        again = _link.recompiles(new)
        cache = default_link_cache()
        if cache is not None or _packs.active():
            new.complete = functools.partial(_complete_cached, new, again, cache)
        elif again:
            new.complete = functools.partial(_link.complete, new, again)
        return new

    cls.recreate_with_lto = recreate_with_lto
