"""Which DSL integrations (backends) are active in this process, and why the others are not.

``import cuda.coop`` calls :func:`auto_register`: each shipped integration whose backend is
installed and of a supported version is activated, unless CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION
is truthy. A backend that is not installed is recorded silently; an unsupported version is
recorded and warned about (never raised). :func:`register` activates explicitly and raises.

Module state: ``_STATUS`` (name -> BackendStatus), guarded by ``_LOCK``; ``_reset_for_tests()``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import re
import threading
import warnings
from dataclasses import dataclass

from . import _env
from .errors import BackendError

__all__ = ["BackendStatus", "BackendWarning", "auto_register", "backend_status", "register"]


class BackendWarning(UserWarning):
    """An installed DSL backend could not be activated automatically."""


@dataclass(frozen=True, kw_only=True, slots=True)
class _Backend:
    name: str
    distribution: str
    import_name: str
    module: str
    minimum: tuple[int, ...]
    below: tuple[int, ...]
    install_hint: str

    @property
    def supported(self) -> str:
        return f">={'.'.join(map(str, self.minimum))},<{'.'.join(map(str, self.below))}"


_BACKENDS = {
    "numba_mlir": _Backend(
        name="numba_mlir",
        distribution="numba-cuda-mlir",
        import_name="numba_cuda_mlir",
        module="cuda.coop.numba_mlir",
        minimum=(0, 5, 0),
        below=(0, 6),
        install_hint='pip install "cuda-coop[numba-cuda-mlir-cu13]" (or -cu12)',
    ),
}


@dataclass(frozen=True, kw_only=True, slots=True)
class BackendStatus:
    """What happened to one backend in this process."""

    name: str
    active: bool
    version: str | None
    """The installed backend's version, or None when it is not installed."""
    reason: str
    """Why it is (not) active."""


_STATUS: dict[str, BackendStatus] = {}
_LOCK = threading.RLock()


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version.split("+", maxsplit=1)[0])[:3])


def _check(backend: _Backend) -> tuple[str | None, str | None]:
    """(installed version, problem) without importing the backend."""
    if importlib.util.find_spec(backend.import_name) is None:
        return None, f"{backend.distribution} is not installed; {backend.install_hint}"
    try:
        version = importlib.metadata.version(backend.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None, f"{backend.import_name} is importable but {backend.distribution} has no metadata; reinstall it"
    found = _version_tuple(version)
    if not (backend.minimum <= found < backend.below):
        return version, (
            f"cuda.coop.{backend.name} needs {backend.distribution}{backend.supported}, found {version}; "
            f"{backend.install_hint}"
        )
    return version, None


def _activate(backend: _Backend) -> BackendStatus:
    version, problem = _check(backend)
    if problem is not None:
        raise BackendError(problem)
    importlib.import_module(backend.module)  # activation happens on import
    return BackendStatus(name=backend.name, active=True, version=version, reason="active")


def register(name: str = "numba_mlir") -> BackendStatus:
    """Activate a DSL integration now.

    Parameters
    ----------
    name:
        The integration: ``"numba_mlir"``.

    Raises
    ------
    BackendError
        If the backend is not installed, has an unsupported version, or fails to activate.
    """
    backend = _BACKENDS.get(name)
    if backend is None:
        raise BackendError(f"unknown cuda-coop backend {name!r}; known: {', '.join(sorted(_BACKENDS))}")
    with _LOCK:
        status = _STATUS.get(name)
        if status is not None and status.active:
            return status
        try:
            status = _activate(backend)
        except BackendError as exc:
            _STATUS[name] = BackendStatus(name=name, active=False, version=_check(backend)[0], reason=str(exc))
            raise
        _STATUS[name] = status
        return status


def auto_register() -> None:
    """Activate every installed, supported backend (what ``import cuda.coop`` does)."""
    if _env.flag("CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"):
        with _LOCK:
            for name, backend in _BACKENDS.items():
                _STATUS.setdefault(name, BackendStatus(
                    name=name, active=False, version=None,
                    reason="automatic activation disabled by CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION; "
                    f"call cuda.coop.register({name!r}) or import {backend.module}",
                ))
        return
    for name, backend in _BACKENDS.items():
        version, problem = _check(backend)
        if version is None and problem is not None:  # not installed: recorded silently
            with _LOCK:
                _STATUS.setdefault(name, BackendStatus(name=name, active=False, version=None, reason=problem))
            continue
        try:
            register(name)
        except BackendError as exc:
            warnings.warn(f"cuda.coop: {exc}", BackendWarning, stacklevel=3)
        except Exception as exc:  # automatic activation never raises: record it and say so
            reason = f"activating cuda.coop.{name} failed: {type(exc).__name__}: {exc}"
            with _LOCK:
                _STATUS[name] = BackendStatus(name=name, active=False, version=version, reason=reason)
            warnings.warn(f"cuda.coop: {reason}; call cuda.coop.register({name!r}) to see the traceback",
                          BackendWarning, stacklevel=3)


def mark_active(name: str) -> None:
    """Record that a backend activated itself (``import cuda.coop.<backend>``)."""
    backend = _BACKENDS[name]
    with _LOCK:
        _STATUS[name] = BackendStatus(name=name, active=True, version=_check(backend)[0], reason="active")


def backend_status() -> dict[str, BackendStatus]:
    """The status of every shipped integration in this process."""
    with _LOCK:
        return {
            name: _STATUS.get(name) or BackendStatus(
                name=name, active=False, version=_check(backend)[0], reason="not activated"
            )
            for name, backend in _BACKENDS.items()
        }


def _reset_for_tests() -> None:
    with _LOCK:
        _STATUS.clear()
