"""Every environment variable cuda-coop reads, read in this one place.

``VARIABLES`` is the registry: it drives the documentation (docs/configuration.rst is
checked against it) and no other module touches ``os.environ``. Values are read when the
caller asks (the caller documents when that is); nothing is cached here.

Two rules, one place each: :func:`truthy` for switches and :func:`path` for path-valued
variables (empty means unset, a leading ``~`` is expanded, a relative path is refused, or, where
the seed gives a fallback, treated as unset); :func:`paths` applies the path rule to each item of
an ``os.pathsep``-separated list. :func:`is_windows` is the one platform test.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Literal

from .errors import ConfigurationError

__all__ = ["VARIABLES", "Variable", "flag", "get", "is_windows", "path", "paths", "truthy"]

_FALSY = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True, kw_only=True, slots=True)
class Variable:
    """One environment variable cuda-coop reads."""

    name: str
    kind: Literal["switch", "path"]
    read_when: str
    doc: str


VARIABLES: tuple[Variable, ...] = (
    Variable(
        name="CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION",
        kind="switch",
        read_when="when cuda.coop is imported",
        doc="Truthy: importing cuda.coop activates no DSL integration. "
        "coop.register(...) and importing an integration module still activate it.",
    ),
    Variable(
        name="CUDA_COOP_CCCL_ROOT",
        kind="path",
        read_when="for every new provider",
        doc="A CCCL source checkout or a cuda-coop header bundle to compile against, "
        "instead of the source checkout cuda-coop runs from or its installed bundle. "
        "An invalid value is an error; nothing falls back. Empty means unset.",
    ),
    Variable(
        name="CUDA_COOP_ENABLE_CACHE",
        kind="switch",
        read_when="when the provider cache module is imported, and at a process's first header fingerprint",
        doc="Truthy: compiled providers are kept in a persistent on-disk cache, and the content hashes "
        "of the headers are recorded next to it so that a new process need not read every header again.",
    ),
    Variable(
        name="XDG_CACHE_HOME",
        kind="path",
        read_when="when the provider cache module is imported (POSIX)",
        doc="Cache base directory on Linux and other POSIX systems: entries go to <value>/cccl. "
        "Unset, empty or relative values mean ~/.cache/cccl.",
    ),
    Variable(
        name="LOCALAPPDATA",
        kind="path",
        read_when="when the provider cache module is imported (Windows)",
        doc="Cache base directory on Windows: entries go to <value>\\cccl. "
        "Unset, empty or relative values mean ~\\AppData\\Local\\cccl.",
    ),
    Variable(
        name="CUDA_COOP_SOURCE_DUMP_DIR",
        kind="path",
        read_when="at each provider compile or cache hit",
        doc="Write each provider's generated CUDA source to this directory as "
        "cuda_coop_<backend>_<hash>.cu, on every compile and on cache hits. Unset or empty: no dumps.",
    ),
    Variable(
        name="CUDA_COOP_PACK_PATH",
        kind="path",
        read_when="at a process's first pack lookup (the first kernel compile that needs a provider)",
        doc="Precompiled packs (made by python -m cuda.coop precompile) to take providers and linked kernels "
        "from before compiling, as a list of directories separated by os.pathsep (':'; ';' on Windows), "
        "searched in order. Each item follows the path rule; an empty item is skipped.",
    ),
    Variable(
        name="CONDA_PREFIX",
        kind="path",
        read_when="for every new provider",
        doc="An active conda environment: its CUDA headers (targets/<arch>/include) and "
        "libraries are preferred to every other toolkit.",
    ),
    Variable(
        name="CUDA_PATH",
        kind="path",
        read_when="for every new provider",
        doc="<value>/include is a CUDA header candidate when cuda-pathfinder finds none.",
    ),
    Variable(
        name="CUDA_HOME",
        kind="path",
        read_when="for every new provider",
        doc="<value>/include is a CUDA header candidate after CUDA_PATH.",
    ),
    Variable(
        name="CUDA_ROOT",
        kind="path",
        read_when="for every new provider",
        doc="<value>/include is a CUDA header candidate after CUDA_HOME.",
    ),
)

_NAMES = frozenset(v.name for v in VARIABLES)
_KINDS = {v.name: v.kind for v in VARIABLES}


def truthy(value: str | None) -> bool:
    """The switch rule: anything but '', 0, false, no, off (any case, trimmed) is true; unset is false."""
    return value is not None and value.strip().lower() not in _FALSY


def _check(name: str) -> None:
    if name not in _NAMES:
        raise KeyError(f"{name} is not a registered cuda-coop variable; add it to cuda_coop._env.VARIABLES")


def get(name: str) -> str | None:
    """The raw value of a registered variable, or None when unset."""
    _check(name)
    return os.environ.get(name)


def flag(name: str) -> bool:
    """A registered switch, by the truthy rule."""
    _check(name)
    return truthy(os.environ.get(name))


def is_windows(platform: str | None = None) -> bool:
    """Whether ``platform`` (a ``sys.platform`` value; the running one when None) is Windows."""
    return (platform or sys.platform) == "win32"


def path(name: str, *, relative: Literal["error", "unset"] = "error", platform: str | None = None) -> Path | None:
    """A registered path-valued variable, by the one path rule.

    - unset or empty: None (empty means unset);
    - a leading ``~`` is expanded to the user's home directory;
    - an absolute path (by ``platform``'s rules): that path, not resolved further;
    - a relative path: :class:`~cuda.coop.errors.ConfigurationError` naming the variable, or None
      with ``relative="unset"`` (the seed's rule for ``XDG_CACHE_HOME`` and ``LOCALAPPDATA``).

    Parameters
    ----------
    name:
        The variable; must be registered in :data:`VARIABLES` with ``kind="path"``.
    relative:
        What a relative value means: an error, or unset.
    platform:
        A ``sys.platform`` value (a test seam) deciding what "absolute" means.
    """
    _check(name)
    if _KINDS[name] != "path":
        raise KeyError(f"{name} is a {_KINDS[name]}, not a path; read it with flag() or get()")
    value = os.environ.get(name)
    return _rule(name, value, value, relative, platform) if value else None


def paths(name: str, *, platform: str | None = None) -> list[Path]:
    """A registered variable holding directories separated by ``os.pathsep``, each item by :func:`path`'s rule.

    Empty items (``a::b``, a trailing separator) are skipped, as an empty value means unset; a relative
    item is a :class:`~cuda.coop.errors.ConfigurationError` naming the variable and the item.

    Parameters
    ----------
    name:
        The variable; must be registered in :data:`VARIABLES` with ``kind="path"``.
    platform:
        A ``sys.platform`` value (a test seam): the separator (``;`` on Windows, ``:`` elsewhere) and
        what "absolute" means.
    """
    _check(name)
    if _KINDS[name] != "path":
        raise KeyError(f"{name} is a {_KINDS[name]}, not a path; read it with flag() or get()")
    value = os.environ.get(name) or ""
    separator = ";" if is_windows(platform) else ":"
    found = [_rule(name, value, item, "error", platform) for item in value.split(separator) if item]
    return [p for p in found if p is not None]


def _rule(
    name: str, value: str, item: str, relative: Literal["error", "unset"], platform: str | None
) -> Path | None:
    """The path rule for one non-empty ``item`` of ``name``'s ``value``."""
    expanded = item
    if item.startswith("~"):
        with contextlib.suppress(RuntimeError):  # ~name of no known user: left as it is, so relative
            expanded = str(Path(item).expanduser())
    pure = PureWindowsPath(expanded) if is_windows(platform) else PurePosixPath(expanded)
    if pure.is_absolute():
        return Path(expanded)
    if relative == "unset":
        return None
    which = f"{name}={value!r}" if item == value else f"{name}={value!r} holds {item!r}, which"
    raise ConfigurationError(
        f"{which} is a relative path; cuda-coop does not guess what it is relative to. "
        f"Set {name} to an absolute path (a leading ~ is allowed), or unset it"
    )


def __dir__() -> list[str]:
    return sorted(__all__)
