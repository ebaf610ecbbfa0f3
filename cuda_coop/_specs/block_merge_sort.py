"""``cub::BlockMergeSort``: sort a tile of keys (and values) with a comparator.

The comparator ``compare(a, b)`` is true when key ``a`` goes before key ``b`` (a strict weak order:
``"<"`` ascending, ``">"`` descending, or a Python function of two keys returning a bool). Merge sort
takes any key type the comparator orders, which radix sort cannot (user orders such as by absolute
value, several fields); for plain ascending/descending numbers radix sort is faster.

``stable=True`` calls ``StableSort``: keys that neither orders before the other keep their input order.
CUB's ``Sort`` makes no such promise, although in CCCL 3.6 both run the same stable algorithm.

Partial tiles: with ``valid_items`` only the tile's first ``valid_items`` keys (in blocked order) are
sorted, and after the call the tile's first ``valid_items`` positions hold them sorted; positions at or
past ``valid_items`` hold unspecified keys and values. ``oob_default`` is CUB's out-of-bounds key,
which CUB documents as a key "ordered after any value within the valid_items boundaries": a thread
holding the boundary fills its invalid slots with it before sorting. Since CCCL 3.6 CUB clamps every
merge to ``valid_items``, so the key never reaches the sorted prefix and its order does not change the
result; CUB 3.6 also has the partial-tile overloads without it, which a call omitting ``oob_default``
uses. Pass it when porting code written for older CUB; otherwise leave it out.

Block size: CUB's merge network needs a power-of-two number of threads (``static_assert`` in CUB).
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, ITEMS_PER_THREAD, array, count, op, scalar
from ._model import Binding, Constraint, Method, Overload, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind
from ._registry import register_primitive
from ._types import NONE_TYPE

__all__ = [
    "BLOCK_MERGE_SORT",
    "COMPARE",
    "KEY_TYPE",
    "OOB_DEFAULT",
    "STABLE",
    "VALUE_TYPE",
    "merge_sort_method",
]

KEY_TYPE = TemplateParam(
    name="dtype", cpp="KeyT", kind=TParamKind.TYPE, doc="Type of the keys (any type the comparator orders)."
)
VALUE_TYPE = TemplateParam(
    name="value_type",
    cpp="ValueT",
    kind=TParamKind.TYPE,
    optional=True,
    default=NONE_TYPE,
    doc="Type of the values sorted with the keys (none for a keys-only sort).",
)
UNROLL = TemplateParam(
    name="unroll",
    cpp="Unroll",
    kind=TParamKind.BOOL,
    optional=True,
    default=True,
    public=False,
    doc="Unroll the per-thread loops (CUB's default).",
)
STABLE = TemplateParam(
    name="stable",
    cpp="Stable",
    kind=TParamKind.BOOL,
    optional=True,
    default=False,
    doc="Call ``StableSort``: keys that compare equivalent keep their input order.",
)

_KEYS = array(
    "keys", inout=True, doc="This thread's keys in blocked order, a ``cuda.local.array(N, dtype)``; sorted in place."
)
_VALUES = array(
    "values",
    "value_type",
    inout=True,
    doc="This thread's values (a ``cuda.local.array(N, <any dtype>)``), moved with their keys.",
)
COMPARE = op(
    "compare",
    returns="bool",
    order="strict_weak",
    doc="The order: ``compare(a, b)`` is true when key ``a`` goes before key ``b`` (a strict weak order). "
    "``'<'`` (ascending), ``'>'`` (descending), ``operator.lt``/``operator.gt``, or a Python function of two "
    "keys returning a bool.",
)
OOB_DEFAULT = scalar(
    "oob_default",
    doc="CUB's out-of-bounds key, a key of the keys' dtype that ``compare`` orders after every valid key; it "
    "fills the invalid slots of the thread holding the ``valid_items`` boundary. Optional: since CCCL 3.6 the "
    "sorted prefix does not depend on it. Only with ``valid_items``.",
)


def _valid(limit: str, tile: str, group: str) -> Param:
    return count(
        limit,
        f"Sort only the first ``valid_items`` keys of {tile} (an integer; clamped to [0, tile]); the first "
        f"``valid_items`` positions receive them sorted, the rest hold unspecified keys and values. Every "
        f"thread of {group} must pass the same value.",
    )


def merge_sort_method(name: str, limit: str, tile: str, group: str, doc: str) -> Method:
    """BlockMergeSort's and WarpMergeSort's ``Sort``/``StableSort`` overloads (keys, pairs, partial tiles)."""
    valid = _valid(limit, tile, group)
    plain = (ITEMS_PER_THREAD, STABLE)
    partial = (ITEMS_PER_THREAD, STABLE, COUNT_TYPE)
    return Method(
        name=name,
        cpp="{stable}Sort",
        choices={"stable": {False: "", True: "Stable"}},
        overloads=(
            Overload(name="keys", params=(_KEYS, COMPARE), tparams=plain),
            Overload(name="pairs", params=(_KEYS, _VALUES, COMPARE), tparams=plain),
            Overload(name="keys_valid", params=(_KEYS, COMPARE, valid), tparams=partial),
            Overload(name="pairs_valid", params=(_KEYS, _VALUES, COMPARE, valid), tparams=partial),
            Overload(name="keys_valid_default", params=(_KEYS, COMPARE, valid, OOB_DEFAULT), tparams=partial),
            Overload(
                name="pairs_valid_default", params=(_KEYS, _VALUES, COMPARE, valid, OOB_DEFAULT), tparams=partial
            ),
        ),
        doc=doc,
    )


def _power_of_two_block(b: Binding) -> bool:
    n = b.block_threads
    return n & (n - 1) == 0


BLOCK_MERGE_SORT = register_primitive(
    PrimitiveSpec(
        name="block_merge_sort",
        cub_class="cub::BlockMergeSort",
        header="cub/block/block_merge_sort.cuh",
        scope=Scope.BLOCK,
        tparams=(KEY_TYPE, BLOCK_DIMS[0], ITEMS_PER_THREAD, VALUE_TYPE, BLOCK_DIMS[1], BLOCK_DIMS[2], UNROLL),
        methods=(
            merge_sort_method(
                "merge_sort", "tile", "the tile", "the block", "Sort the block's tile of keys (and values)."
            ),
        ),
        constraints=(
            Constraint(
                check=_power_of_two_block,
                message="merge_sort needs a block whose thread count is a power of two, but the block {block_dim} "
                "has {block_threads} threads; launch a power-of-two block (e.g. 32, 64, 128, 256 threads), or use "
                "coop.block.radix_sort, which takes any block size",
            ),
        ),
        doc="Block-wide merge sort (``cub::BlockMergeSort``) of per-thread arrays with a comparator.",
        example="block_merge_sort",
    )
)
