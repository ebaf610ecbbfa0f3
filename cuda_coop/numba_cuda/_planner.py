"""cuda-coop's pass in numba-cuda's untyped pipeline: plan the kernel a launch compiles.

numba-cuda runs it after ``InlineInlinables`` and before typing (``_seams.install_pass``), for every function it
compiles; only the kernel a launch (or ``compile_kernel``) compiles is planned (``_seams.launch_block``). The
device functions that kernel calls which call cuda-coop primitives are inlined into it first (numba-cuda-mlir
inlines device functions; numba-cuda compiles them separately unless ``inline="always"``), so a kernel's source
works under both DSLs. Then the shared core plans it (:func:`~cuda_coop._numba._planner.plan_kernel`), and a kernel
it plans is compiled to LTO-IR (its wrappers are inlined at the link).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._dsl._primitive import primitive_of
from .._dsl._uniform import is_uniform_stub
from .._numba._ir import callee_values, calls_primitive
from .._numba._planner import plan_kernel
from . import _seams
from ._frontend import FRONTEND


class _Launch:
    """The launch of one numba-cuda kernel compile (see ``_numba._planner.Launch``)."""

    def __init__(self, state: Any, read: Callable[[], tuple[int, ...]] | None) -> None:
        self.state = state
        self._read = read
        self.arch: str | None = _seams.arch_of(_seams.compute_capability(state))
        self.planned = False

    def available(self) -> bool:
        return self._read is not None

    def block(self) -> tuple[int, ...]:
        assert self._read is not None
        self.planned = True
        return self._read()

    def bound(self, threads: int) -> int | None:
        return _seams.user_launch_bounds(self.state)


@functools.lru_cache(maxsize=1024)
def _calls_coop(py_func: Any, depth: int = 0) -> bool:
    """Whether the device function ``py_func`` calls cuda-coop, itself or through device functions it calls."""
    try:
        func_ir = _seams.device_function_ir(py_func)
    except Exception:  # numba-cuda cannot read it: it compiles it (and reports the problem) as usual
        return False
    for value in callee_values(FRONTEND, func_ir):
        if primitive_of(value) is not None or is_uniform_stub(value):
            return True
        inner = getattr(value, "py_func", None)
        if inner is not None and inner is not py_func and depth < 8 and _calls_coop(inner, depth + 1):
            return True
    return False


def plan(state: Any) -> bool:
    """The pass: plan ``state``'s function if a launch compiles it and it calls cuda-coop; whether its IR changed."""
    read = _seams.launch_block(state)
    if read is None:
        return False  # device functions, user operators, other passes' callees: untouched
    inlined = _seams.inline_device_functions(state, _calls_coop)
    if not calls_primitive(FRONTEND, state.func_ir):
        return inlined  # a kernel without cuda-coop calls: as numba-cuda compiles it
    launch = _Launch(state, read)
    changed = plan_kernel(FRONTEND, state.func_ir, launch) or inlined
    if changed:
        _seams.repair(state.func_ir)
    if launch.planned:
        _seams.enable_lto(state)
    return changed
