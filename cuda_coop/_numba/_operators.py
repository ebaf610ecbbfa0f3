"""User functions given as operators or callbacks: what may be given, and a stable symbol for each.

A Python function (module level, or a ``lambda`` in the kernel that captures nothing), a device function
of the DSL, or any other callable numba can call on scalars (``operator.sub``, ``np.subtract``) is
compiled by the DSL (``Frontend.compile_device_ltoir``) as an ``extern "C"`` device function. Its symbol
is part of the provider's source, so it must be stable across processes (for the persistent cache) and
distinct for functions that compute different things: it digests the code, its constants, the values
closures capture (by content, never by ``repr``), and the signature.
"""

from __future__ import annotations

import builtins
import hashlib
import inspect
import itertools
import os
import pickle
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from ._sites import CallSite

if TYPE_CHECKING:
    from ._frontend import Frontend

__all__ = ["compiled_ltoir", "user_function"]

_PROCESS_UNIQUE = itertools.count()
_COMPILED: dict[tuple[str, str, str | None], tuple[bytes, ...]] = {}
"""LTO-IR of the user functions compiled in this process, by (DSL, symbol, arch) (the symbol digests the
function's content and signature, so an entry never goes stale); guarded by ``_LOCK``."""
_LOCK = threading.Lock()


def _wrap(fn: Any) -> Any:
    """A Python function calling ``fn`` (a builtin or ufunc numba can call on scalars)."""

    def apply(a: Any, b: Any) -> Any:
        return fn(a, b)

    apply.__qualname__ = f"apply[{getattr(fn, '__module__', None)}.{getattr(fn, '__name__', type(fn).__name__)}]"
    return apply


def _arity(pyfunc: Any) -> int | None:
    try:
        params = inspect.signature(pyfunc).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty for p in params)


def _content(value: Any) -> bytes:
    """A digestible form of a captured value: its content where it has one, else a per-process token."""
    if isinstance(value, np.ndarray):
        return b"nd" + str((value.dtype.str, value.shape)).encode() + bytes(np.ascontiguousarray(value).tobytes())
    if isinstance(value, int | float | complex | str | bytes | bool | np.generic | type(None)):
        return b"v" + repr((type(value).__name__, value.item() if isinstance(value, np.generic) else value)).encode()
    if isinstance(value, tuple):
        return b"t" + b"|".join(_content(v) for v in value)
    if callable(value) and hasattr(value, "__code__"):
        return b"f" + _identity(value)
    try:
        return b"p" + pickle.dumps(value, protocol=4)
    except Exception:  # not picklable: distinct in this process, never shared with another one
        return f"u{os.getpid()}:{id(value)}:{next(_PROCESS_UNIQUE)}".encode()


def _identity(pyfunc: Any) -> bytes:
    code = pyfunc.__code__
    parts = [
        str((pyfunc.__module__, pyfunc.__qualname__)).encode(),
        code.co_code,
        repr(code.co_names).encode(),
        *(_content(c) if not hasattr(c, "co_code") else c.co_code for c in code.co_consts),
        *(_content(cell.cell_contents) for cell in pyfunc.__closure__ or ()),
        *(_content(d) for d in pyfunc.__defaults__ or ()),
    ]
    return b"\0".join(parts)


def user_function(fe: Frontend, cs: CallSite, param: str, fn: Any, signature: Any) -> tuple[str, Any, Any]:
    """(symbol, Python function, numba signature) of a user function the provider calls, compiled by ``fe``
    for the call site's arch (``cs.arch``).

    Raises a UsageError naming the call when ``fn`` is not callable or takes another number of arguments.
    """
    pyfunc = getattr(fn, "py_func", fn)
    if not callable(pyfunc):
        raise cs.error(f"{param}={fn!r} is neither a known operator nor a function")
    if not hasattr(pyfunc, "__code__"):
        pyfunc = _wrap(pyfunc)  # operator.sub, np.subtract, math.fmod...
    wanted = len(signature.args)
    arity = _arity(pyfunc)
    if arity is not None and arity != wanted:
        raise cs.error(
            f"{param}={getattr(fn, '__name__', fn)!r} takes {arity} argument(s); {param}= is called with {wanted} "
            f"({', '.join(str(a) for a in signature.args)}) and must return {signature.return_type}"
        )
    refuse_unsigned_min_max(fe, cs, param, fn, tuple(signature.args))
    digest = hashlib.sha256(_identity(pyfunc) + b"\0" + str(signature).encode()).hexdigest()[:16]
    symbol = f"cuda_coop_{param}_{digest}"
    _compile(fe, cs, f"{param}={getattr(fn, '__name__', fn)!r}", symbol, pyfunc=pyfunc, signature=signature)
    return symbol, pyfunc, signature


def _unsigned(types: Any, ty: Any) -> bool:
    """Whether the numba type ``ty`` is (or points to) an unsigned integer."""
    if isinstance(ty, types.CPointer):
        return _unsigned(types, ty.dtype)
    return isinstance(ty, types.Integer) and not ty.signed


def _builtin_names(code: Any, namespace: dict[str, Any]) -> set[str]:
    """The names of ``builtins.max``/``builtins.min`` a code object (or one nested in it) calls."""
    found = {n for n in code.co_names
             if n in ("max", "min") and namespace.get(n, getattr(builtins, n)) is getattr(builtins, n)}
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            found |= _builtin_names(const, namespace)
    return found


def refuse_unsigned_min_max(fe: Frontend, cs: CallSite, param: str, fn: Any, args: tuple[Any, ...]) -> None:
    """Refuse a user function of unsigned integers that calls the builtin ``max``/``min``, in a DSL that
    miscompiles them (``Frontend.signed_builtin_min_max``).

    numba-cuda-mlir 0.5.x compiles them as *signed* comparisons (``max(np.uint32(2**31), np.uint32(1))``
    gives 1): a silently wrong result (docs: known issues). Comparisons (``a if a > b else b``) are right.
    Only scalar operands are checked: in a tuple or record operator ``max`` may well apply to another
    member, so that case is left to the known-issues page.
    """
    pyfunc = getattr(fn, "py_func", fn)
    code = getattr(pyfunc, "__code__", None)
    if not fe.signed_builtin_min_max or code is None or not any(_unsigned(fe.types, a) for a in args):
        return
    if names := _builtin_names(code, getattr(pyfunc, "__globals__", {})):
        called = " and ".join(f"{n}()" for n in sorted(names))
        raise cs.error(
            f"{param}={getattr(fn, '__name__', fn)!r} calls the builtin {called} on unsigned integers "
            f"({', '.join(str(a) for a in args)}), which {fe.display} compiles as a signed comparison "
            "(wrong for values above the signed maximum; see the docs' known issues); write the comparison "
            "instead (a if a > b else b), or pass the known operator \"max\" / \"min\" where one applies"
        )


def _compile(fe: Frontend, cs: CallSite, given: str, symbol: str, *, pyfunc: Any, signature: Any) -> None:
    """Compile now, while the call is typed, so a function numba cannot compile is the user's error."""
    arch = cs.arch
    key = (fe.name, symbol, arch)
    with _LOCK:
        if key in _COMPILED:
            return
    predicate = signature.return_type == fe.types.boolean
    try:  # typed on its arguments alone first: a result is never silently converted to what it does not fit
        data, restype = fe.compile_device_ltoir(pyfunc, tuple(signature.args), symbol, arch)
        if not predicate and restype != signature.return_type and _fits(restype, signature.return_type):
            data, _ = fe.compile_device_ltoir(pyfunc, signature, symbol, arch)
            restype = signature.return_type
    except Exception as exc:  # any failure to compile the user's function is reported as such
        root: BaseException = exc
        while (root.__cause__ or root.__context__) is not None:  # the innermost error says what failed
            root = root.__cause__ or root.__context__  # type: ignore[assignment]
        lines = [line.strip() for line in str(root).splitlines() if line.strip()]
        raise cs.error(
            f"{given} does not compile as a device function {signature} "
            f"({type(root).__name__}: {lines[0] if lines else ''}); pass a known operator or a Python function "
            f"{fe.display} can compile"
        ) from exc
    if predicate and restype != fe.types.boolean:
        raise cs.error(
            f"{given} returns {restype}; it must return a bool (a comparison such as a < b), "
            f"called as {signature.return_type}({', '.join(str(a) for a in signature.args)})"
        )
    if not predicate and restype != signature.return_type:
        raise cs.error(
            f"{given} returns {restype} for ({', '.join(str(a) for a in signature.args)}), which does not fit "
            f"{signature.return_type}, the type it must return: its result would be truncated. Return a value of "
            f"{signature.return_type} (for integers, a // b rather than a / b), or convert it explicitly"
        )
    with _LOCK:
        _COMPILED[key] = data


_KIND_RANK = {"Boolean": 0, "Integer": 1, "IntegerLiteral": 1, "Float": 2, "Complex": 3}


def _fits(result: Any, target: Any) -> bool:
    """Whether an operator's result of numba type ``result`` is an item of ``target`` without loss of its kind:
    an integer of any width for integer items (C++'s wraparound), a float of any width for float items (rounding),
    never a float for integers or a complex for real items. Other types must be the same."""
    rank = _KIND_RANK.get(type(result).__name__)
    wanted = _KIND_RANK.get(type(target).__name__)
    return rank is not None and wanted is not None and rank <= wanted


def compiled_ltoir(fe: Frontend, symbol: str, arch: str | None) -> tuple[bytes, ...]:
    """The LTO-IR of a user function :func:`user_function` compiled with ``fe`` for ``arch`` (the function's, then
    the code it links, see ``Frontend.compile_device_ltoir``)."""
    with _LOCK:
        return _COMPILED[(fe.name, symbol, arch)]
