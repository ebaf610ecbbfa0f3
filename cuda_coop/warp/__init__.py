"""Warp-wide cooperative primitives (CUB ``cub::Warp*``), callable inside numba-cuda-mlir kernels."""

from ._load_store import load as load
from ._load_store import store as store
from ._primitives import exclusive_scan as exclusive_scan
from ._primitives import exclusive_sum as exclusive_sum
from ._primitives import inclusive_scan as inclusive_scan
from ._primitives import inclusive_sum as inclusive_sum
from ._primitives import reduce as reduce
from ._primitives import sum as sum

__all__ = [
    "exclusive_scan",
    "exclusive_sum",
    "inclusive_scan",
    "inclusive_sum",
    "load",
    "reduce",
    "store",
    "sum",
]


def __dir__() -> list[str]:
    return sorted(__all__)
