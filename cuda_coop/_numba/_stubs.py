"""What both integrations do with the public primitive stubs when they activate, and with each planned call.

A stub stays in a kernel's IR when the planner leaves its call alone (no launch configuration), and its
``getattr(coop, ...)`` is typed even where the call was rewritten: :func:`type_stubs` makes every stub typeable
in the DSL, and typing a call of one raises the error that says what is missing. :func:`type_site` types a
planned call (``coop_call(<site id>, ...)``) for the DSL's intrinsic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._dsl._primitive import Primitive, primitive_of
from ..errors import SpecError, UsageError
from ._sites import site
from ._typing import TypedCall, type_call

__all__ = ["type_site", "type_stubs"]


def _stub_typer(prim: Primitive, integration: str, device_functions: str) -> Any:
    def typer(context: Any) -> Any:
        def typed(*args: Any, **kwargs: Any) -> Any:
            # Reached only when the planner left the call alone: no launch configuration.
            raise UsageError(
                f"coop.{prim.name}() needs the block shape of a launch: launch the kernel as "
                f"kernel[grid, block](...) (or compile it with cuda.coop.{integration}.compile_kernel(..., "
                f"block=...)); kernel.compile(signature) alone cannot specialise CUB primitives. {device_functions}"
            )

        return typed

    return typer


def type_stubs(type_callable: Callable[[Any], Any], integration: str, device_functions: str) -> None:
    """Register a typer of every ``coop.block`` / ``coop.warp`` stub with the DSL's ``type_callable``; ``integration``
    and ``device_functions`` (what the DSL does with a primitive in a device function) go into its error."""
    from .. import block, warp

    for module in (block, warp):
        for name in module.__all__:
            stub = getattr(module, name)
            prim = primitive_of(stub)
            assert prim is not None, name
            type_callable(stub)(_stub_typer(prim, integration, device_functions))


def type_site(site_id: int, argtys: tuple[Any, ...]) -> TypedCall:
    """Type the planned call ``site_id`` with its runtime arguments' types and keep the result with its kernel."""
    cs, kernel = site(site_id)
    try:
        typed = type_call(cs, argtys)
    except SpecError as exc:  # a request the spec rejects (constraint, operator, algorithm)
        raise cs.error(exc.detail) from None
    kernel.typed[site_id] = typed
    return typed
