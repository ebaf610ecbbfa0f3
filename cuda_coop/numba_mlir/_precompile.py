"""Ahead-of-time packs of numba-cuda-mlir kernels (the shared :mod:`cuda_coop._numba._precompile`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from .._numba._precompile import CompileFn, PrecompiledKernel, ProgressFn, check_dsl
from .._numba._precompile import precompile as _precompile
from ._inspect import check_kernel, compile_kernel

__all__ = ["PrecompiledKernel", "compiler", "precompile"]


def compiler(kernel: Any, where: str) -> tuple[str, CompileFn]:
    """This DSL's name and how a pack compiles its kernels (:data:`~cuda_coop._numba._precompile.Compilers`)."""
    check_dsl(kernel, "numba_mlir", where)
    check_kernel(kernel, where)
    return "numba_mlir", compile_kernel


def precompile(
    targets: Iterable[Any],
    *,
    arch: str | Iterable[str],
    out: str | os.PathLike[str],
    progress: ProgressFn | None = None,
) -> list[PrecompiledKernel]:
    """Compile each kernel's providers and its linked cubin for each arch, and keep them in a pack at ``out``.

    A process that finds the pack (:func:`cuda.coop.add_pack`, ``CUDA_COOP_PACK_PATH`` or an installed
    distribution's ``cuda_coop.packs`` entry point) and compiles the same kernel for the same launch
    block and arch, with the same headers, toolkit versions, options and cuda-coop version, takes both
    from the pack: no NVRTC and no nvJitLink call (see :ref:`packs`). Everything else compiles as usual. The
    pack's entries serve numba-cuda-mlir kernels only (:func:`cuda.coop.numba_cuda.precompile` builds entries for
    numba-cuda kernels; one pack may hold both).
    ``python -m cuda.coop precompile`` runs this over a module's ``cuda_coop_precompile`` list.

    Parameters
    ----------
    targets:
        ``(kernel, signature, block)`` or ``(kernel, signature, block, grid)`` tuples: a
        ``numba_cuda_mlir.cuda.jit`` kernel, its argument types (e.g. ``(int64[::1], int64[::1])``)
        and the launch's block shape, as for :func:`compile_kernel`. The grid does not change what is
        compiled.
    arch:
        ``"sm_90"``, ``"sm_80,sm_90"`` or a sequence of such names: one entry per kernel per arch.
    out:
        The pack's directory: new, empty, or a pack built with the same identity (its entries are kept).
    progress:
        Called after each compile with ``(done, total, kernel)``.

    Returns
    -------
    list of PrecompiledKernel
        One per kernel and arch, in the order compiled (arch by arch).

    Raises
    ------
    UsageError
        A malformed target or arch, or a kernel that calls no cuda-coop primitive.
    PackError
        ``out`` cannot hold the pack (a file, another directory, a pack of another identity), or a kernel's
        link holds a module given by its path.
    CompileError
        A kernel does not compile.
    """
    return _precompile(targets, arch=arch, out=out, progress=progress, compilers=compiler)
