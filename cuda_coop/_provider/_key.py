"""Cache keys: a provider's (and the NVRTC options it covers), and a kernel link's (:func:`link_key`).

The key (seed: launch dims, dtype and item extent, storage ABI, compute capability, compiler options,
ordered header identity, toolkit-library identity) is a SHA-256 over:

- :data:`KEY_SCHEMA_VERSION`;
- the rendered source, which spells the block dims, dtypes, extents, algorithms, operators and user
  types' storage ABI (and so covers everything a request can change);
- the NVRTC options exactly as passed to NVRTC (``-arch`` carries the compute capability; the
  include paths carry the ordered roots; ``-default-device`` where :func:`lambda_options` adds it),
  minus the precompiled-header options, which never change the output;
- the header identity (ordered roots and a fingerprint of their contents);
- the toolkit identity (NVRTC, nvrtc-builtins, nvJitLink, CUDA headers) and NVRTC's version.

Nothing else (backend name, dump or cache directory, compiler instance, request argument order)
enters the key.

A precompiled pack keys the same components without where they are installed
(:func:`portable_provider_key`): the include paths in the options become their places in the order,
and the header and toolkit identities their portable forms (contents; versions). Its kernels are keyed
by :func:`link_key` over the same modules, with the toolkits' portable identities. A provider's key names
no DSL (its source is the same C++ whichever DSL planned it); a kernel link's names the DSL whose compiler
made the kernel's own module.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ._toolchain import Toolchain

if TYPE_CHECKING:
    from .._specs import Binding

__all__ = [
    "KEY_SCHEMA_VERSION",
    "ProviderKey",
    "compile_options",
    "generic_lambda_options",
    "lambda_options",
    "link_key",
    "normalize_arch",
    "portable_options",
    "portable_provider_key",
    "provider_key",
]

KEY_SCHEMA_VERSION = 1

DEFAULT_DEVICE = "-default-device"
GENERIC_LAMBDA_NVRTC = (13, 2)
"""The first NVRTC that compiles a generic lambda in device code without :data:`DEFAULT_DEVICE`.

A lambda takes its execution space from the function it is defined in, so one in a ``__device__`` function is
device code. NVRTC 12.8 to 13.1 (12.8, 12.9, 13.0.88 and 13.1 measured; 13.2 and 13.5.37 accept it) does that for an
ordinary lambda but not for a generic one, ``[&](auto i) {...}``: the instantiation of its call operator template is
taken for an unannotated, hence host, function, and JIT mode refuses it ("A function without execution space
annotations (__host__/__device__/__global__) is considered a host function, and host functions are not allowed in
JIT mode"), with or without CCCL (docs/known_issues.rst has a reproducer of five lines). CCCL 3.6 has such lambdas
in ``cub::WarpReduceBatched`` and ``cub::detail::WarpBitonicSort`` (passed to ``::cuda::static_for``, itself
``__host__ __device__``; the enclosing members are ``__device__``). ``-default-device`` makes every unannotated
function a ``__device__`` one, so the call operator compiles; it also makes every namespace-scope variable a
``__device__`` one, so each variable template a provider instantiates (``cuda::std::is_integral_v<int>``...) becomes
a weak global in its LTO-IR and the kernel's cubin. Hence only for the providers that need it, and only there."""

_ARCH = re.compile(r"(?:sm_|compute_)?(\d{2,3})([af]?)\Z")


def normalize_arch(arch: object) -> str:
    """``"sm_<cc>"`` (with an ``a``/``f`` suffix if given) from 90, "90", "sm_90", "compute_90a", (9, 0).

    Raises
    ------
    ValueError
        If ``arch`` is none of those forms.
    """
    if isinstance(arch, tuple) and len(arch) == 2 and all(isinstance(v, int) for v in arch):
        return f"sm_{arch[0]}{arch[1]}"
    if isinstance(arch, int) and not isinstance(arch, bool):
        arch = str(arch)
    if isinstance(arch, str) and (m := _ARCH.match(arch.strip().lower())):
        return f"sm_{m.group(1)}{m.group(2)}"
    raise ValueError(f"arch={arch!r} is not a compute capability; use e.g. 90, 'sm_90', 'sm_90a' or (9, 0)")


def compile_options(toolchain: Toolchain, arch: object, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The NVRTC options of a provider: the list passed to NVRTC and hashed into the key.

    ``-rdc -dlto`` produce LTO-IR for linking into the kernel; the CCCL roots come before the
    CUDA include directory so that the toolkit's own CCCL is never found first. C++20: NVRTC parses and
    instantiates CCCL's headers ~20% faster than in C++17, where libcu++ emulates concepts with templates
    (``__select_iterator_traits_specialization`` alone took ~60 ms of a block reduction's compile).
    """
    return options_for(toolchain.include_roots, arch, extra)


def lambda_options(bindings: Iterable[Binding], nvrtc_version: tuple[int, int]) -> tuple[str, ...]:
    """``(DEFAULT_DEVICE,)`` where NVRTC is older than :data:`GENERIC_LAMBDA_NVRTC` and a call's CUB code has a
    generic lambda in device code (``Binding.generic_lambdas``), else nothing: the options of every other provider,
    and so their keys and LTO-IR, stay what they are."""
    if any(b.generic_lambdas for b in bindings):
        return generic_lambda_options(nvrtc_version)
    return ()


def generic_lambda_options(nvrtc_version: tuple[int, int]) -> tuple[str, ...]:
    """What NVRTC ``nvrtc_version`` needs to compile a generic lambda in device code (:data:`GENERIC_LAMBDA_NVRTC`)."""
    return (DEFAULT_DEVICE,) if nvrtc_version < GENERIC_LAMBDA_NVRTC else ()


def options_for(include_roots: Sequence[Path], arch: object, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """:func:`compile_options` for the include roots alone (before the toolchain is fingerprinted)."""
    return (
        f"-arch={normalize_arch(arch)}",
        "-rdc=true",
        "-dlto",
        "-std=c++20",
        *(f"--include-path={root}" for root in include_roots),
        *extra,
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderKey:
    """The components of a provider's cache key; :attr:`digest` is the content address."""

    source: str
    options: tuple[str, ...]
    header_identity: str
    toolkit_identity: str
    nvrtc_version: tuple[int, int]
    schema: int = KEY_SCHEMA_VERSION

    @property
    def digest(self) -> str:
        """64 hex digits."""
        h = hashlib.sha256(f"cuda-coop provider key v{self.schema}\0".encode())
        h.update(hashlib.sha256(self.source.encode()).digest())
        for part in (*self.options, "\0", self.header_identity, self.toolkit_identity, repr(self.nvrtc_version)):
            h.update(part.encode() + b"\0")
        return h.hexdigest()


def provider_key(source: str, options: Sequence[str], toolchain: Toolchain) -> ProviderKey:
    """The key of ``source`` compiled with ``options`` by ``toolchain``."""
    return ProviderKey(
        source=source,
        options=tuple(options),
        header_identity=toolchain.header_identity,
        toolkit_identity=toolchain.toolkit_identity,
        nvrtc_version=toolchain.nvrtc_version,
    )


def portable_options(options: Sequence[str], toolchain: Toolchain) -> tuple[str, ...]:
    """``options`` with each include root of ``toolchain`` named by its place (``--include-path=<root 0>``)."""
    places = {f"--include-path={root}": f"--include-path=<root {i}>" for i, root in enumerate(toolchain.include_roots)}
    return tuple(places.get(option, option) for option in options)


def portable_provider_key(source: str, options: Sequence[str], toolchain: Toolchain) -> ProviderKey:
    """The key a precompiled pack holds ``source`` under: :func:`provider_key` without install locations."""
    headers, toolkit = toolchain.portable
    return ProviderKey(
        source=source,
        options=portable_options(options, toolchain),
        header_identity=headers,
        toolkit_identity=toolkit,
        nvrtc_version=toolchain.nvrtc_version,
    )


def link_key(inputs: Sequence[tuple[str, str, bytes]], options: str, toolkit_identity: str, *, dsl: str) -> str:
    """The cache key (64 hex digits) of a kernel link: what nvJitLink is given, and which nvJitLink.

    ``inputs`` are the link's modules in order, each ``(code type, name, bytes)``: the kernel's own
    LTO-IR (NVVM's output, so the user's code, its constants and the DSL's version are all in
    it), the providers' LTO-IR and any other module. ``options`` is the link options' ``repr`` (arch,
    optimisation level, ...); ``toolkit_identity`` names the nvJitLink library (path, version, size, mtime);
    ``dsl`` the integration whose compiler made the kernel's own module (``"numba_mlir"``, ``"numba_cuda"``): the
    two compile one source to different code, and a linked kernel of one is never served to the other.
    The linked cubin is a function of these alone, so the key is as exact as the link itself.
    """
    h = hashlib.sha256(f"cuda-coop link key v{KEY_SCHEMA_VERSION}\0{dsl}\0".encode())
    for code_type, name, data in inputs:
        h.update(f"{code_type}\0{name}\0{len(data)}\0".encode())
        h.update(hashlib.sha256(data).digest())
    h.update(f"\0{options}\0{toolkit_identity}".encode())
    return h.hexdigest()
