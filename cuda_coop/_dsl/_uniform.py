"""``cuda.coop.uniform``: the user's assertion that a value is the same in every cooperating thread.

A DSL integration's planner recognises calls of :func:`uniform` (``__coop_uniform__``), trusts
the assertion when it checks that primitives are reached by every thread, and replaces each call
by its argument before typing, so the assertion costs nothing at run time.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_uniform_stub", "uniform"]


def uniform(value: Any) -> Any:
    """Assert that ``value`` is the same in every thread that must call the primitives it guards.

    cuda-coop refuses, at compile time, a block primitive that only some threads of the block
    reach, and a warp primitive that only some lanes of its logical warp reach (for example one
    under ``if cuda.threadIdx.x < 16:``). It decides this from where values come from: anything
    derived from ``cuda.threadIdx``, ``cuda.grid``, ``cuda.laneid``, per-thread data or a
    primitive's result counts as thread-dependent. When a condition is in fact uniform, but
    cuda-coop cannot see it, wrap the value (usually the condition) in ``uniform``::

        warp = cuda.threadIdx.x // 32           # the same in the 32 lanes of each warp
        if coop.uniform(warp < 2):
            total = coop.warp.sum(v)

    "Uniform" means the same in every thread of the block for block primitives, and the same in
    every lane of the logical warp for warp primitives (e.g. a warp index
    ``cuda.threadIdx.x // 32`` guarding a ``coop.warp`` call with the default ``threads=32``).
    The assertion is not checked: if it is wrong, the kernel may hang or give wrong results.
    See :doc:`/uniformity`.

    Parameters
    ----------
    value:
        Any value; it is returned unchanged (in a kernel the call compiles to nothing).

    Returns
    -------
    The same ``value``.
    """
    return value


uniform.__coop_uniform__ = True  # type: ignore[attr-defined]


def is_uniform_stub(obj: Any) -> bool:
    """Whether ``obj`` is :func:`uniform` (as a planner resolves a callee)."""
    return getattr(obj, "__coop_uniform__", None) is True
