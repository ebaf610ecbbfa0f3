"""Declarative specs of the CUB collectives cuda-coop exposes, and their registry.

Importing this package registers every family module below and freezes the registry. The renderer
(``cuda_coop._provider``), the DSL typing layer and the docs read specs only through
:func:`get_primitive` / :func:`all_primitives`; nothing outside this package branches on a
primitive's name.
"""

from __future__ import annotations

import importlib

from ._model import (
    DEFAULT,
    ArgKind,
    Binding,
    Constraint,
    CubEnum,
    Method,
    Overload,
    Param,
    PrimitiveSpec,
    Scope,
    Space,
    TemplateParam,
    TParamKind,
)
from ._operators import KnownOp, UserCallback, UserOp, coerce_operator
from ._registry import _freeze, all_primitives, get_primitive, headers, register_primitive
from ._request import Request, bind
from ._types import BUILTIN_TYPES, NONE_TYPE, ValueType, user_type, value_type
from .block_load_store import BlockLoadAlgorithm, BlockStoreAlgorithm
from .block_reduce import BlockReduceAlgorithm
from .block_scan import BlockScanAlgorithm

__all__ = [
    "BUILTIN_TYPES",
    "DEFAULT",
    "NONE_TYPE",
    "ArgKind",
    "Binding",
    "BlockLoadAlgorithm",
    "BlockReduceAlgorithm",
    "BlockScanAlgorithm",
    "BlockStoreAlgorithm",
    "Constraint",
    "CubEnum",
    "KnownOp",
    "Method",
    "Overload",
    "Param",
    "PrimitiveSpec",
    "Request",
    "Scope",
    "Space",
    "TParamKind",
    "TemplateParam",
    "UserCallback",
    "UserOp",
    "ValueType",
    "all_primitives",
    "bind",
    "coerce_operator",
    "get_primitive",
    "headers",
    "register_primitive",
    "user_type",
    "value_type",
]

_FAMILIES = (  # one line per family module: importing it registers its specs
    "block_adjacent_difference",
    "block_arg_reduce",
    "block_argsort",
    "block_discontinuity",
    "block_exchange",
    "block_histogram",
    "block_load_to_shared",
    "block_load_store",
    "block_merge_sort",
    "block_radix_rank",
    "block_radix_sort",
    "block_reduce",
    "block_run_length_decode",
    "block_scan",
    "block_shuffle",
    "block_top_k",
    "warp_arg_reduce",
    "warp_argsort",
    "warp_exchange",
    "warp_load_store",
    "warp_merge_sort",
    "warp_reduce",
    "warp_reduce_batched",
    "warp_scan",
    "warp_top_k",
)
for _family in _FAMILIES:
    importlib.import_module(f"{__name__}.{_family}")
_freeze()
