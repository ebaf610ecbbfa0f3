"""The symbol names of a numba-cuda kernel that holds cuda-coop code, made independent of what the process compiled
before it.

numba-cuda 0.30 mangles every function it compiles with a process-wide counter (``FunctionIdentity.unique_id``,
an ABI tag ``B<n>v<id>`` in the Itanium name: ``_ZN8__main__1kB2v7B104...E...``) and names the LLVM module
``<qualname>$<id>``. The same kernel compiled as the first function of one process and the eighth of another is
the same code under other names, so its LTO-IR and its cubin differ, and no key over them (the persistent cache
of linked kernels, a precompiled pack) could ever match across processes. numba-cuda-mlir's names carry no
counter.

:func:`canonical_names` renumbers the counters of a cuda-coop kernel's modules in the order they first appear (the
kernel's module first, then the modules of the device functions it links, in an order of their own text), in the
LLVM IR that NVVM compiles, and renames the kernel's entry point to match, before the kernel's link. Every
occurrence of a counter is renamed the same way, so the renaming is one-to-one and the code is unchanged: only the
names in the cubin differ from what ``inspect_llvm``/``inspect_asm`` (made before the link) show. Kernels without
cuda-coop calls are never renamed. A name in which the pattern occurs by chance (a user identifier spelled
``...B2v1E...``) is renamed consistently too; at worst a key then differs between processes, which costs a
compile, never a wrong kernel.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["canonical_names"]

_TAG = re.compile(r"(?<=[0-9A-Za-z_])B(\d+)v(\d+)(?=[BE])")
"""numba-cuda's uid ABI tag (``itanium_mangler.mangle_identifier``): ``B`` + the length of ``v<id>``, ``v<id>``."""
_MODULE_ID = re.compile(r'\A; ModuleID = "(.*)\$\d+"$', re.MULTILINE)


def _ids(text: str) -> list[str]:
    return [m[2] for m in _TAG.finditer(text) if int(m[1]) == len(m[2]) + 1]


def _blank(text: str) -> str:
    """``text`` with every counter left out: how the other modules are ordered."""
    return _TAG.sub(lambda m: "Bv" if int(m[1]) == len(m[2]) + 1 else m[0], text)


def _rename(text: str, order: dict[str, str]) -> str:
    def tag(m: re.Match[str]) -> str:
        new = order.get(m[2]) if int(m[1]) == len(m[2]) + 1 else None
        return m[0] if new is None else f"B{len(new) + 1}v{new}"

    return _MODULE_ID.sub(r'; ModuleID = "\1"', _TAG.sub(tag, text))


def canonical_names(library: Any) -> None:
    """Renumber the counters in ``library``'s LLVM IR and entry name (a numba-cuda ``CUDACodeLibrary``); once.

    Called before the library is linked: the LTO-IR NVVM compiled before (none, for a kernel that is not
    inspected first) is dropped, so that the link holds the renamed code.
    """
    if getattr(library, "_cuda_coop_canonical", False):
        return
    kernel, *others = library.llvm_strs
    texts = [kernel, *sorted(others, key=_blank)]
    order: dict[str, str] = {}
    for text in texts:
        for uid in _ids(text):
            order.setdefault(uid, str(len(order)))
    library._llvm_strs = [_rename(text, order) for text in texts]
    if library._entry_name is not None:
        library._entry_name = _rename(library._entry_name, order)
    library._ltoir_cache.clear()
    library._cuda_coop_canonical = True
