"""Refuse cooperative calls that only some of the cooperating threads reach.

A block primitive's code synchronises the block (``__syncthreads()``) and a warp primitive's
its logical warp (``__syncwarp``): called by only some threads, it hangs or computes garbage. The
check runs on the untyped IR the planner sees (after inlining, before typing), once per kernel
that calls a primitive:

1. *Thread-dependent values* (a data-flow analysis over reaching definitions): ``cuda.threadIdx``,
   ``cuda.laneid``, ``cuda.grid()``, other CUDA intrinsics whose result may differ between threads
   (atomics, shuffles, votes, random numbers, calls cuda-coop cannot see into), every primitive's
   result (``coop.block.sum`` is valid in thread 0 only), loads with a thread-dependent index, loads
   from a ``cuda.local.array`` that a thread-dependent store or a primitive's output may have
   written before (on some path), and values assigned under a thread-dependent condition. Kernel
   arguments, constants, ``blockIdx``/``blockDim``/``gridDim``, ``cuda.gridsize()``,
   ``cuda.syncthreads_count/and/or()``, loads of shared or global memory at a uniform index, a block
   scan's ``block_aggregate`` and ``cuda.coop.uniform(value)`` are uniform.
2. *Control dependence* (post-dominators): a call is divergent when it is control-dependent,
   directly or through other divergent branches, on a branch whose condition is thread-dependent:
   an ``if``, the exit test of a loop (a thread-dependent trip count), or an early ``return`` or
   ``break`` under such a condition. A call after a thread-dependent ``if`` that rejoins is fine.

Warp primitives are checked the same way: anything derived from ``threadIdx`` counts as
lane-dependent (a warp index ``threadIdx.x // 32`` too); ``cuda.coop.uniform`` asserts that a value
is the same across the logical warp.

3. *Uniform arguments*: a parameter the spec marks ``Param.uniform`` (``valid_items``, ``begin_bit``,
   the ``offset`` of a tile...) is one value for all the threads that call together. An argument the
   analysis above finds thread-dependent is refused, unless :class:`~._uniform_groups.Groups` proves it the same in
   every cooperating group: it evaluates the argument's integer arithmetic exactly for every thread of
   the launch's block (``cuda.threadIdx``, ``cuda.laneid``, ``cuda.grid(1)`` and ``cuda.blockDim``
   are known there; other uniform values stay symbolic, with a known divisor), so
   ``(cuda.threadIdx.x // 32) * tile`` is accepted as a warp primitive's ``offset=`` and
   ``cuda.threadIdx.x % 32`` is refused. What it cannot evaluate is thread-dependent, as above.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._dsl._primitive import Primitive, primitive_of
from .._dsl._uniform import is_uniform_stub
from .._specs import ArgKind, Scope
from ..errors import UsageError
from ._flow import cfg, control_dependence, reachable, reaching_definitions
from ._ir import MISSING, dotted, drop_unused_definitions, reads, redefine, source_line, static_value
from ._uniform_groups import Groups, broadcast, group_size

if TYPE_CHECKING:
    from ._frontend import Frontend

__all__ = ["check_uniform_calls", "rewrite_uniform_calls"]


# ``cuda.<name>`` callables by what their result is; any other callable of the DSL (``Frontend.packages``) is
# treated as thread-dependent (atomics, shuffles, votes, random numbers, grid(), intrinsics and
# device functions that were not inlined).
_UNIFORM_CALLS = ("gridsize", "syncthreads_count", "syncthreads_and", "syncthreads_or")
_PURE_CALLS = (
    "fma", "cbrt", "brev", "clz", "ffs", "popc", "selp", "syncthreads", "syncwarp", "threadfence",
    "threadfence_block", "threadfence_system", "nanosleep", "ldca", "ldcg", "ldcs", "ldlu", "ldcv",
    "stcg", "stcs", "stwb", "stwt", "local.array", "local_array", "shared.array", "shared_array",
    "const.array_like",
)
# The half-precision intrinsics (``Frontend.half_modules``: conversions like ``ushort_as_bfloat16``, arithmetic,
# comparisons) are pure, except their shuffles and atomics.
_HALF_VARYING = ("shfl", "atomic")
_VARYING_ATTRS = frozenset({"threadIdx", "laneid"})


class _Callees:
    """Classifies a kernel's callees: ``"primitive"``, ``"uniform"``, ``"pure"``, ``"varying"``."""

    def __init__(self, fe: Frontend) -> None:
        cuda = fe.cuda
        self.fe = fe
        self.cuda = cuda
        self.sources = fe.thread_varying
        self.local_array = {id(cuda.local.array), id(getattr(cuda, "local_array", None))}

        def lookup(name: str) -> Any:
            obj = cuda
            for part in name.split("."):
                obj = getattr(obj, part, None)
            return obj

        self.uniform = {id(lookup(n)) for n in _UNIFORM_CALLS} - {id(None)}
        self.pure = {id(lookup(n)) for n in _PURE_CALLS} - {id(None)}

    def kind(self, obj: Any) -> str:
        if obj is MISSING:
            return "unknown"
        if primitive_of(obj) is not None:
            return "primitive"
        if id(obj) in self.uniform or is_uniform_stub(obj):
            return "uniform"
        fe = self.fe
        module = str(getattr(obj, "__module__", "") or "")
        name = str(getattr(obj, "__name__", "")).lower()
        half = module in fe.half_modules and not any(word in name for word in _HALF_VARYING)
        cast = module.startswith(fe.types_modules)  # types.int32(n): a conversion
        if id(obj) in self.pure or module in fe.pure_modules or half or cast:
            return "pure"
        modules = (str(getattr(obj, "__module__", "") or ""), type(obj).__module__)
        if any(m.startswith(fe.packages) for m in modules):
            return "varying"
        return "pure"  # Python builtins, math, NumPy: the result varies only if an argument does


def _written(ir: Any, prim: Primitive, call: Any) -> list[Any]:
    """The arguments of a primitive call that it may fill with per-thread data.

    Outputs, arrays CUB updates in place, writable pointers and callback states; an omitted
    in-place output writes its input. A block primitive's aggregate (``block_aggregate``) is the
    same in every thread, so it is not per-thread data. Arguments that do not bind all count.
    """
    try:
        bound = prim.signature.bind(*call.args, **dict(call.kws)).arguments
    except TypeError:  # the planner reports it
        return [v for v in (*call.args, *(v for _, v in call.kws)) if isinstance(v, ir.Var)]
    states = {state for state, _ in prim.states}
    names = {inp for out, inp in prim.in_place if out not in bound}
    for name in bound:
        p = prim.param(name)
        if p is None:
            written = name in states
        elif p.kind is ArgKind.AGGREGATE:
            written = prim.scope is not Scope.BLOCK
        else:
            written = (p.kind is ArgKind.OUTPUT or (p.kind is ArgKind.ARRAY and p.inout)
                       or (p.kind is ArgKind.POINTER and not p.const))
        if written:
            names.add(name)
    return [bound[n] for n in sorted(names) if isinstance(bound.get(n), ir.Var)]


class _Analysis:
    """Which definitions hold thread-dependent values, and which blocks only some threads run."""

    def __init__(self, fe: Frontend, func_ir: Any, asserted: Iterable[Any]) -> None:
        self.ir = fe.ir
        self.func_ir = func_ir
        self.blocks: dict[int, Any] = dict(func_ir.blocks)
        self.callees = _Callees(fe)
        self.asserted = {id(s) for s in asserted}
        self.defs: list[Any] = []
        self.def_ids: dict[int, int] = {}
        for block in self.blocks.values():
            for stmt in block.body:
                if isinstance(stmt, self.ir.Assign):
                    self.def_ids[id(stmt)] = len(self.defs)
                    self.defs.append(stmt)
        self.uses = self._reaching_definitions()
        self.kinds = {id(s): self._call_kind(s.value) for s in self.defs if self._is_call(s.value)}
        self.roots = self._local_array_roots()
        self.succs = cfg(self.blocks)
        self.cd = control_dependence(self.succs)
        self.varying: dict[int, str] = {}
        """Definition id -> where its thread dependence comes from."""
        self.position = {id(stmt): (label, i) for label, b in self.blocks.items() for i, stmt in enumerate(b.body)}
        self.later = reachable(self.succs)
        self.content: dict[int, dict[int, str]] = {}
        """Local array (its definition id) -> statements that may write per-thread data to it -> why."""
        self.branches: dict[int, str] = {}
        """Block label -> why its branch condition is thread-dependent."""
        self.divergent: set[int] = set()
        self._solve()

    # --- structure -----------------------------------------------------------------------------

    def _is_call(self, value: Any) -> bool:
        return isinstance(value, self.ir.Expr) and value.op == "call"

    def _static(self, var: Any) -> Any:
        return static_value(self.ir, self.func_ir, var)

    def _call_kind(self, call: Any) -> str:
        return self.callees.kind(self._static(call.func))

    def _reaching_definitions(self) -> dict[int, dict[str, frozenset[int]]]:
        """For each statement, the definitions that may reach each variable it reads."""
        uses: dict[int, dict[str, frozenset[int]]] = {}
        for label, current in reaching_definitions(self.ir, self.blocks, self.def_ids).items():
            for stmt in self.blocks[label].body:
                read = reads(self.ir, stmt.value if isinstance(stmt, self.ir.Assign) else stmt)
                uses[id(stmt)] = {v.name: current.get(v.name, frozenset()) for v in read}
                if isinstance(stmt, self.ir.Assign):
                    current[stmt.target.name] = frozenset({self.def_ids[id(stmt)]})
        return uses

    def _local_array_roots(self) -> dict[int, frozenset[int]]:
        """For each definition, the ``cuda.local.array`` definitions it may be (a view of)."""
        roots: dict[int, frozenset[int]] = {}
        for d, stmt in enumerate(self.defs):
            value = stmt.value
            if self._is_call(value) and id(self._static(value.func)) in self.callees.local_array:
                roots[d] = frozenset({d})
        changed = True
        while changed:
            changed = False
            for d, stmt in enumerate(self.defs):
                value = stmt.value
                if isinstance(value, self.ir.Var):
                    base = value
                elif isinstance(value, self.ir.Expr) and value.op in ("getitem", "static_getitem", "getattr", "cast"):
                    base = value.value
                else:
                    continue
                new = roots.get(d, frozenset()).union(*(roots.get(r, frozenset()) for r in self._reaching(stmt, base)))
                if new != roots.get(d, frozenset()):
                    roots[d] = new
                    changed = True
        return roots

    def _reaching(self, stmt: Any, var: Any) -> frozenset[int]:
        return self.uses[id(stmt)].get(var.name, frozenset())

    def _roots_of(self, stmt: Any, var: Any) -> frozenset[int]:
        return frozenset().union(*(self.roots.get(d, frozenset()) for d in self._reaching(stmt, var)))

    # --- taint ---------------------------------------------------------------------------------

    def _var_reason(self, stmt: Any, var: Any) -> str | None:
        for d in sorted(self._reaching(stmt, var)):
            if d in self.varying:
                return self.varying[d]
        return None

    def _first(self, stmt: Any, variables: Iterable[Any], contents: bool = False) -> str | None:
        """Why any of ``variables`` is thread-dependent (or, with ``contents``, its local array's data)."""
        for var in variables:
            reason = self._var_reason(stmt, var)
            if reason is None and contents:
                reason = self._content_reason(stmt, var)
            if reason is not None:
                return reason
        return None

    def _source(self, stmt: Any) -> str | None:
        """Why the value ``stmt`` assigns differs between threads, or None if it is uniform."""
        value, where = stmt.value, source_line(stmt.loc)
        if isinstance(value, self.ir.Global | self.ir.FreeVar):
            source = any(value.value is s for s in self.callees.sources)
            return f"cuda.{value.value.__name__} at {where}" if source else None
        if not isinstance(value, self.ir.Expr):
            return self._first(stmt, reads(self.ir, value))  # copies; arguments and constants read nothing
        cuda = self.callees.cuda
        if value.op == "getattr" and value.attr in _VARYING_ATTRS and self._static(value.value) is cuda:
            return f"cuda.{value.attr} at {where}"
        if value.op == "call":
            return self._call_source(stmt, value, where)
        if value.op in ("getitem", "static_getitem", "typed_getitem"):
            index = value.index if value.op != "static_getitem" else value.index_var
            return self._first(stmt, [v for v in (value.value, index) if isinstance(v, self.ir.Var)], contents=True)
        return self._first(stmt, reads(self.ir, value))

    def _call_source(self, stmt: Any, call: Any, where: str) -> str | None:
        kind = self.kinds[id(stmt)]
        if kind == "primitive":
            prim = primitive_of(self._static(call.func))
            if prim is not None and prim.scope is Scope.BLOCK and broadcast(self.ir, self.func_ir, call):
                return None  # broadcast=True: the same value in every thread of the block
            return f"the result of coop.{prim.name}() at {where}"  # type: ignore[union-attr]
        if kind == "varying":
            return f"{dotted(self.ir, self.func_ir, call.func)}() at {where}"
        if kind == "uniform":
            return None
        operands = [*((call.func,) if kind == "unknown" else ()), *call.args, *(v for _, v in call.kws),
                    *((call.vararg,) if call.vararg else ())]
        return self._first(stmt, operands, contents=self._static(call.func) is not len)

    def _content_reason(self, stmt: Any, var: Any) -> str | None:
        """Why the local array ``var`` may hold per-thread data where ``stmt`` reads it."""
        label, index = self.position[id(stmt)]
        for root in sorted(self._roots_of(stmt, var)):
            for write, why in self.content.get(root, {}).items():
                w_label, w_index = self.position[write]
                if (w_label == label and w_index < index) or label in self.later[w_label]:
                    return why
        return None

    def _taint_contents(self, stmt: Any, variables: Iterable[Any], why: str) -> bool:
        changed = False
        for var in variables:
            for root in sorted(self._roots_of(stmt, var)):
                writes = self.content.setdefault(root, {})
                if id(stmt) not in writes:
                    array = source_line(self.defs[root].loc)
                    writes[id(stmt)] = f"per-thread data in the cuda.local.array of {array} ({why})"
                    changed = True
        return changed

    def _writes(self, label: int, stmt: Any) -> bool:
        """Mark local arrays that ``stmt`` may fill with per-thread data."""
        divergent = label in self.divergent
        where = source_line(stmt.loc)
        if isinstance(stmt, self.ir.SetItem | self.ir.StaticSetItem | self.ir.SetAttr):
            index = getattr(stmt, "index_var" if isinstance(stmt, self.ir.StaticSetItem) else "index", None)
            why = self._first(stmt, [v for v in (index, stmt.value) if isinstance(v, self.ir.Var)])
            if why is None and not divergent:
                return False
            return self._taint_contents(stmt, [stmt.target], f"written at {where}")
        if not (isinstance(stmt, self.ir.Assign) and self._is_call(stmt.value)):
            return False
        call, kind = stmt.value, self.kinds[id(stmt)]
        args = [*call.args, *(v for _, v in call.kws)]
        if kind == "primitive":
            prim: Primitive = primitive_of(self._static(call.func))  # type: ignore[assignment]
            written = _written(self.ir, prim, call)
            return self._taint_contents(stmt, written, f"written by coop.{prim.name}() at {where}")
        if kind == "varying" or (kind == "unknown" and (divergent or self.def_ids[id(stmt)] in self.varying)):
            callee = dotted(self.ir, self.func_ir, call.func)
            return self._taint_contents(stmt, [call.func, *args], f"passed to {callee}() at {where}")
        return False

    def _solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for label, block in self.blocks.items():
                for stmt in block.body:
                    if isinstance(stmt, self.ir.Assign) and id(stmt) not in self.asserted:
                        d = self.def_ids[id(stmt)]
                        if d not in self.varying:
                            why = self._source(stmt)
                            if why is None and label in self.divergent:
                                why = f"a value assigned under the thread-dependent branch of {self._culprit(label)[1]}"
                            if why is not None:
                                self.varying[d] = why
                                changed = True
                    changed |= self._writes(label, stmt)
                term = block.body[-1] if block.body else None
                if isinstance(term, self.ir.Branch) and label not in self.branches and len(self.succs[label]) > 1:
                    why = self._var_reason(term, term.cond)
                    if why is not None:
                        self.branches[label] = why
                        changed = True
            for label in self.blocks:
                if label not in self.divergent and any(a in self.branches or a in self.divergent
                                                       for a in self.cd[label]):
                    self.divergent.add(label)
                    changed = True

    def _culprit(self, label: int) -> tuple[int, str]:
        """The nearest thread-dependent branch that ``label`` (a divergent block) depends on, and its place."""
        seen, queue = {label}, [label]
        while queue:
            current = queue.pop(0)
            for a in sorted(self.cd[current], key=lambda b: (b not in self.cd[b], b)):  # loops first
                if a in self.branches:
                    return a, source_line(self.blocks[a].body[-1].loc)
                if a not in seen and a in self.divergent:
                    seen.add(a)
                    queue.append(a)
        return label, source_line(self.blocks[label].body[-1].loc)  # unreachable for a divergent block

    def explain(self, label: int) -> str:
        branch, where = self._culprit(label)
        why = self.branches.get(branch, "thread-dependent data")
        if branch in self.cd[branch]:
            return f"it is inside the loop at {where}, whose trip count depends on {why}"
        return f"whether a thread gets there depends on the condition at {where}, which depends on {why}"


def _message(prim: Primitive, stmt: Any, explanation: str) -> str:
    call = f"coop.{prim.name}() at {source_line(stmt.loc)}"
    if prim.scope is Scope.WARP:
        return (
            f"{call} is reached by only some lanes of its logical warp: {explanation}. Every lane of the logical "
            "warp must call a warp primitive (its code synchronises the warp with __syncwarp), so on the GPU this "
            "would hang or give undefined results. cuda-coop counts every value derived from cuda.threadIdx, "
            "cuda.laneid, cuda.grid() or per-thread data as lane-dependent. Move the call to where every lane of "
            "the warp reaches it, or, if the condition is the same for every lane of the logical warp (e.g. "
            "warp = cuda.threadIdx.x // 32 with threads=32), assert it with cuda.coop.uniform(...): "
            "`if coop.uniform(cond):` (see the docs page 'Uniform control flow')"
        )
    return (
        f"{call} is reached by only some threads of the block: {explanation}. Every thread of the block must "
        "call a block primitive (its code synchronises the block with __syncthreads()), so on the GPU this would "
        "hang or give undefined results. Move the call to where every thread reaches it (e.g. instead of "
        "`if i >= n: return`, let every thread call it and pass valid_items= or guard the loads and stores), or, "
        "if the condition is the same for every thread of the block, assert it with cuda.coop.uniform(...): "
        "`if coop.uniform(cond):` (see the docs page 'Uniform control flow')"
    )


def _argument_message(prim: Primitive, stmt: Any, name: str, why: str, size: int | None) -> str:
    call = f"coop.{prim.name}() at {source_line(stmt.loc)}"
    param = prim.param(name)
    what = f"{name}= (the array)" if param is not None and param.kind is ArgKind.POINTER else f"{name}="
    if prim.scope is Scope.WARP:
        who = "every lane of its logical warp" + (f" (threads={size})" if size else "")
        rule = (
            "cuda-coop accepts a value derived from cuda.threadIdx only where it can compute it for every lane "
            "and finds it the same in each logical warp (e.g. (cuda.threadIdx.x // threads) * tile)"
        )
    else:
        who = "every thread of the block"
        rule = (
            "cuda-coop counts values derived from cuda.threadIdx, cuda.grid() or per-thread data as thread-dependent "
            "unless it can compute them for every thread and finds them the same in the whole block"
        )
    return (
        f"{call}: {what} must be the same in {who}, but it depends on {why}. CUB reads it as one value for all "
        "the threads that call together, so a thread-dependent value gives silently wrong results or a hang on "
        f"the GPU; {rule}. Compute it from values that are the same in every thread (kernel arguments, constants, "
        "cuda.blockIdx, cuda.blockDim, loads at a uniform index), or, if it is in fact the same in "
        f"{who}, assert it with cuda.coop.uniform(...): `{name}=coop.uniform(value)` (see the docs page "
        "'Uniform control flow')"
    )


def check_uniform_calls(
    fe: Frontend,
    func_ir: Any,
    calls: Sequence[tuple[Any, Any, Primitive]],
    asserted: Iterable[Any] = (),
    block: Sequence[int] | None = None,
) -> None:
    """Raise :class:`~cuda.coop.errors.UsageError` for the first primitive call not every thread reaches,
    or that passes a thread-dependent value for a parameter the spec marks ``Param.uniform``.

    Parameters
    ----------
    fe:
        The DSL whose IR ``func_ir`` is.
    func_ir:
        The kernel's untyped IR, before any call is rewritten.
    calls:
        ``(ir block, call statement, primitive)`` for each primitive call.
    asserted:
        Statements whose value the user asserted uniform (from :func:`rewrite_uniform_calls`).
    block:
        The launch's block dimensions: with them an argument derived from ``cuda.threadIdx`` is
        accepted where it is provably the same in every cooperating group (a warp index for a warp
        primitive); without them every thread-dependent argument is refused.
    """
    analysis = _Analysis(fe, func_ir, asserted)
    dims: tuple[int, int, int] | None = None
    if block is not None:
        x, y, z = (*(int(d) for d in block), 1, 1)[:3]
        dims = (x, y, z)
    labels = {id(b): label for label, b in analysis.blocks.items()}
    groups: dict[int, Groups] = {}
    for ir_block, stmt, prim in calls:
        label = labels[id(ir_block)]
        if label in analysis.divergent:
            raise UsageError(_message(prim, stmt, analysis.explain(label)))
        for name, var in _uniform_arguments(fe.ir, prim, stmt.value):
            why = analysis._var_reason(stmt, var)
            if why is None:
                continue
            size = group_size(fe.ir, func_ir, prim, stmt.value, dims)
            if size is not None and dims is not None and (size <= 0 or (dims[0] * dims[1] * dims[2]) % size):
                break  # threads= that does not divide the block: the planner refuses it, naming threads=
            if dims is not None and size is not None:
                check = groups.setdefault(size, Groups(analysis, dims, size))
                if check.same(stmt, var):
                    continue
            raise UsageError(_argument_message(prim, stmt, name, why, size))


def _uniform_arguments(ir: Any, prim: Primitive, call: Any) -> list[tuple[str, Any]]:
    """``(argument, variable)`` for each argument of ``call`` that must be uniform (``Param.uniform``; a
    pointer's offset keyword with its pointer)."""
    try:
        bound = prim.signature.bind(*call.args, **dict(call.kws)).arguments
    except TypeError:  # the planner reports it
        return []
    offsets = dict(prim.offsets)
    found = []
    for name, var in bound.items():
        param = prim.param(name)
        if param is None and name in offsets:
            param = prim.param(offsets[name])
        if param is not None and param.uniform and isinstance(var, ir.Var):
            found.append((name, var))
    return found


def rewrite_uniform_calls(fe: Frontend, func_ir: Any) -> list[Any]:
    """Replace each ``x = coop.uniform(value)`` by ``x = value``; return those statements.

    Kernels that do not call ``coop.uniform`` are left untouched.
    """
    ir = fe.ir
    rewritten: list[Any] = []
    callees: set[str] = set()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            call = stmt.value if isinstance(stmt, ir.Assign) else None
            if not (isinstance(call, ir.Expr) and call.op == "call"):
                continue
            if not is_uniform_stub(static_value(ir, func_ir, call.func)):
                continue
            args = [*call.args, *(v for k, v in call.kws if k == "value")]
            extra = [k for k, _ in call.kws if k != "value"]
            if len(args) != 1 or extra or call.vararg is not None or getattr(call, "varkwarg", None) is not None:
                raise UsageError(
                    f"coop.uniform() at {source_line(stmt.loc)} takes exactly one value (the value the threads share), "
                    f"e.g. coop.uniform(n > 0); got {len(call.args)} positional and keywords {[k for k, _ in call.kws]}"
                )
            stmt.value = args[0]
            redefine(func_ir, stmt.target.name, call, args[0])
            callees.add(call.func.name)
            rewritten.append(stmt)
    if rewritten:
        drop_unused_definitions(ir, func_ir, callees)
    return rewritten
