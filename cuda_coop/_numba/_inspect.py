"""What both DSLs' ``compile_kernel`` share: the compiled kernel, and the checks of its arguments.

Each integration compiles a kernel for an arch and block shape without a GPU through its own seams
(``numba_mlir._inspect``, ``numba_cuda._inspect``) and wraps the result in a :class:`CompiledKernel`.
"""

from __future__ import annotations

import operator
import re
import struct
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BackendError, ToolkitNotFoundError, UsageError

__all__ = ["RESERVED_SHARED_BYTES", "CompiledKernel", "arch_of", "dims_of", "static_shared_bytes"]


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
    """The linked cubin (``repr`` shows its size only: it is hundreds of KiB)."""
    arch: str
    block: tuple[int, int, int]
    name: str
    """The kernel's (mangled) function name in ``cubin``, to load it from there."""

    _lto_ptx: Callable[[], str] = field(repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"CompiledKernel(arch={self.arch!r}, block={self.block}, name={self.name!r}, "
                f"cubin=<{len(self.cubin)} bytes>)")

    @property
    def ptx(self) -> str:
        """PTX after link-time optimisation (wrappers inlined)."""
        return self._lto_ptx().rstrip("\0")  # the toolchain's C string ends in NUL

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
        _, (major, _minor) = arch_of(self.arch, "CompiledKernel")
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


def dims_of(value: object, what: str, where: str = "compile_kernel") -> tuple[int, int, int]:
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


def arch_of(arch: object, where: str = "compile_kernel") -> tuple[str, tuple[int, int]]:
    """``("sm_90a", (9, 0))`` from ``"sm_90a"``; a UsageError for anything else."""
    match = _ARCH.fullmatch(arch.strip().lower()) if isinstance(arch, str) else None
    if match is None or int(match[1]) < 1:
        raise UsageError(
            f"{where}(arch={arch!r}): expected 'sm_<major><minor>' with an optional 'a' or 'f' "
            "(architecture- or family-specific), e.g. 'sm_90', 'sm_90a', 'sm_100a'"
        )
    return f"sm_{match[1]}{match[2]}{match[3]}", (int(match[1]), int(match[2]))


