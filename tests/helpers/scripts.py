"""Load a script of the repository (scripts/, benchmarks/) as a module, for the tests of its functions.

    bench = load_script(REPO / "benchmarks" / "kernel_compile.py", "cuda_coop_kernel_compile_benchmark")

The module is registered in ``sys.modules`` under ``name`` before it runs, as an import would: dataclasses
and pickling in the script look their module up there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["load_script"]


def load_script(path: Path, name: str) -> ModuleType:
    """Execute the script at ``path`` as the module ``name`` and return it."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
