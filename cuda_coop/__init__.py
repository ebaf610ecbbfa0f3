"""cuda-coop: CUB's cooperative block- and warp-level algorithms for Python GPU kernels.

Importing this package needs no compiler, GPU or optional dependency.
"""

from __future__ import annotations

from . import block as block
from . import warp as warp
from ._bundle import HeaderBundle as HeaderBundle
from ._bundle import Provenance as Provenance
from ._bundle import header_bundle as header_bundle
from ._dsl._uniform import uniform as uniform
from ._pack_sources import add_pack as add_pack
from ._registration import BackendStatus as BackendStatus
from ._registration import BackendWarning as BackendWarning
from ._registration import auto_register as _auto_register
from ._registration import backend_status as backend_status
from ._registration import register as register
from ._shape import RowShape as RowShape
from ._shape import row_shape as row_shape
from ._version import __version__ as __version__

__all__ = [
    "BackendStatus",
    "BackendWarning",
    "HeaderBundle",
    "Provenance",
    "RowShape",
    "__version__",
    "add_pack",
    "backend_status",
    "block",
    "header_bundle",
    "register",
    "row_shape",
    "uniform",
    "warp",
]


def __dir__() -> list[str]:
    return sorted(__all__)


_auto_register()
