"""Real NVRTC compiles of a family's requests for sm_90, shared by the compile tier's family tests.

The ``toolchain`` and ``compiler`` fixtures these take come from ``tests/compile/conftest.py``.

    @pytest.mark.parametrize(("method", "overload"), every_overload("block_shuffle"))
    def test_every_overload_compiles_with_nvrtc(method, overload, toolchain, compiler):
        compile_requests([Request("block_shuffle", method, overload, ...)], toolchain, compiler, (128,))
"""

from __future__ import annotations

from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, Toolchain
from cuda.coop._specs import Request, get_primitive

__all__ = ["LTOIR_MAGIC", "compile_requests", "every_overload"]

LTOIR_MAGIC = b"\xedCN\x7f"
"""The first bytes of NVVM's LTO-IR container."""


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
