"""Providers: the CUDA C++ of one kernel's CUB specialisations, compiled by NVRTC to LTO-IR.

Three seams (STYLE 12): the renderer (``_render``, pure), the compiler (``_nvrtc.Compiler``, a
Protocol) and the cache (``_cache.ProviderCache``, an ABC). :class:`Provider` ties them together and
is what the DSL integration uses.
"""

from __future__ import annotations

from ._abi import CParam, ExternFunction, Plan, WrapperSignature, plan
from ._cache import DiskCache, LayeredCache, MemoryCache, ProviderCache, ProviderCacheWarning, default_cache
from ._key import KEY_SCHEMA_VERSION, ProviderKey, compile_options, normalize_arch, provider_key
from ._nvrtc import Compiler, CompileResult, NvrtcCompiler, default_compiler
from ._provider import Provider
from ._render import render
from ._toolchain import Toolchain, resolve_toolchain

__all__ = [
    "KEY_SCHEMA_VERSION",
    "CParam",
    "CompileResult",
    "Compiler",
    "DiskCache",
    "ExternFunction",
    "LayeredCache",
    "MemoryCache",
    "NvrtcCompiler",
    "Plan",
    "Provider",
    "ProviderCache",
    "ProviderCacheWarning",
    "ProviderKey",
    "Toolchain",
    "WrapperSignature",
    "compile_options",
    "default_cache",
    "default_compiler",
    "normalize_arch",
    "plan",
    "provider_key",
    "render",
    "resolve_toolchain",
]
