"""The kernel's link (numba-cuda-mlir 0.5.x ``linker.Linker``): 32-bit shared pointers, retry, cache.

- :func:`link_with_short_shared_pointers` registers a provider's LTO-IR; a link that holds one starts
  with a layout-only module (:func:`layout_ltoir`), see the comment below.
- A link holding providers read from the disk cache is retried once, if it fails, with them compiled
  again (:func:`_complete_or_recompile`).
- With the persistent cache on, the linked cubin is kept under a key of everything the link is given;
  with a precompiled pack configured (or a precompile recording), the same modules are keyed without
  install locations and the cubin is looked up in the packs (:func:`_complete_cached`).

Imported by the package after its version gate. Module state: ``_PROVIDERS``, ``_TOOLKITS`` and
``_PACKED`` (per process, keyed by LTO-IR digest); the wrapper is installed once (``functools.cache``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import logging
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..._numba import _layout
from ..._provider import _packs
from ..._provider._cache import DiskCache, default_link_cache
from ..._provider._key import link_key
from ..._provider._pack import PackIdentity
from ...errors import BackendError
from . import VERSION, _backend

_log = logging.getLogger("cuda.coop")

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

_PROVIDERS: dict[bytes, Callable[[], bytes] | None] = {}
"""Digests of provider LTO-IR (a link holding one starts with the layout module) -> how to compile it again
when it came from the disk cache (see :func:`link_with_short_shared_pointers`)."""
_TOOLKITS: dict[bytes, str] = {}
"""Digests of provider LTO-IR -> the identity of the toolkit (nvJitLink included) it was compiled for."""
_PACKED: dict[bytes, tuple[PackIdentity, str]] = {}
"""Digests of provider LTO-IR -> (the identity a pack needs to serve it, its key in a pack)."""


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def link_with_short_shared_pointers(
    ltoir: bytes,
    *,
    toolkit: str,
    recompile: Callable[[], bytes] | None = None,
    pack: tuple[PackIdentity, str] | None = None,
) -> bytes:
    """Have every kernel link that holds ``ltoir`` use 32-bit shared-memory pointers; returns ``ltoir``.

    See the comment above: a layout-only module goes first in such a link and sets its data layout.
    ``toolkit`` is the identity of the toolkit ``ltoir`` was compiled for (its nvJitLink links the kernel):
    part of the key of the linked kernel in the persistent cache (:func:`_complete_cached`).
    ``recompile`` (for bytes read from the disk cache): if such a link fails, it is called for fresh bytes
    (the provider evicts its entry and runs NVRTC again), which replace ``ltoir`` in one more link. So a
    cache entry that passed the cache's own checks but does not link costs one compile, not an error.
    ``pack``: the identity a precompiled pack needs to hold a kernel linked with ``ltoir``, and the key
    ``ltoir`` has in a pack (``Provider.pack_identity``, ``Provider.portable_key``).
    """
    _install_link_layout()
    digest = _digest(ltoir)
    if recompile is not None or digest not in _PROVIDERS:
        _PROVIDERS[digest] = recompile
    _TOOLKITS[digest] = toolkit
    if pack is not None:
        _PACKED[digest] = pack
    return ltoir


def _complete_or_recompile(linker: Any, recompiles: dict[bytes, Callable[[], bytes]]) -> Any:
    """``linker.complete()``; if it fails, once more with the cached providers it holds compiled again."""
    from cuda.core import ObjectCode

    try:
        result = type(linker).complete(linker)
    except Exception as exc:
        _log.debug("cuda.coop: a kernel link holding cached providers failed (%s); recompiling them", exc)
        codes = []
        for code in linker._object_codes:
            recompile = recompiles.get(_digest(bytes(code.code))) if code.code_type == "ltoir" else None
            if recompile is None:
                codes.append(code)
                continue
            old = _digest(bytes(code.code))
            fresh = link_with_short_shared_pointers(recompile(), toolkit=_TOOLKITS.get(old, ""), pack=_PACKED.get(old))
            codes.append(ObjectCode.from_ltoir(fresh, name=getattr(code, "name", None) or "cuda_coop_provider"))
        for digest in recompiles:
            _PROVIDERS[digest] = None  # compiled again once; a later link of the same bytes fails as it is
        linker._object_codes = codes
        return type(linker).complete(linker)
    for digest in recompiles:
        _PROVIDERS[digest] = None  # these bytes link: nothing to compile again if a later link fails
    return result


def _complete(linker: Any, recompiles: dict[bytes, Callable[[], bytes]]) -> Any:
    """The link itself: retried with recompiled providers if some came from the disk cache."""
    return _complete_or_recompile(linker, recompiles) if recompiles else type(linker).complete(linker)


_Inputs = list[tuple[str, str, bytes]]


def _link_inputs(linker: Any) -> _Inputs | None:
    """``(code type, name, bytes)`` of each module ``linker.complete()`` gives nvJitLink, in order.

    None when a module is given by its path rather than its bytes (a library the kernel links): its
    contents are not in hand, so the link is neither cached nor looked up in a pack.
    """
    inputs = []
    for code in linker._object_codes:
        if not isinstance(code.code, bytes | bytearray | memoryview):
            return None
        inputs.append((str(code.code_type), str(getattr(code, "name", "") or ""), bytes(code.code)))
    return inputs


def _inputs_key(linker: Any, inputs: _Inputs, *, portable: bool = False) -> str:
    """:func:`~cuda_coop._provider._key.link_key` of ``inputs`` with ``linker``'s options.

    ``portable``: the providers' toolkits by their portable identities (a pack's key) instead of the
    located ones (the persistent cache's key).
    """
    if portable:
        found = [_PACKED[d][0].toolkit_identity for *_, data in inputs if (d := _digest(data)) in _PACKED]
    else:
        found = [t for *_, data in inputs if (t := _TOOLKITS.get(_digest(data)))]
    options = linker._get_linker_options(ptx=False)  # cuda.core's LinkerOptions: every field, by name
    dataclass = dataclasses.is_dataclass(options) and not isinstance(options, type)
    fields = dataclasses.asdict(options) if dataclass else vars(options)
    return link_key(inputs, repr(sorted(fields.items())), "\0".join(sorted(set(found))))


def _link_inputs_key(linker: Any) -> str | None:
    """The persistent cache's key of ``linker``'s link (None: a module is given by path, see :func:`_link_inputs`)."""
    inputs = _link_inputs(linker)
    return None if inputs is None else _inputs_key(linker, inputs)


def is_cuda_elf(data: bytes) -> bool:
    """Whether ``data`` starts as a cubin does: a 64-bit ELF whose machine is CUDA (EM_CUDA, 190)."""
    if len(data) < 20 or data[:5] != b"\x7fELF\x02":
        return False
    machine: int = struct.unpack_from("<H" if data[5] == 1 else ">H", data, 18)[0]  # e_machine
    return machine == 190


def _complete_cached(linker: Any, recompiles: dict[bytes, Callable[[], bytes]], cache: DiskCache | None) -> Any:
    """``linker.complete()`` through the persistent cache of linked kernels and the precompiled packs.

    The persistent cache (``CUDA_COOP_ENABLE_CACHE``, ``cache``) keys the cubin by every module the link
    is given, its options and the nvJitLink library, so a hit is the cubin this link would produce; the
    packs key it by the same with the toolkit's portable identity. A miss links (retrying with
    recompiled providers, as :func:`_complete_or_recompile`) and stores the cubin in the cache under the
    key of the modules actually linked. A precompile in progress records the cubin, wherever it came from.
    """
    from cuda.core import ObjectCode

    start = time.perf_counter()
    linker._materialize_pending_cu()
    inputs = _link_inputs(linker)
    if inputs is None:
        return _complete(linker, recompiles)
    key = _inputs_key(linker, inputs)
    cubin, how, where = _from_cache(cache, key), "cache hit", ""
    if cubin is None and (found := _from_packs(linker, inputs)) is not None:
        cubin, how, where = found[0], "pack hit", f" ({found[1]})"
    if cubin is not None:
        linker._complete, linker._info_log, linker._error_log = True, "", ""
        for digest in recompiles:
            _PROVIDERS[digest] = None  # these bytes linked into this cubin
        _record(linker, inputs, cubin)
        _log.debug("cuda.coop: kernel link %s: %s in %.3f s%s", key[:16], how, time.perf_counter() - start, where)
        return ObjectCode.from_cubin(cubin, name=f"cuda_coop_kernel_{key[:16]}")
    result = _complete(linker, recompiles)
    # Another key if the retry compiled providers again: the cubin is stored under what was linked.
    linked = _link_inputs(linker) if recompiles else inputs
    if linked is not None:
        _record(linker, linked, bytes(result.code))
        if cache is not None:
            key = _inputs_key(linker, linked)
            cache.put(key, bytes(result.code))
        how = "linked and cached" if cache is not None else "linked"
        _log.debug("cuda.coop: kernel link %s: %s in %.3f s", key[:16], how, time.perf_counter() - start)
    return result


def _from_cache(cache: DiskCache | None, key: str) -> bytes | None:
    """The persistent cache's cubin under ``key``; an entry that is not a CUDA ELF is removed."""
    cubin = cache.get(key) if cache is not None else None
    if cache is not None and cubin is not None and not is_cuda_elf(cubin):
        _log.debug("cuda.coop: kernel link %s: the cached entry is not a CUDA ELF; linking again", key[:16])
        cache.discard(key)
        return None
    return cubin


def _from_packs(linker: Any, inputs: _Inputs) -> tuple[bytes, Path] | None:
    """``(cubin, pack directory)`` from the first pack holding this link; None without packs or entry."""
    identities = [_PACKED[d][0] for *_, data in inputs if (d := _digest(data)) in _PACKED]
    if not identities or not _packs.packs():
        return None
    key = _inputs_key(linker, inputs, portable=True)
    found = _packs.lookup("kernel", key, identities[0])
    if found is None:
        return None
    cubin, pack = found
    if not is_cuda_elf(cubin):
        _packs.refuse(pack, "kernel", key, "its cubin is not a CUDA ELF")
        return None
    return cubin, pack.path


def _record(linker: Any, inputs: _Inputs, cubin: bytes) -> None:
    """Note the linked kernel (and the keys of its providers) in this thread's precompile, if one records."""
    recording = _packs.recorder()
    if recording is None:
        return
    providers = tuple(_PACKED[d][1] for *_, data in inputs if (d := _digest(data)) in _PACKED)
    recording.kernels[_inputs_key(linker, inputs, portable=True)] = (cubin, providers)


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
        digests = [_digest(bytes(o.code)) if getattr(o, "code_type", None) == "ltoir" else None for o in codes]
        if not any(d in _PROVIDERS for d in digests):
            return new
        layout = layout_ltoir(new.arch)
        previous = _digest(layout)  # a relinked link holds the layout module already
        others = [o for o, d in zip(codes, digests, strict=True) if d != previous]
        new._object_codes = [ObjectCode.from_ltoir(layout, name="cuda_coop_layout"), *others]
        recompiles = {d: fn for d in digests if d is not None and (fn := _PROVIDERS.get(d)) is not None}
        cache = default_link_cache()
        if cache is not None or _packs.active():
            new.complete = functools.partial(_complete_cached, new, recompiles, cache)
        elif recompiles:
            new.complete = functools.partial(_complete_or_recompile, new, recompiles)
        return new

    cls.recreate_with_lto = recreate_with_lto
