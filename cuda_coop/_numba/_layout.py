"""The layout-only module a kernel link holding a cuda-coop provider starts with (both DSLs).

nvJitLink's LTO link merges every module into the *first* one and keeps that module's data layout. Both DSLs
put the kernel's LTO-IR first, and their NVVM layouts have no ``p3:32:32:32``: shared-memory pointers would be
64-bit in the linked kernel, and every CUB TempStorage address a sign-extended 64-bit computation instead of
nvcc's immediate offsets (measured under numba-cuda-mlir in ``numba_mlir/_seams/_link.py``). Each DSL's link seam
puts first a module with no code, the DSL's own layout with 32-bit shared pointers, compiled to LTO-IR by the
libNVVM the DSL uses (:func:`layout_module`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["layout_module", "short_shared_layout"]


def short_shared_layout(layout: str) -> str:
    """``layout`` (an NVPTX data layout) with 32-bit shared-memory pointers (``p3``), as nvcc's."""
    specs = layout.split("-")
    if not any(s.startswith("p3:") for s in specs):
        generic = next((k for k, s in enumerate(specs) if s.startswith("p:")), 0)
        specs.insert(generic + 1, "p3:32:32:32")
    return "-".join(specs)


def layout_module(nvvm: Any, layout: str, arch: str) -> bytes:
    """LTO-IR for ``arch`` (``sm_90``, ``sm_90a``, ...) of a module with no code and the data layout ``layout``,
    compiled with ``nvvm`` (the DSL's ``cudadrv.nvvm`` module: ``NVVM``, ``CompilationUnit``)."""
    major, minor, debug_major, debug_minor = nvvm.NVVM().get_ir_version()
    text = (
        f'target datalayout = "{layout}"\n'
        'target triple = "nvptx64-nvidia-cuda"\n'
        "!nvvmir.version = !{!0}\n"
        f"!0 = !{{i32 {major}, i32 {minor}, i32 {debug_major}, i32 {debug_minor}}}\n"
    )
    unit = nvvm.CompilationUnit({"arch": arch.replace("sm_", "compute_", 1), "gen_lto": None})
    unit.add_module(text.encode())
    return bytes(unit.compile())
