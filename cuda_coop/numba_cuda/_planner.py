"""cuda-coop's pass in numba-cuda's untyped pipeline: plan the kernel a launch compiles.

numba-cuda runs it after ``InlineInlinables`` and before typing (``_seams.install_pass``). It plans the kernel
with the shared core (:func:`~cuda_coop._numba._planner.plan_kernel`), reading the block shape of the launch
(``numba.cuda.launchconfig``) or of ``compile_kernel`` (``_seams.launch_block``); a kernel it plans is compiled
to LTO-IR (its wrappers are inlined at the link).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._dsl._primitive import primitive_of
from .._dsl._uniform import is_uniform_stub
from .._numba._ir import callee_values
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


def calls_primitive(func_ir: Any) -> bool:
    """Whether a call in ``func_ir`` may name a cuda-coop primitive or ``coop.uniform`` (never a false no)."""
    return any(primitive_of(value) is not None or is_uniform_stub(value) for value in callee_values(FRONTEND, func_ir))


def plan(state: Any) -> bool:
    """The pass: plan ``state``'s function if it calls cuda-coop; whether its IR changed."""
    if not calls_primitive(state.func_ir):
        return False  # every other compile passes through untouched
    launch = _Launch(state, _seams.launch_block(state))
    changed = plan_kernel(FRONTEND, state.func_ir, launch)
    if changed:
        _seams.repair(state.func_ir)
    if launch.planned:
        _seams.enable_lto(state)
    return changed
