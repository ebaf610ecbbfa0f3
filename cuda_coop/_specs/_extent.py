"""The expressions of ``Param.min_extent``: how many items of an array a call may read or write.

An expression is a small arithmetic of names, integers, ``+``, ``-``, ``*``, ``//``, ``min()`` and ``max()``:
``"tile"``, ``"bins"``, ``"offset + min(k, tile)"``. :func:`evaluate` gives its value for the names known at
compile time, or None when a name it needs is not (a runtime argument): the contract is then the caller's
documented precondition. :func:`check` is run on every spec's expressions when it is registered, so a typo is a
bug of the spec, found at import.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping

__all__ = ["check", "evaluate", "names"]

_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
}
_CALLS = {"min": min, "max": max}


@functools.cache
def _parse(expression: str) -> ast.expr:
    tree = ast.parse(expression, mode="eval").body
    for node in ast.walk(tree):
        allowed = (ast.Name, ast.Load, ast.BinOp, ast.Call, *_BINARY)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            continue
        if not isinstance(node, allowed) or (isinstance(node, ast.Call) and not _is_known_call(node)):
            raise ValueError(f"extent expression {expression!r}: {ast.unparse(node)!r} is not allowed")
    return tree


def _is_known_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id in _CALLS and not node.keywords and len(node.args) >= 2


def names(expression: str) -> set[str]:
    """The names ``expression`` reads (``min``/``max`` excluded)."""
    return {n.id for n in ast.walk(_parse(expression)) if isinstance(n, ast.Name) and n.id not in _CALLS}


def check(expression: str) -> None:
    """Raise ValueError when ``expression`` is not a valid extent expression."""
    _parse(expression)


def evaluate(expression: str, values: Mapping[str, int | None]) -> int | None:
    """The value of ``expression``; None when a name it reads is missing from ``values`` or None there."""

    def walk(node: ast.expr) -> int | None:
        if isinstance(node, ast.Constant):
            assert isinstance(node.value, int)  # _parse allows no other constant
            return node.value
        if isinstance(node, ast.Name):
            return values.get(node.id)
        if isinstance(node, ast.BinOp):
            left, right = walk(node.left), walk(node.right)
            return None if left is None or right is None else _BINARY[type(node.op)](left, right)
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        args = [walk(a) for a in node.args]
        known = [a for a in args if a is not None]
        return _CALLS[node.func.id](known) if len(known) == len(args) else None

    return walk(_parse(expression))
