"""Block-wide cooperative primitives (CUB ``cub::Block*``), callable inside numba-cuda-mlir kernels."""

from ._exchange import blocked_to_striped as blocked_to_striped
from ._exchange import blocked_to_warp_striped as blocked_to_warp_striped
from ._exchange import scatter_to_blocked as scatter_to_blocked
from ._exchange import scatter_to_striped as scatter_to_striped
from ._exchange import scatter_to_striped_flagged as scatter_to_striped_flagged
from ._exchange import scatter_to_striped_guarded as scatter_to_striped_guarded
from ._exchange import striped_to_blocked as striped_to_blocked
from ._exchange import warp_striped_to_blocked as warp_striped_to_blocked
from ._primitives import exclusive_scan as exclusive_scan
from ._primitives import exclusive_sum as exclusive_sum
from ._primitives import inclusive_scan as inclusive_scan
from ._primitives import inclusive_sum as inclusive_sum
from ._primitives import load as load
from ._primitives import reduce as reduce
from ._primitives import store as store
from ._primitives import sum as sum

__all__ = [
    "blocked_to_striped",
    "blocked_to_warp_striped",
    "exclusive_scan",
    "exclusive_sum",
    "inclusive_scan",
    "inclusive_sum",
    "load",
    "reduce",
    "scatter_to_blocked",
    "scatter_to_striped",
    "scatter_to_striped_flagged",
    "scatter_to_striped_guarded",
    "store",
    "striped_to_blocked",
    "sum",
    "warp_striped_to_blocked",
]


def __dir__() -> list[str]:
    return sorted(__all__)
