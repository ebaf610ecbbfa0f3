"""The primitive registry: every :class:`PrimitiveSpec`, added through :func:`register_primitive`.

Global state (STYLE 14): ``_REGISTRY`` is filled while ``cuda_coop._specs`` is imported and frozen
at the end of that import (``_FROZEN`` holds the frozen content); :func:`_reset_for_tests` restores it.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Iterator

from ..errors import SpecError
from ._model import PrimitiveSpec

__all__ = ["all_primitives", "get_primitive", "register_primitive"]

_REGISTRY: dict[str, PrimitiveSpec] = {}
_FROZEN: list[dict[str, PrimitiveSpec]] = []  # empty while registration is open


def register_primitive(spec: PrimitiveSpec) -> PrimitiveSpec:
    """Add ``spec`` to the registry and return it.

    Raises
    ------
    RuntimeError
        After ``cuda_coop._specs`` finished importing (the registry is frozen).
    ValueError
        If a primitive of that name is already registered.
    """
    if _FROZEN:
        raise RuntimeError(f"cannot register {spec.name}: the primitive registry is frozen after import")
    if spec.name in _REGISTRY:
        raise ValueError(f"primitive {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def get_primitive(name: str) -> PrimitiveSpec:
    """The spec registered as ``name``; SpecError with a suggestion otherwise."""
    try:
        return _REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(name, _REGISTRY, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SpecError(f"no primitive {name!r}; registered: {', '.join(sorted(_REGISTRY))}{hint}") from None


def all_primitives() -> tuple[PrimitiveSpec, ...]:
    """Every registered spec, sorted by name."""
    return tuple(_REGISTRY[n] for n in sorted(_REGISTRY))


def headers() -> tuple[str, ...]:
    """The headers of every registered primitive, sorted: the fixed include preamble of providers (but for a spec's
    header that is not in it, ``PrimitiveSpec.preamble``)."""
    return tuple(sorted({s.header for s in _REGISTRY.values() if s.preamble}))


def _freeze() -> None:
    _FROZEN[:] = [dict(_REGISTRY)]


@contextlib.contextmanager
def _registering_for_tests() -> Iterator[None]:
    """Unfreeze the registry inside the block; :func:`_reset_for_tests` runs on exit."""
    frozen = list(_FROZEN)
    _FROZEN.clear()
    try:
        yield
    finally:
        _FROZEN[:] = frozen
        _reset_for_tests()


def _reset_for_tests() -> None:
    if _FROZEN:
        _REGISTRY.clear()
        _REGISTRY.update(_FROZEN[0])
