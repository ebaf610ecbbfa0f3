"""The recipe gallery (examples/recipes/) compiles for sm_90 without a GPU (compile tier).

Each recipe's script path without a GPU (``compile_only``) runs in this process, and a covering set of its kernels
(each recipe once in float32 at the shape ``coop.row_shape`` picks, plus other item types: float16/bfloat16 top-k,
float16 softmax, bfloat16 argmax, int32 argmin and cumsum) compiles with no local memory. The GPU
tier (tests/gpu/test_recipes.py) runs the recipes against NumPy over row lengths, item types and shapes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from tests.helpers.scripts import load_script

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

RECIPES = Path(__file__).resolve().parents[2] / "examples" / "recipes"
NAMES = sorted(p.stem for p in RECIPES.glob("*.py"))


def recipe(name: str) -> ModuleType:
    return load_script(RECIPES / f"{name}.py", f"_recipe_{name}")


def _t(dtype: Any) -> Any:
    from numba_cuda_mlir.numba_cuda import types

    return getattr(types, np.dtype(dtype).name)[::1]


def _cases() -> dict[str, Callable[[], tuple[Any, tuple[Any, ...], int]]]:
    """id -> () -> (kernel, signature, threads)."""
    import ml_dtypes
    from numba_cuda_mlir.numba_cuda import types

    import cuda.coop as coop

    i64, f32 = types.int64, _t(np.float32)

    def top_k(n: int, dtype: Any, k: int) -> tuple[Any, tuple[Any, ...], int]:
        m = recipe("row_top_k")
        shape = m.top_k_shape(n, dtype)
        t = _t(dtype)
        return m.top_k_kernel(shape, np.dtype(dtype), k), (t, t, _t(np.int32), i64), shape.threads

    def rows(name: str, factory: str, n: int, dtype: Any, extra: tuple[Any, ...], *args: Any
             ) -> tuple[Any, tuple[Any, ...], int]:
        shape = coop.row_shape(n, dtype)
        t = _t(dtype)
        return getattr(recipe(name), factory)(shape, np.dtype(dtype), *args), (t, t, *extra, i64), shape.threads

    def histogram() -> tuple[Any, tuple[Any, ...], int]:
        shape = coop.row_shape(1 << 28, np.uint8)
        count, _ = recipe("byte_histogram").histogram_kernels(shape)
        return count, (_t(np.uint8), i64, _t(np.uint32)), shape.threads

    def array_sum() -> tuple[Any, tuple[Any, ...], int]:
        shape = coop.row_shape(1 << 28, np.float32)
        return recipe("array_sum").sum_kernel(shape, np.dtype(np.float32)), (f32, i64, f32), shape.threads

    def layer_norm() -> tuple[Any, tuple[Any, ...], int]:
        shape = coop.row_shape(4096, np.float32)
        kernel = recipe("row_layer_norm").layer_norm_kernel(shape, np.dtype(np.float32))
        return kernel, (f32, f32, f32, f32, i64, types.float32), shape.threads

    def sort_pairs() -> tuple[Any, tuple[Any, ...], int]:
        shape = coop.row_shape(8192, np.float32)
        kernel = recipe("row_sort").sort_kernel(shape, np.dtype(np.float32), np.dtype(np.int32))
        return kernel, (f32, _t(np.int32), f32, _t(np.int32), i64), shape.threads

    return {
        "top_k-float32-1024-k8": lambda: top_k(1024, np.float32, 8),
        "top_k-bfloat16-16384-k64": lambda: top_k(16384, ml_dtypes.bfloat16, 64),
        "top_k-float16-4096-k32": lambda: top_k(4096, np.float16, 32),
        "softmax-float32-4096": lambda: rows("row_softmax", "softmax_kernel", 4096, np.float32, ()),
        "softmax-float16-32768": lambda: rows("row_softmax", "softmax_kernel", 32768, np.float16, ()),
        "layer_norm-float32-4096": layer_norm,
        "argmax-float32-1024": lambda: rows("row_argmax", "arg_kernel", 1024, np.float32, (_t(np.int64),)),
        "argmax-bfloat16-1024": lambda: rows("row_argmax", "arg_kernel", 1024, ml_dtypes.bfloat16, (_t(np.int64),)),
        "argmin-int32-1024": lambda: rows("row_argmax", "arg_kernel", 1024, np.int32, (_t(np.int64),), False),
        "cumsum-int32-1024": lambda: rows("row_cumsum", "cumsum_kernel", 1024, np.int32, ()),
        "sort-pairs-float32-8192": sort_pairs,
        "histogram-uint8": histogram,
        "sum-float32": array_sum,
    }


CASES = sorted(_cases()) if NAMES else []


@pytest.mark.parametrize("case", CASES)
def test_recipe_kernel_compiles_with_no_local_memory(case: str) -> None:
    from cuda.coop.numba_mlir import compile_kernel

    kernel, signature, threads = _cases()[case]()
    compiled = compile_kernel(kernel, signature, block=threads, arch="sm_90")
    assert compiled.resource_usage().get("local", 0) == 0, compiled.resource_usage()
    assert not re.search(r"\b(LDL|STL)\b", compiled.sass()), "local memory in the SASS"


@pytest.mark.parametrize("name", NAMES)
def test_recipe_script_compiles_without_a_gpu(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The script's path on a machine without a GPU (``python examples/recipes/<name>.py``), in this process."""
    assert recipe(name).compile_only()
    printed = capsys.readouterr().out
    assert "compiled" in printed and "No GPU here" in printed, printed


def test_every_recipe_has_a_covering_case_and_uses_row_shape() -> None:
    """A recipe added to the gallery gets a case here, and picks its shape with ``coop.row_shape``."""
    covered = {"row_top_k": "top_k", "row_softmax": "softmax", "row_layer_norm": "layer_norm",
               "row_argmax": "argmax", "row_cumsum": "cumsum", "row_sort": "sort", "byte_histogram": "histogram",
               "array_sum": "sum"}
    assert set(NAMES) == set(covered), "add the new recipe to `covered` and a case to _cases()"
    for name, prefix in covered.items():
        assert any(c.startswith(prefix + "-") for c in CASES), name
        assert "coop.row_shape(" in (RECIPES / f"{name}.py").read_text(), name
