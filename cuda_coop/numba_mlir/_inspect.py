"""Compile a numba-cuda-mlir kernel for an arch and block shape without a GPU (``compile_kernel``)."""

from __future__ import annotations

from typing import Any

from .._numba._inspect import CompiledKernel, arch_of, dims_of
from ..errors import UsageError
from . import _seams

__all__ = ["CompiledKernel", "check_kernel", "compile_kernel", "shared_memory_bytes"]


def _lto_ptx(result: Any) -> str:
    from numba_cuda_mlir.mlir_optimization import get_lto_ptx

    ptx = get_lto_ptx(result.cres if hasattr(result, "cres") else result)
    return ptx.decode() if isinstance(ptx, bytes) else str(ptx)


def check_kernel(kernel: object, where: str | None = None) -> None:
    """A UsageError naming ``where`` unless ``kernel`` is a numba-cuda-mlir kernel (its dispatcher)."""
    if not (hasattr(kernel, "py_func") and hasattr(kernel, "_compile_launch_config_signature")):
        kind = "a plain Python function" if callable(kernel) else f"a {type(kernel).__name__}"
        raise UsageError(
            f"{where or f'compile_kernel(kernel={kernel!r})'}: got {kind}; pass a kernel decorated with "
            "@numba_cuda_mlir.cuda.jit (the dispatcher, not the undecorated function)"
        )


def compile_kernel(
    kernel: Any,
    signature: Any,
    *,
    block: int | tuple[int, ...],
    grid: int | tuple[int, ...] = 1,
    arch: str = "sm_90",
) -> CompiledKernel:
    """Compile a ``numba_cuda_mlir.cuda.jit`` kernel as launched with ``grid`` x ``block``, without a GPU.

    Thread-safe: the assumed compute capability is per thread, so concurrent calls for different
    arches (and kernels launched by other threads meanwhile) each get their own target.

    Parameters
    ----------
    kernel:
        The kernel (a numba-cuda-mlir dispatcher).
    signature:
        Its argument types, e.g. ``(float32[::1], float32[::1])``.
    block, grid:
        The launch shape (Python or NumPy integers); the block shape specialises every cuda-coop
        primitive in the kernel.
    arch:
        ``"sm_XY"``, optionally with ``a`` (arch-specific, e.g. ``"sm_90a"``) or ``f`` (family): the
        GPU architecture to compile for.

    Raises
    ------
    UsageError
        ``kernel`` is not a numba-cuda-mlir kernel, or ``block``, ``grid`` or ``arch`` is malformed.
    """
    check_kernel(kernel)
    chip, cc = arch_of(arch)
    block3, grid3 = dims_of(block, "block"), dims_of(grid, "grid")
    with _seams.assumed_compute_capability(cc):
        result = _seams.compile_for_launch(kernel, signature, block3, grid3, chip=chip)
    return CompiledKernel(
        cubin=bytes(result.metadata["cubin"]), arch=chip, block=block3, name=str(result.metadata["func_name"]),
        _lto_ptx=lambda: _lto_ptx(result),
    )


def shared_memory_bytes(kernel: Any, signature: Any, *, block: int | tuple[int, ...], arch: str = "sm_90") -> int:
    """The static shared memory per block (bytes) of ``kernel`` launched with ``block``, known before any launch.

    The figure the CUDA driver reports for the launched kernel (``CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES``):
    the temporary storage of every cuda-coop primitive in the kernel plus the kernel's own
    ``cuda.shared.array`` s. Block-scope primitives share one region (the largest TempStorage, not the
    sum); warp-scope primitives get one slot per warp. Not included: dynamic shared memory (the
    launch's ``sharedmem``) and the 1 KiB the driver reserves per block on sm_80 and later
    (:attr:`CompiledKernel.launch_shared_memory_bytes` includes it). A block needs this plus its dynamic
    shared memory within the device's shared memory per block (48 KiB unless the kernel opts in to
    more); for occupancy, count the launch figure. The grid does not change it.

    Compiles the kernel without a GPU, as :func:`compile_kernel` does; the result's
    :attr:`CompiledKernel.shared_memory_bytes` is the same figure.

    Parameters
    ----------
    kernel:
        The kernel (a numba-cuda-mlir dispatcher).
    signature:
        Its argument types, e.g. ``(float32[::1], float32[::1])``.
    block:
        The block shape it will be launched with (1 to 3 positive integers).
    arch:
        The GPU architecture, e.g. ``"sm_90"`` (see :func:`compile_kernel`).

    Raises
    ------
    UsageError
        ``kernel`` is not a numba-cuda-mlir kernel, or ``block`` or ``arch`` is malformed.
    """
    return compile_kernel(kernel, signature, block=block, arch=arch).shared_memory_bytes
