"""Source dumps (seed: ``CUDA_COOP_SOURCE_DUMP_DIR``) and the source file a failed compile points to.

``CUDA_COOP_SOURCE_DUMP_DIR`` is read at every provider compile and cache hit, by the one path rule
(``_env.path``: empty is unset, ``~`` expanded, a relative path refused). When it is set, the rendered
source is written there as ``cuda_coop_<backend>_<hash>.cu`` (``<hash>``: the first 16 hex digits of
the provider key), atomically, so concurrent processes can share the directory.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import warnings
from pathlib import Path

from .. import _env
from ..errors import ConfigurationError

__all__ = ["dump_name", "dump_source", "failure_source"]

_VAR = "CUDA_COOP_SOURCE_DUMP_DIR"
_BACKEND = re.compile(r"[A-Za-z0-9_]+\Z")


def dump_name(backend: str, key: str) -> str:
    """``cuda_coop_<backend>_<hash>.cu``."""
    if not _BACKEND.match(backend):
        raise ValueError(f"backend name {backend!r} must be letters, digits and underscores")
    return f"cuda_coop_{backend}_{key[:16]}.cu"


def _write(directory: Path, name: str, source: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(source)
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
    return path


def dump_directory() -> Path | None:
    """The configured dump directory (None when unset); ConfigurationError for a relative path."""
    return _env.path(_VAR)


def dump_source(source: str, backend: str, key: str) -> Path | None:
    """Write ``source`` to the dump directory if one is configured; its path, else None.

    A dump directory that is relative or cannot be written is reported with a :class:`RuntimeWarning`
    (the user set the variable and can fix it); compilation goes on.
    """
    try:
        directory = dump_directory()
    except ConfigurationError as exc:
        warnings.warn(f"{exc}; no provider source is written", RuntimeWarning, stacklevel=3)
        return None
    if directory is None:
        return None
    try:
        return _write(directory, dump_name(backend, key), source)
    except OSError as exc:
        warnings.warn(
            f"{_VAR}={directory!r}: cannot write the provider source there ({exc}); point it at a writable directory",
            RuntimeWarning,
            stacklevel=3,
        )
        return None


def failure_source(source: str, backend: str, key: str) -> Path | None:
    """Where a failed compile's source is kept for the error: the dump, else a temporary file."""
    dumped = dump_source(source, backend, key)
    if dumped is not None:
        return dumped
    try:
        return _write(Path(tempfile.gettempdir()) / "cuda-coop-failed", dump_name(backend, key), source)
    except OSError:
        return None
