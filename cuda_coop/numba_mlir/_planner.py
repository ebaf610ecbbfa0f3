"""The whole-function planner numba-cuda-mlir runs after inlining device functions, before typing.

It plans the kernel with the shared core (:func:`~cuda_coop._numba._planner.plan_kernel`), reading the
launch through numba-cuda-mlir's ``extending.require_launch_config`` (``_seams``).
"""

from __future__ import annotations

from typing import Any

from .._numba._planner import plan_kernel
from . import _seams
from ._frontend import FRONTEND


class _Launch:
    """The launch of one numba-cuda-mlir compile (see ``_planner.Launch``)."""

    arch: str | None = None  # the chip is known at lowering (``_seams.target_chip``)

    def __init__(self, state: Any) -> None:
        self.state = state

    def available(self) -> bool:
        return _seams.launch_config_available(self.state)

    def block(self) -> tuple[int, ...]:
        return tuple(_seams.require_launch_config(self.state)["block"])

    def bound(self, threads: int) -> int | None:
        return _seams.bound_block_threads(self.state, threads)


class CoopPlanner(_seams.WholeFunctionPlanner):  # type: ignore[misc]
    """Rewrites cuda-coop calls; registered once when cuda.coop.numba_mlir activates."""

    def run(self) -> bool:
        return plan_kernel(FRONTEND, self.state.func_ir, _Launch(self.state))
