"""CCCL's per-header prologue and epilogue, replaced for NVRTC by lighter ones that compile to the same bytes.

Every libcu++, CUB and Thrust header includes ``<cuda/std/__cccl/prologue.h>`` first and
``<cuda/std/__cccl/epilogue.h>`` last, about 430 times each in a provider. CCCL 3.6.0's pair does three
things: it keeps the include protocol (``_CCCL_PROLOGUE_INCLUDED``, and the includes of ``compiler.h``,
``diagnostic.h`` and ``dialect.h``); it saves, undefines and restores about 80 macro names that Windows,
``sal.h`` and ``sys/sysmacros.h`` define (``align``, ``min``, ``major``, ...); and it pushes the diagnostic
state, suppresses four NVCC warnings (342, 3215, 3206, 3060) and pops it. Processing the pair is a quarter
of a cold provider compile (0.25 s of 1.03 s on the 2-core development host, CPU time, the same source;
``tests/compile/test_prologue.py`` checks the bytes).

In a provider none of the saved macros can be defined: everything before the body is CCCL, ``cuda_fp16.h``,
``cuda_bf16.h`` and NVRTC's builtin header, and the body defines no macro. So :func:`light_prologue`
gives NVRTC, as in-memory headers (found before the include path), a prologue and an epilogue that keep
only the protocol, and ``--diag-suppress`` with the four warnings once for the whole program. The LTO-IR is
byte-identical to a compile with CCCL's own pair (where libcu++'s ``cuda::static_for`` is instantiated,
as WarpReduceBatched does, the PTX is), so the substitution stays out of cache keys, like a
precompiled header. It applies only to the CCCL whose pair is the one checked (:data:`CHECKED`, by SHA-256):
another CCCL (``CUDA_COOP_CCCL_ROOT``) is compiled with its own pair.

Module state: :func:`_digest` (``functools.cache``, keyed by path, size and modification time).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CHECKED", "LightPrologue", "light_prologue"]

_log = logging.getLogger("cuda.coop")

PROLOGUE = "cuda/std/__cccl/prologue.h"
EPILOGUE = "cuda/std/__cccl/epilogue.h"

CHECKED = {
    PROLOGUE: "b05152fd2e2a983c6fe8fe05b1b3dbf41deacec0c0b60404cecf7ff64cd59c51",
    EPILOGUE: "5c1acb8b4e38da10ac05e19d478a77d2dd62c76723e5ce8e9dc54b8ffb0fb34e",
}
"""SHA-256 of CCCL 3.6.0's pair, the one the light pair stands in for (re-check before changing these)."""

_LIGHT = {
    PROLOGUE: """\
// cuda-coop: CCCL's prologue without the macro guards and diagnostic pragmas (cuda_coop/_provider/_prologue.py)
#if defined(_CCCL_PROLOGUE_INCLUDED)
#  error "cccl internal error: <cuda/std/__cccl/epilogue.h> must be included before the next prologue"
#endif
#define _CCCL_PROLOGUE_INCLUDED() 1
#include <cuda/std/__cccl/compiler.h>
#include <cuda/std/__cccl/diagnostic.h>
#include <cuda/std/__cccl/dialect.h>
""",
    EPILOGUE: """\
// cuda-coop: CCCL's epilogue without the macro guards and diagnostic pragmas (cuda_coop/_provider/_prologue.py)
#if !defined(_CCCL_PROLOGUE_INCLUDED)
#  error "cccl internal error: <cuda/std/__cccl/prologue.h> must be included before <cuda/std/__cccl/epilogue.h>"
#endif
#undef _CCCL_PROLOGUE_INCLUDED
""",
}
_SUPPRESSED = (342, 3215, 3206, 3060)
"""The NVCC warnings CCCL 3.6.0's prologue suppresses, suppressed once for the whole program instead."""


@dataclass(frozen=True, slots=True)
class LightPrologue:
    """What a compile passes to NVRTC besides its source and keyed options: in-memory headers and options."""

    headers: Mapping[str, str] = field(default_factory=dict)
    options: tuple[str, ...] = ()


NONE = LightPrologue()
"""CCCL's own pair: nothing added."""


@functools.cache
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _matches(root: Path) -> bool:
    for name, expected in CHECKED.items():
        path = root / name
        try:
            st = path.stat()
            if _digest(path, st.st_size, st.st_mtime_ns) != expected:
                return False
        except OSError:
            return False
    return True


def light_prologue(cccl_include_roots: Iterable[Path]) -> LightPrologue:
    """The light pair for the CCCL found first in ``cccl_include_roots``, or :data:`NONE` when its pair is
    not the checked one (or it has none)."""
    for root in cccl_include_roots:
        if (root / PROLOGUE).is_file():
            if _matches(root):
                return LightPrologue(dict(_LIGHT), (f"--diag-suppress={','.join(map(str, _SUPPRESSED))}",))
            _log.debug("cuda.coop: %s is not CCCL 3.6.0's; NVRTC compiles with CCCL's own prologue", root / PROLOGUE)
            return NONE
    return NONE
