"""cuda-coop's Numba-CUDA-MLIR integration (numba-cuda-mlir >=0.5.0,<0.6).

Importing this module activates it: a whole-function planner rewrites every ``coop.block.*`` /
``coop.warp.*`` call in a kernel into CUB code specialised by the launch's block shape, with one
NVRTC compile per kernel specialisation. The block shape is all it specialises on: a launch with a
new grid and the same block (and dynamic shared memory) reuses the compiled kernel.
``import cuda.coop`` does this automatically when numba-cuda-mlir is installed (unless
CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION is truthy).

With numba-cuda-mlir 0.5.x an active planner disables the ``cache=True`` disk cache of *every*
kernel in the process; kernels stay cached in memory, and cuda-coop's provider cache
(CUDA_COOP_ENABLE_CACHE) is separate.
"""

from __future__ import annotations

from .._registration import _BACKENDS, _check, mark_active
from ..errors import BackendError

_version, _problem = _check(_BACKENDS["numba_mlir"])
if _problem is not None:
    raise BackendError(_problem)

from . import _activation  # noqa: E402  (the version is checked first)
from ._inspect import CompiledKernel as CompiledKernel  # noqa: E402
from ._inspect import compile_kernel as compile_kernel  # noqa: E402
from ._inspect import shared_memory_bytes as shared_memory_bytes  # noqa: E402
from ._precompile import PrecompiledKernel as PrecompiledKernel  # noqa: E402
from ._precompile import precompile as precompile  # noqa: E402

_activation.activate()
mark_active("numba_mlir")

__all__ = ["CompiledKernel", "PrecompiledKernel", "compile_kernel", "precompile", "shared_memory_bytes"]


def __dir__() -> list[str]:
    return sorted(__all__)
