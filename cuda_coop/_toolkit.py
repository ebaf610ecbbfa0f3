"""Which NVRTC, nvrtc-builtins and nvJitLink providers use, their versions, and whether they fit.

Selection. In a conda environment that holds the CUDA headers (see :mod:`._cuda_headers`),
NVRTC and nvJitLink are taken from ``$CONDA_PREFIX/lib`` (``targets/*/lib``; ``Library\\bin`` on
Windows) and loaded before anything else can bind another copy; elsewhere cuda-pathfinder's
``load_nvidia_dynamic_lib`` decides, as it does for cuda.bindings. Either way the path recorded is
the one cuda-pathfinder (hence cuda.bindings, cuda.core and numba-cuda-mlir) binds in this
process. nvrtc-builtins is the file NVRTC loads itself: ``libnvrtc-builtins.so.<major>.<minor>``
(``nvrtc-builtins64_<major><minor>.dll``) beside NVRTC.

Versions: ``nvrtcVersion`` and ``nvJitLinkVersion`` through cuda.bindings; nvrtc-builtins from its
file name. Compatibility is decided by versions, from what each piece needs:

- nvrtc-builtins is exactly NVRTC's version (NVRTC loads the builtins of its own version only);
- nvJitLink has NVRTC's major and is not older than NVRTC (it links the LTO-IR NVRTC emits, and an
  older linker cannot read a newer compiler's LTO-IR; LTO-IR does not cross majors);
- the CUDA headers have NVRTC's major and are not newer than NVRTC (NVRTC compiles them: headers of a
  newer minor may use what this NVRTC does not know).

Where the pieces live is not part of the rule: it is reported (each :class:`Library` has its path and
origin, and :attr:`Toolkit.notes` says when a library is not the conda environment's copy), never an
error by itself, inside a conda environment too. A mix that breaks the rule is
:class:`ToolkitMismatchError` naming each path and version.

Module state: the libraries preloaded from a conda environment (a process cannot unload them);
:func:`_reset_for_tests` forgets the memo, not the loaded libraries.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import hashlib
import importlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from . import _env
from ._cuda_headers import ORIGIN_CONDA, CudaInclude, resolve_cuda_include
from .errors import ToolkitMismatchError, ToolkitNotFoundError

__all__ = ["Library", "LibraryBackend", "Toolkit", "resolve_toolkit"]

_NVRTC, _NVJITLINK = "nvrtc", "nvJitLink"
_LABELS = {_NVRTC: "NVRTC", _NVJITLINK: "nvJitLink"}
# (POSIX, Windows) file-name patterns; the group is the CUDA major.
_PATTERNS = {
    _NVRTC: (r"libnvrtc\.so\.(\d+)", r"nvrtc64_(\d+)0_0\.dll"),
    _NVJITLINK: (r"libnvJitLink\.so\.(\d+)", r"nvJitLink_(\d+)0_0\.dll"),
}
_BUILTINS_RE = (re.compile(r"libnvrtc-builtins\.so\.(\d+)\.(\d+)"), re.compile(r"nvrtc-builtins64_(\d+)(\d)\.dll"))


@dataclass(frozen=True, slots=True)
class Library:
    """One toolkit library as this process uses it."""

    path: Path
    version: tuple[int, int]
    origin: str = ""
    """How it was found: ``"conda environment"``, ``"cuda-pathfinder (<how>)"``, ``"beside NVRTC"``."""
    size: int = 0
    mtime_ns: int = 0


@dataclass(frozen=True, slots=True)
class Toolkit:
    """NVRTC, nvrtc-builtins, nvJitLink and the CUDA headers, checked to be one compatible toolkit."""

    nvrtc: Library
    nvrtc_builtins: Library
    nvjitlink: Library
    cuda_include: CudaInclude
    notes: tuple[str, ...] = ()
    """Where pieces come from, where that is worth saying (e.g. outside the active conda environment)."""

    @property
    def identity(self) -> str:
        """A stable hash of the libraries' paths, versions, sizes and mtimes and the CUDA headers' dir."""
        h = hashlib.sha256(b"cuda-coop toolkit v1\0")
        for lib in (self.nvrtc, self.nvrtc_builtins, self.nvjitlink):
            h.update(f"{lib.path}\0{lib.version}\0{lib.size}\0{lib.mtime_ns}\n".encode())
        h.update(f"{self.cuda_include.path}\0{self.cuda_include.cuda_version}\n".encode())
        return h.hexdigest()

    @property
    def versions(self) -> dict[str, str]:
        """``"major.minor"`` of NVRTC, nvrtc-builtins, nvJitLink and the CUDA headers, by those names."""
        found = {"nvrtc": self.nvrtc.version, "nvrtc-builtins": self.nvrtc_builtins.version,
                 "nvJitLink": self.nvjitlink.version, "CUDA headers": self.cuda_include.cuda_version}
        return {name: ".".join(map(str, version)) for name, version in found.items()}

    @property
    def portable_identity(self) -> str:
        """A hash of :attr:`versions` alone: the same toolkit release installed elsewhere has the same one.

        What precompiled packs are keyed by (with the headers' contents, which cover the CUDA headers):
        NVRTC's output is a function of its version, and nvJitLink's of its own.
        """
        h = hashlib.sha256(b"cuda-coop portable toolkit v1\0")
        h.update(repr(sorted(self.versions.items())).encode())
        return h.hexdigest()


class LibraryBackend(Protocol):
    """How libraries are bound and asked for their versions (cuda-pathfinder + cuda.bindings)."""

    def bind(self, libname: str, preload: Path | None) -> tuple[Path, str]:
        """Load ``preload`` first if given; return the path this process uses and how it was found."""
        ...

    def version(self, libname: str) -> tuple[int, int]:
        """The bound library's own version."""
        ...


_INSTALL_HINT = "pip install 'cuda-coop[numba-cuda-mlir-cu13]' (or -cu12)"


@functools.cache
def _preload(path: Path) -> None:
    mode = 0 if sys.platform == "win32" else os.RTLD_NOW | os.RTLD_GLOBAL
    try:
        ctypes.CDLL(str(path), mode=mode)
    except OSError as exc:
        raise ToolkitNotFoundError(f"cannot load {path}: {exc}; reinstall it in its conda environment") from None


class _ProcessBackend:
    """The real thing: cuda-pathfinder binds, cuda.bindings reports versions."""

    def bind(self, libname: str, preload: Path | None) -> tuple[Path, str]:
        try:
            pathfinder = importlib.import_module("cuda.pathfinder")
        except ImportError:
            raise ToolkitNotFoundError(
                f"cuda-pathfinder is not installed, so {_LABELS[libname]} cannot be located; {_INSTALL_HINT}"
            ) from None
        if preload is not None:
            _preload(preload)
        try:
            loaded = pathfinder.load_nvidia_dynamic_lib(libname)
        except pathfinder.DynamicLibNotFoundError as exc:
            raise ToolkitNotFoundError(
                f"{_LABELS[libname]} was not found: {exc}\nfix: {_INSTALL_HINT}, or conda install "
                f"cuda-nvrtc cuda-nvjitlink in the active environment, or set CUDA_PATH to a CUDA toolkit"
            ) from None
        return Path(loaded.abs_path), loaded.found_via

    def version(self, libname: str) -> tuple[int, int]:
        try:
            if libname == _NVRTC:
                from cuda.bindings import nvrtc

                err, major, minor = nvrtc.nvrtcVersion()
                if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
                    raise ToolkitNotFoundError(f"nvrtcVersion failed: {err}")
                return int(major), int(minor)
            from cuda.bindings import nvjitlink

            major, minor = nvjitlink.version()
            return int(major), int(minor)
        except ImportError:
            raise ToolkitNotFoundError(
                f"cuda-bindings is not installed, so the {_LABELS[libname]} version cannot be read; {_INSTALL_HINT}"
            ) from None


def _conda_lib_dirs(prefix: Path, windows: bool) -> list[Path]:
    if windows:
        return [prefix / "Library" / "bin"]
    return [prefix / "lib", *sorted(prefix.glob("targets/*/lib"))]


def _conda_library(prefix: Path, libname: str, major: int, windows: bool) -> Path | None:
    """The conda environment's copy of ``libname``: the headers' major if present, else the newest."""
    pattern = re.compile(_PATTERNS[libname][windows] + r"$")
    found: list[tuple[int, Path]] = []
    for directory in _conda_lib_dirs(prefix, windows):
        if directory.is_dir():
            found += [(int(m.group(1)), p) for p in directory.iterdir() if (m := pattern.match(p.name))]
    if not found:
        return None
    return next((p for v, p in found if v == major), max(found, key=lambda item: item[0])[1])


def _library(path: Path, version: tuple[int, int], origin: str) -> Library:
    st = path.stat()
    return Library(path=path, version=version, origin=origin, size=st.st_size, mtime_ns=st.st_mtime_ns)


def _builtins(nvrtc: Library, windows: bool) -> Library:
    """The nvrtc-builtins NVRTC loads: the file named for its version, beside it."""
    major, minor = nvrtc.version
    name = f"nvrtc-builtins64_{major}{minor}.dll" if windows else f"libnvrtc-builtins.so.{major}.{minor}"
    dirs = list(dict.fromkeys((nvrtc.path.parent, nvrtc.path.resolve().parent)))
    for directory in dirs:
        if (directory / name).is_file():
            return _library(directory / name, nvrtc.version, "beside NVRTC")
    regex = _BUILTINS_RE[windows]
    for directory in dirs:  # another version beside it: report the mismatch with both versions
        for path in sorted(directory.iterdir()):
            if m := regex.fullmatch(path.name):
                return _library(path, (int(m.group(1)), int(m.group(2))), "beside NVRTC")
    raise ToolkitNotFoundError(
        f"NVRTC {major}.{minor} ({nvrtc.path}) needs {name}, which is not in {' or '.join(map(str, dirs))}; "
        f"reinstall NVRTC ({_INSTALL_HINT}, or conda install cuda-nvrtc)"
    )


def _under(path: Path, prefix: Path) -> bool:
    return path.resolve().is_relative_to(prefix.resolve())


def _fmt(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def _problems(tk: Toolkit) -> list[str]:
    """What breaks the compatibility rule (see the module docstring); empty when nothing does."""
    nvrtc, builtins, link, inc = tk.nvrtc, tk.nvrtc_builtins, tk.nvjitlink, tk.cuda_include
    problems = []
    if inc.cuda_version[0] != nvrtc.version[0]:
        problems.append(f"NVRTC {_fmt(nvrtc.version)} and the CUDA {_fmt(inc.cuda_version)} headers differ in major")
    elif inc.cuda_version > nvrtc.version:
        problems.append(
            f"the CUDA {_fmt(inc.cuda_version)} headers are newer than NVRTC {_fmt(nvrtc.version)}, which compiles them"
        )
    if builtins.version != nvrtc.version:
        problems.append(f"nvrtc-builtins {_fmt(builtins.version)} is not NVRTC {_fmt(nvrtc.version)}'s")
    if link.version[0] != nvrtc.version[0]:
        problems.append(f"nvJitLink {_fmt(link.version)} and NVRTC {_fmt(nvrtc.version)} differ in major")
    elif link.version < nvrtc.version:
        problems.append(
            f"nvJitLink {_fmt(link.version)} is older than NVRTC {_fmt(nvrtc.version)} and cannot link its LTO-IR"
        )
    return problems


def _notes(tk: Toolkit, conda: Path | None, strays: list[str]) -> tuple[str, ...]:
    """Where the libraries come from, relative to an active conda environment (information only)."""
    notes = list(strays)
    if conda is not None:
        for label, lib in (("NVRTC", tk.nvrtc), ("nvrtc-builtins", tk.nvrtc_builtins), ("nvJitLink", tk.nvjitlink)):
            if not _under(lib.path, conda):
                notes.append(f"{label} {lib.path} is not from the conda environment {conda}")
    return tuple(notes)


def _mismatch(tk: Toolkit, conda: Path | None, problems: list[str]) -> ToolkitMismatchError:
    """The error for a rule broken: every piece with its version and place, the problems, the fix."""
    inc = tk.cuda_include
    rows = [
        ("CUDA headers", inc.cuda_version, f"{inc.path} ({inc.origin})"),
        ("NVRTC", tk.nvrtc.version, f"{tk.nvrtc.path} ({tk.nvrtc.origin})"),
        ("nvrtc-builtins", tk.nvrtc_builtins.version, f"{tk.nvrtc_builtins.path} ({tk.nvrtc_builtins.origin})"),
        ("nvJitLink", tk.nvjitlink.version, f"{tk.nvjitlink.path} ({tk.nvjitlink.origin})"),
    ]
    major = tk.nvrtc.version[0]
    if conda is not None:
        fix = (
            f"install one CUDA major's pieces into the conda environment {conda}: conda install "
            f"cuda-nvrtc cuda-nvjitlink cuda-cudart-dev 'cuda-version={major}', then start a new Python process"
        )
    else:
        fix = (
            f"install NVRTC, nvJitLink and the CUDA headers of one release (pip install "
            f"'cuda-coop[numba-cuda-mlir-cu{major}]'), or set CUDA_PATH to a toolkit whose headers are not newer "
            "than NVRTC"
        )
    lines = [
        "the CUDA headers and toolkit libraries do not form one compatible toolkit:",
        *(f"  {label:<15} {_fmt(version):<6} {where}" for label, version, where in rows),
        "problems:",
        *(f"  - {p}" for p in problems),
        *(["where the pieces come from (not an error by itself):"] if tk.notes else []),
        *(f"  - {n}" for n in tk.notes),
        "the rule: nvrtc-builtins is NVRTC's exact version; nvJitLink has NVRTC's major and is not older; "
        "the CUDA headers have NVRTC's major and are not newer",
        f"fix: {fix}",
    ]
    return ToolkitMismatchError("\n".join(lines))


def resolve_toolkit(
    *,
    platform: str | None = None,
    backend: LibraryBackend | None = None,
    cuda_include: CudaInclude | None = None,
) -> Toolkit:
    """Resolve and check the toolkit providers compile and link with.

    Parameters
    ----------
    platform:
        A ``sys.platform`` value (a test seam).
    backend:
        Replaces cuda-pathfinder + cuda.bindings (a test seam).
    cuda_include:
        An already resolved CUDA include directory; resolved here when None.

    Raises
    ------
    HeaderResolutionError
        No CUDA include directory was found.
    ToolkitNotFoundError
        NVRTC, nvrtc-builtins or nvJitLink cannot be located or loaded.
    ToolkitMismatchError
        They and the CUDA headers do not form one compatible toolkit.
    """
    windows = _env.is_windows(platform)
    backend = backend or _ProcessBackend()
    include = cuda_include or resolve_cuda_include(platform=platform)
    conda = include.conda_prefix if include.origin == ORIGIN_CONDA else None
    strays: list[str] = []
    libs: dict[str, Library] = {}
    for libname in (_NVRTC, _NVJITLINK):
        wanted = _conda_library(conda, libname, include.cuda_version[0], windows) if conda else None
        path, how = backend.bind(libname, wanted)
        origin = f"cuda-pathfinder ({how})"
        if wanted is not None:
            if Path(path).samefile(wanted):
                path, origin = wanted, ORIGIN_CONDA
            else:
                strays.append(
                    f"{_LABELS[libname]} in use is {path}, not the conda environment's {wanted}: another copy "
                    "was loaded into this process before cuda.coop resolved the toolkit"
                )
        libs[libname] = _library(path, backend.version(libname), origin)
    nvrtc = libs[_NVRTC]
    tk = Toolkit(
        nvrtc=nvrtc, nvrtc_builtins=_builtins(nvrtc, windows), nvjitlink=libs[_NVJITLINK], cuda_include=include
    )
    tk = dataclasses.replace(tk, notes=_notes(tk, conda, strays))
    if problems := _problems(tk):
        raise _mismatch(tk, conda, problems)
    return tk


def _reset_for_tests() -> None:
    _preload.cache_clear()


def __dir__() -> list[str]:
    return sorted(__all__)
