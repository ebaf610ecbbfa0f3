"""Prove a thread-dependent value the same in every cooperating group of the launch's block.

:class:`Groups` is the last step of the uniformity check (:mod:`._uniformity`): a ``Param.uniform``
argument that the data-flow analysis finds thread-dependent is still accepted when its integer
arithmetic, evaluated exactly for every thread of the block, gives one value per group (the block,
or a logical warp of ``threads=`` lanes).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from typing import Any

from .._dsl._primitive import Primitive, primitive_of
from .._specs import Scope
from ._ir import MISSING, int_constant, reads, static_value

__all__ = ["Groups", "broadcast", "group_size"]


def broadcast(ir: Any, func_ir: Any, call: Any) -> bool:
    """Whether a primitive call passes the constant ``broadcast=True``."""
    var = dict(call.kws).get("broadcast")
    if var is None:
        return False
    try:
        d = func_ir.get_definition(var)
    except Exception:  # several definitions, or none: not a constant
        return False
    return isinstance(d, ir.Const) and d.value is True


def group_size(ir: Any, func_ir: Any, prim: Primitive, call: Any, block: tuple[int, int, int] | None) -> int | None:
    """How many consecutive threads (in CUB's linear order) call ``prim`` together: the block, or the
    logical warp (``threads=``); None when not known at this point."""
    if prim.scope is Scope.BLOCK:
        return None if block is None else block[0] * block[1] * block[2]
    threads = dict(call.kws).get("threads")
    if threads is None:
        tp = next((t for t in prim.spec.tparams if t.name == "threads"), None)
        return int(tp.default) if tp is not None and isinstance(tp.default, int) else None
    return int_constant(ir, func_ir, threads)


_Exact = tuple[int, tuple[int, ...]]
"""``(m, g)``: in thread ``t`` the value is ``U + g[t]``, with ``U`` the same in every thread and a
multiple of ``m`` (``m == 0``: ``U`` is 0), ``g`` known exactly (threads in CUB's linear order)."""
_GROUPED = "grouped"
"""Not known exactly, but the same in every group of the checked size."""
_VARIES = "varies"
"""May differ within a group."""
_AXES = ("x", "y", "z")
"""The attributes of ``cuda.threadIdx`` and ``cuda.blockDim``."""
_INT_OPS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.floordiv: "//", operator.mod: "%"}


class Groups:
    """Proves values the same in every aligned group of ``size`` consecutive threads of the block.

    Thread-dependent integer arithmetic (``+ - * // %``, negation) on ``cuda.threadIdx``,
    ``cuda.laneid`` and ``cuda.grid(1)`` is evaluated exactly for every thread of the launch's
    block (``cuda.blockDim`` is its constant); a uniform operand stays symbolic with a known divisor,
    enough for ``(cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // 32``. Other operations
    keep a value grouped when all their operands are (a load at a warp-uniform index from global or
    shared memory). Anything else that the analysis finds thread-dependent varies: a primitive's
    result, per-thread data in a local array, a value assigned under a thread-dependent branch,
    a call cuda-coop cannot see into.
    """

    def __init__(self, analysis: Any, block: tuple[int, int, int], size: int) -> None:
        """``analysis``: the kernel's data-flow facts (``_uniformity._Analysis``, not imported: it imports this)."""
        self.a = analysis
        self.ir = analysis.ir
        self.block, self.size = block, size
        dx, dy, dz = block
        self.tid = {
            "x": tuple(t % dx for t in range(dx * dy * dz)),
            "y": tuple(t // dx % dy for t in range(dx * dy * dz)),
            "z": tuple(t // (dx * dy) for t in range(dx * dy * dz)),
        }
        self.threads = dx * dy * dz
        cuda = analysis.callees.cuda
        self.thread_idx, self.block_dim = getattr(cuda, "threadIdx", None), getattr(cuda, "blockDim", None)
        self.grid = getattr(cuda, "grid", None)
        self.memo: dict[int, Any] = {}

    # --- the lattice ---------------------------------------------------------------------------

    def _const(self, c: int) -> _Exact:
        return 0, (c,) * self.threads

    def _uniform(self) -> _Exact:
        return 1, (0,) * self.threads

    def _grouped(self, value: Any) -> bool:
        if value == _GROUPED:
            return True
        if value == _VARIES:
            return False
        g = value[1]
        return all(len(set(g[i : i + self.size])) == 1 for i in range(0, self.threads, self.size))

    def _join(self, values: Iterable[Any]) -> Any:
        """A value computed from ``values`` in a way not tracked exactly."""
        return _GROUPED if all(self._grouped(v) for v in values) else _VARIES

    @staticmethod
    def _constant(value: Any) -> int | None:
        if isinstance(value, tuple) and value[0] == 0 and len(set(value[1])) == 1:
            return int(value[1][0])
        return None

    def _arith(self, fn: Any, lhs: Any, rhs: Any) -> Any:
        if not (isinstance(lhs, tuple) and isinstance(rhs, tuple)):
            return self._join((lhs, rhs))
        if fn in (operator.add, operator.sub):
            return math.gcd(lhs[0], rhs[0]), tuple(fn(a, b) for a, b in zip(lhs[1], rhs[1], strict=True))
        exact = self._mul(lhs, rhs) if fn is operator.mul else self._div(fn, lhs, rhs)
        return self._join((lhs, rhs)) if exact is None else exact

    def _mul(self, lhs: _Exact, rhs: _Exact) -> _Exact | None:
        (m1, g1), (m2, g2) = lhs, rhs
        c1, c2 = self._constant(lhs), self._constant(rhs)
        if c2 is not None:
            return m1 * abs(c2), tuple(a * c2 for a in g1)
        if c1 is not None:
            return m2 * abs(c1), tuple(c1 * b for b in g2)
        if len(set(g1)) == 1 and len(set(g2)) == 1:  # (U1 + a)(U2 + b) = U1*U2 + U1*b + U2*a + a*b
            a, b = g1[0], g2[0]
            return math.gcd(m1 * m2, m1 * abs(b), m2 * abs(a)), (a * b,) * self.threads
        return None

    def _div(self, fn: Any, lhs: _Exact, rhs: _Exact) -> _Exact | None:
        """``(k*c + g) // c == k + g // c`` and ``(k*c + g) % c == g % c`` (Python's and numba's int division)."""
        m, g = lhs
        c = self._constant(rhs)
        if not c or m % abs(c) != 0:
            return None
        if fn is operator.floordiv:
            return m // abs(c), tuple(a // c for a in g)
        return 0, tuple(a % c for a in g)

    # --- evaluation ----------------------------------------------------------------------------

    def same(self, stmt: Any, var: Any) -> bool:
        """Whether ``var``, where ``stmt`` reads it, is the same in every group."""
        try:
            return self._grouped(self._var(stmt, var))
        except RecursionError:  # a very long chain of definitions: not proved
            return False

    def _var(self, stmt: Any, var: Any) -> Any:
        defs = sorted(self.a._reaching(stmt, var))
        if len(defs) == 1:
            return self._def(defs[0])
        if all(d not in self.a.varying for d in defs):
            return self._uniform()
        return self._join(self._def(d) for d in defs)

    def _def(self, d: int) -> Any:
        if d in self.memo:
            return self.memo[d]
        self.memo[d] = _VARIES  # a cycle through a thread-dependent definition: not proved
        stmt = self.a.defs[d]
        value = self._eval(stmt, stmt.value, d not in self.a.varying)
        if d not in self.a.varying and not self._grouped(value):
            value = self._uniform()  # the analysis proved it uniform; only its exact form is lost
        self.memo[d] = value
        return value

    def _eval(self, stmt: Any, value: Any, uniform: bool) -> Any:
        a = self.a
        if id(stmt) in a.asserted:
            return self._uniform()
        if not uniform and a.position[id(stmt)][0] in a.divergent:
            return _VARIES  # assigned under a thread-dependent branch
        ir = self.ir
        if isinstance(value, ir.Const | ir.Global | ir.FreeVar):
            return self._literal(value.value, uniform)
        if isinstance(value, ir.Var):
            return self._var(stmt, value)
        handler = self._handlers.get(value.op) if isinstance(value, ir.Expr) else None
        if handler is not None:
            return handler(self, stmt, value, uniform)
        return self._uniform() if uniform else self._join(self._var(stmt, v) for v in reads(ir, value))

    def _literal(self, c: Any, uniform: bool) -> Any:
        if isinstance(c, int) and not isinstance(c, bool):
            return self._const(c)
        return self._uniform() if uniform else _VARIES

    def _binop(self, stmt: Any, value: Any, uniform: bool) -> Any:
        fn = value.immutable_fn if value.op == "inplace_binop" else value.fn
        lhs, rhs = self._var(stmt, value.lhs), self._var(stmt, value.rhs)
        return self._arith(fn, lhs, rhs) if fn in _INT_OPS else self._join((lhs, rhs))

    def _unary(self, stmt: Any, value: Any, uniform: bool) -> Any:
        operand = self._var(stmt, value.value)
        if value.fn is operator.neg and isinstance(operand, tuple):
            return operand[0], tuple(-x for x in operand[1])
        return self._join((operand,))

    def _cast(self, stmt: Any, value: Any, uniform: bool) -> Any:
        return self._var(stmt, value.value)

    def _getattr(self, stmt: Any, value: Any, uniform: bool) -> Any:
        base = static_value(self.ir, self.a.func_ir, value.value)
        if value.attr in _AXES and base is self.thread_idx:
            return 0, self.tid[value.attr]
        if value.attr in _AXES and base is self.block_dim:
            return self._const(self.block[_AXES.index(value.attr)])
        if value.attr == "laneid" and base is self.a.callees.cuda:
            return 0, tuple(t % 32 for t in range(self.threads))
        if uniform:
            return self._uniform()
        return self._join((self._var(stmt, value.value),)) if base is MISSING else _VARIES

    def _getitem(self, stmt: Any, value: Any, uniform: bool) -> Any:
        if uniform:
            return self._uniform()
        if self.a._content_reason(stmt, value.value) is not None:
            return _VARIES  # per-thread data in a cuda.local.array
        index = value.index_var if value.op == "static_getitem" else value.index
        return self._join(self._var(stmt, v) for v in (value.value, index) if isinstance(v, self.ir.Var))

    def _call(self, stmt: Any, call: Any, uniform: bool) -> Any:
        func_ir = self.a.func_ir
        callee = static_value(self.ir, func_ir, call.func)
        one = len(call.args) == 1 and not call.kws and int_constant(self.ir, func_ir, call.args[0]) == 1
        if callee is self.grid and one:
            return self.block[0], self.tid["x"]  # blockIdx.x * blockDim.x + threadIdx.x
        if uniform:
            return self._uniform()
        prim = primitive_of(callee) if callee is not MISSING else None
        if prim is not None and prim.scope is Scope.WARP and broadcast(self.ir, func_ir, call):
            threads = group_size(self.ir, func_ir, prim, call, self.block)  # the same in each of its logical warps
            return _GROUPED if threads and threads % self.size == 0 else _VARIES
        if self.a.kinds[id(stmt)] != "pure":  # a primitive's result, a varying intrinsic, an opaque call
            return _VARIES
        operands = [*call.args, *(v for _, v in call.kws), *((call.vararg,) if call.vararg else ())]
        if callee is not len and any(self.a._content_reason(stmt, v) is not None for v in operands):
            return _VARIES
        return self._join(self._var(stmt, v) for v in operands)

    _handlers: dict[str, Any] = {  # noqa: RUF012 (read-only)
        "binop": _binop, "inplace_binop": _binop, "unary": _unary, "cast": _cast, "getattr": _getattr,
        "getitem": _getitem, "static_getitem": _getitem, "typed_getitem": _getitem, "call": _call,
    }
