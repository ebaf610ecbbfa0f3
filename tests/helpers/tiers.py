"""Whether the compile tier compiles every kernel of a GPU-tier module that it claims to (no GPU in CI: a kernel it
leaves out is first built on the GPU machine).

A GPU module's kernels are its builders (module functions named ``make_*``) and the case lists its tests are
parametrized over (``@pytest.mark.parametrize("case", CASES)``). A compile module compiles them all when it calls
every builder (``gpu.make_x(...)``, through whatever name it imported the module as) and parametrizes its own tests
over every one of those case lists. This states the property that a count of kernels (``== 28``) only records:

    def test_every_gpu_tier_kernel_is_compiled_here() -> None:
        assert not uncompiled(gpu, sys.modules[__name__])
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["case_lists", "kernel_builders", "uncompiled"]


def kernel_builders(module: ModuleType) -> set[str]:
    """The names of the kernel builders ``module`` defines (functions ``make_*``)."""
    return {name for name, obj in vars(module).items()
            if name.startswith("make_") and inspect.isfunction(obj) and obj.__module__ == module.__name__}


def case_lists(module: ModuleType, argname: str = "case") -> dict[str, Sequence[Any]]:
    """Each test of ``module`` parametrized over ``argname``: its name and the cases it runs."""
    found = {}
    for name, obj in vars(module).items():
        if name.startswith("test_") and callable(obj):
            for mark in getattr(obj, "pytestmark", ()):
                if mark.name == "parametrize" and mark.args[0] == argname:
                    found[name] = mark.args[1]
    return found


def uncompiled(gpu: ModuleType, compiling: ModuleType) -> list[str]:
    """What of ``gpu``'s kernels ``compiling`` does not compile: builders it never calls, and the GPU tests whose
    case lists none of its tests is parametrized over."""
    aliases = [name for name, obj in vars(compiling).items() if obj is gpu]
    source = inspect.getsource(compiling)
    called = {m for alias in aliases for m in re.findall(rf"\b{re.escape(alias)}\.(make_\w+)\(", source)}
    compiled = [cases for cases in case_lists(compiling).values()]
    missing = [f"builder {name}" for name in sorted(kernel_builders(gpu) - called)]
    missing += [f"the cases of {test}" for test, cases in case_lists(gpu).items()
                if not any(cases is c or list(cases) == list(c) for c in compiled)]
    return missing
