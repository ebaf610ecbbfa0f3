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

__all__ = ["BackendStatus", "BackendWarning", "auto_register", "backend_status", "in_range", "register"]


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

    def supports(self, version: str) -> bool:
        """Whether ``version`` satisfies :attr:`supported` as pip decides it (see :func:`in_range`)."""
        return in_range(version, self.minimum, self.below)


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
    "numba_cuda": _Backend(
        name="numba_cuda",
        distribution="numba-cuda",
        import_name="numba_cuda",
        module="cuda.coop.numba_cuda",
        minimum=(0, 30, 0),
        below=(0, 31),
        install_hint='pip install "cuda-coop[numba-cuda-cu13]" (or -cu12)',
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


# PEP 440's version grammar (the pattern the ``packaging`` project publishes), case-insensitive.
_PEP440 = re.compile(
    r"""^\s*v?(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?
    (?P<post>(?:-[0-9]+)|(?:[-_.]?(?:post|rev|r)[-_.]?[0-9]*))?
    (?P<dev>[-_.]?dev[-_.]?[0-9]*)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$""",
    re.VERBOSE | re.IGNORECASE,
)


def _compare_to_final(match: re.Match[str], bound: tuple[int, ...]) -> int:
    """-1, 0 or 1 as the parsed version is below, equal to or above the final release ``bound``."""
    release = tuple(int(part) for part in match["release"].split("."))
    width = max(len(release), len(bound))
    mine, other = release + (0,) * (width - len(release)), bound + (0,) * (width - len(bound))
    if mine != other:
        return -1 if mine < other else 1
    if match["pre"] or (match["dev"] and not match["post"]):
        return -1  # 0.5.0rc1 and 0.5.0.dev1 come before 0.5.0
    return 1 if match["post"] else 0


def in_range(version: str, minimum: tuple[int, ...], below: tuple[int, ...]) -> bool:
    """``version`` satisfies ``>=minimum,<below`` by PEP 440, as pip checks an installed distribution.

    Release segments compare zero-padded (``0.5`` is ``0.5.0``); a pre-release or development release
    sorts before its final release (``0.5.0rc1`` and ``0.5.0.dev1`` are below ``>=0.5.0``); ``<0.6``
    excludes every pre-release of 0.6 (``0.6.0rc1``, ``0.6.0.dev0``); pre-releases strictly inside the
    range (``0.5.1rc1``) satisfy it, as pip accepts them for an installed distribution
    (``SpecifierSet.contains(..., prereleases=True)``); post-releases and local versions compare by
    their release; a non-zero epoch is above every bound; text that is not a PEP 440 version fails.
    """
    match = _PEP440.match(version)
    if match is None or int(match["epoch"] or 0) != 0:
        return False
    if _compare_to_final(match, minimum) < 0 or _compare_to_final(match, below) >= 0:
        return False
    prerelease = bool(match["pre"] or match["dev"])
    release = tuple(int(part) for part in match["release"].split("."))
    width = max(len(release), len(below))
    same_as_below = release + (0,) * (width - len(release)) == below + (0,) * (width - len(below))
    return not (prerelease and same_as_below)


def _check(backend: _Backend) -> tuple[str | None, str | None]:
    """(installed version, problem) without importing the backend."""
    if importlib.util.find_spec(backend.import_name) is None:
        return None, f"{backend.distribution} is not installed; {backend.install_hint}"
    try:
        version = importlib.metadata.version(backend.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None, f"{backend.import_name} is importable but {backend.distribution} has no metadata; reinstall it"
    if not backend.supports(version):
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
        The integration: ``"numba_mlir"`` (numba-cuda-mlir) or ``"numba_cuda"`` (numba-cuda).

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
