"""Block-wide cooperative primitives (CUB ``cub::Block*``), callable inside numba-cuda-mlir kernels."""

from ._adjacent_difference import subtract_left as subtract_left
from ._adjacent_difference import subtract_left_partial_tile as subtract_left_partial_tile
from ._adjacent_difference import subtract_right as subtract_right
from ._adjacent_difference import subtract_right_partial_tile as subtract_right_partial_tile
from ._arg_reduce import argmax as argmax
from ._arg_reduce import argmin as argmin
from ._discontinuity import flag_heads as flag_heads
from ._discontinuity import flag_heads_and_tails as flag_heads_and_tails
from ._discontinuity import flag_tails as flag_tails
from ._exchange import blocked_to_striped as blocked_to_striped
from ._exchange import blocked_to_warp_striped as blocked_to_warp_striped
from ._exchange import scatter_to_blocked as scatter_to_blocked
from ._exchange import scatter_to_striped as scatter_to_striped
from ._exchange import scatter_to_striped_flagged as scatter_to_striped_flagged
from ._exchange import scatter_to_striped_guarded as scatter_to_striped_guarded
from ._exchange import striped_to_blocked as striped_to_blocked
from ._exchange import warp_striped_to_blocked as warp_striped_to_blocked
from ._histogram import histogram as histogram
from ._histogram import histogram_composite as histogram_composite
from ._histogram import histogram_init as histogram_init
from ._load_to_shared import load_to_shared as load_to_shared
from ._merge_sort import merge_sort as merge_sort
from ._primitives import exclusive_scan as exclusive_scan
from ._primitives import exclusive_sum as exclusive_sum
from ._primitives import inclusive_scan as inclusive_scan
from ._primitives import inclusive_sum as inclusive_sum
from ._primitives import load as load
from ._primitives import reduce as reduce
from ._primitives import store as store
from ._primitives import sum as sum
from ._radix_sort import argsort as argsort
from ._radix_sort import radix_rank as radix_rank
from ._radix_sort import radix_sort as radix_sort
from ._radix_sort import top_k as top_k
from ._run_length_decode import run_length_decode as run_length_decode
from ._shuffle import shuffle_down as shuffle_down
from ._shuffle import shuffle_offset as shuffle_offset
from ._shuffle import shuffle_rotate as shuffle_rotate
from ._shuffle import shuffle_up as shuffle_up

__all__ = [
    "argmax",
    "argmin",
    "argsort",
    "blocked_to_striped",
    "blocked_to_warp_striped",
    "exclusive_scan",
    "exclusive_sum",
    "flag_heads",
    "flag_heads_and_tails",
    "flag_tails",
    "histogram",
    "histogram_composite",
    "histogram_init",
    "inclusive_scan",
    "inclusive_sum",
    "load",
    "load_to_shared",
    "merge_sort",
    "radix_rank",
    "radix_sort",
    "reduce",
    "run_length_decode",
    "scatter_to_blocked",
    "scatter_to_striped",
    "scatter_to_striped_flagged",
    "scatter_to_striped_guarded",
    "shuffle_down",
    "shuffle_offset",
    "shuffle_rotate",
    "shuffle_up",
    "store",
    "striped_to_blocked",
    "subtract_left",
    "subtract_left_partial_tile",
    "subtract_right",
    "subtract_right_partial_tile",
    "sum",
    "top_k",
    "warp_striped_to_blocked",
]


def __dir__() -> list[str]:
    return sorted(__all__)
