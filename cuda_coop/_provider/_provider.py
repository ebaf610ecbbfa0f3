"""A provider: the CUB specialisations one kernel needs, rendered, compiled once, cached.

What the DSL integration calls::

    provider = Provider(requests, block_dim=(256, 1, 1), arch="sm_90", attempt=attempt)
    provider.symbols      # one WrapperSignature per request: extern "C" symbol + C signature
    provider.externs      # user operators/callbacks the DSL must supply as LTO-IR
    provider.ltoir()      # LTO-IR bytes: memory cache, disk cache, a precompiled pack, or one NVRTC call
    provider.recompile()  # after cached (or packed) bytes failed the kernel's link: evict, NVRTC again

Construction validates the requests (``ValueError`` naming the primitive and parameter) and needs
no toolkit. The toolchain is resolved, the source rendered and the key computed on first use of
:attr:`source` / :attr:`key` / :meth:`ltoir`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .. import _specs
from ..errors import CompileError
from . import _packs
from ._abi import ExternFunction, Plan, WrapperSignature, plan
from ._cache import ProviderCache, default_cache
from ._dump import dump_name, dump_source, failure_source
from ._key import (
    ProviderKey,
    compile_options,
    lambda_options,
    normalize_arch,
    options_for,
    portable_provider_key,
    provider_key,
)
from ._nvrtc import Compiler, default_compiler
from ._prologue import light_prologue
from ._render import preamble, render
from ._toolchain import Toolchain, pch_identity, resolve_include_roots, resolve_toolchain

if TYPE_CHECKING:
    from .._identity import CompileAttempt
    from ._pack import Pack, PackIdentity

__all__ = ["Provider"]

_log = logging.getLogger("cuda.coop")


class Provider:
    """The CUB specialisations of one kernel, as one translation unit and its LTO-IR.

    Parameters
    ----------
    requests:
        One :class:`~cuda_coop._specs.Request` per call site; :attr:`symbols` follows this order.
    block_dim:
        The launch's block shape (1 to 3 integers); every block-scope primitive is specialised for it.
    arch:
        Target compute capability: ``"sm_90"``, ``90``, ``(9, 0)``...
    backend:
        Name of the DSL (``"numba_mlir"``, ``"numba_cuda"``): source dump file names, and which precompiled pack
        entries may serve it (those built for that DSL's kernels). Not part of the key.
    extra_options:
        Further NVRTC options (part of the key), e.g. ``("-lineinfo",)``.
    attempt:
        The compile attempt sharing header/toolkit identity with other providers of the same compile.
    first_use:
        Indices of the block-scope requests in the kernel's entry block (see ``render``).
    toolchain, compiler, cache:
        Seams: an already resolved toolchain, another :class:`~._nvrtc.Compiler`, another cache.

    Raises
    ------
    ValueError
        An invalid request (unknown primitive, method, overload or parameter; a bad value; a
        configuration CUB would reject or silently change) or an invalid ``arch``.
    """

    def __init__(
        self,
        requests: Sequence[_specs.Request],
        *,
        block_dim: tuple[int, ...],
        arch: object,
        backend: str = "numba_mlir",
        extra_options: Sequence[str] = (),
        attempt: CompileAttempt | None = None,
        first_use: Sequence[int] = (),
        toolchain: Toolchain | None = None,
        compiler: Compiler | None = None,
        cache: ProviderCache | None = None,
    ) -> None:
        self.arch = normalize_arch(arch)
        self.plan: Plan = plan(requests, block_dim, arch=self.arch)  # the arch picks algorithm="auto"
        self.backend = backend
        dump_name(backend, "0" * 16)  # validates the name now
        self.extra_options = tuple(extra_options)
        self._attempt = attempt
        self.first_use = tuple(sorted(set(first_use)))
        self._toolchain = toolchain
        self._compiler = compiler
        self._cache = cache
        self._source: str | None = None
        self._key: ProviderKey | None = None
        self._portable_key: ProviderKey | None = None
        self._ltoir: bytes | None = None
        self._lock = threading.RLock()
        self.origin: str | None = None
        """Where :meth:`ltoir` got the bytes: ``"cache"``, ``"pack"`` or ``"nvrtc"`` (None before)."""
        self.pack: Pack | None = None
        """The precompiled pack the bytes came from (``origin == "pack"``)."""

    @property
    def symbols(self) -> tuple[WrapperSignature, ...]:
        """One wrapper per request, in request order."""
        return self.plan.signatures

    @property
    def externs(self) -> tuple[ExternFunction, ...]:
        """User functions the provider calls; the DSL supplies each as LTO-IR under its symbol."""
        return self.plan.externs

    @property
    def toolchain(self) -> Toolchain:
        with self._lock:
            if self._toolchain is None:
                self._toolchain = resolve_toolchain(self._attempt)
            return self._toolchain

    @property
    def preamble(self) -> str:
        """The include block every provider starts with (the PCH boundary)."""
        return preamble(_specs.headers())

    @property
    def source(self) -> str:
        """The rendered CUDA C++."""
        with self._lock:
            if self._source is None:
                self._source = render(self.plan, cccl_version=self.toolchain.cccl_version, headers=_specs.headers(),
                                      first_use=self.first_use)
            return self._source

    @property
    def options(self) -> tuple[str, ...]:
        """The NVRTC options (without PCH options): :attr:`extra_options`, then ``-default-device`` where this
        NVRTC needs it for the provider's CUB code (``_key.lambda_options``)."""
        return compile_options(self.toolchain, self.arch, self._extra(self.toolchain.nvrtc_version))

    def _extra(self, nvrtc_version: tuple[int, int]) -> tuple[str, ...]:
        return (*self.extra_options, *lambda_options(self.plan.bindings, nvrtc_version))

    @property
    def nvrtc_inputs(self) -> tuple[tuple[str, ...], Mapping[str, str]]:
        """The options and in-memory headers NVRTC compiles :attr:`source` with: :attr:`options` plus CCCL's
        light prologue (``_prologue``), whose output is byte-identical, so it stays out of the key as a
        precompiled header does."""
        light = light_prologue(self.toolchain.cccl_include_roots)
        return (*self.options, *light.options), light.headers

    @property
    def key(self) -> ProviderKey:
        """The cache key; ``key.digest`` is the content address."""
        with self._lock:
            if self._key is None:
                self._key = provider_key(self.source, self.options, self.toolchain)
            return self._key

    @property
    def portable_key(self) -> ProviderKey:
        """The key a precompiled pack holds this provider under (:func:`~._key.portable_provider_key`)."""
        with self._lock:
            if self._portable_key is None:
                self._portable_key = portable_provider_key(self.source, self.options, self.toolchain)
            return self._portable_key

    @property
    def pack_identity(self) -> PackIdentity:
        """What a precompiled pack must have been built with to serve this provider."""
        return _packs.identity_of(self.toolchain)

    def ltoir(self) -> bytes:
        """The provider's LTO-IR: from the cache, a precompiled pack, or one NVRTC compile (then cached).

        Raises
        ------
        CompileError
            NVRTC rejected the source; carries the log, the options and the path of the source.
        """
        with self._lock:
            if self._ltoir is not None:
                return self._ltoir
            start = time.perf_counter()
            self._prepare_pch()
            digest = self.key.digest
            data, origin, where = self._cache_in_use().get(digest), "cache", ""
            if data is None and (found := _packs.lookup("provider", self.portable_key.digest, self.pack_identity,
                                                         self.backend)):
                (data, self.pack), origin, where = found, "pack", f" ({found[1].path})"
            if data is None:
                data = self._compile_and_cache(digest)
                # From the start of the lookup, as the hit line: rendering, key, NVRTC and the cache write.
                _log.debug("cuda.coop: provider %s: compiled in %.3f s", digest[:16], time.perf_counter() - start)
            else:
                dump_source(self.source, self.backend, digest)
                self.origin, self._ltoir = origin, data
                _log.debug("cuda.coop: provider %s: %s hit in %.3f s%s", digest[:16], origin,
                           time.perf_counter() - start, where)
            if (recording := _packs.recorder()) is not None:
                recording.providers[self.portable_key.digest] = (data, self.toolchain, self.portable_key.options)
            return data

    def recompile(self) -> bytes:
        """Evict this provider's cache entry and compile it with NVRTC again (the new bytes are cached).

        For the kernel's link when it fails with bytes :meth:`ltoir` read from the disk cache: an entry
        passes the cache's checks (format, key, length, SHA-256) even when its payload is LTO-IR this
        toolkit cannot link (written by another toolkit under a key that did not change, or forged).
        Checking each entry by a link of its own cost 20-30 ms per cache hit; the kernel's link is the
        check instead, and a failure there costs this one compile. Bytes from a precompiled pack are
        refused in that pack for the rest of the process (packs are never written).

        Raises
        ------
        CompileError
            NVRTC rejected the source.
        """
        with self._lock:
            digest = self.key.digest
            if self.origin == "pack" and self.pack is not None:
                _packs.refuse(self.pack, "provider", self.portable_key.digest, "the kernel's link failed with it")
            self._cache_in_use().discard(digest)
            _log.debug("cuda.coop: provider %s: cached LTO-IR failed the kernel's link; recompiling", digest[:16])
            return self._compile_and_cache(digest)

    def _prepare_pch(self) -> None:
        """Let the compiler start its precompiled-header build before the key is computed (see
        ``NvrtcCompiler.prepare``), where no precompiled pack may serve the provider. The identity a kept PCH is
        named by comes as a function, which the build's child calls while it builds; only where the headers were
        never fingerprinted (no PCH can be kept for them yet, and fingerprinting them hashes every file)."""
        compiler = self._compiler if self._compiler is not None else default_compiler()
        prepare = getattr(compiler, "prepare", None)
        if prepare is None or self._key is not None or _packs.active():
            return
        from .._identity import CompileAttempt, recorded

        toolchain = self._toolchain
        if toolchain is not None:
            cccl_roots, roots = toolchain.cccl_include_roots, toolchain.include_roots
            nvrtc_version = toolchain.nvrtc_version
        else:
            self._attempt = self._attempt or CompileAttempt()  # resolve_toolchain then shares its toolkit
            cccl_roots, roots = resolve_include_roots(self._attempt)
            nvrtc_version = self._attempt.toolkit().nvrtc.version  # resolved by resolve_include_roots
        attempt = self._attempt

        def identity() -> str:  # in the child: never this provider's lock, which the forking thread holds
            return pch_identity(toolchain or resolve_toolchain(attempt))

        # Where the headers were fingerprinted before (a kept PCH may exist), the compile looks for one first.
        late = None if toolchain is not None or recorded(roots) else identity
        light = light_prologue(cccl_roots)
        options = (*options_for(roots, self.arch, self._extra(nvrtc_version)), *light.options)
        prepare(self.preamble, options, light.headers, late)

    def _cache_in_use(self) -> ProviderCache:
        return self._cache if self._cache is not None else default_cache()

    def _compile_and_cache(self, digest: str) -> bytes:
        """One NVRTC compile, stored in the cache and kept as this provider's LTO-IR."""
        data = self._compile(digest)
        self._cache_in_use().put(digest, data)
        self.origin = "nvrtc"
        self._ltoir = data
        return data

    def _compile(self, digest: str) -> bytes:
        compiler = self._compiler if self._compiler is not None else default_compiler()
        options, headers = self.nvrtc_inputs
        # The program name is embedded in the LTO-IR: derive it from the key alone, so that the bytes are a
        # function of the key (whatever the backend, with or without a precompiled header).
        result = compiler.compile(self.source, options, name=f"cuda_coop_{digest[:16]}.cu", preamble=self.preamble,
                                  headers=headers, identity=pch_identity(self.toolchain))
        if result.ltoir is None:
            path = failure_source(self.source, self.backend, digest)
            sites = "; ".join(s.binding.canonical() for s in self.symbols)
            raise CompileError(
                f"NVRTC could not compile the cuda-coop provider for {sites}",
                log=result.log,
                source_path=path,
                options=options,
            )
        dump_source(self.source, self.backend, digest)
        return result.ltoir

    def __repr__(self) -> str:
        sites = ", ".join(f"{s.binding.spec.name}.{s.binding.method.name}" for s in self.symbols)
        return f"<Provider {self.plan.prefix} block={self.plan.block_dim} arch={self.arch} [{sites}]>"
