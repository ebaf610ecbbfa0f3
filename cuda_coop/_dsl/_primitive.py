"""Public primitive stubs: what a kernel calls, and what a DSL integration needs to know about it.

A stub is a plain Python function with the documented signature. Called on the host it raises
:class:`~cuda.coop.errors.UsageError`; inside a kernel a DSL integration's planner finds the
call (``__coop_primitive__``) and replaces it with CUB code specialised for the launch.

Module state: ``_PRIMITIVES`` (qualified name -> Primitive), filled at import of
``cuda.coop.block`` / ``cuda.coop.warp`` and never changed afterwards.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, kw_only=True, slots=True)
class Primitive:
    """How one public primitive's arguments are bound.

    Attributes
    ----------
    name:
        Qualified public name, e.g. ``"block.load"``.
    static:
        Parameters that must be compile-time constants (algorithm, operator, logical warp size...).
    per_thread:
        Parameters that are per-thread arrays (``cuda.local.array``) whose extent is a template
        parameter; ``items_per_thread=`` supplies it where it cannot be recovered.
    signature:
        The stub's Python signature (parameter order and defaults).
    """

    name: str
    target: tuple[str, str]
    """The CUB spec and method it calls: ``("block_reduce", "sum")``."""
    data: str
    """The parameter whose (element) type is the primitive's ``dtype``."""
    static: frozenset[str]
    per_thread: frozenset[str]
    signature: inspect.Signature
    offsets: tuple[tuple[str, str], ...] = ()
    """``(offset parameter, pointer parameter)``: the pointer is advanced by the offset."""
    in_place: tuple[tuple[str, str], ...] = ()
    """``(output parameter, input parameter)``: an omitted output is the input (in place)."""

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
        """Bind call arguments to parameter names; a mismatch is a UsageError naming the primitive."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise UsageError(f"coop.{self.name}(): {exc}") from None
        return bound


_PRIMITIVES: dict[str, Primitive] = {}


# Public parameter names that differ from the spec's (``_specs``) names for the same argument.
SPEC_NAMES = {"x": "input", "threads": "logical_warp_threads", "prefix_op": "prefix_callback",
              "prefix_state": "prefix_callback"}
"""``prefix_op`` is the callback's code, ``prefix_state`` the state pointer its C parameter carries."""


def primitive(
    name: str, target: tuple[str, str], *, data: str, static: tuple[str, ...] = (), per_thread: tuple[str, ...] = (),
    offsets: tuple[tuple[str, str], ...] = (), in_place: tuple[tuple[str, str], ...] = (),
) -> Callable[[F], F]:
    """Declare a public primitive stub (its body never runs) and the CUB spec method it calls."""

    def decorate(func: F) -> F:
        sig = inspect.signature(func)
        named = (*static, *per_thread, data, *(p for pair in (*offsets, *in_place) for p in pair))
        for param in named:
            if param not in sig.parameters:
                raise AssertionError(f"{name}: no parameter {param!r}")  # a bug in cuda-coop itself
        spec = Primitive(name=name, target=target, data=data, static=frozenset(static),
                         per_thread=frozenset(per_thread), signature=sig, offsets=offsets, in_place=in_place)

        @functools.wraps(func)
        def stub(*args: Any, **kwargs: Any) -> Any:
            raise UsageError(
                f"coop.{name}() was called on the host; call it inside a numba-cuda-mlir kernel "
                "(@numba_cuda_mlir.cuda.jit) launched with a block shape, with cuda.coop.numba_mlir active "
                "(see cuda.coop.backend_status())"
            )

        stub.__coop_primitive__ = spec  # type: ignore[attr-defined]
        _PRIMITIVES[name] = spec
        return stub  # type: ignore[return-value]

    return decorate


def primitive_of(obj: Any) -> Primitive | None:
    """The primitive a Python object is the stub of, if any."""
    spec = getattr(obj, "__coop_primitive__", None)
    return spec if isinstance(spec, Primitive) else None
