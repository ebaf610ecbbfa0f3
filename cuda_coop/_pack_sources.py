"""Where precompiled packs come from, in the order they are consulted.

1. :func:`add_pack`, in the order of the calls;
2. ``CUDA_COOP_PACK_PATH``, left to right (read at every lookup);
3. the entry-point group ``cuda_coop.packs`` of the installed distributions (read once per process),
   sorted by entry-point name, then distribution name.

The first pack that holds a sound entry for a key answers; a path named twice counts at its first
place. Reading the packs themselves is ``_provider._packs``' job; this module imports nothing heavy,
so that ``import cuda.coop`` stays cheap.

Module state: ``_ADDED`` (under ``_LOCK``) and the memoised entry-point list; :func:`_reset_for_tests`
clears both.
"""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path
from typing import Any

from . import _env
from .errors import PackError

__all__ = ["ENTRY_POINT_GROUP", "add_pack", "sources"]

ENTRY_POINT_GROUP = "cuda_coop.packs"
_VAR = "CUDA_COOP_PACK_PATH"
_ADDED: list[Path] = []
_LOCK = threading.Lock()


def add_pack(path: str | os.PathLike[str]) -> None:
    """Consult the precompiled pack at ``path`` before compiling, ahead of every other pack.

    A pack is what ``python -m cuda.coop precompile`` (or :func:`cuda.coop.numba_mlir.precompile`)
    writes: compiled providers and linked kernels. A kernel whose entries the pack holds compiles with
    no NVRTC or nvJitLink call; an entry compiled with other headers, toolkit, options, arch or
    cuda-coop version is never used (see :ref:`packs`). Packs added here come before those of
    ``CUDA_COOP_PACK_PATH`` and of installed distributions, in the order of the calls; adding a pack
    twice keeps its first place.

    Parameters
    ----------
    path:
        The pack's directory (holding ``manifest.json``); a relative path is taken from the current
        directory.

    Raises
    ------
    PackError
        ``path`` is not a pack directory, or its manifest cannot be read.
    TypeError
        ``path`` is not a ``str`` or ``os.PathLike``.
    """
    if not isinstance(path, str | os.PathLike) or isinstance(path, bytes):
        raise TypeError(f"add_pack(path={path!r}): give the pack's directory as a str or os.PathLike")
    directory = Path(path).absolute()
    from ._provider._pack import Pack

    pack = Pack(directory, "cuda.coop.add_pack")  # reads the manifest: a path that is not a pack fails here
    if pack.problem is not None:
        raise PackError(f"add_pack(path={str(path)!r}): the pack cannot be used: {pack.problem}")
    with _LOCK:
        if directory not in _ADDED:
            _ADDED.append(directory)


def sources() -> list[tuple[Path, str]]:
    """Every configured pack directory with where it was configured, in lookup order, each path once.

    Raises
    ------
    ConfigurationError
        An item of ``CUDA_COOP_PACK_PATH`` is a relative path.
    PackError
        An entry point of ``cuda_coop.packs`` cannot be loaded or names no directory.
    """
    with _LOCK:
        found = [(p, "cuda.coop.add_pack") for p in _ADDED]
    found += [(p, _VAR) for p in _env.paths(_VAR)]
    found += _entry_point_packs()
    seen: set[Path] = set()
    ordered = []
    for path, origin in found:
        if path not in seen:
            seen.add(path)
            ordered.append((path, origin))
    return ordered


@functools.cache
def _entry_point_packs() -> list[tuple[Path, str]]:
    """``(directory, "entry point NAME of DIST")`` of every ``cuda_coop.packs`` entry point, sorted."""
    from importlib.metadata import entry_points

    points = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: (ep.name, _dist(ep), ep.value))
    return [(_entry_point_directory(ep), f"entry point {ep.name!r} of {_dist(ep)}") for ep in points]


def _dist(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return str(getattr(dist, "name", None) or "an unknown distribution")


def _entry_point_directory(ep: Any) -> Path:
    """The pack directory an entry point names: a package (its directory) or a ``str`` / ``os.PathLike``."""
    where = f"the entry point {ep.name} = {ep.value!r} of {_dist(ep)} (group {ENTRY_POINT_GROUP})"
    fix = f"reinstall {_dist(ep)} or report it to its authors; uninstalling it removes the pack"
    try:
        target = ep.load()
    except Exception as exc:
        raise PackError(f"{where} cannot be loaded ({type(exc).__name__}: {exc}); {fix}") from None
    if isinstance(target, str | os.PathLike) and not isinstance(target, bytes):
        directory = Path(target)
    elif getattr(target, "__path__", None):  # a package: the pack is its directory
        directory = Path(next(iter(target.__path__)))
    else:
        raise PackError(f"{where} is a {type(target).__name__}, not a package or a path; {fix}")
    if not directory.is_absolute():
        raise PackError(f"{where} gives the relative path {str(directory)!r}; {fix}")
    return directory


def _reset_for_tests() -> None:
    with _LOCK:
        _ADDED.clear()
    _entry_point_packs.cache_clear()


def __dir__() -> list[str]:
    return sorted(__all__)
