"""The compile tier's cases: a covering subset of a GPU tier's product.

The GPU tier runs the full product of its axes (dtypes x block shapes x algorithms x ...), and compiles
every kernel of it on the way. CI has no GPU, so the compile tier compiles a *covering subset*: every
value of every axis at least once (every dtype, every block shape and so every block rank, every
algorithm, every method), which catches a typo, a refused combination or a rendering bug of any one
value in minutes instead of the product's hours. Every family chooses its compile-tier cases here.

    CASES = covering(gpu.CASES, "dtype", "block", "ipt", lambda c: c.algorithm)
    test_cases_cover(CASES, gpu.CASES, "dtype", "block", "ipt")      # in a test: the subset still covers

The choice is greedy set cover (the case adding the most values not yet covered, the first such case on
ties), so it is deterministic, keeps the product's order, and is usually near the smallest subset.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

__all__ = ["Axis", "axis_values", "block_rank", "covering", "missing_values"]

T = TypeVar("T")
Axis = str | Callable[[Any], Hashable]
"""An axis of a product: an attribute name of its cases, or a function of a case. Its value is one value (a tuple
too: a block shape), or a list or set of values, each of which the case covers (every algorithm a kernel runs)."""


def _name(axis: Axis, index: int) -> str:
    return axis if isinstance(axis, str) else getattr(axis, "__name__", f"axis {index}")


def _values(case: Any, axis: Axis) -> tuple[Hashable, ...]:
    value = getattr(case, axis) if isinstance(axis, str) else axis(case)
    return tuple(value) if isinstance(value, list | frozenset | set) else (value,)


def block_rank(case: Any) -> int:
    """The rank of a case's block (1, 2 or 3): how many of its dimensions are over 1 (an axis for :func:`covering`)."""
    return max(1, sum(d > 1 for d in case.block))


def axis_values(cases: Iterable[Any], axes: Sequence[Axis]) -> set[tuple[int, Hashable]]:
    """Every ``(axis index, value)`` the cases take."""
    return {(i, v) for case in cases for i, axis in enumerate(axes) for v in _values(case, axis)}


def covering(cases: Sequence[T], *axes: Axis, also: Iterable[T] = ()) -> list[T]:
    """A subset of ``cases`` in which every value of every axis occurs, chosen greedily (see the module docstring).

    ``also``: cases to take whatever they cover (a family's known hard case), first, in their order.
    """
    if not axes:
        raise ValueError("covering() needs at least one axis")
    keys = [axis_values([case], axes) for case in cases]
    picked: list[int] = [cases.index(case) for case in also]
    covered: set[tuple[int, Hashable]] = set().union(*(keys[i] for i in picked))
    wanted = set().union(*keys)
    while covered != wanted:
        best = max(range(len(cases)), key=lambda i: (len(keys[i] - covered), -i))
        picked.append(best)
        covered |= keys[best]
    return [cases[i] for i in dict.fromkeys(picked)]


def missing_values(subset: Iterable[Any], cases: Iterable[Any], *axes: Axis) -> dict[str, list[Hashable]]:
    """The values of each axis that ``cases`` take and ``subset`` does not, by axis name (empty: it covers)."""
    gap = axis_values(cases, axes) - axis_values(subset, axes)
    out: dict[str, list[Hashable]] = {}
    for i, value in sorted(gap, key=repr):
        out.setdefault(_name(axes[i], i), []).append(value)
    return out
