"""Compile a kernel for an arch and block shape without a GPU, and look inside the result."""

from __future__ import annotations

import operator
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BackendError, ToolkitNotFoundError, UsageError
from . import _seams

__all__ = ["CompiledKernel", "compile_kernel", "shared_memory_bytes"]


def _tool(name: str) -> str:
    from cuda.pathfinder import find_nvidia_binary_utility

    found = find_nvidia_binary_utility(name)
    if not found:
        raise ToolkitNotFoundError(
            f"{name} was not found (cuda-pathfinder looked in the NVIDIA wheels, conda and CUDA_HOME); "
            f"pip install nvidia-cuda-{name}"
        )
    return str(found)


def _run_on_cubin(tool: str, args: list[str], cubin: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        return subprocess.run([_tool(tool), *args, str(path)], check=True, capture_output=True, text=True).stdout


RESERVED_SHARED_BYTES = 1024
"""Shared memory the driver reserves per block on sm_80 and later (``cudaDevAttrReservedSharedMemoryPerBlock``)."""


def _elf_sections(image: bytes) -> dict[str, int]:
    """Section name -> size of a 64-bit little-endian ELF image (a cubin)."""
    if image[:5] != b"\x7fELF\x02" or image[5] != 1:
        raise BackendError("the compiled kernel is not a 64-bit little-endian ELF cubin (a cuda-coop bug: report it)")
    (shoff,) = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", image, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", image, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]

    def name(offset: int) -> str:
        end = image.index(b"\0", strtab + offset)
        return image[strtab + offset : end].decode()

    return {name(h[0]): h[5] for h in headers}


def static_shared_bytes(cubin: bytes, function: str) -> int:
    """Static shared memory of ``function`` in ``cubin``, as the driver reports it (``SHARED_SIZE_BYTES``).

    The size of its ``.nv.shared.<function>`` section (0 when it has none), less the
    :data:`RESERVED_SHARED_BYTES` that sm_80+ cubins (those with a ``.nv.shared.reserved.*``
    section) lay out at the start of it: ptxas's "bytes smem".
    """
    sections = _elf_sections(cubin)
    size = sections.get(f".nv.shared.{function}", 0)
    reserved = any(n.startswith(".nv.shared.reserved.") for n in sections)
    return max(0, size - RESERVED_SHARED_BYTES) if reserved and size else size


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel compiled for one arch, signature and launch shape (not loaded on a device).

    Its shared memory, in two figures with two names: :attr:`shared_memory_bytes`, the static shared
    memory of the kernel (cuda-coop's temporary storage and the kernel's own ``cuda.shared.array`` s), and
    :attr:`launch_shared_memory_bytes`, the shared memory one block takes at launch, which adds the 1 KiB the
    driver reserves per block on sm_80 and later.
    """

    cubin: bytes
    arch: str
    block: tuple[int, int, int]
    _result: Any

    @property
    def ptx(self) -> str:
        """PTX after link-time optimisation (wrappers inlined)."""
        from numba_cuda_mlir.mlir_optimization import get_lto_ptx

        ptx = get_lto_ptx(self._result.cres if hasattr(self._result, "cres") else self._result)
        text = ptx.decode() if isinstance(ptx, bytes) else str(ptx)
        return text.rstrip("\0")  # the toolchain's C string ends in NUL

    @property
    def name(self) -> str:
        """The kernel's (mangled) function name in ``cubin``, to load it from there."""
        return str(self._result.metadata["func_name"])

    def sass(self) -> str:
        """SASS of the linked cubin (nvdisasm from the NVIDIA wheels)."""
        return _run_on_cubin("nvdisasm", ["-c"], self.cubin)

    @property
    def shared_memory_bytes(self) -> int:
        """The static shared memory per block in bytes, cuda-coop's temporary storage plus the kernel's own
        ``cuda.shared.array`` s: the figure the driver reports for the kernel
        (``CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES``; see :func:`shared_memory_bytes`). Without dynamic shared
        memory and without the driver's reservation (:attr:`launch_shared_memory_bytes` adds it)."""
        return static_shared_bytes(self.cubin, self.name)

    @property
    def launch_shared_memory_bytes(self) -> int:
        """The shared memory one block of this kernel takes at launch in bytes, without dynamic shared memory.

        :attr:`shared_memory_bytes` plus the 1 KiB (1024 bytes) the driver reserves per block on sm_80 and
        later (``cudaDevAttrReservedSharedMemoryPerBlock``). Add the launch's dynamic shared
        memory to compare it with what a multiprocessor has, for occupancy."""
        _, (major, _minor) = _arch(self.arch, "CompiledKernel")
        return self.shared_memory_bytes + (RESERVED_SHARED_BYTES if major >= 8 else 0)

    def resource_usage(self) -> dict[str, int]:
        """Registers per thread (``reg``), static shared memory (``shared``: the same figure as
        :attr:`shared_memory_bytes`), local memory (``local``), stack (``stack``) and constant banks
        (``constant[N]``), in bytes but ``reg``, from cuobjdump.

        cuobjdump's own shared-memory figure includes the 1 KiB the driver reserves per block on sm_80 and
        later; ``shared`` leaves it out, as :attr:`shared_memory_bytes` does
        (:attr:`launch_shared_memory_bytes` includes it).
        """
        text = _run_on_cubin("cuobjdump", ["--dump-resource-usage"], self.cubin)
        usage: dict[str, int] = {}
        for key, value in re.findall(r"\b(REG|SHARED|LOCAL|STACK|CONSTANT\[\d+\]):(\d+)", text):
            usage[key.lower()] = max(usage.get(key.lower(), 0), int(value))
        if "shared" in usage:
            usage["shared"] = self.shared_memory_bytes
        return usage


def _dims(value: object, what: str, where: str = "compile_kernel") -> tuple[int, int, int]:
    """1 to 3 positive integers (Python or NumPy integers) as a 3-tuple padded with 1."""
    items = value if isinstance(value, (tuple, list)) else (value,)
    dims: list[int] = []
    for d in items:
        try:
            if isinstance(d, bool):
                raise TypeError
            dims.append(operator.index(d))  # int, NumPy integers; not floats, bools or arrays
        except TypeError:
            dims = []
            break
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise UsageError(
            f"{where}({what}={value!r}): give 1 to 3 positive integers (Python or NumPy), e.g. 256 or (16, 8)"
        )
    x, y, z = [*dims, 1, 1][:3]
    return x, y, z


_ARCH = re.compile(r"sm_(\d+)(\d)([af]?)")


def _arch(arch: object, where: str = "compile_kernel") -> tuple[str, tuple[int, int]]:
    """``("sm_90a", (9, 0))`` from ``"sm_90a"``; a UsageError for anything else."""
    match = _ARCH.fullmatch(arch.strip().lower()) if isinstance(arch, str) else None
    if match is None or int(match[1]) < 1:
        raise UsageError(
            f"{where}(arch={arch!r}): expected 'sm_<major><minor>' with an optional 'a' or 'f' "
            "(architecture- or family-specific), e.g. 'sm_90', 'sm_90a', 'sm_100a'"
        )
    return f"sm_{match[1]}{match[2]}{match[3]}", (int(match[1]), int(match[2]))


def _check_kernel(kernel: object, where: str | None = None) -> None:
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
    _check_kernel(kernel)
    chip, cc = _arch(arch)
    block3, grid3 = _dims(block, "block"), _dims(grid, "grid")
    with _seams.assumed_compute_capability(cc):
        result = _seams.compile_for_launch(kernel, signature, block3, grid3, chip=chip)
    return CompiledKernel(cubin=bytes(result.metadata["cubin"]), arch=chip, block=block3, _result=result)


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
