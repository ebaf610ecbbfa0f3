"""Ahead-of-time packs of numba-cuda kernels (the shared :mod:`cuda_coop._numba._precompile`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from .._numba._inspect import CompiledKernel
from .._numba._precompile import CompileFn, PrecompiledKernel, ProgressFn, check_dsl
from .._numba._precompile import precompile as _precompile
from . import _seams
from ._inspect import check_kernel, compile_kernel

__all__ = ["PrecompiledKernel", "compiler", "precompile"]


def _as_launched(kernel: Any, signature: Any, *, block: Any, grid: Any, arch: str) -> CompiledKernel:
    """``compile_kernel`` for the arch a launch on a GPU of ``arch`` links for (``sm_90`` -> ``sm_90a``)."""
    return compile_kernel(kernel, signature, block=block, grid=grid, arch=_seams.launch_arch(arch))


def compiler(kernel: Any, where: str) -> tuple[str, CompileFn]:
    """This DSL's name and how a pack compiles its kernels (:data:`~cuda_coop._numba._precompile.Compilers`)."""
    check_dsl(kernel, "numba_cuda", where)
    check_kernel(kernel, where)
    return "numba_cuda", _as_launched


def precompile(
    targets: Iterable[Any],
    *,
    arch: str | Iterable[str],
    out: str | os.PathLike[str],
    progress: ProgressFn | None = None,
) -> list[PrecompiledKernel]:
    """Compile each numba-cuda kernel's providers and its linked cubin for each arch, and keep them in a pack at
    ``out``.

    The same call as :func:`cuda.coop.numba_mlir.precompile`, for classic numba-cuda kernels: a process that finds
    the pack (:func:`cuda.coop.add_pack`, ``CUDA_COOP_PACK_PATH`` or an installed distribution's
    ``cuda_coop.packs`` entry point) and launches the same kernel with the same block on a GPU of that arch,
    with the same headers, toolkit versions, options and cuda-coop version, takes its providers and its linked
    cubin from the pack: no NVRTC and no nvJitLink call (numba-cuda still types and lowers the kernel, and NVVM
    compiles it). A numba-cuda launch on a GPU of compute capability 9.0 or later links arch-specific code, so
    ``arch="sm_90"`` keeps the kernel linked for ``sm_90a`` (the table says so), which is what such a launch
    looks for. The pack's entries serve numba-cuda kernels only; one pack may hold kernels of both DSLs.

    Parameters
    ----------
    targets:
        ``(kernel, signature, block)`` or ``(kernel, signature, block, grid)`` tuples: a ``numba.cuda.jit`` kernel,
        its argument types (e.g. ``(int64[::1], int64[::1])``, types from ``numba.cuda.types``) and the launch's
        block shape, as for :func:`compile_kernel`. The grid does not change what is compiled.
    arch:
        ``"sm_90"``, ``"sm_80,sm_90"`` or a sequence of such names: the GPUs the kernels will be launched on; one
        entry per kernel per arch.
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
        A malformed target or arch, a kernel that calls no cuda-coop primitive, or one that calls a device function
        numba-cuda compiles on its own (it needs a GPU here: make it ``inline="always"``).
    PackError
        ``out`` cannot hold the pack (a file, another directory, a pack of another identity), or a kernel's
        link holds a module given by its path.
    CompileError
        A kernel does not compile.
    """
    return _precompile(targets, arch=arch, out=out, progress=progress, compilers=compiler)
