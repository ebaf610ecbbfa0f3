"""``cuda_coop::BlockArgsort``: the permutation that sorts a block's tile, a cuda-coop composition of
``cub::BlockRadixSort``.

``indices`` receives ``base + t*N + i`` (each key's blocked tile position, offset by ``base``) and the
(key, index) pairs are sorted by key with ``cub::BlockRadixSort``, stably: afterwards thread ``t``'s
``indices`` are the tile positions of the sorted keys, as ``np.argsort(tile, kind="stable") + base``
(descending: ties still in input order). Key order, bit ranges and float handling are those of
``coop.block.radix_sort``.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, ITEMS_PER_THREAD, array
from ._model import ArgKind, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive
from .block_radix_sort import (
    BEGIN_BIT,
    BIT_TYPE,
    DESCENDING,
    END_BIT,
    INNER_SCAN_ALGORITHM,
    KEY_ORDER_DOC,
    KEY_TYPE,
    MEMOIZE_OUTER_SCAN,
    OUTPUT,
    RADIX_BITS,
    SORT_CONSTRAINTS,
    SortOutput,
    partial_tile,
    storage_constraint,
)

__all__ = ["BLOCK_ARGSORT", "INDEX_TYPE"]

INDEX_TYPE = TemplateParam(
    name="index_type", cpp="IndexT", kind=TParamKind.TYPE, kinds=("int", "uint"),
    doc="Integer type of the indices (bound from ``indices``); ``base + position`` is converted to it as C++ "
    "converts integers (a narrow type wraps).",
)
_KEYS = array(
    "keys", inout=True,
    doc="This thread's keys, a ``cuda.local.array(N, dtype)``; sorted in place (as coop.block.radix_sort).",
)
_INDICES = array(
    "indices", "index_type", inout=True,
    doc="A ``cuda.local.array(N, <integer type>)``; its input is ignored: it receives ``base`` plus the tile "
    "positions (blocked: ``t*N + i``) of this thread's sorted keys.",
)
_BASE = Param(
    name="base", kind=ArgKind.SCALAR, type="int64", default=0, uniform=True,
    doc="Added to every tile position (e.g. ``cuda.blockIdx.x * tile`` for positions in the whole array); an "
    "int64 value.",
)
_VALID = partial_tile(
    "Sort only the tile's first ``valid_items`` keys (blocked positions ``t*N + i``) with their indices into the "
    "first ``valid_items`` positions of the result: ``np.argsort(tile[:valid_items], kind=\"stable\") + base`` "
    "(in the ``output`` arrangement); the later positions hold unspecified keys and indices."
)
_TPARAMS = (ITEMS_PER_THREAD, DESCENDING, OUTPUT, BIT_TYPE)

BLOCK_ARGSORT = register_primitive(
    PrimitiveSpec(
        name="block_argsort",
        cub_class="cuda_coop::BlockArgsort",
        header="cuda_coop/block_argsort.cuh",
        scope=Scope.BLOCK,
        tparams=(
            KEY_TYPE,
            BLOCK_DIMS[0],
            ITEMS_PER_THREAD,
            INDEX_TYPE,
            RADIX_BITS,
            MEMOIZE_OUTER_SCAN,
            INNER_SCAN_ALGORITHM,
            BLOCK_DIMS[1],
            BLOCK_DIMS[2],
        ),
        methods=(
            Method(
                name="argsort",
                cpp="Argsort{descending}{output}",
                choices={
                    "descending": {False: "", True: "Descending"},
                    "output": {SortOutput.SORT_OUTPUT_BLOCKED: "", SortOutput.SORT_OUTPUT_STRIPED: "BlockedToStriped"},
                },
                overloads=(
                    Overload(name="pairs", params=(_KEYS, _INDICES, _BASE, BEGIN_BIT, END_BIT), tparams=_TPARAMS),
                    Overload(
                        name="pairs_valid",
                        params=(_KEYS, _INDICES, _BASE, BEGIN_BIT, END_BIT, _VALID),
                        tparams=(*_TPARAMS, COUNT_TYPE),
                    ),
                ),
                doc="Fill ``indices`` with ``base`` + tile positions and sort them with the keys, stably. "
                + KEY_ORDER_DOC,
            ),
        ),
        constraints=(*SORT_CONSTRAINTS, storage_constraint("index_type")),
        doc="Block-wide stable argsort: cuda-coop's composition of ``cub::BlockRadixSort`` over (key, index) "
        "pairs. " + KEY_ORDER_DOC,
        example="block_argsort",
    )
)
