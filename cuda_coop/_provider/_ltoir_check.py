"""Is a cache entry's payload LTO-IR? A check of the NVVM IR container's magic number.

An entry that passes the cache's own checks (format, key, length, SHA-256) was written under a key
that holds the toolkit identity: the very NVRTC and nvJitLink files of this process, and nvJitLink is
checked not to be older than NVRTC (``_toolkit``). Its payload is therefore LTO-IR this nvJitLink
links, unless it is not LTO-IR at all (an entry forged in place, or written by something that is
not cuda-coop). Only that is checked here, in microseconds; a failure makes the read a miss, the
entry is removed and the provider recompiled once.

An nvJitLink link of the provider alone (the check before this one) cost ~25 ms per cache hit and
proved less: a provider has no kernel, so a link of it alone passed with half of its bytes zeroed.
"""

from __future__ import annotations

__all__ = ["LTOIR_MAGIC", "ltoir_problem"]

LTOIR_MAGIC = bytes.fromhex("ed434e7f")
"""0x7F4E43ED, little-endian: the first word of every NVVM IR container (NVRTC ``-dlto``, libNVVM)."""


def ltoir_problem(data: bytes) -> str | None:
    """Why ``data`` is not LTO-IR; None when it starts as LTO-IR does."""
    if data[:4] != LTOIR_MAGIC:
        return f"not LTO-IR: starts with {data[:4].hex() or 'nothing'}, where LTO-IR starts with {LTOIR_MAGIC.hex()}"
    return None
