"""Block-wide primitives: every thread of the block calls them together (CUB ``cub::Block*``).

The block shape (1-D, 2-D or 3-D) comes from the kernel's launch; threads are ranked in CUB's
row-major order (x fastest). Per-thread data is a scalar or a ``cuda.local.array(N, dtype)``
whose extent N is recovered from its definition (``items_per_thread=`` may restate it). Temporary
storage is owned by the generated code: pass no scratch. Each stub's parameters and defaults are
checked against its CUB spec, which also writes the second half of its docstring.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive


@primitive("block_load", "load", module="block")
def load(
    src: Any, items: Any, *, offset: Any = 0, valid_items: Any = None, oob_default: Any = None,
    algorithm: str = "auto", items_per_thread: int | None = None,
) -> None:
    """Load a tile of ``block_threads * N`` items from ``src[offset:]`` into each thread's ``items``.

    Every algorithm but ``"striped"`` leaves the tile in *blocked* order (thread ``t`` gets items
    ``t*N .. t*N+N-1``); ``"striped"`` leaves it striped (thread ``t`` gets items ``t, t + block_threads,
    ...``). With ``valid_items`` the items past it get ``oob_default`` if given, else are left unchanged.
    ``"vectorize"`` is fastest when ``src[offset]`` is 16-byte aligned.
    """


@primitive("block_store", "store", module="block")
def store(
    dst: Any, items: Any, *, offset: Any = 0, valid_items: Any = None,
    algorithm: str = "auto", items_per_thread: int | None = None,
) -> None:
    """Store each thread's ``items`` to the tile at ``dst[offset:]``; ``items`` is not modified.

    ``items`` is read in blocked order, or striped for ``algorithm="striped"``.
    """


@primitive("block_reduce", "reduce", module="block")
def reduce(x: Any, op: Any, *, valid_items: Any = None, algorithm: str = "auto",
           items_per_thread: int | None = None, broadcast: bool = False) -> Any:
    """Reduce one value (or an array of N values) per thread with ``op``; the result is valid in thread 0,
    or in every thread with ``broadcast=True`` (one shared-memory slot and one more ``__syncthreads()``).

    ``op`` is a known operator (``"+"``, ``"*"``, ``"min"``, ``"max"``, ``"&"``, ``"|"``, ``"^"`` or
    their ``operator``/NumPy/builtin equivalents; ``"max"`` and ``np.maximum`` give NaN for a NaN item as
    NumPy does, ``np.fmax``/``np.fmin`` drop NaNs) or a Python function of two values, compiled as a
    device function, whose result fits the items. ``valid_items`` (scalar form only) reduces the first that
    many threads' values; with none, the result is the operator's identity (see :doc:`/contracts`).
    """


@primitive("block_reduce", "sum", module="block")
def sum(x: Any, *, valid_items: Any = None, algorithm: str = "auto",
        items_per_thread: int | None = None, broadcast: bool = False) -> Any:
    """Block-wide sum of one value (or N values) per thread; valid in thread 0 (every thread with
    ``broadcast=True``). See :func:`reduce`."""


@primitive("block_scan", "exclusive_sum", module="block", previous=("x", "output"))
def exclusive_sum(x: Any, *, output: Any = None, block_aggregate: Any = None, prefix_op: Any = None,
                  prefix_state: Any = None, algorithm: str = "auto", items_per_thread: int | None = None) -> Any:
    """Exclusive prefix sum across the block.

    Scalar form: returns this thread's prefix. Array form: ``x`` is a ``cuda.local.array`` in
    blocked order and the scan is written to ``output`` (default: ``x``, in place); nothing is returned.
    """


@primitive("block_scan", "inclusive_sum", module="block", previous=("x", "output"))
def inclusive_sum(x: Any, *, output: Any = None, block_aggregate: Any = None, prefix_op: Any = None,
                  prefix_state: Any = None, algorithm: str = "auto", items_per_thread: int | None = None) -> Any:
    """Inclusive prefix sum across the block. Forms as for :func:`exclusive_sum`."""


@primitive("block_scan", "exclusive_scan", module="block", previous=("x", "op", "initial_value", "output"))
def exclusive_scan(x: Any, op: Any, *, initial_value: Any = None, output: Any = None, block_aggregate: Any = None,
                   prefix_op: Any = None, prefix_state: Any = None, algorithm: str = "auto",
                   items_per_thread: int | None = None) -> Any:
    """Exclusive scan with ``op``, seeded with ``initial_value`` or by ``prefix_op`` (one is required).

    ``op`` as for :func:`reduce`; forms as for :func:`exclusive_sum`.
    """


@primitive("block_scan", "inclusive_scan", module="block", previous=("x", "op", "output"))
def inclusive_scan(x: Any, op: Any, *, output: Any = None, initial_value: Any = None, block_aggregate: Any = None,
                   prefix_op: Any = None, prefix_state: Any = None, algorithm: str = "auto",
                   items_per_thread: int | None = None) -> Any:
    """Inclusive scan with ``op``. ``initial_value`` (array form only) is combined into the first item.

    ``op`` as for :func:`reduce`; forms as for :func:`exclusive_sum`.
    """
