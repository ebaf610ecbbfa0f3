"""Activation: register the planner and make every public stub typeable, once per process.

The planner is registered *isolated*: a kernel whose IR names no cuda-coop primitive compiles and
launches exactly as it would without cuda.coop (numba-cuda-mlir 0.5.x otherwise changes the launch
path and the IR of every kernel once any planner is registered; see docs/known_issues.rst).
"""

from __future__ import annotations

import functools
from typing import Any

from .._numba._ir import calls_primitive as _calls_primitive
from .._numba._stubs import type_stubs
from . import _lowering, _seams
from ._frontend import FRONTEND
from ._planner import CoopPlanner


def calls_primitive(func_ir: Any) -> bool:
    """Whether the planner may change ``func_ir`` (``_numba._ir.calls_primitive``): the isolated planner's pre-scan."""
    return _calls_primitive(FRONTEND, func_ir)


@functools.cache
def activate() -> None:
    type_stubs(_seams.type_callable, "numba_mlir", "A primitive called in a device function must be inlined into the "
               "kernel that calls it.")
    assert _lowering.coop_call is not None  # the intrinsic exists before typing registries refresh
    _seams.register_isolated_planner(CoopPlanner, calls_primitive)
    _seams.refresh_registries()
    _seams.install_cache_warning()
