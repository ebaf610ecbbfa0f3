"""SASS checks shared by the compile tier's family tests: the wrappers are inlined, nothing lives in local memory."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["assert_inlined", "instructions"]


def instructions(sass: str) -> list[str]:
    """The instruction lines of an ``nvdisasm`` listing."""
    return [line for line in sass.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", line)]


def assert_inlined(compiled: Any, spills: bool = False, local: bool = False) -> None:
    """No CALL and no local memory in ``compiled`` (a ``CompiledKernel``).

    ``spills``: local loads and stores that ptxas marks as register spills (``"SpillRefill"``, ``"SpillStore"``) are
    allowed, and only those (a 1024-thread block has 64 registers a thread, which a kernel holding many call sites or
    16 wide items can exceed). ``local``: any local memory is allowed and only CALL is checked (the wrappers inline;
    for kernels whose local memory is not the test's concern, such as the GPU tier's sanitizer kernels).
    """
    lines = instructions(compiled.sass())
    assert lines, "no SASS"
    for op in ("CALL",) if local else ("CALL", "LDL", "STL"):
        offending = [line.strip() for line in lines if re.search(rf"\b{op}\b", line)
                     and not (spills and op != "CALL" and re.search(r'"Spill(Refill|Store)"', line))]
        assert not offending, f"{op} in SASS: {offending[:3]}"
    if not (spills or local):
        assert compiled.resource_usage().get("local", 0) == 0
