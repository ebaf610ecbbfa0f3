"""Where cuda-coop's own C++ headers are: its compositions of CUB classes (``cuda_coop/*.cuh``).

cuda-coop's compositions (``cuda_coop::BlockTopK``, ``BlockArgsort``, ``BlockArgReduce``, ``BlockRadixRankBits`` and
the warp ones) are C++ headers, ``include/cuda_coop/*.cuh`` in the repository, included by the rendered provider
source (a spec's ``header``) and by C++ projects. They ship twice in a wheel, from that one source folder:

- ``cuda/coop/_include/cuda_coop/``: part of the Python package (``wheel.force-include`` in ``pyproject.toml``),
  whatever the header bundle. Providers compile with its folder ``cuda/coop/_include`` as the *first* include
  root. That folder holds nothing but ``cuda_coop/``, so it can come before the selected CCCL without hiding any
  of CCCL's headers, and the compositions that compile are always the ones of this package, whichever CCCL root
  is selected: the installed bundle, a CCCL source checkout, or another bundle (one that may carry another
  cuda-coop version's ``cuda_coop/`` headers) through ``CUDA_COOP_CCCL_ROOT``.
- ``cuda/coop/_headers/include/cuda_coop/``: inside the header bundle (``CMakeLists.txt``), so that a C++ project
  that uses the bundle's CMake package (``find_package(CCCL)``, ``CCCL::CCCL``) can ``#include
  <cuda_coop/block_top_k.cuh>``. A packaging test checks that the two copies are the same files.

Order: the package's ``_include`` folder; else, for a package that runs from its source folder (an editable
install, or ``cuda_coop/`` on the path), the ``include/`` folder beside it. The root joins the ordered include
roots of the header identity (``_identity``), so an edit of a ``cuda_coop`` header changes every cache key, the
precompiled header's and a pack's included.

Module state: none (the lookup is a few ``stat`` calls, done for each new provider like the CCCL root's).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import HeaderBundleError

__all__ = ["ORIGIN_PACKAGE", "ORIGIN_SOURCE", "OwnHeaders", "own_headers"]

ORIGIN_PACKAGE = "package"
ORIGIN_SOURCE = "source folder"

_PACKAGE_DIR = Path(__file__).resolve().parent
_MARKER = Path("cuda_coop", "block_top_k.cuh")


@dataclass(frozen=True, slots=True)
class OwnHeaders:
    """cuda-coop's own headers: the include root holding ``cuda_coop/`` and where it was found."""

    root: Path
    """The include root: a folder whose only entry is ``cuda_coop/`` (``#include <cuda_coop/block_top_k.cuh>``)."""
    origin: str
    """``"package"`` (``cuda/coop/_include``) or ``"source folder"`` (``include/`` beside ``cuda_coop/``)."""


def own_headers(*, package_dir: Path | None = None) -> OwnHeaders:
    """Locate cuda-coop's own headers.

    Parameters
    ----------
    package_dir:
        Where the package runs from (a test seam); defaults to this package's directory.

    Raises
    ------
    HeaderBundleError
        Neither place has them: the installation is damaged.
    """
    package = (package_dir or _PACKAGE_DIR).resolve()
    installed, source = package / "_include", package.parent / "include"
    if (installed / _MARKER).is_file():
        return OwnHeaders(installed, ORIGIN_PACKAGE)
    if (source / _MARKER).is_file():
        return OwnHeaders(source, ORIGIN_SOURCE)
    raise HeaderBundleError(
        f"cuda-coop's own headers are missing: neither {installed / _MARKER} (an installed package) nor "
        f"{source / _MARKER} (a source checkout) exists; reinstall cuda-coop "
        "(python -m pip install --force-reinstall cuda-coop)"
    )


def __dir__() -> list[str]:
    return sorted(__all__)
