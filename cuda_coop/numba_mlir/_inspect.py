"""Compile a kernel for an arch and block shape without a GPU, and look inside the result."""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ToolkitNotFoundError, UsageError
from . import _seams

__all__ = ["CompiledKernel", "compile_kernel"]


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


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel compiled for one arch, signature and launch shape (not loaded on a device)."""

    cubin: bytes
    arch: str
    block: tuple[int, int, int]
    _result: Any

    @property
    def ptx(self) -> str:
        """PTX after link-time optimisation (wrappers inlined)."""
        from numba_cuda_mlir.mlir_optimization import get_lto_ptx

        return str(get_lto_ptx(self._result.cres if hasattr(self._result, "cres") else self._result))

    def sass(self) -> str:
        """SASS of the linked cubin (nvdisasm from the NVIDIA wheels)."""
        return _run_on_cubin("nvdisasm", ["-c"], self.cubin)

    def resource_usage(self) -> dict[str, int]:
        """Registers per thread, static shared memory, local memory and stack, from cuobjdump."""
        text = _run_on_cubin("cuobjdump", ["--dump-resource-usage"], self.cubin)
        usage: dict[str, int] = {}
        for key, value in re.findall(r"\b(REG|SHARED|LOCAL|STACK|CONSTANT\[\d+\]):(\d+)", text):
            usage[key.lower()] = max(usage.get(key.lower(), 0), int(value))
        return usage


def _dims(value: int | tuple[int, ...], what: str) -> tuple[int, int, int]:
    dims = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(dims) <= 3 or any(not isinstance(d, int) or d < 1 for d in dims):
        raise UsageError(f"{what}={value!r}: give 1 to 3 positive integers, e.g. 256 or (16, 8)")
    return (*dims, *(1,) * (3 - len(dims)))  # type: ignore[return-value]


def compile_kernel(
    kernel: Any,
    signature: Any,
    *,
    block: int | tuple[int, ...],
    grid: int | tuple[int, ...] = 1,
    arch: str = "sm_90",
) -> CompiledKernel:
    """Compile a ``numba_cuda_mlir.cuda.jit`` kernel as launched with ``grid`` x ``block``, without a GPU.

    Parameters
    ----------
    kernel:
        The kernel (a numba-cuda-mlir dispatcher).
    signature:
        Its argument types, e.g. ``(float32[::1], float32[::1])``.
    block, grid:
        The launch shape; the block shape specialises every cuda-coop primitive in the kernel.
    arch:
        ``"sm_XY"``: the GPU architecture to compile for.
    """
    match = re.fullmatch(r"sm_(\d+)(\d)", arch)
    if match is None:
        raise UsageError(f"arch={arch!r}: expected 'sm_<major><minor>', e.g. 'sm_90'")
    block3, grid3 = _dims(block, "block"), _dims(grid, "grid")
    with _seams.assumed_compute_capability((int(match[1]), int(match[2]))):
        result = _seams.compile_for_launch(kernel, signature, block3, grid3)
    return CompiledKernel(cubin=bytes(result.metadata["cubin"]), arch=arch, block=block3, _result=result)
