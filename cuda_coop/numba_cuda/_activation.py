"""Activation: add the planning pass, make every public stub typeable, keep cuda-coop kernels out of the disk
cache; once per process.

Kernels without cuda-coop calls compile as without cuda.coop: the pass returns at once for them (a scan of
their callees), and numba-cuda's launch path is not changed.
"""

from __future__ import annotations

import functools
from typing import Any

from .._dsl._primitive import Primitive, primitive_of
from ..errors import UsageError
from . import _lowering, _seams
from ._planner import plan


def _stub_typer(prim: Primitive) -> Any:
    def typer(context: Any) -> Any:
        def typed(*args: Any, **kwargs: Any) -> Any:
            # Reached only when the planner left the call alone: no launch configuration.
            raise UsageError(
                f"coop.{prim.name}() needs the block shape of a launch: launch the kernel as "
                "kernel[grid, block](...) (or compile it with cuda.coop.numba_cuda.compile_kernel(..., block=...)); "
                "kernel.compile(signature) alone cannot specialise CUB primitives. A primitive called in a device "
                'function must be inlined into the kernel that calls it: @cuda.jit(device=True, inline="always")'
            )

        return typed

    return typer


@functools.cache
def activate() -> None:
    from .. import block, warp

    for module in (block, warp):
        for name in module.__all__:
            stub = getattr(module, name)
            prim = primitive_of(stub)
            assert prim is not None, name
            _seams.type_callable(stub)(_stub_typer(prim))
    assert _lowering.coop_call is not None  # the intrinsic exists before the first compile
    _seams.install_pass(plan)
    _seams.install_cache_rule()
