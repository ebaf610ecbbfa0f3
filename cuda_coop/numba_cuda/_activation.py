"""Activation: add the planning pass, make every public stub typeable, keep cuda-coop kernels out of the disk
cache; once per process.

Kernels without cuda-coop calls compile as without cuda.coop: the pass returns at once for them (a scan of
their callees), and numba-cuda's launch path is not changed.
"""

from __future__ import annotations

import functools

from .._dsl._uniform import uniform
from .._numba._stubs import type_stubs
from . import _lowering, _seams
from ._planner import plan
from ._seams import _link


@functools.cache
def activate() -> None:
    type_stubs(_seams.type_callable, "numba_cuda", "A device function that a launched kernel calls is inlined into "
               "it; one compiled on its own (cuda.compile) cannot specialise them either.")
    # coop.uniform(v) outside a planned kernel (a device function numba-cuda compiles separately) is v; in a planned
    # kernel the planner replaces it, remembering the assertion.
    _seams.overload(uniform)(lambda value: lambda value: value)
    assert _lowering.coop_call is not None  # the intrinsic exists before the first compile
    _seams.install_pass(plan)
    _seams.install_cache_rule()
    _link.install_link_layout()
