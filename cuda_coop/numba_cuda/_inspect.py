"""Compile a numba-cuda kernel for an arch and block shape without a GPU (``compile_kernel``)."""

from __future__ import annotations

from typing import Any

from .._numba._inspect import CompiledKernel, arch_of, dims_of
from ..errors import UsageError
from . import _seams

__all__ = ["CompiledKernel", "check_kernel", "compile_kernel", "shared_memory_bytes"]


def check_kernel(kernel: object, where: str | None = None) -> None:
    """A UsageError naming ``where`` unless ``kernel`` is a numba-cuda kernel (its dispatcher)."""
    from numba.cuda.dispatcher import CUDADispatcher

    if isinstance(kernel, CUDADispatcher) and not kernel.targetoptions.get("device"):
        return
    if isinstance(kernel, CUDADispatcher):
        kind = "a device function (@cuda.jit(device=True))"
    elif hasattr(kernel, "py_func"):
        kind = f"a {type(kernel).__name__}, another DSL's kernel (compile it with that DSL's compile_kernel)"
    else:
        kind = "a plain Python function" if callable(kernel) else f"a {type(kernel).__name__}"
    raise UsageError(
        f"{where or f'compile_kernel(kernel={kernel!r})'}: got {kind}; pass a kernel decorated with "
        "@numba.cuda.jit (the dispatcher, not the undecorated function)"
    )


def _argument_types(signature: Any) -> tuple[Any, ...]:
    from numba.cuda.core import sigutils

    try:
        args, returns = sigutils.normalize_signature(signature)
    except Exception as exc:  # numba's own message says what is wrong with it
        raise UsageError(
            f"compile_kernel(signature={signature!r}): give the kernel's argument types, e.g. "
            f"(float32[::1], float32[::1]) ({exc})"
        ) from None
    if returns not in (None, _seams.types.none, _seams.types.void):
        raise UsageError(f"compile_kernel(signature={signature!r}): a kernel returns nothing, not {returns}")
    return tuple(args)


def compile_kernel(
    kernel: Any,
    signature: Any,
    *,
    block: int | tuple[int, ...],
    grid: int | tuple[int, ...] = 1,
    arch: str = "sm_90",
) -> CompiledKernel:
    """Compile a ``numba.cuda.jit`` kernel as launched with ``grid`` x ``block`` for ``arch``, without a GPU.

    The same call as :func:`cuda.coop.numba_mlir.compile_kernel`, for classic numba-cuda kernels: the
    kernel's options (``fastmath``, ``lineinfo``, ``max_registers``, ``launch_bounds``, ``link``...) apply as
    at a launch. The grid is accepted for that symmetry; numba-cuda compiles the same code for any grid.
    Thread-safe: the block shape and target are this thread's.

    Parameters
    ----------
    kernel:
        The kernel (a numba-cuda dispatcher, ``@numba.cuda.jit``).
    signature:
        Its argument types, e.g. ``(float32[::1], float32[::1])`` (types from ``numba.cuda.types``).
    block, grid:
        The launch shape: 1 to 3 positive integers each. The block shape specialises every cuda-coop
        primitive in the kernel.
    arch:
        The target GPU, ``"sm_XY"``, ``"sm_XYa"`` (arch-specific) or ``"sm_XYf"`` (family), e.g. ``"sm_90"``.

    Raises
    ------
    UsageError
        ``kernel`` is not a numba-cuda kernel, or ``signature``, ``block``, ``grid`` or ``arch`` is malformed.
    """
    check_kernel(kernel)
    chip, _ = arch_of(arch)
    block3, _grid = dims_of(block, "block"), dims_of(grid, "grid")
    argtypes = _argument_types(signature)
    cubin, library, name = _seams.compile_for_arch(kernel, argtypes, block3, chip)
    link_cc = _seams.link_cc(chip)
    return CompiledKernel(cubin=cubin, arch=chip, block=block3, name=name,
                          _lto_ptx=lambda: str(library.get_lto_ptx(cc=link_cc)))


def shared_memory_bytes(kernel: Any, signature: Any, *, block: int | tuple[int, ...], arch: str = "sm_90") -> int:
    """The static shared memory per block (bytes) of a numba-cuda ``kernel`` launched with ``block``.

    The figure ``CompiledKernel.shared_memory_bytes`` gives after :func:`compile_kernel` (cuda-coop's
    temporary storage and the kernel's own ``cuda.shared.array`` s, as the driver reports it; without
    dynamic shared memory and the 1 KiB the driver reserves per block), known before any launch and without
    a GPU; see :func:`cuda.coop.numba_mlir.shared_memory_bytes` for how to use it.

    Parameters
    ----------
    kernel:
        The kernel (a numba-cuda dispatcher).
    signature:
        Its argument types.
    block:
        The block shape it will be launched with.
    arch:
        The target GPU, e.g. ``"sm_90"``.

    Raises
    ------
    UsageError
        As :func:`compile_kernel`.
    """
    return compile_kernel(kernel, signature, block=block, arch=arch).shared_memory_bytes
