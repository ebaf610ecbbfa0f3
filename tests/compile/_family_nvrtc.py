"""Shared helpers of the family NVRTC tests: one real NVRTC compile of many requests for sm_90."""

from __future__ import annotations

from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, Toolchain
from cuda.coop._specs import Request, get_primitive

LTOIR_MAGIC = b"\xedCN\x7f"


def every_overload(primitive: str) -> list[tuple[str, str]]:
    """``(method, overload)`` of every overload the spec exposes."""
    return [(m.name, o.name) for m in get_primitive(primitive).methods for o in m.overloads]


def compile_requests(
    requests: list[Request], toolchain: Toolchain, compiler: NvrtcCompiler, block: tuple[int, ...]
) -> Provider:
    """Compile ``requests`` as one provider (one NVRTC call) to LTO-IR; returns the provider."""
    p = Provider(requests, block_dim=block, arch="sm_90", toolchain=toolchain, compiler=compiler, cache=MemoryCache())
    data = p.ltoir()
    assert data.startswith(LTOIR_MAGIC) and p.origin == "nvrtc"
    return p
