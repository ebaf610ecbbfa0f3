"""Activation: register the planner and make every public stub typeable, once per process.

The planner is registered *isolated*: a kernel whose IR names no cuda-coop primitive compiles and
launches exactly as it would without cuda.coop (numba-cuda-mlir 0.5.x otherwise changes the launch
path and the IR of every kernel once any planner is registered; see docs/known_issues.rst).
"""

from __future__ import annotations

import functools
from typing import Any

from .._dsl._primitive import Primitive, primitive_of
from .._dsl._uniform import is_uniform_stub
from .._numba._ir import callee_values
from ..errors import UsageError
from . import _lowering, _seams
from ._frontend import FRONTEND
from ._planner import CoopPlanner


def _stub_typer(prim: Primitive) -> Any:
    def typer(context: Any) -> Any:
        def typed(*args: Any, **kwargs: Any) -> Any:
            # Reached only when the planner left the call alone: no launch configuration.
            raise UsageError(
                f"coop.{prim.name}() needs the block shape of a launch: launch the kernel as "
                "kernel[grid, block](...) (or compile it with cuda.coop.numba_mlir.compile_kernel(..., block=...)); "
                "kernel.compile(signature) alone cannot specialise CUB primitives. A primitive called in a device "
                "function must be inlined into the kernel that calls it."
            )

        return typed

    return typer


def calls_primitive(func_ir: Any) -> bool:
    """Whether a call in ``func_ir`` may name a cuda-coop primitive or ``coop.uniform`` (never a false no).

    The planner runs only where this is true: it must be true for every kernel ``CoopPlanner.run`` changes.
    """
    return any(primitive_of(value) is not None or is_uniform_stub(value) for value in callee_values(FRONTEND, func_ir))


@functools.cache
def activate() -> None:
    from .. import block, warp

    for module in (block, warp):
        for name in module.__all__:
            stub = getattr(module, name)
            prim = primitive_of(stub)
            assert prim is not None, name
            _seams.type_callable(stub)(_stub_typer(prim))
    assert _lowering.coop_call is not None  # the intrinsic exists before typing registries refresh
    _seams.register_isolated_planner(CoopPlanner, calls_primitive)
    _seams.refresh_registries()
    _seams.install_cache_warning()
