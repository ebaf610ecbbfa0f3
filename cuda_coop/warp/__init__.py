"""Warp-wide cooperative primitives (CUB ``cub::Warp*``), callable inside numba-cuda-mlir kernels."""

from ._arg_reduce import argmax as argmax
from ._arg_reduce import argmin as argmin
from ._argsort import argsort as argsort
from ._argsort import top_k as top_k
from ._exchange import blocked_to_striped as blocked_to_striped
from ._exchange import scatter_to_striped as scatter_to_striped
from ._exchange import striped_to_blocked as striped_to_blocked
from ._load_store import load as load
from ._load_store import store as store
from ._merge_sort import merge_sort as merge_sort
from ._primitives import exclusive_scan as exclusive_scan
from ._primitives import exclusive_sum as exclusive_sum
from ._primitives import inclusive_scan as inclusive_scan
from ._primitives import inclusive_sum as inclusive_sum
from ._primitives import reduce as reduce
from ._primitives import sum as sum
from ._reduce_batched import reduce_batched as reduce_batched
from ._reduce_batched import sum_batched as sum_batched

__all__ = [
    "argmax",
    "argmin",
    "argsort",
    "blocked_to_striped",
    "exclusive_scan",
    "exclusive_sum",
    "inclusive_scan",
    "inclusive_sum",
    "load",
    "merge_sort",
    "reduce",
    "reduce_batched",
    "scatter_to_striped",
    "store",
    "striped_to_blocked",
    "sum",
    "sum_batched",
    "top_k",
]


def __dir__() -> list[str]:
    return sorted(__all__)
