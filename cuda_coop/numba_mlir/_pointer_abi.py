"""User functions over pointer-ABI types (float16, bfloat16, complex): a shim with the provider's C ABI.

The provider declares a user operator whose result or operands have a pointer-ABI type (see
``_specs._types``) as ``void op(R* out, const A* a0, const A* a1)`` (a callback takes ``void* state``
first). A Python function computes ``R op(A, A)``: it is compiled as a numba device function and called
from a generated shim, ``out[0] = op(a0[0], a1[0])``, which is what the provider links. After LTO
inlining the pointers are gone (the operands are registers; see tests/compile/test_dtypes_compile.py).

The shim's symbol must be stable across processes and distinct per user function: the shim's
qualified name carries a digest of the user function's identity (code, constants, closure values).
"""

from __future__ import annotations

import hashlib
from typing import Any

from .._specs import value_type
from ..errors import UsageError
from . import _seams
from ._operators import _arity, _identity, user_function
from ._sites import CallSite

__all__ = ["by_pointer", "user_function_c_abi"]

_NAMES = {"__nv_bfloat16": "bfloat16"}


def by_pointer(ty: Any) -> bool:
    """Whether values of the numba type ``ty`` cross the provider's C ABI by pointer."""
    name = str(ty)
    if name in ("bool", "none"):
        return False
    try:
        return value_type(_NAMES.get(name, name)).abi == "pointer"
    except ValueError:  # not a value type (a state pointer)
        return False


def _callee(fn: Any) -> Any:
    """What the shim calls: a numba-cuda-mlir device function (compiled from a Python function), or a
    callable numba types itself (``operator.sub``, ``np.subtract``)."""
    if hasattr(fn, "py_func"):
        return fn
    if hasattr(fn, "__code__"):
        return _seams.kernel_module().jit(device=True)(fn)
    return fn


def _shim_source(state: bool, out: bool, operands: list[bool]) -> str:
    formals = (["state"] if state else []) + (["out"] if out else []) + [f"a{k}" for k in range(len(operands))]
    actuals = (["state"] if state else []) + [f"a{k}[0]" if p else f"a{k}" for k, p in enumerate(operands)]
    call = f"callee({', '.join(actuals)})"
    body = f"out[0] = {call}" if out else f"return {call}"
    return f"def shim({', '.join(formals)}):\n    {body}\n"


def user_function_c_abi(
    cs: CallSite, param: str, fn: Any, returns: Any, args: tuple[Any, ...], *, state: Any | None = None
) -> tuple[str, Any, Any]:
    """(symbol, function, numba signature) of a user operator (or callback, with ``state``) as the provider
    declares it: through :func:`_operators.user_function` directly when every type is passed by value,
    else through a generated shim (see the module docstring)."""
    leading = (state,) if state is not None else ()
    if not by_pointer(returns) and not any(by_pointer(a) for a in args):
        return user_function(cs, param, fn, returns(*leading, *args))
    pyfunc = getattr(fn, "py_func", fn)
    if not callable(pyfunc):
        raise cs.error(f"{param}={fn!r} is neither a known operator nor a function")
    wanted = len(leading) + len(args)
    arity = _arity(pyfunc) if hasattr(pyfunc, "__code__") else None
    if arity is not None and arity != wanted:
        raise cs.error(
            f"{param}={getattr(fn, '__name__', fn)!r} takes {arity} argument(s); {param}= is called with {wanted} "
            f"({', '.join(str(a) for a in (*leading, *args))}) and must return {returns}"
        )
    operands = [by_pointer(a) for a in args]
    out = by_pointer(returns)
    namespace: dict[str, Any] = {"callee": _callee(fn), "__name__": __name__}
    exec(compile(_shim_source(state is not None, out, operands), "<cuda-coop pointer-ABI shim>", "exec"), namespace)
    shim = namespace["shim"]
    source = _identity(pyfunc) if hasattr(pyfunc, "__code__") else repr(pyfunc).encode()
    shim.__qualname__ = f"pointer_abi[{hashlib.sha256(source).hexdigest()[:16]}]"
    shim.__name__ = getattr(fn, "__name__", "shim")
    c_args = [_seams.types.CPointer(a) if p else a for a, p in zip(args, operands, strict=True)]
    c_returns = _seams.types.none if out else returns
    c_lead = [*leading, *([_seams.types.CPointer(returns)] if out else [])]
    c_sig = c_returns(*c_lead, *c_args)
    try:
        return user_function(cs, param, shim, c_sig)
    except UsageError as exc:  # speak of the user's function, not of the shim
        user_sig = returns(*leading, *args)
        message = str(exc).replace(str(c_sig), str(user_sig))
        message = message.replace(_called_as(c_sig), _called_as(user_sig))
        raise UsageError(message) from exc.__cause__


def _called_as(sig: Any) -> str:
    """``bool(float16, float16)``: how ``_operators`` spells a predicate's signature in its errors."""
    return f"{sig.return_type}({', '.join(str(a) for a in sig.args)})"
