"""Block-wide primitives: every thread of the block calls them together (CUB ``cub::Block*``).

The block shape (1-D, 2-D or 3-D) comes from the kernel's launch; threads are ranked in CUB's
row-major order (x fastest). Per-thread data is a scalar or a ``cuda.local.array(N, dtype)``
whose extent N is recovered from its definition (or given as ``items_per_thread=``).
Temporary storage is owned by the generated code: pass no scratch.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

_ITEMS = ("items_per_thread",)


@primitive("block.load", ("block_load", "load"), data="items", static=("algorithm", *_ITEMS), per_thread=("items",),
           offsets=(("offset", "src"),))
def load(
    src: Any, items: Any, *, offset: Any = 0, valid_items: Any = None, oob_default: Any = None,
    algorithm: str = "direct", items_per_thread: int | None = None,
) -> None:
    """Load a tile of ``block_threads * N`` items from ``src[offset:]`` into ``items`` (``cub::BlockLoad``).

    Parameters
    ----------
    src:
        A 1-D, C-contiguous device array.
    items:
        The thread's ``cuda.local.array(N, dtype)``. Every algorithm but ``"striped"`` leaves the
        tile in *blocked* order (thread ``t`` gets items ``t*N .. t*N+N-1``); ``"striped"`` leaves it
        striped (thread ``t`` gets items ``t, t + block_threads, ...``).
    offset:
        Index in ``src`` of the tile's first item.
    valid_items:
        Load only this many items of the tile (a partial last tile); the others become
        ``oob_default`` if given, else are left unchanged.
    algorithm:
        ``"direct"``, ``"striped"``, ``"vectorize"``, ``"transpose"``, ``"warp_transpose"`` or
        ``"warp_transpose_timesliced"`` (``cub::BlockLoadAlgorithm``). ``"vectorize"`` is fastest
        when ``src + offset`` is 16-byte aligned.
    """


@primitive("block.store", ("block_store", "store"), data="items", static=("algorithm", *_ITEMS), per_thread=("items",),
           offsets=(("offset", "dst"),))
def store(
    dst: Any, items: Any, *, offset: Any = 0, valid_items: Any = None,
    algorithm: str = "direct", items_per_thread: int | None = None,
) -> None:
    """Store each thread's ``items`` to ``dst[offset:]`` (``cub::BlockStore``); ``items`` is not modified.

    ``items`` is read in blocked order, or striped for ``algorithm="striped"``. ``valid_items``
    stores only that many items of the tile; ``algorithm`` is one of the ``cub::BlockStoreAlgorithm``
    names, as for :func:`load`.
    """


@primitive("block.reduce", ("block_reduce", "reduce"), data="x", static=("op", "algorithm", *_ITEMS), per_thread=("x",))
def reduce(x: Any, op: Any, *, valid_items: Any = None, algorithm: str = "warp_reductions",
           items_per_thread: int | None = None) -> Any:
    """Reduce one value (or an array of N values) per thread with ``op``; the result is valid in thread 0.

    ``op`` is a known operator (``"+"``, ``"*"``, ``"min"``, ``"max"``, ``"&"``, ``"|"``, ``"^"`` or
    their ``operator``/NumPy/builtin equivalents) or a ``@cuda.jit(device=True)`` function of two
    values. ``valid_items`` (scalar form only) reduces the first that many threads' values.
    ``algorithm``: ``"raking"``, ``"raking_commutative_only"`` or ``"warp_reductions"``
    (``cub::BlockReduceAlgorithm``).
    """


@primitive("block.sum", ("block_reduce", "sum"), data="x", static=("algorithm", *_ITEMS), per_thread=("x",))
def sum(x: Any, *, valid_items: Any = None, algorithm: str = "warp_reductions",
        items_per_thread: int | None = None) -> Any:
    """Block-wide sum of one value (or N values) per thread; valid in thread 0. See :func:`reduce`."""


_SCAN_STATIC = ("prefix_op", "algorithm", *_ITEMS)


@primitive("block.exclusive_sum", ("block_scan", "exclusive_sum"), data="x", static=_SCAN_STATIC,
           per_thread=("x", "output"),
           in_place=(("output", "x"),))
def exclusive_sum(x: Any, output: Any = None, *, block_aggregate: Any = None, prefix_op: Any = None,
                  prefix_state: Any = None, algorithm: str = "raking", items_per_thread: int | None = None) -> Any:
    """Exclusive prefix sum across the block (``cub::BlockScan::ExclusiveSum``).

    Scalar form: returns this thread's prefix. Array form: ``x`` is a ``cuda.local.array`` in
    blocked order and the scan is written to ``output`` (default: ``x``, in place).
    ``block_aggregate``: a ``cuda.local.array(1, dtype)`` that receives the block's total in every
    thread. ``prefix_op`` (with ``prefix_state``) makes the scan continue across tiles
    (``BlockPrefixCallbackOp``): a Python function ``prefix_op(state, block_aggregate)`` that the
    first warp calls with the tile's total and whose result (lane 0's) seeds the scan; ``state`` is
    ``prefix_state`` (an array, e.g. ``cuda.local.array(1, dtype)`` holding the running total).
    ``algorithm``: ``"raking"``, ``"raking_memoize"`` or ``"warp_scans"``.
    """


@primitive("block.inclusive_sum", ("block_scan", "inclusive_sum"), data="x", static=_SCAN_STATIC,
           per_thread=("x", "output"),
           in_place=(("output", "x"),))
def inclusive_sum(x: Any, output: Any = None, *, block_aggregate: Any = None, prefix_op: Any = None,
                  prefix_state: Any = None, algorithm: str = "raking", items_per_thread: int | None = None) -> Any:
    """Inclusive prefix sum across the block (``cub::BlockScan::InclusiveSum``). See :func:`exclusive_sum`."""


@primitive("block.exclusive_scan", ("block_scan", "exclusive_scan"), data="x", static=("op", *_SCAN_STATIC),
           per_thread=("x", "output"),
           in_place=(("output", "x"),))
def exclusive_scan(x: Any, op: Any, initial_value: Any = None, output: Any = None, *, block_aggregate: Any = None,
                   prefix_op: Any = None, prefix_state: Any = None, algorithm: str = "raking",
                   items_per_thread: int | None = None) -> Any:
    """Exclusive scan with ``op`` seeded with ``initial_value`` (``cub::BlockScan::ExclusiveScan``).

    ``op`` as for :func:`reduce`; give ``initial_value`` or ``prefix_op``; other arguments as for
    :func:`exclusive_sum`.
    """


@primitive("block.inclusive_scan", ("block_scan", "inclusive_scan"), data="x", static=("op", *_SCAN_STATIC),
           per_thread=("x", "output"),
           in_place=(("output", "x"),))
def inclusive_scan(x: Any, op: Any, output: Any = None, *, block_aggregate: Any = None, prefix_op: Any = None,
                   prefix_state: Any = None, algorithm: str = "raking", items_per_thread: int | None = None) -> Any:
    """Inclusive scan with ``op`` (``cub::BlockScan::InclusiveScan``). See :func:`exclusive_scan`."""
