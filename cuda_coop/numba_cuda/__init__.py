"""cuda-coop's integration with classic numba-cuda (``from numba import cuda``; numba-cuda >=0.30.0,<0.31).

Importing this module activates it: a pass in numba-cuda's untyped pipeline rewrites every ``coop.block.*``
/ ``coop.warp.*`` call of a kernel into CUB code specialised by the launch's block shape (numba-cuda's
``numba.cuda.launchconfig``), with one NVRTC compile per kernel specialisation. A kernel's source is the same
as under ``cuda.coop.numba_mlir``; only its ``cuda`` import differs. ``import cuda.coop`` does this
automatically when numba-cuda is installed (unless CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION is truthy).

numba-cuda compiles one kernel per launch configuration (grid, block and dynamic shared memory) for a kernel
that calls cuda-coop primitives; the CUB code itself is compiled once per block shape. Such a kernel is not
written to numba-cuda's ``cache=True`` disk cache (a one-time warning says so); other kernels are cached
as usual, and cuda-coop's provider cache (CUDA_COOP_ENABLE_CACHE) is separate. Such a kernel can be compiled
ahead of time into a precompiled pack (:func:`precompile`, ``python -m cuda.coop precompile``).
"""

from __future__ import annotations

from .._registration import _BACKENDS, _check, mark_active
from ..errors import BackendError

_version, _problem = _check(_BACKENDS["numba_cuda"])
if _problem is not None:
    raise BackendError(_problem)

from . import _activation  # noqa: E402  (the version is checked first)
from ._inspect import CompiledKernel as CompiledKernel  # noqa: E402
from ._inspect import compile_kernel as compile_kernel  # noqa: E402
from ._inspect import shared_memory_bytes as shared_memory_bytes  # noqa: E402
from ._precompile import PrecompiledKernel as PrecompiledKernel  # noqa: E402
from ._precompile import precompile as precompile  # noqa: E402

_activation.activate()
mark_active("numba_cuda")

__all__ = ["CompiledKernel", "PrecompiledKernel", "compile_kernel", "precompile", "shared_memory_bytes"]


def __dir__() -> list[str]:
    return sorted(__all__)
