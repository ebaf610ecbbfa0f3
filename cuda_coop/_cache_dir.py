"""Where the persistent provider cache lives (seed: ``XDG_CACHE_HOME`` and ``LOCALAPPDATA``).

POSIX: ``$XDG_CACHE_HOME/cccl``, or ``~/.cache/cccl`` when the variable is unset, empty or
relative. Windows: ``%LOCALAPPDATA%\\cccl``, or ``~\\AppData\\Local\\cccl`` under the same rule.
Both are read with :func:`cuda_coop._env.path` (``relative="unset"``: the seed's fallback; a
leading ``~`` is expanded). The provider cache module calls :func:`cache_dir` when it is
imported; so does the CLI.
"""

from __future__ import annotations

from pathlib import Path

from . import _env

__all__ = ["cache_dir"]

_SUBDIR = "cccl"


def cache_dir(platform: str | None = None) -> Path:
    """The persistent cache base directory for this platform (not created here).

    Parameters
    ----------
    platform:
        A ``sys.platform`` value; defaults to the running one. ``"win32"`` applies the
        Windows rule (``LOCALAPPDATA``), anything else the POSIX rule (``XDG_CACHE_HOME``).

    Returns
    -------
    Path
        ``<base>/cccl``, where ``<base>`` is the variable's value when it is an absolute path
        and the platform's default otherwise. The provider cache keeps its entries in a
        subfolder of it.
    """
    if _env.is_windows(platform):
        base = _env.path("LOCALAPPDATA", relative="unset", platform=platform)
        return (base or Path.home() / "AppData" / "Local") / _SUBDIR
    base = _env.path("XDG_CACHE_HOME", relative="unset", platform=platform)
    return (base or Path.home() / ".cache") / _SUBDIR


def __dir__() -> list[str]:
    return sorted(__all__)
