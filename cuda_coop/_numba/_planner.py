"""Find cuda-coop calls in a kernel's untyped IR and rewrite them into specialised intrinsic calls.

Each DSL runs :func:`plan_kernel` after it inlines device functions and before typing (numba-cuda-mlir:
a whole-function planner; numba-cuda: a pass of its untyped pipeline). For each call whose callee
resolves to a public primitive stub it records a :class:`CallSite` (the primitive, its compile-time
arguments, per-thread extents, the launch's block shape) and replaces the call by
``coop_call(<site id>, *runtime arguments)``, the DSL's intrinsic. Kernels without cuda-coop calls are
left alone (and stay launch-generic). The DSL's :class:`Launch` gives the block shape and the kernel
launch bounds equal to the block size.

Call sites are kept in ``_sites`` until their kernel's provider has produced its LTO-IR.
"""

from __future__ import annotations

import logging
import time
import types as pytypes
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._dsl._primitive import Primitive, primitive_of
from .._specs import Scope
from ..errors import UsageError
from ._ir import drop_unused_definitions
from ._sites import ArrayOrigin, CallSite, KernelPlan
from ._uniformity import check_uniform_calls, rewrite_uniform_calls

if TYPE_CHECKING:
    from ._frontend import Frontend

__all__ = ["MAX_BLOCK_THREADS", "CapturingLambda", "Launch", "plan_kernel"]

MAX_BLOCK_THREADS = 1024
_log = logging.getLogger("cuda.coop")
_MISSING: Any = object()


class Launch(Protocol):
    """What the planner reads of the compile's launch, through the DSL's seams."""

    arch: str | None
    """The compile's target (``"sm_90"``) when it is known while planning; None: the DSL decides at lowering."""

    def available(self) -> bool:
        """Whether the compile was started by a configured launch (so the block shape is known)."""

    def block(self) -> tuple[int, ...]:
        """The launch's block shape (1 to 3 integers); reading it makes the compile launch-specialised."""

    def bound(self, threads: int) -> int | None:
        """Bound the kernel to ``threads`` threads per block (``__launch_bounds__``); the kernel's own bound, if it
        set one (the caller checks it), else None."""


def _definition(func_ir: Any, var: Any) -> Any:
    """The single definition of ``var``, or _MISSING (several definitions, or none)."""
    try:
        return func_ir.get_definition(var)
    except Exception:
        return _MISSING


def _resolve(ir: Any, func_ir: Any, var: Any, depth: int = 0) -> Any:
    """The Python value ``var`` statically refers to (globals, constants, attribute chains, tuples, and
    functions defined in the kernel that capture nothing); _MISSING when it is not a compile-time value."""
    d = _definition(func_ir, var) if depth <= 32 else _MISSING
    if isinstance(d, ir.Global | ir.FreeVar | ir.Const):
        return d.value
    op = getattr(d, "op", None) if isinstance(d, ir.Expr) else None
    if op == "getattr":
        base = _resolve(ir, func_ir, d.value, depth + 1)
        return _MISSING if base is _MISSING else getattr(base, d.attr, _MISSING)
    if op == "build_tuple":
        items = tuple(_resolve(ir, func_ir, v, depth + 1) for v in d.items)
        return _MISSING if any(i is _MISSING for i in items) else items
    if op == "call":
        return _scalar_constructor(ir, func_ir, d, depth)
    return _kernel_function(ir, func_ir, d) if op == "make_function" else _MISSING


def _scalar_constructor(ir: Any, func_ir: Any, call: Any, depth: int) -> Any:
    """``np.int32(16)``, ``np.bool_(True)``, ``int(4)``... of constant arguments: the scalar; else _MISSING."""
    fn = _resolve(ir, func_ir, call.func, depth + 1)
    numeric = isinstance(fn, type) and (issubclass(fn, np.number | np.bool_) or fn in (int, bool, float))
    if not numeric or call.kws or call.vararg is not None or len(call.args) != 1:
        return _MISSING
    arg = _resolve(ir, func_ir, call.args[0], depth + 1)
    if arg is _MISSING or not isinstance(arg, int | float | bool | np.number | np.bool_):
        return _MISSING
    try:
        return fn(arg)
    except (OverflowError, ValueError, TypeError):
        return _MISSING


class CapturingLambda:
    """A function defined inside the kernel that captures the kernel's variables (not compilable alone)."""

    def __init__(self, name: str) -> None:
        self.name = name


def _kernel_function(ir: Any, func_ir: Any, d: Any) -> Any:
    """The Python function a ``lambda``/``def`` inside the kernel makes, when it captures nothing."""
    if d.closure is not None:
        return CapturingLambda(str(d.name))
    defaults = _resolve(ir, func_ir, d.defaults) if d.defaults is not None else None
    if defaults is _MISSING:
        return _MISSING
    func_globals = getattr(func_ir.func_id.func, "__globals__", {})
    return pytypes.FunctionType(d.code, func_globals, d.code.co_name, defaults)


def _origin(fe: Frontend, func_ir: Any, var: Any, depth: int = 0) -> ArrayOrigin:
    """Where a runtime argument comes from (see ``ArrayOrigin``): a kernel argument, a ``cuda.local.array`` or
    ``cuda.shared.array`` of the kernel (with its extent when its shape is a constant), or an element or slice
    of one of these; something else otherwise (its space unknown)."""
    ir = fe.ir
    d = _definition(func_ir, var) if depth <= 32 else _MISSING
    if d is _MISSING:
        return ArrayOrigin(what="a variable with several definitions")
    if isinstance(d, ir.Arg):
        return ArrayOrigin("global", root=("arg", d.index), what=f"the kernel argument {d.name!r} (global memory)")
    if isinstance(d, ir.Global | ir.FreeVar | ir.Const):
        return ArrayOrigin(what="a global constant")
    if isinstance(d, ir.Expr) and d.op in ("getitem", "static_getitem"):
        base = _origin(fe, func_ir, d.value, depth + 1)
        return replace(base, sliced=True, what=f"an element or slice of {base.what or 'another array'}")
    if isinstance(d, ir.Expr) and d.op == "call":
        fn = _resolve(ir, func_ir, d.func)
        kinds = ((fe.cuda.local.array, "local"), (fe.cuda.shared.array, "shared"))
        kind = next((k for f, k in kinds if fn is f), None)
        if kind is not None:
            shape = _array_shape(ir, func_ir, d)
            extent = shape[0] if isinstance(shape, tuple) and len(shape) == 1 and shape[0] > 0 else None
            what = f"a cuda.{kind}.array of shape {shape}"
            align = _array_align(fe, func_ir, d)
            return ArrayOrigin(kind, extent, root=("alloc", id(d)), what=what, align=align)  # type: ignore[arg-type]
    return ArrayOrigin(what="not an array defined in this kernel")


def _array_align(fe: Frontend, func_ir: Any, call: Any) -> int | None:
    """The ``alignment=`` of an array's definition (or numba-cuda-mlir's own ``alignas=``, which its 0.5 typing refuses,
    or the third positional argument); when omitted (or None) the DSL's default (``Frontend.array_align``); None when
    it is not a compile-time integer."""
    ir = fe.ir
    kws = dict(call.kws)
    var = kws.get("alignas", kws.get("alignment", call.args[2] if len(call.args) > 2 else None))
    value = None if var is None else _resolve(ir, func_ir, var)
    if value is None:
        dtype_var = call.args[1] if len(call.args) > 1 else kws.get("dtype")
        return fe.array_align(None if dtype_var is None else _resolve(ir, func_ir, dtype_var))
    return int(value) if isinstance(value, int | np.integer) and not isinstance(value, bool) else None


def _array_shape(ir: Any, func_ir: Any, call: Any) -> Any:
    """The shape of a ``cuda.local.array`` / ``cuda.shared.array`` call: a tuple of ints, or _MISSING."""
    shape_var = call.args[0] if call.args else dict(call.kws).get("shape")
    shape = _MISSING if shape_var is None else _resolve(ir, func_ir, shape_var)
    if isinstance(shape, int | np.integer) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, tuple) and all(isinstance(n, int | np.integer) and not isinstance(n, bool) for n in shape):
        return tuple(int(n) for n in shape)
    return _MISSING


def _per_thread_extent(fe: Frontend, func_ir: Any, var: Any, where: str, *, name: str, param: str) -> None:
    """Refuse a per-thread ``cuda.local.array`` whose shape is not one constant positive extent."""
    ir = fe.ir
    d = _definition(func_ir, var)
    if not (isinstance(d, ir.Expr) and d.op == "call" and _resolve(ir, func_ir, d.func) is fe.cuda.local.array):
        return  # not a local array: typing refuses it with what it is
    shape = _array_shape(ir, func_ir, d)
    if shape is _MISSING:
        raise UsageError(
            f"coop.{name}() at {where}: the extent of {param!r} (its cuda.local.array shape) must be a "
            "compile-time constant integer, e.g. cuda.local.array(16, np.float32) with 16 a literal or a "
            "module-level constant"
        )
    if len(shape) != 1:
        raise UsageError(
            f"coop.{name}() at {where}: {param!r} is a {len(shape)}-D cuda.local.array {shape}; per-thread items are "
            "a 1-D array, e.g. cuda.local.array(16, np.float32)"
        )
    if shape[0] < 1:
        raise UsageError(f"coop.{name}() at {where}: {param!r} has extent {shape[0]}; it must be at least 1")


def _split_arguments(
    ir: Any, func_ir: Any, prim: Primitive, bound: Any, where: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(compile-time values, runtime variables, runtime constants) of a call's bound arguments."""
    static: dict[str, Any] = {}
    runtime: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    for param in prim.signature.parameters.values():
        given = param.name in bound.arguments
        if param.name in prim.static:
            static[param.name] = _static_value(ir, func_ir, prim, param, bound, where=where) if given else param.default
        elif given:
            var = bound.arguments[param.name]
            value = _resolve(ir, func_ir, var)
            if value is not None:  # an explicit None means "not given"
                runtime[param.name] = var
                if isinstance(value, int | float | complex | np.number | np.bool_):
                    _check_integer_constant(prim, param.name, value, where)
                    constants[param.name] = value
        elif param.default is param.empty:
            raise UsageError(f"coop.{prim.name}() at {where}: missing argument {param.name!r}")
    return static, runtime, constants


def _check_integer_constant(prim: Primitive, name: str, value: Any, where: str) -> None:
    """A constant integer argument numba can type: within int64, or uint64 for positive values."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise UsageError(
            f"coop.{prim.name}() at {where}: {name}={value} does not fit a 64-bit integer (int64 or uint64); "
            "pass a value in [-2**63, 2**64)"
        )


def _static_value(ir: Any, func_ir: Any, prim: Primitive, param: Any, bound: Any, *, where: str) -> Any:
    value = _resolve(ir, func_ir, bound.arguments[param.name])
    if value is _MISSING:
        raise UsageError(
            f"coop.{prim.name}() at {where}: {param.name}= must be a compile-time constant (a literal, a "
            "module-level constant or function, or a lambda that captures nothing)"
        )
    if isinstance(value, CapturingLambda):
        raise UsageError(
            f"coop.{prim.name}() at {where}: {param.name}= is a function defined in the kernel that uses "
            "the kernel's variables; define it at module level (or make it use only its arguments)"
        )
    return value


def _plan_site(
    fe: Frontend, func_ir: Any, stmt: Any, prim: Primitive, kernel: KernelPlan
) -> tuple[CallSite, list[Any], list[Any]]:
    call = stmt.value
    where = f"{stmt.loc.filename}:{stmt.loc.line}"
    if call.vararg is not None or getattr(call, "varkwarg", None) is not None:
        raise UsageError(f"coop.{prim.name}() at {where}: *args and **kwargs are not supported; pass arguments by name")
    bound = prim.bind(tuple(call.args), dict(call.kws), where)
    static, runtime, constants = _split_arguments(fe.ir, func_ir, prim, bound, where)
    origins = {name: _origin(fe, func_ir, var) for name, var in runtime.items()}
    for name in prim.per_thread & runtime.keys():
        _per_thread_extent(fe, func_ir, runtime[name], where, name=prim.name, param=name)
    site = CallSite(
        frontend=fe, primitive=prim, block=kernel.block, arch=kernel.arch, static=static, origins=origins,
        constants=constants, runtime=tuple(runtime), where=where,
    )
    static_vars = [bound.arguments[name] for name in prim.static if name in bound.arguments]
    return site, list(runtime.values()), static_vars


def _entry_block_scope_calls(func_ir: Any, found: list[tuple[Any, Any, Primitive]]) -> list[Any]:
    """The block-scope calls in the kernel's entry block, in order. The entry block runs once, before
    everything else, so only the calls before one of them can have used the block's shared storage."""
    entry = func_ir.blocks[min(func_ir.blocks)]
    return [stmt for block, stmt, prim in found if block is entry and prim.scope is Scope.BLOCK]


def plan_kernel(fe: Frontend, func_ir: Any, launch: Launch) -> bool:
    """Rewrite the cuda-coop calls of ``func_ir`` (the kernel's untyped IR, device functions inlined) for
    ``launch``; whether the IR changed. Raises a UsageError naming the call for a call that cannot be planned.
    """
    start = time.perf_counter()
    changed = _rewrite(fe, func_ir, launch)
    if changed:
        name = getattr(func_ir.func_id, "func_qualname", "?")
        _log.debug("cuda.coop: planned %s in %.3f s", name, time.perf_counter() - start)
    return changed


def _rewrite(fe: Frontend, func_ir: Any, launch: Launch) -> bool:
    ir = fe.ir
    found = []
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "call":
                prim = primitive_of(_resolve(ir, func_ir, stmt.value.func))
                if prim is not None:
                    found.append((block, stmt, prim))
    asserted = rewrite_uniform_calls(fe, func_ir)  # coop.uniform(v) -> v, remembered as asserted uniform
    if not found or not launch.available():
        # No launch: the calls stay, and typing the stub explains what is missing.
        return bool(asserted)
    dims = tuple(int(d) for d in launch.block())
    block_dims = (*dims, *(1,) * (3 - len(dims)))
    threads = block_dims[0] * block_dims[1] * block_dims[2]
    if threads > MAX_BLOCK_THREADS:
        _, stmt, prim = found[0]
        raise UsageError(
            f"coop.{prim.name}() at {stmt.loc.filename}:{stmt.loc.line}: the launch's block {block_dims} has "
            f"{threads} threads; CUB block primitives support at most {MAX_BLOCK_THREADS}"
        )
    user_bound = launch.bound(threads)
    if user_bound is not None and user_bound < threads:
        _, stmt, prim = found[0]
        raise UsageError(
            f"coop.{prim.name}() at {stmt.loc.filename}:{stmt.loc.line}: the kernel's launch_bounds allow "
            f"{user_bound} threads per block but it is launched with {threads} {block_dims}"
        )
    check_uniform_calls(fe, func_ir, found, asserted, block_dims)  # all threads reach each call; uniform arguments
    kernel = KernelPlan(fe, block_dims, launch.arch)  # type: ignore[arg-type]
    kernel.launch_bounds = threads if user_bound is None else None
    entry_calls = _entry_block_scope_calls(func_ir, found)
    static_vars: list[Any] = []
    for block, stmt, prim in found:
        call_site, runtime_vars, site_static = _plan_site(fe, func_ir, stmt, prim, kernel)
        static_vars += site_static
        site_id = kernel.add(call_site)
        if any(stmt is call for call in entry_calls):
            kernel.first_use.add(site_id)
        scope, loc = stmt.target.scope, stmt.loc
        fn_var = ir.Var(scope, fe.mk_unique_var("$coop_fn"), loc)
        id_var = ir.Var(scope, fe.mk_unique_var("$coop_site"), loc)
        new = [
            ir.Assign(ir.Global(fe.coop_call._name, fe.coop_call, loc), fn_var, loc),
            ir.Assign(ir.Const(site_id, loc), id_var, loc),
        ]
        stmt.value = ir.Expr.call(fn_var, [id_var, *runtime_vars], (), loc)
        index = block.body.index(stmt)
        block.body[index:index] = new
    drop_unused_definitions(ir, func_ir, (v.name for v in static_vars))
    return True
