"""Small reads and edits of numba's untyped IR shared by the planner and the uniformity check.

Every function takes the DSL's IR module (``Frontend.ir``) or its frontend: the IR classes differ per DSL.
"""

from __future__ import annotations

import types as pytypes
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .._dsl._primitive import primitive_of
from .._dsl._uniform import is_uniform_stub

if TYPE_CHECKING:
    from ._frontend import Frontend

__all__ = [
    "MISSING",
    "callee_values",
    "calls_primitive",
    "dotted",
    "drop_unused_definitions",
    "int_constant",
    "reads",
    "redefine",
    "source_line",
    "static_value",
]

MISSING = object()
"""What :func:`static_value` returns for a variable without a static value."""


def _droppable(ir: Any, value: Any) -> bool:
    """A definition with no effect: a global, free variable, constant, attribute read or function object."""
    return isinstance(value, ir.Global | ir.FreeVar | ir.Const) or (
        isinstance(value, ir.Expr) and value.op in ("getattr", "make_function")
    )


def _used(ir: Any, func_ir: Any) -> set[str]:
    used: set[str] = set()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            value = stmt.value if isinstance(stmt, ir.Assign) else stmt
            used.update(v.name for v in getattr(value, "list_vars", list)())
    return used


def drop_unused_definitions(ir: Any, func_ir: Any, names: Iterable[str]) -> None:
    """Delete the definitions of ``names`` that nothing uses any more, and then of what only they used.

    After a call is rewritten, the callee and the compile-time arguments it had (``$op = global(f)``, a
    lambda's ``make_function`` and its code constant, ``getattr(coop, "uniform")``) must not reach typing:
    a Python function is not typeable by numba, and a code object cannot be lowered.
    """
    pending = set(names)
    first = True
    while pending:
        dead = pending - _used(ir, func_ir)
        pending = set()
        for block in func_ir.blocks.values():
            kept = []
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and stmt.target.name in dead and _droppable(ir, stmt.value):
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


def source_line(loc: Any) -> str:
    """``file:line`` of an IR location, for messages."""
    return f"{loc.filename}:{loc.line}"


def static_value(ir: Any, func_ir: Any, var: Any, depth: int = 0) -> Any:
    """The Python object ``var`` statically refers to (globals and attribute chains), or MISSING."""
    try:
        d = func_ir.get_definition(var)
    except Exception:  # several definitions, or none
        return MISSING
    if isinstance(d, ir.Global | ir.FreeVar):
        return d.value
    if isinstance(d, ir.Expr) and d.op == "getattr" and depth < 16:
        base = static_value(ir, func_ir, d.value, depth + 1)
        return MISSING if base is MISSING else getattr(base, d.attr, MISSING)
    return MISSING


def dotted(ir: Any, func_ir: Any, var: Any) -> str:
    """``cuda.atomic.add`` for a callee spelled that way in the kernel (best effort, for messages)."""
    parts: list[str] = []
    for _ in range(16):
        try:
            d = func_ir.get_definition(var)
        except Exception:
            break
        if isinstance(d, ir.Expr) and d.op == "getattr":
            parts.append(d.attr)
            var = d.value
            continue
        if isinstance(d, ir.Global | ir.FreeVar):
            parts.append(d.name)
        break
    return ".".join(reversed(parts)) or "a function"


def int_constant(ir: Any, func_ir: Any, var: Any) -> int | None:
    """The int ``var`` holds at compile time (a literal or a module-level constant), else None."""
    try:
        d = func_ir.get_definition(var)
    except Exception:  # several definitions, or none
        return None
    value = d.value if isinstance(d, ir.Const | ir.Global | ir.FreeVar) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def reads(ir: Any, node: Any) -> list[Any]:
    """The variables an IR statement or right-hand side reads."""
    if isinstance(node, ir.Var):
        return [node]
    list_vars = getattr(node, "list_vars", None)
    return list(list_vars()) if list_vars is not None else []


def redefine(func_ir: Any, name: str, old: Any, new: Any) -> None:
    """Record in ``func_ir``'s definitions that ``name`` is now assigned ``new`` where it was ``old``."""
    definitions = func_ir._definitions.get(name)
    if definitions:
        func_ir._definitions[name] = [new if d is old else d for d in definitions]


def callee_values(fe: Frontend, func_ir: Any) -> Iterator[Any]:
    """Every Python value that a call's callee in ``func_ir`` may statically name.

    Follows globals, free variables, constants, copies and attribute chains over *all* of a
    variable's definitions, from definitions rebuilt from the blocks (``func_ir`` is not changed):
    a superset of what ``func_ir.get_definition`` resolves once the DSL has repaired the IR.
    """
    ir = fe.ir
    definitions = fe.build_definitions(func_ir.blocks)

    def values(var: Any, seen: frozenset[str]) -> Iterator[Any]:
        if var.name in seen or len(seen) > 32:
            return
        seen = seen | {var.name}
        for d in definitions.get(var.name, ()):
            if isinstance(d, ir.Var):
                yield from values(d, seen)
            elif isinstance(d, ir.Global | ir.FreeVar | ir.Const):
                yield d.value
            elif isinstance(d, ir.Expr) and d.op == "getattr":
                for base in values(d.value, seen):
                    try:
                        yield getattr(base, d.attr)
                    except Exception:  # an attribute that does not resolve names nothing
                        continue

    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "call":
                yield from values(stmt.value.func, frozenset())


def calls_primitive(fe: Frontend, func_ir: Any) -> bool:
    """Whether a call in ``func_ir`` may name a cuda-coop primitive or ``coop.uniform`` (never a false no): a planner
    runs only where this is true, so it must be true for every function the planner changes."""
    return any(primitive_of(value) is not None or is_uniform_stub(value) for value in callee_values(fe, func_ir))
