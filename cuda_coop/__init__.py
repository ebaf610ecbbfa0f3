"""cuda-coop: CUB's cooperative block- and warp-level algorithms for Python GPU kernels.

Importing this package needs no compiler, GPU or optional dependency.
"""

from __future__ import annotations

from ._bundle import HeaderBundle as HeaderBundle
from ._bundle import Provenance as Provenance
from ._bundle import header_bundle as header_bundle
from ._version import __version__ as __version__

__all__ = ["HeaderBundle", "Provenance", "__version__", "header_bundle"]


def __dir__() -> list[str]:
    return sorted(__all__)
