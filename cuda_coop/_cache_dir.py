"""Where the persistent provider cache lives (seed: ``XDG_CACHE_HOME`` and ``LOCALAPPDATA``).

POSIX: ``$XDG_CACHE_HOME/cccl``, or ``~/.cache/cccl`` when the variable is unset, empty or
relative. Windows: ``%LOCALAPPDATA%\\cccl``, or ``~\\AppData\\Local\\cccl`` under the same rule.
The provider cache module calls :func:`cache_dir` when it is imported; so does the CLI.
"""

from __future__ import annotations

import sys
from pathlib import Path, PurePosixPath, PureWindowsPath

from . import _env

__all__ = ["cache_dir"]

_SUBDIR = "cccl"


def _is_windows(platform: str | None) -> bool:
    return (platform or sys.platform) == "win32"


def cache_dir(platform: str | None = None) -> Path:
    """The persistent cache directory for this platform (not created here).

    Parameters
    ----------
    platform:
        A ``sys.platform`` value; defaults to the running one. ``"win32"`` applies the
        Windows rule (``LOCALAPPDATA``), anything else the POSIX rule (``XDG_CACHE_HOME``).

    Returns
    -------
    Path
        ``<base>/cccl``, where ``<base>`` is the variable's value when it is an absolute path
        and the platform's default otherwise.
    """
    if _is_windows(platform):
        value = _env.get("LOCALAPPDATA")
        if value and PureWindowsPath(value).is_absolute():
            return Path(value) / _SUBDIR
        return Path.home() / "AppData" / "Local" / _SUBDIR
    value = _env.get("XDG_CACHE_HOME")
    if value and PurePosixPath(value).is_absolute():
        return Path(value) / _SUBDIR
    return Path.home() / ".cache" / _SUBDIR


def __dir__() -> list[str]:
    return sorted(__all__)
