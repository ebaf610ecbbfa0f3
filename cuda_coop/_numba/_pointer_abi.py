"""User functions over pointer-ABI types (half, complex, records, tuples): a shim with the provider's C ABI.

The provider declares a user operator whose result or operands have a pointer-ABI type (see
``_specs._types``) as ``void op(R* out, const A* a0, const A* a1)`` (a callback takes ``void* state``
first). A Python function computes ``R op(A, A)``: it is compiled as a numba device function and called
from a generated shim, ``out[0] = op(a0[0], a1[0])``, which is what the provider links. After LTO
inlining the pointers are gone (the operands are registers; see tests/compile/test_dtypes_compile.py).

Records and tuples (user types, see ``_lowering``) cross as pointers to their C layout, a numba Record:
the shim's operand is that Record itself (numba keeps records as pointers to their bytes); a record
operand is passed on as it is, a tuple operand as the tuple of its fields, ``(a0.f0, a0.f1)``; the result
is copied into ``out`` field by field.

The shim's symbol must be stable across processes and distinct per user function: the shim's
qualified name carries a digest of the user function's identity (code, constants, closure values) and of
its signature, so one Python function over two layouts of a record is two symbols.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .._specs import value_type
from ..errors import UsageError
from ._operators import _arity, _identity, refuse_unsigned_min_max, user_function
from ._sites import CallSite
from ._user_types import UserTypes

__all__ = ["by_pointer", "user_function_c_abi"]

_NAMES = {"__nv_bfloat16": "bfloat16"}


def _layout(users: UserTypes, ty: Any) -> Any:
    """The C layout (a numba Record) of a record or tuple type; None for other types."""
    types = users.types
    if not isinstance(ty, types.Record | types.BaseTuple):
        return None
    vt, _ = users.value_type(ty)
    return users.layout(vt.name) if vt is not None else None


def by_pointer(users: UserTypes, ty: Any) -> bool:
    """Whether values of the numba type ``ty`` cross the provider's C ABI by pointer."""
    if _layout(users, ty) is not None:
        return True
    name = str(ty)
    if name in ("bool", "none"):
        return False
    try:
        return value_type(_NAMES.get(name, name)).abi == "pointer"
    except ValueError:  # not a value type (a state pointer)
        return False


def _callee(fe: Any, fn: Any) -> Any:
    """What the shim calls: a device function of the DSL (compiled from a Python function), or a
    callable numba types itself (``operator.sub``, ``np.subtract``)."""
    if hasattr(fn, "py_func"):
        return fn
    if hasattr(fn, "__code__"):
        return fe.device_jit(fn)
    return fn


def _operand(users: UserTypes, k: int, ty: Any, pointer: bool) -> str:
    """How the shim passes its operand ``a<k>`` (of the user's type ``ty``) to the user's function."""
    layout = _layout(users, ty)
    if layout is None:
        return f"a{k}[0]" if pointer else f"a{k}"
    if isinstance(ty, users.types.Record):
        return f"a{k}"
    return "(" + "".join(f"a{k}.{name}, " for name, _ in layout.members) + ")"


def _store_result(users: UserTypes, returns: Any) -> list[str]:
    layout = _layout(users, returns)
    if layout is None:
        return ["out[0] = r"]
    if isinstance(returns, users.types.Record):
        return [f"out.{name} = r.{name}" for name, _ in layout.members]
    return [f"out.{name} = r[{k}]" for k, (name, _) in enumerate(layout.members)]


def _shim_source(
    users: UserTypes, state: bool, returns: Any, args: tuple[Any, ...], *, operands: list[bool], out: bool
) -> str:
    formals = (["state"] if state else []) + (["out"] if out else []) + [f"a{k}" for k in range(len(operands))]
    pairs = enumerate(zip(args, operands, strict=True))
    actuals = (["state"] if state else []) + [_operand(users, k, a, p) for k, (a, p) in pairs]
    call = f"callee({', '.join(actuals)})"
    body = [f"r = {call}", *_store_result(users, returns)] if out else [f"return {call}"]
    return f"def shim({', '.join(formals)}):\n" + "".join(f"    {line}\n" for line in body)


def _c_type(users: UserTypes, ty: Any, pointer: bool) -> Any:
    """The shim's numba type of a by-pointer operand: a record or tuple's C layout, else ``T*``."""
    layout = _layout(users, ty)
    return layout if layout is not None else users.types.CPointer(ty) if pointer else ty


def user_function_c_abi(
    cs: CallSite, param: str, fn: Any, returns: Any, args: tuple[Any, ...], *, state: Any | None = None
) -> tuple[str, Any, Any]:
    """(symbol, function, numba signature) of a user operator (or callback, with ``state``) as the provider
    declares it: through :func:`_operators.user_function` directly when every type is passed by value,
    else through a generated shim (see the module docstring)."""
    fe = cs.frontend
    users = fe.users
    leading = (state,) if state is not None else ()
    if not by_pointer(users, returns) and not any(by_pointer(users, a) for a in args):
        return user_function(fe, cs, param, fn, returns(*leading, *args))
    pyfunc = getattr(fn, "py_func", fn)
    if not callable(pyfunc):
        raise cs.error(f"{param}={fn!r} is neither a known operator nor a function")
    refuse_unsigned_min_max(fe, cs, param, fn, args)  # the shim's own code calls neither
    wanted = len(leading) + len(args)
    arity = _arity(pyfunc) if hasattr(pyfunc, "__code__") else None
    if arity is not None and arity != wanted:
        raise cs.error(
            f"{param}={getattr(fn, '__name__', fn)!r} takes {arity} argument(s); {param}= is called with {wanted} "
            f"({', '.join(str(a) for a in (*leading, *args))}) and must return {returns}"
        )
    operands = [by_pointer(users, a) for a in args]
    out = by_pointer(users, returns)
    namespace: dict[str, Any] = {"callee": _callee(fe, fn), "__name__": __name__}
    source_code = _shim_source(users, state is not None, returns, args, operands=operands, out=out)
    exec(compile(source_code, "<cuda-coop pointer-ABI shim>", "exec"), namespace)
    shim = namespace["shim"]
    source = _identity(pyfunc) if hasattr(pyfunc, "__code__") else repr(pyfunc).encode()
    source += b"\0" + str(returns(*leading, *args)).encode()  # the layouts of records and tuples
    shim.__qualname__ = f"pointer_abi[{hashlib.sha256(source).hexdigest()[:16]}]"
    shim.__name__ = getattr(fn, "__name__", "shim")
    c_args = [_c_type(users, a, p) for a, p in zip(args, operands, strict=True)]
    c_returns = users.types.none if out else returns
    c_lead = [*leading, *([_c_type(users, returns, True)] if out else [])]
    c_sig = c_returns(*c_lead, *c_args)
    try:
        return user_function(fe, cs, param, shim, c_sig)
    except UsageError as exc:  # speak of the user's function, not of the shim
        user_sig = returns(*leading, *args)
        message = str(exc).replace(str(c_sig), str(user_sig))
        message = message.replace(_called_as(c_sig), _called_as(user_sig))
        raise UsageError(message) from exc.__cause__


def _called_as(sig: Any) -> str:
    """``bool(float16, float16)``: how ``_operators`` spells a predicate's signature in its errors."""
    return f"{sig.return_type}({', '.join(str(a) for a in sig.args)})"
