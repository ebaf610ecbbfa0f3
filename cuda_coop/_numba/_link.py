"""A kernel's link through cuda-coop's caches and precompiled packs, for both DSLs.

Both DSLs link a kernel with a linker laid out as numba-cuda's ``cudadrv.driver._Linker`` (numba-cuda-mlir's is a
fork of it): ``_object_codes`` (the cuda.core ``ObjectCode`` modules nvJitLink is given, in order),
``_get_linker_options(ptx)`` (cuda.core's ``LinkerOptions``) and ``complete()`` (the link: a cubin
``ObjectCode``). Each DSL's link seam builds such a linker with the kernel's modules (a layout-only module first,
``_layout``) and completes it here:

- a provider's LTO-IR is registered when the kernel's link reads it (:func:`register_provider`: the identity of
  the toolkit it was compiled for, how to compile it again, its key in a pack);
- a link holding providers read from the disk cache is retried once, if it fails, with them compiled again
  (:func:`complete`);
- with the persistent cache on, the linked cubin is kept under a key of everything the link is given and of the
  DSL that compiled the kernel; with a precompiled pack configured (or a precompile recording), the same modules
  are keyed without install locations and the cubin is looked up in the packs built for that DSL
  (:func:`complete_cached`).

Module state: ``_PROVIDERS``, ``_TOOLKITS`` and ``_PACKED`` (per process, keyed by LTO-IR digest; filled, never
emptied: a few bytes per provider).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import struct
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._provider import _packs
from .._provider._cache import DiskCache
from .._provider._key import link_key
from .._provider._pack import PackIdentity

__all__ = [
    "Inputs",
    "complete",
    "complete_cached",
    "digest",
    "holds_provider",
    "is_cuda_elf",
    "link_inputs",
    "link_inputs_key",
    "recompiles",
    "register_provider",
]

_log = logging.getLogger("cuda.coop")

_PROVIDERS: dict[bytes, Callable[[], bytes] | None] = {}
"""Digests of provider LTO-IR -> how to compile it again when it came from the disk cache (None: it cannot be, or
it linked already)."""
_TOOLKITS: dict[bytes, str] = {}
"""Digests of provider LTO-IR -> the identity of the toolkit (nvJitLink included) it was compiled for."""
_PACKED: dict[bytes, tuple[PackIdentity, str]] = {}
"""Digests of provider LTO-IR -> (the identity a pack needs to serve it, its key in a pack)."""

Inputs = list[tuple[str, str, bytes]]
"""``(code type, name, bytes)`` of each module of a link, in order."""


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def register_provider(
    ltoir: bytes,
    *,
    toolkit: str,
    recompile: Callable[[], bytes] | None = None,
    pack: tuple[PackIdentity, str] | None = None,
) -> bytes:
    """Note a provider's LTO-IR as the kernel's link reads it; returns ``ltoir``.

    ``toolkit`` is the identity of the toolkit ``ltoir`` was compiled for (its nvJitLink links the kernel): part of
    the key of the linked kernel in the persistent cache. ``recompile`` (for bytes read from the disk cache or a
    pack): if a link holding them fails, it is called for fresh bytes (the provider evicts its entry and runs NVRTC
    again), which replace ``ltoir`` in one more link. So a cache entry that passed the cache's own checks but does
    not link costs one compile, not an error. ``pack``: the identity a precompiled pack needs to hold a kernel linked
    with ``ltoir``, and the key ``ltoir`` has in a pack (``Provider.pack_identity``, ``Provider.portable_key``).
    """
    found = digest(ltoir)
    if recompile is not None or found not in _PROVIDERS:
        _PROVIDERS[found] = recompile
    _TOOLKITS[found] = toolkit
    if pack is not None:
        _PACKED[found] = pack
    return ltoir


def holds_provider(digests: Sequence[bytes | None]) -> bool:
    """Whether any of these LTO-IR digests is a provider's."""
    return any(d in _PROVIDERS for d in digests)


def recompiles(linker: Any) -> dict[bytes, Callable[[], bytes]]:
    """How to compile again each cached provider ``linker`` holds, by digest."""
    found = {}
    for code in linker._object_codes:
        if getattr(code, "code_type", None) == "ltoir" and isinstance(code.code, bytes | bytearray | memoryview):
            d = digest(bytes(code.code))
            if (fn := _PROVIDERS.get(d)) is not None:
                found[d] = fn
    return found


def _complete_or_recompile(linker: Any, again: dict[bytes, Callable[[], bytes]]) -> Any:
    """``linker.complete()``; if it fails, once more with the cached providers it holds compiled again."""
    from cuda.core import ObjectCode

    try:
        result = type(linker).complete(linker)
    except Exception as exc:
        _log.debug("cuda.coop: a kernel link holding cached providers failed (%s); recompiling them", exc)
        codes = []
        for code in linker._object_codes:
            fn = again.get(digest(bytes(code.code))) if code.code_type == "ltoir" else None
            if fn is None:
                codes.append(code)
                continue
            old = digest(bytes(code.code))
            fresh = register_provider(fn(), toolkit=_TOOLKITS.get(old, ""), pack=_PACKED.get(old))
            codes.append(ObjectCode.from_ltoir(fresh, name=getattr(code, "name", None) or "cuda_coop_provider"))
        for d in again:
            _PROVIDERS[d] = None  # compiled again once; a later link of the same bytes fails as it is
        linker._object_codes = codes
        return type(linker).complete(linker)
    for d in again:
        _PROVIDERS[d] = None  # these bytes link: nothing to compile again if a later link fails
    return result


def complete(linker: Any, again: dict[bytes, Callable[[], bytes]]) -> Any:
    """The link itself: retried with recompiled providers if some came from the disk cache (``again``)."""
    return _complete_or_recompile(linker, again) if again else type(linker).complete(linker)


def link_inputs(linker: Any) -> Inputs | None:
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


def _inputs_key(linker: Any, inputs: Inputs, dsl: str, *, portable: bool = False) -> str:
    """:func:`~cuda_coop._provider._key.link_key` of ``inputs`` with ``linker``'s options, for a kernel of ``dsl``.

    ``portable``: the providers' toolkits by their portable identities (a pack's key) instead of the
    located ones (the persistent cache's key).
    """
    if portable:
        found = [_PACKED[d][0].toolkit_identity for *_, data in inputs if (d := digest(data)) in _PACKED]
    else:
        found = [t for *_, data in inputs if (t := _TOOLKITS.get(digest(data)))]
    options = linker._get_linker_options(ptx=False)  # cuda.core's LinkerOptions: every field, by name
    dataclass = dataclasses.is_dataclass(options) and not isinstance(options, type)
    fields = dataclasses.asdict(options) if dataclass else vars(options)
    return link_key(inputs, repr(sorted(fields.items())), "\0".join(sorted(set(found))), dsl=dsl)


def link_inputs_key(linker: Any, dsl: str) -> str | None:
    """The persistent cache's key of ``linker``'s link (None: a module is given by path, see :func:`link_inputs`)."""
    inputs = link_inputs(linker)
    return None if inputs is None else _inputs_key(linker, inputs, dsl)


def is_cuda_elf(data: bytes) -> bool:
    """Whether ``data`` starts as a cubin does: a 64-bit ELF whose machine is CUDA (EM_CUDA, 190)."""
    if len(data) < 20 or data[:5] != b"\x7fELF\x02":
        return False
    machine: int = struct.unpack_from("<H" if data[5] == 1 else ">H", data, 18)[0]  # e_machine
    return machine == 190


def complete_cached(linker: Any, again: dict[bytes, Callable[[], bytes]], cache: DiskCache | None, dsl: str) -> Any:
    """``linker.complete()`` through the persistent cache of linked kernels and the precompiled packs.

    The persistent cache (``CUDA_COOP_ENABLE_CACHE``, ``cache``) keys the cubin by every module the link
    is given, its options, the nvJitLink library and the DSL (``dsl``) that compiled the kernel, so a hit is the
    cubin this link would produce; the packs key it by the same with the toolkit's portable identity, and serve it
    only from a pack built for ``dsl``'s kernels. A miss links (retrying with recompiled providers, as
    :func:`complete`) and stores the cubin in the cache under the key of the modules actually linked. A precompile
    in progress records the cubin, wherever it came from.
    """
    from cuda.core import ObjectCode

    start = time.perf_counter()
    inputs = link_inputs(linker)
    if inputs is None:
        return complete(linker, again)
    key = _inputs_key(linker, inputs, dsl)
    cubin, how, where = _from_cache(cache, key), "cache hit", ""
    if cubin is None and (found := _from_packs(linker, inputs, dsl)) is not None:
        cubin, how, where = found[0], "pack hit", f" ({found[1]})"
    if cubin is not None:
        linker._complete, linker._info_log, linker._error_log = True, "", ""
        for d in again:
            _PROVIDERS[d] = None  # these bytes linked into this cubin
        _record(linker, inputs, cubin, dsl)
        _log.debug("cuda.coop: kernel link %s: %s in %.3f s%s", key[:16], how, time.perf_counter() - start, where)
        return ObjectCode.from_cubin(cubin, name=f"cuda_coop_kernel_{key[:16]}")
    result = complete(linker, again)
    # Another key if the retry compiled providers again: the cubin is stored under what was linked.
    linked = link_inputs(linker) if again else inputs
    if linked is not None:
        _record(linker, linked, bytes(result.code), dsl)
        if cache is not None:
            key = _inputs_key(linker, linked, dsl)
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


def _from_packs(linker: Any, inputs: Inputs, dsl: str) -> tuple[bytes, Path] | None:
    """``(cubin, pack directory)`` from the first pack holding this link for ``dsl``; None without packs or entry."""
    identities = [_PACKED[d][0] for *_, data in inputs if (d := digest(data)) in _PACKED]
    if not identities or not _packs.packs():
        return None
    key = _inputs_key(linker, inputs, dsl, portable=True)
    found = _packs.lookup("kernel", key, identities[0], dsl)
    if found is None:
        return None
    cubin, pack = found
    if not is_cuda_elf(cubin):
        _packs.refuse(pack, "kernel", key, "its cubin is not a CUDA ELF")
        return None
    return cubin, pack.path


def _record(linker: Any, inputs: Inputs, cubin: bytes, dsl: str) -> None:
    """Note the linked kernel (and the keys of its providers) in this thread's precompile, if one records."""
    recording = _packs.recorder()
    if recording is None:
        return
    providers = tuple(_PACKED[d][1] for *_, data in inputs if (d := digest(data)) in _PACKED)
    recording.kernels[_inputs_key(linker, inputs, dsl, portable=True)] = (cubin, providers)


def __dir__() -> list[str]:
    return sorted(__all__)
