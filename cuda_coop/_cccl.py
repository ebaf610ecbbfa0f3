"""Which CCCL (CUB, Thrust, libcu++) providers compile against, and why.

Order (seed, "Compilation and headers"): ``CUDA_COOP_CCCL_ROOT`` (a CCCL source checkout or a
cuda-coop header bundle; an invalid value is an error and nothing falls back) → the CCCL source
checkout this package runs from → the installed header bundle. The CUDA toolkit's CUB is never
used.

``CUDA_COOP_CCCL_ROOT`` is read on every :func:`resolve_cccl_root` call ("root selection is
checked for each new provider"). Module state: the memoised checkout search and version parse
(pure functions of the package location and of a file's stat); :func:`_reset_for_tests` clears them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from . import _env
from ._bundle import header_bundle, read_provenance
from .errors import ConfigurationError, HeaderBundleError

__all__ = ["ORIGIN_BUNDLE", "ORIGIN_CHECKOUT", "ORIGIN_ENV", "CCCLRoot", "resolve_cccl_root"]

ORIGIN_ENV = "CUDA_COOP_CCCL_ROOT"
ORIGIN_CHECKOUT = "source checkout"
ORIGIN_BUNDLE = "header bundle"

_VAR = "CUDA_COOP_CCCL_ROOT"
_CHECKOUT_MARKER = Path("cub", "cub", "version.cuh")
_BUNDLE_MARKERS = (Path("provenance.json"), Path("lib", "cmake", "cccl", "cccl-config.cmake"))
_BUNDLE_INCLUDE = Path("include", "cub", "version.cuh")
_VERSION_H = Path("cuda", "std", "__cccl", "version.h")
_INSTALL_DIRS = frozenset({"site-packages", "dist-packages"})
_PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class CCCLRoot:
    """A selected CCCL: where it is, why it was chosen, and what to put on the include path."""

    path: Path
    """The checkout or bundle directory."""
    origin: str
    """``"CUDA_COOP_CCCL_ROOT"``, ``"source checkout"`` or ``"header bundle"``."""
    include_roots: tuple[Path, ...]
    """Include directories, in order; they go before every other include path."""
    version: str
    """``"major.minor.patch"``."""
    version_number: int
    """``CCCL_VERSION`` from ``cuda/std/__cccl/version.h`` (``MMMmmmppp``)."""


def _layout(path: Path) -> tuple[str, tuple[Path, ...]] | None:
    """``("checkout" | "bundle", include roots)`` for a CCCL checkout or a cuda-coop bundle, else None.

    A checkout is recognised by CCCL's source layout (``cub/cub/version.cuh``); a bundle by what
    only a cuda-coop bundle has: ``provenance.json`` and CCCL's CMake package in ``lib/cmake/cccl``
    next to ``include/``. A folder that merely has ``include/cub`` (a CUDA toolkit, a CCCL install)
    is neither.
    """
    if (path / _CHECKOUT_MARKER).is_file():
        return "checkout", (path / "cub", path / "thrust", path / "libcudacxx" / "include")
    if all((path / marker).is_file() for marker in _BUNDLE_MARKERS):
        return "bundle", (path / "include",)
    return None


def _missing(include_roots: tuple[Path, ...]) -> list[Path]:
    """Which of CUB, Thrust and libcu++ the include roots lack."""
    wanted = (Path("cub", "version.cuh"), Path("thrust", "version.h"), _VERSION_H)
    return [rel for rel in wanted if not any((root / rel).is_file() for root in include_roots)]


_CCCL_VERSION_RE = re.compile(r"^\s*#\s*define\s+CCCL_VERSION\s+(\d+)\b", re.MULTILINE)


@functools.cache
def _parse_version(path: Path, _stamp: tuple[int, int]) -> int | None:
    match = _CCCL_VERSION_RE.search(path.read_text(encoding="utf-8", errors="replace"))
    return int(match.group(1)) if match else None


def _version_number(include_roots: tuple[Path, ...]) -> tuple[int | None, Path]:
    """``CCCL_VERSION`` and the file it was read from (None if absent or unparsable)."""
    for root in include_roots:
        path = root / _VERSION_H
        try:
            st = path.stat()
        except OSError:
            continue
        return _parse_version(path, (st.st_size, st.st_mtime_ns)), path
    return None, include_roots[-1] / _VERSION_H


def _version_string(number: int) -> str:
    return f"{number // 1_000_000}.{number // 1000 % 1000}.{number % 1000}"


def _inspect(path: Path, origin: str, fail: type[Exception], fix: str) -> CCCLRoot:
    """Validate ``path`` as a checkout or bundle; ``fail`` carries ``fix`` when it is not one."""
    layout = _layout(path)
    if layout is None:
        raise fail(_not_cccl(path, fix))
    kind, roots = layout
    if kind == "bundle":
        try:
            read_provenance(path / "provenance.json")
        except HeaderBundleError as exc:
            raise fail(f"the cuda-coop header bundle {path} is damaged: {exc} {fix}") from None
    if missing := _missing(roots):
        names = ", ".join(str(rel) for rel in missing)
        raise fail(f"the CCCL {kind} {path} is incomplete: no {names} under {', '.join(map(str, roots))}; {fix}")
    number, version_file = _version_number(roots)
    if number is None:
        raise fail(f"cannot read CCCL_VERSION from {version_file}; {fix}")
    return CCCLRoot(
        path=path, origin=origin, include_roots=roots, version=_version_string(number), version_number=number
    )


def _not_cccl(path: Path, fix: str) -> str:
    message = f"{path} is neither a CCCL source checkout nor a cuda-coop header bundle"
    if (path / _BUNDLE_INCLUDE).is_file():
        lacking = [str(m) for m in _BUNDLE_MARKERS if not (path / m).is_file()]
        message += (
            f": it has CCCL headers in include/ but no {' and no '.join(lacking)}, so it is another "
            "installation's copy of CCCL (a CUDA toolkit or a CCCL package), which cuda-coop never compiles against"
        )
    elif (path / "cub" / "version.cuh").is_file():
        message += "; it looks like an include directory"
        if all((path.parent / m).is_file() for m in _BUNDLE_MARKERS):
            message += f" of a cuda-coop header bundle: use the bundle folder {path.parent}"
    return f"{message}; {fix}"


_VALID_ROOT = (
    "a CCCL source checkout (a clone of https://github.com/NVIDIA/cccl, holding cub/cub/version.cuh, "
    "thrust/thrust/version.h and libcudacxx/include/cuda/std/__cccl/version.h) or a cuda-coop header bundle "
    "(the folder holding provenance.json, include/ and lib/cmake/cccl/, such as the cuda/coop/_headers "
    "folder of an installed cuda-coop wheel)"
)


def _from_env() -> CCCLRoot | None:
    path = _env.path(_VAR)
    if path is None:
        return None
    fix = f"set {_VAR} to {_VALID_ROOT}, or unset it to use the source checkout or the installed bundle"
    prefix = f"{_VAR}={str(path)!r}: "
    if not path.exists():
        raise ConfigurationError(f"{prefix}{path} does not exist; {fix}")
    if not path.is_dir():
        raise ConfigurationError(f"{prefix}{path} is a file, not a directory; {fix}")
    try:
        return _inspect(path.resolve(), ORIGIN_ENV, ConfigurationError, fix)
    except ConfigurationError as exc:
        raise ConfigurationError(f"{prefix}{exc}") from None


@functools.cache
def _find_checkout(package_dir: Path) -> Path | None:
    """The CCCL source checkout above ``package_dir``; None for an installed package."""
    for directory in (package_dir, *package_dir.parents):
        if directory.name in _INSTALL_DIRS:
            return None
        if (directory / _CHECKOUT_MARKER).is_file():
            return directory
    return None


def resolve_cccl_root(*, package_dir: Path | None = None) -> CCCLRoot:
    """Select the CCCL that providers compile against.

    Parameters
    ----------
    package_dir:
        Where the package runs from (a test seam); defaults to this package's directory.

    Raises
    ------
    ConfigurationError
        ``CUDA_COOP_CCCL_ROOT`` is set (non-empty) but is not an absolute path (``~`` allowed) to
        a usable checkout or bundle, or the source checkout the package runs from is incomplete.
    HeaderBundleError
        Neither a configured root nor a checkout applies and the installed bundle is missing.
    """
    configured = _from_env()
    if configured is not None:
        return configured
    checkout = _find_checkout((package_dir or _PACKAGE_DIR).resolve())
    if checkout is not None:
        fix = f"complete the checkout, or set {_VAR} to another CCCL checkout or a cuda-coop header bundle"
        return _inspect(checkout, ORIGIN_CHECKOUT, ConfigurationError, fix)
    bundle = header_bundle()
    return _inspect(bundle.root, ORIGIN_BUNDLE, HeaderBundleError, "reinstall cuda-coop")


def _reset_for_tests() -> None:
    _find_checkout.cache_clear()
    _parse_version.cache_clear()


def __dir__() -> list[str]:
    return sorted(__all__)
