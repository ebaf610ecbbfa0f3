"""Batched warp reductions (``cub::WarpReduceBatched``): public stubs; spec in ``_specs/warp_reduce_batched``.

CUB has no block-wide batched reduction: these are warp functions without a ``coop.block`` twin. A lane's ``x`` is a
``cuda.local.array(B, dtype)``, one item per batch; the B results are spread over the logical warp's lanes. The single
reductions' ``valid_items=`` (a partial warp) and ``broadcast=`` (the result in every lane) have no batched
equivalent in CUB: every lane's every item counts, and each result is valid in the lane it is given to.
"""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

__all__ = ["reduce_batched", "sum_batched"]


@primitive("warp_reduce_batched", "reduce_batched", module="warp")
def reduce_batched(
    x: Any,
    op: Any,
    *,
    output: Any = None,
    arrangement: str = "blocked",
    sync_physical_warp: bool = False,
    threads: int = 32,
    batches: int | None = None,
    outputs_per_thread: int | None = None,
) -> Any:
    """Reduce B batches across the logical warp with ``op``: batch ``b`` is item ``x[b]`` of every lane.

    With B at most ``threads``, lane ``l`` gets batch ``l``'s reduction, returned (the lanes past the last batch get a
    value that belongs to no batch). With more batches, pass ``output=``, a ``cuda.local.array(M, dtype)`` with ``M =
    ceil(B / threads)``: lane ``l`` gets batches ``l*M .. l*M+M-1`` (``arrangement="blocked"``) or ``l, l + threads,
    ...`` (``"striped"``) in ``output[0 .. M-1]``. ``op`` as for :func:`cuda.coop.warp.reduce`, and commutative as well
    (CUB combines two lanes' values in either order).
    """


@primitive("warp_reduce_batched", "sum_batched", module="warp")
def sum_batched(
    x: Any,
    *,
    output: Any = None,
    arrangement: str = "blocked",
    sync_physical_warp: bool = False,
    threads: int = 32,
    batches: int | None = None,
    outputs_per_thread: int | None = None,
) -> Any:
    """Sum B batches across the logical warp (batch ``b`` is item ``x[b]`` of every lane); results as for
    :func:`reduce_batched`: returned with B at most ``threads``, else written to ``output=``."""
