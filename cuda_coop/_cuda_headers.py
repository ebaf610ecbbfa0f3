"""Which CUDA include directory providers compile against, and why.

Order (seed and DESIGN.md §6): the active conda environment (``$CONDA_PREFIX/targets/*/include``;
``%CONDA_PREFIX%\\Library\\include`` on Windows) → cuda-pathfinder's
``find_nvidia_header_directory("cudart")`` → ``$CUDA_PATH/include`` → ``$CUDA_HOME/include`` →
``$CUDA_ROOT/include`` → ``/usr/local/cuda/include`` (POSIX only) → :class:`HeaderResolutionError`.
A directory is valid when it holds ``cuda_runtime.h`` and declares a CUDA version
(``CUDA_VERSION`` in ``cuda.h`` or ``CUDART_VERSION`` in ``cuda_runtime_api.h``).

How cuda-pathfinder fits in. Its own lookup also reads ``CUDA_PATH``/``CUDA_HOME`` (memoised for
the process, and reported as "CUDA_PATH" for either), probes the toolkit the dynamic loader finds,
and globs system install directories; and it memoises its answer. Used whole, it would ignore a
changed variable, mislabel ``CUDA_HOME`` and put a loader-registered or ``/usr/local`` toolkit before
``CUDA_ROOT``. So cuda-coop asks it, uncached and on every call, only for what the page's later steps
do not cover: the NVIDIA wheels in site-packages and its conda layouts. The toolkit roots
(``CUDA_PATH``, ``CUDA_HOME``, ``CUDA_ROOT``, ``/usr/local/cuda``) are cuda-coop's own steps, in the
page's order, each labelled by the variable that supplied it. A toolkit that only the dynamic loader
knows about is not a candidate: point ``CUDA_PATH`` at it.

Variables are read on every call (:func:`cuda_coop._env.path`: empty is unset, ``~`` is expanded,
a relative value is a rejected candidate). Module state: the memoised version parse (keyed by the
file's stat); :func:`_reset_for_tests` clears it.
"""

from __future__ import annotations

import functools
import importlib
import platform as _platform
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import _env
from .errors import ConfigurationError, HeaderResolutionError

__all__ = ["ORIGIN_CONDA", "CudaInclude", "conda_include", "resolve_cuda_include"]

ORIGIN_CONDA = "conda environment"
_ROOT_VARIABLES = ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT")
_POSIX_FALLBACK = Path("/usr/local/cuda/include")
_MARKER = "cuda_runtime.h"
_VERSION_SOURCES = (("cuda.h", "CUDA_VERSION"), ("cuda_runtime_api.h", "CUDART_VERSION"))
# conda's targets/<name> for the host machine, preferred when a prefix has several.
_HOST_TARGETS = {"x86_64": "x86_64-linux", "amd64": "x86_64-linux", "aarch64": "sbsa-linux", "arm64": "sbsa-linux"}

HeaderFinder = Callable[[str], tuple[str | None, str]]
"""``libname -> (directory or None, how it was found)``: the cuda-pathfinder seam."""


@dataclass(frozen=True, slots=True)
class CudaInclude:
    """A CUDA include directory, why it was chosen, and the CUDA version its headers declare."""

    path: Path
    origin: str
    """``"conda environment"``, ``"cuda-pathfinder (<how>)"``, a variable name, or ``"/usr/local/cuda"``."""
    cuda_version: tuple[int, int]
    conda_prefix: Path | None = None
    """The conda environment the headers come from (origin ``"conda environment"`` only)."""


@functools.cache
def _parse_define(path: Path, macro: str, _stamp: tuple[int, int]) -> int | None:
    match = re.search(rf"^\s*#\s*define\s+{macro}\s+(\d+)\b", path.read_text("utf-8", "replace"), re.MULTILINE)
    return int(match.group(1)) if match else None


def cuda_version(include: Path) -> tuple[int, int] | None:
    """``(major, minor)`` declared by the headers in ``include``, or None."""
    for name, macro in _VERSION_SOURCES:
        path = include / name
        try:
            st = path.stat()
        except OSError:
            continue
        if (number := _parse_define(path, macro, (st.st_size, st.st_mtime_ns))) is not None:
            return number // 1000, number % 1000 // 10
    return None


def _check(candidate: Path) -> tuple[tuple[int, int] | None, str]:
    """``(version, "")`` for a valid include directory, else ``(None, why not)``."""
    if not candidate.is_dir():
        return None, f"{candidate} is not a directory"
    if not (candidate / _MARKER).is_file():
        return None, f"{candidate} has no {_MARKER}"
    version = cuda_version(candidate)
    if version is None:
        return None, f"{candidate} declares no CUDA_VERSION (cuda.h) or CUDART_VERSION (cuda_runtime_api.h)"
    return version, ""


def conda_include(prefix: Path, *, platform: str | None = None) -> list[Path]:
    """Candidate CUDA include directories of a conda prefix, the host's target first."""
    if _env.is_windows(platform):
        return [prefix / "Library" / "include"]
    targets = sorted(p for p in prefix.glob("targets/*/include") if (p / _MARKER).is_file())
    host = _HOST_TARGETS.get(_platform.machine().lower())
    targets.sort(key=lambda p: p.parent.name != host)
    return targets


_PATHFINDER_STEPS = ("find_in_site_packages", "find_in_conda")
"""cuda-pathfinder's search steps cuda-coop uses: wheels and conda layouts (see the module docstring)."""
_PATHFINDER_OWN = frozenset({"site-packages", "conda"})


def _pathfinder_finder(libname: str) -> tuple[str | None, str]:
    """cuda-pathfinder's wheel and conda search, uncached (see the module docstring)."""
    try:
        pathfinder = importlib.import_module("cuda.pathfinder")
    except ImportError:
        return None, "cuda-pathfinder is not installed (pip install cuda-pathfinder)"
    try:
        try:  # its step functions, run directly: nothing memoised, no CUDA_PATH/loader/system lookups
            steps = importlib.import_module("cuda.pathfinder._headers.find_nvidia_headers")
            found = steps.run_find_steps(
                steps.HEADER_DESCRIPTORS[libname], tuple(getattr(steps, name) for name in _PATHFINDER_STEPS)
            )
        except (ImportError, AttributeError, KeyError):  # another cuda-pathfinder layout: its public lookup
            locate = pathfinder.locate_nvidia_header_directory
            found = getattr(locate, "__wrapped__", locate)(libname)  # uncached where it memoises
            if found is not None and found.found_via not in _PATHFINDER_OWN:
                return None, (
                    f"found {found.abs_path} via {found.found_via}, a toolkit lookup that cuda-coop makes "
                    "itself, in the page's order, below"
                )
    except (RuntimeError, OSError, AttributeError) as exc:  # e.g. an unknown libname, or an old version
        return None, f"failed: {type(exc).__name__}: {exc}"
    if found is None or not found.abs_path:
        return None, "found no NVIDIA wheel or conda CUDA headers"
    return found.abs_path, found.found_via


_Candidate = tuple[str, str, Path | None, Path | None]
"""(label for the error, origin or why-none, directory or None, conda prefix)."""


def _conda_candidates(platform: str | None) -> list[_Candidate]:
    # "Absolute" is the running system's rule; the ``platform`` seam only picks layouts and fallbacks.
    try:
        prefix = _env.path("CONDA_PREFIX")
    except ConfigurationError as exc:
        return [("CONDA_PREFIX", str(exc), None, None)]
    if prefix is None:
        return [("CONDA_PREFIX", "not set", None, None)]
    label = f"CONDA_PREFIX={prefix}"
    found: list[_Candidate] = [(label, ORIGIN_CONDA, p, prefix) for p in conda_include(prefix, platform=platform)]
    return found or [(label, f"no CUDA headers ({_MARKER}) in its conda layout", None, None)]


def _pathfinder_candidates(find: HeaderFinder) -> list[_Candidate]:
    found, how = find("cudart")
    if not found:
        return [("cuda-pathfinder", how, None, None)]
    return [("cuda-pathfinder", f"cuda-pathfinder ({how})", Path(found), None)]


def _root_candidates() -> list[_Candidate]:
    out: list[_Candidate] = []
    for name in _ROOT_VARIABLES:
        try:
            root = _env.path(name)
        except ConfigurationError as exc:  # relative: a rejected candidate, listed if nothing is found
            out.append((name, str(exc), None, None))
            continue
        out.append((f"{name}={root}", name, root / "include", None) if root else (name, "not set", None, None))
    return out


def _candidates(platform: str | None, find: HeaderFinder) -> Iterator[list[_Candidate]]:
    """Candidates in the seed's order, one group at a time (later groups are not even looked up)."""
    yield _conda_candidates(platform)
    yield _pathfinder_candidates(find)
    yield _root_candidates()
    if not _env.is_windows(platform):
        yield [("/usr/local/cuda", "/usr/local/cuda", _POSIX_FALLBACK, None)]


def resolve_cuda_include(*, platform: str | None = None, find_header_dir: HeaderFinder | None = None) -> CudaInclude:
    """Select the CUDA include directory.

    Parameters
    ----------
    platform:
        A ``sys.platform`` value (a test seam); ``"win32"`` skips the ``/usr/local/cuda`` fallback.
    find_header_dir:
        Replaces cuda-pathfinder (a test seam); see :data:`HeaderFinder`.

    Raises
    ------
    HeaderResolutionError
        No candidate is valid; the error lists every candidate tried and why it was rejected.
    """
    tried: list[tuple[str, str]] = []
    for candidates in _candidates(platform, find_header_dir or _pathfinder_finder):
        for label, origin, path, prefix in candidates:
            if path is None:
                tried.append((label, origin))  # origin says why there is no candidate
                continue
            version, why = _check(path)
            if version is not None:
                return CudaInclude(path=path, origin=origin, cuda_version=version, conda_prefix=prefix)
            tried.append((label, why))
    raise HeaderResolutionError(
        "no CUDA include directory (one holding cuda_runtime.h) was found. Install the CUDA headers "
        "(pip install 'cuda-coop[numba-cuda-mlir-cu13]', which brings nvidia-cuda-runtime; or conda install "
        "cuda-cudart-dev), or set CUDA_PATH to a CUDA toolkit root. Tried, in order:",
        tried,
    )


def _reset_for_tests() -> None:
    _parse_define.cache_clear()


def __dir__() -> list[str]:
    return sorted(__all__)
