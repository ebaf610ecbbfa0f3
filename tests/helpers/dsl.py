"""The two DSLs a kernel's source compiles under; only its ``cuda`` import differs.

A test's kernel builder takes a :class:`Dsl` and writes ``cuda = dsl.cuda`` where it wrote
``from numba_cuda_mlir import cuda``; signatures use ``dsl.types``; ``dsl.compile_kernel`` compiles for sm_90
without a GPU. Parametrise over :data:`DSLS` (ids ``numba_mlir``, ``numba_cuda``); a DSL whose backend is not
installed is skipped (a failure under ``CI=true``, see ``requires``).

    @pytest.mark.parametrize("dsl", DSLS, ids=str)
    def test_x(dsl: Dsl) -> None:
        kernel = make_kernel(case, dsl)
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from tests.helpers import requires

__all__ = ["DSLS", "NUMBA_CUDA", "NUMBA_MLIR", "Dsl"]

_MODULES = {
    "numba_mlir": ("numba_cuda_mlir.cuda", "numba_cuda_mlir.numba_cuda.types",
                   "numba_cuda_mlir.numba_cuda.np.numpy_support", "numba_cuda_mlir.numba_cuda.bf16"),
    "numba_cuda": ("numba.cuda", "numba.cuda.types", "numba.cuda.np.numpy_support", "numba.cuda.bf16"),
}
_EXTRA = {"numba_mlir": "numba-cuda-mlir-cu13", "numba_cuda": "numba-cuda-cu13"}


@dataclass(frozen=True)
class Dsl:
    """One DSL integration, as a test builds and compiles kernels with it."""

    name: str

    def __str__(self) -> str:
        return self.name

    def _import(self, index: int) -> ModuleType:
        module = _MODULES[self.name][index]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # numba-cuda-mlir 0.5 on NumPy >= 2.3
                return importlib.import_module(module)
        except ImportError as exc:
            requires.missing(f"the {self.name} tests need {module} (pip install cuda-coop[{_EXTRA[self.name]}]): {exc}")

    @property
    def cuda(self) -> Any:
        """The ``cuda`` module kernels use (``cuda.jit``, ``cuda.threadIdx``, ``cuda.local.array``)."""
        return self._import(0)  # a submodule: numba_cuda_mlir.cuda is not an attribute until it is imported

    @property
    def types(self) -> Any:
        """The DSL's numba types (``types.float32[::1]``)."""
        return self._import(1)

    @property
    def bf16(self) -> Any:
        """The DSL's bfloat16 intrinsics (``bfloat16_as_ushort``, ``ushort_as_bfloat16``...)."""
        return self._import(3)

    def from_dtype(self, dtype: Any) -> Any:
        """The DSL's numba type of a NumPy dtype (a structured dtype: a Record)."""
        return self._import(2).from_dtype(dtype)

    @property
    def integration(self) -> Any:
        """``cuda.coop.numba_mlir`` or ``cuda.coop.numba_cuda`` (importing it activates it)."""
        self._import(0)
        return importlib.import_module(f"cuda.coop.{self.name}")

    def compile_kernel(self, kernel: Any, signature: Any, **kwargs: Any) -> Any:
        """The integration's ``compile_kernel`` (sm_90 unless ``arch=`` says otherwise; no GPU)."""
        return self.integration.compile_kernel(kernel, signature, **kwargs)


NUMBA_MLIR = Dsl("numba_mlir")
NUMBA_CUDA = Dsl("numba_cuda")
DSLS = (NUMBA_MLIR, NUMBA_CUDA)
