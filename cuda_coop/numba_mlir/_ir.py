"""Small edits of numba's untyped IR shared by the planner and the uniformity rewrite."""

from __future__ import annotations

import types as pytypes
from collections.abc import Iterable
from typing import Any

from ._seams import ir

__all__ = ["drop_unused_definitions"]


def _droppable(value: Any) -> bool:
    """A definition with no effect: a global, free variable, constant, attribute read or function object."""
    return isinstance(value, ir.Global | ir.FreeVar | ir.Const) or (
        isinstance(value, ir.Expr) and value.op in ("getattr", "make_function")
    )


def _used(func_ir: Any) -> set[str]:
    used: set[str] = set()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            value = stmt.value if isinstance(stmt, ir.Assign) else stmt
            used.update(v.name for v in getattr(value, "list_vars", list)())
    return used


def drop_unused_definitions(func_ir: Any, names: Iterable[str]) -> None:
    """Delete the definitions of ``names`` that nothing uses any more, and then of what only they used.

    After a call is rewritten, the callee and the compile-time arguments it had (``$op = global(f)``, a
    lambda's ``make_function`` and its code constant, ``getattr(coop, "uniform")``) must not reach typing:
    a Python function is not typeable by numba, and a code object cannot be lowered.
    """
    pending = set(names)
    first = True
    while pending:
        dead = pending - _used(func_ir)
        pending = set()
        for block in func_ir.blocks.values():
            kept = []
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and stmt.target.name in dead and _droppable(stmt.value):
                    pending.update(v.name for v in getattr(stmt.value, "list_vars", list)())
                else:
                    kept.append(stmt)
            block.body = kept
        if first:  # a lambda's code object is a constant of its own that nothing lists once it is replaced
            first = False
            for block in func_ir.blocks.values():
                for stmt in block.body:
                    value = stmt.value if isinstance(stmt, ir.Assign) else None
                    if isinstance(value, ir.Const) and isinstance(value.value, pytypes.CodeType):
                        pending.add(stmt.target.name)
