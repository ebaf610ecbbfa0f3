"""Where the installed CCCL header bundle is, and what its provenance file says.

The bundle is installed by CMake (see ``CMakeLists.txt``) as the ``cuda.coop._headers``
package; it is located through ``importlib.resources`` so that editable installs work. Besides CCCL it carries
cuda-coop's own headers (``include/cuda_coop``) for C++ projects; providers compile those from the package's own
copy (:mod:`cuda_coop._own_headers`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

from .errors import HeaderBundleError

_BUNDLE_PACKAGE = "cuda.coop._headers"
_PROVENANCE_KEYS = ("cccl_version", "source_kind", "source_revision", "revision_note")
_REINSTALL = "reinstall cuda-coop (python -m pip install --force-reinstall cuda-coop)"


@dataclass(frozen=True, kw_only=True, slots=True)
class Provenance:
    """Where the bundled CCCL came from, as recorded when the package was built."""

    cccl_version: str
    """CCCL version, e.g. ``"3.6.0"``, read from the bundled ``cuda/std/__cccl/version.h``."""
    source_kind: str
    """``"git"`` for a CCCL checkout, ``"package"`` for an installed CCCL."""
    source_revision: str
    """A Git commit, the ``CUDA_COOP_CCCL_SOURCE_REVISION`` token, or ``"unknown"``."""
    revision_note: str
    """How the revision was decided."""


@dataclass(frozen=True, kw_only=True, slots=True)
class HeaderBundle:
    """The installed CCCL header bundle."""

    root: Path
    """The bundle's folder; also a CMake prefix (``CMAKE_PREFIX_PATH``)."""
    include_dir: Path
    """Holds ``cub/``, ``thrust/``, ``cuda/`` and ``nv/``, and cuda-coop's own compositions of CUB classes,
    ``cuda_coop/*.cuh`` (``#include <cuda_coop/block_top_k.cuh>``; see docs/cpp.rst)."""
    cmake_dir: Path
    """Holds ``cccl-config.cmake``; give it to CMake as ``CCCL_DIR``."""
    provenance: Provenance


def _bundle_root() -> Path:
    try:
        traversable = files(_BUNDLE_PACKAGE)
    except ModuleNotFoundError:
        raise HeaderBundleError(
            "cuda-coop was installed without its CCCL header bundle (built with "
            f"CUDA_COOP_INSTALL_HEADER_BUNDLE=OFF?): {_BUNDLE_PACKAGE} is missing; {_REINSTALL}, "
            "or set CUDA_COOP_CCCL_ROOT to a CCCL checkout."
        ) from None
    with as_file(traversable) as path:  # a real directory for every supported install
        return Path(path)


def read_provenance(path: Path) -> Provenance:
    """Read and validate a bundle's ``provenance.json``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HeaderBundleError(f"the header bundle has no provenance file {path}; {_REINSTALL}.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HeaderBundleError(f"cannot read {path}: {exc}; {_REINSTALL}.") from None
    if not isinstance(data, dict) or any(not isinstance(data.get(k), str) for k in _PROVENANCE_KEYS):
        raise HeaderBundleError(
            f"{path} lacks one of the string fields {', '.join(_PROVENANCE_KEYS)}; {_REINSTALL}."
        )
    return Provenance(**{k: data[k] for k in _PROVENANCE_KEYS})


@functools.cache
def header_bundle() -> HeaderBundle:
    """Locate the installed CCCL header bundle.

    Raises
    ------
    HeaderBundleError
        If the bundle is not installed or its provenance file is missing or damaged.
    """
    root = _bundle_root()
    include_dir = root / "include"
    if not (include_dir / "cub" / "version.cuh").is_file():
        raise HeaderBundleError(f"the header bundle at {root} has no include/cub/version.cuh; {_REINSTALL}.")
    return HeaderBundle(
        root=root,
        include_dir=include_dir,
        cmake_dir=root / "lib" / "cmake" / "cccl",
        provenance=read_provenance(root / "provenance.json"),
    )


def _reset_for_tests() -> None:
    header_bundle.cache_clear()
