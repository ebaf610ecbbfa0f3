"""Does cached LTO-IR link? One nvJitLink link of the provider alone, for the provider's arch.

A cache entry passes the entry checks (format, key, length, SHA-256) even when its payload is not
LTO-IR this toolkit can link: written by another toolkit under a key that did not change, or forged.
Such bytes would fail the kernel's link inside numba-cuda-mlir, where a bad entry cannot be told from
a bad kernel. So bytes read from disk are linked here first (``-lto -ptx``: NVVM parses and optimises
the module; no ptxas): 24-28 ms for a 143 KB provider on the 2-core development host (nvJitLink 13.5),
once per entry per process (the memory cache holds it afterwards); bitcode that does not parse fails
in under 1 ms. A failure makes the read a miss: the entry is removed and the provider recompiled once.

It is a check that the payload links, not of its contents: a provider has no kernel, so a link of it
alone passed with the second half of its bytes zeroed (the entry's SHA-256 is what catches damage).
A check of LTO-IR's magic number alone (tried) would have let both forgeries of
tests/compile/test_provider_processes.py through to the kernel's link, where they cannot be told
from a bad kernel; so the link stays. Its cost on an H200, from two runs on two machine instances
(``benchmarks/kernel_compile.py``): the provider's part of a persistent-cache hit was 14-23 ms without
it and 37-55 ms with it, where numba-cuda-mlir's own plain kernel took 58.6 and 85.7 ms.
"""

from __future__ import annotations

import logging

__all__ = ["link_problem"]

_log = logging.getLogger("cuda.coop")


def link_problem(data: bytes, arch: str) -> str | None:
    """Why nvJitLink cannot link ``data`` (LTO-IR) for ``arch``; None if it can, or if nvJitLink is missing."""
    try:
        from cuda.bindings import nvjitlink
    except ImportError:  # the kernel's link would need it anyway; nothing to check with here
        return None
    handle = nvjitlink.create(3, [f"-arch={arch}", "-lto", "-ptx"])
    try:
        nvjitlink.add_data(handle, nvjitlink.InputType.LTOIR, data, len(data), "cuda_coop_provider")
        nvjitlink.complete(handle)
    except nvjitlink.nvJitLinkError as exc:
        return f"nvJitLink: {exc}: {_error_log(nvjitlink, handle)}"
    finally:
        nvjitlink.destroy(handle)
    return None


def _error_log(nvjitlink: object, handle: int) -> str:
    try:
        size = nvjitlink.get_error_log_size(handle)  # type: ignore[attr-defined]
        buf = bytearray(size)
        nvjitlink.get_error_log(handle, buf)  # type: ignore[attr-defined]
    except Exception as exc:  # the log is a courtesy
        return f"(no log: {exc})"
    return bytes(buf).rstrip(b"\0").decode(errors="replace").strip()
