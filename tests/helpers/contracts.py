"""Misuse cases generated from the specs' argument contracts (``Param.access``/``memory``/``min_extent``/``offset``).

For every public primitive and every overload of it (but those with a callback), :func:`base_call` writes a call
that satisfies every contract: per-thread arrays are ``cuda.local.array`` of int32 items, arrays the block or warp
shares are kernel arguments, counts and other scalars are small constants, operators are ``"+"`` or ``"<"``. Each
:class:`Misuse` breaks one contract of one array parameter of that call:

- ``space``: a shared array where this thread's local array belongs, a local array where the block (warp) shares
  one; ``global``/``shared``: the space a parameter that takes only the other one does not take;
- ``align``: a ``cuda.shared.array`` of the default alignment where the call needs more (``Param.align``);
- ``extent``: a shared array of one item where the call touches more (``Param.min_extent``), or a per-thread array
  one item longer than the ``items_per_thread=`` given with it;
- ``offset``: ``offset=-1`` for an array read or written from an offset;
- ``alias``: one array for two parameters the call may not share (one of them written, the other not a
  per-thread input the wrapper copies first).

A case is a kernel's source (its call line marked ``# call``) and the words the refusal must contain: the argument's
name and what was wrong. The compile tier compiles each and expects the ``cuda.coop.errors`` exception.
"""

from __future__ import annotations

import inspect
import itertools
import linecache
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from cuda.coop._dsl._primitive import Primitive, all_public_primitives
from cuda.coop._specs import BUILTIN_TYPES, ArgKind, Overload, Param
from cuda.coop._specs._contracts import may_share

__all__ = ["BLOCK", "Call", "Misuse", "base_call", "kernel", "misuses"]

BLOCK = (32, 1, 1)
"""The launch's block: one warp, so a logical warp of the default 32 lanes is the block."""
ITEMS = 2
TEMPLATE_VALUES = {"bins": 16, "radix_bits": 4}
"""Values of the compile-time parameters that have no default."""
SHARED_ITEMS = 1024
"""Items of the ``cuda.shared.array`` a parameter taking shared memory only gets (``load_to_shared``'s ``dst``): at
least any tile of ``ITEMS`` items per thread of the ``BLOCK``."""
EXTENTS = {"bins_per_thread": 1}
"""Per-thread extents another parameter decides (``radix_rank``'s ``digit_prefix``: 2**4 digits over 32 threads)."""


@dataclass
class Call:
    """One call's kernel: local definitions, the arguments by parameter, and the kernel's array arguments."""

    prim: Primitive
    overload: Overload
    lines: list[str] = field(default_factory=list)
    args: dict[str, str] = field(default_factory=dict)
    globals_: list[str] = field(default_factory=list)
    per_thread: dict[str, str] = field(default_factory=dict)
    """Per-thread array parameter -> its dtype."""

    def source(self, name: str) -> str:
        call_args = ", ".join(f"{k}={v}" for k, v in self.args.items())
        fn = f"coop.{self.prim.name}"
        body = [*self.lines, f"{fn}({call_args})  # call"]
        params = ", ".join(["g0", *self.globals_])
        return f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body)


def _dtype(p: Param) -> str:
    """The items' dtype of a parameter: its own if the spec fixes one, else int32 (which every type kind of the
    specs' TYPE parameters takes but floats)."""
    return p.type if p.type in BUILTIN_TYPES else "int32"


def _callable(overload: Overload) -> bool:
    return not any(p.kind is ArgKind.CALLBACK for p in overload.all_params)


def base_call(prim: Primitive, overload: Overload) -> Call:
    """A call of ``prim`` in the form of ``overload`` that every contract accepts."""
    call = Call(prim, overload)
    for p in overload.all_params:
        if p.kind is ArgKind.OUTPUT and p.extent is None:
            continue  # the call's result
        if p.kind in (ArgKind.ARRAY, ArgKind.OUTPUT, ArgKind.AGGREGATE):
            n = 1 if p.extent is None else EXTENTS.get(p.extent, ITEMS)
            call.lines.append(f"{p.name} = cuda.local.array({n}, np.{_dtype(p)})")
            call.args[p.name] = p.name
            call.per_thread[p.name] = _dtype(p)
        elif p.kind is ArgKind.POINTER and "global" not in p.memory:  # a cuda.shared.array only
            call.lines.append(f"{p.name} = {_shared(p, SHARED_ITEMS)}")
            call.args[p.name] = p.name
        elif p.kind is ArgKind.POINTER:
            g = f"g{len(call.globals_) + 1}"
            call.globals_.append(g)
            call.args[p.name] = g
            if p.offset:
                call.args[p.offset] = "0"
        elif p.kind is ArgKind.OPERATOR:
            call.args[p.name] = '"<"' if p.returns == "bool" else '"+"'
        elif p.kind is ArgKind.SCALAR and p.default is None:
            call.args[p.name] = "g0[0]" if p.name == prim.data else "2" if p.count_limit else "1"
    for tp in (*prim.spec.tparams, *overload.tparams):
        if tp.name in TEMPLATE_VALUES and tp.name in prim.signature.parameters:
            call.args[tp.name] = str(TEMPLATE_VALUES[tp.name])
        elif prim.signature.parameters.get(tp.name, _OPTIONAL).default is inspect.Parameter.empty:
            call.args[tp.name] = str(ITEMS)  # a required extent no array gives (load_to_shared's items_per_thread)
    return call


_OPTIONAL = inspect.Parameter("optional", inspect.Parameter.KEYWORD_ONLY, default=None)


def _shared(p: Param, n: int) -> str:
    """A ``cuda.shared.array`` of ``n`` items for ``p``, aligned as ``p`` needs (``Param.align``)."""
    align = f", alignment={p.align}" if p.align else ""
    return f"cuda.shared.array({n}, np.{_dtype(p)}{align})"


@dataclass(frozen=True)
class Misuse:
    """One broken contract: the kernel and the words its refusal must contain."""

    id: str
    source: str
    name: str
    globals_: int
    expect: tuple[str, ...]


def _variant(call: Call, id_: str, expect: tuple[str, ...], *, lines: list[str] | None = None,
             args: dict[str, str] | None = None, globals_: list[str] | None = None) -> Misuse:
    new = Call(call.prim, call.overload, [*call.lines, *(lines or [])], {**call.args, **(args or {})},
               [*call.globals_, *(globals_ or [])])
    name = "k_" + "".join(c if c.isalnum() else "_" for c in id_)
    return Misuse(id_, new.source(name), name, 1 + len(new.globals_), expect)


def _array_params(call: Call) -> list[Param]:
    return [p for p in call.overload.all_params if p.memory and p.name in call.args]


def _cases(call: Call) -> Iterator[Misuse]:
    where = f"{call.prim.name}.{call.overload.name}"
    for p in _array_params(call):
        if p.kind is ArgKind.POINTER:
            yield _variant(call, f"{where}.{p.name}.space", (f"{p.name}=", "cuda.local.array", "private copy"),
                           lines=[f"bad = cuda.local.array(64, np.{_dtype(p)})"], args={p.name: "bad"})
            for space, other in (("global", None), ("shared", f"bad = {_shared(p, SHARED_ITEMS)}")):
                if space not in p.memory:  # a space the parameter does not take besides local
                    g = f"g{len(call.globals_) + 1}"
                    yield _variant(call, f"{where}.{p.name}.{space}", (f"{p.name}=", f"{p.name} only as"),
                                   lines=[other] if other else [], args={p.name: "bad" if other else g},
                                   globals_=[] if other else [g])
            if p.min_extent and "shared" in p.memory:
                yield _variant(call, f"{where}.{p.name}.extent", (f"{p.name}=", "1 items, but the call"),
                               lines=[f"bad = {_shared(p, 1)}"], args={p.name: "bad"})
            if p.align and "shared" in p.memory:
                yield _variant(call, f"{where}.{p.name}.align", (f"{p.name}=", f"multiple of {p.align} bytes"),
                               lines=[f"bad = cuda.shared.array({SHARED_ITEMS}, np.{_dtype(p)})"], args={p.name: "bad"})
            if p.offset:
                yield _variant(call, f"{where}.{p.name}.offset", (f"{p.offset}=-1 is negative", p.name),
                               args={p.offset: "-1"})
        else:
            n = 1 if p.extent is None else EXTENTS.get(p.extent, ITEMS)
            yield _variant(call, f"{where}.{p.name}.space", (f"{p.name}=", "own cuda.local.array", "cuda.shared.array"),
                           lines=[f"bad = cuda.shared.array({n}, np.{_dtype(p)})"], args={p.name: "bad"})
            if p.extent is not None and p.extent in call.prim.signature.parameters:
                yield _variant(call, f"{where}.{p.name}.extent", (f"{p.name}= has {n + 1} items but {p.extent}={n}",),
                               lines=[f"bad = cuda.local.array({n + 1}, np.{_dtype(p)})"],
                               args={p.name: "bad", p.extent: str(n)})
    for a, b in itertools.combinations(_array_params(call), 2):
        conflict = not may_share(a, b) and bool(set(a.memory) & set(b.memory))  # one array can be both
        same_kind = (a.kind is ArgKind.POINTER) == (b.kind is ArgKind.POINTER) and _dtype(a) == _dtype(b)
        same_extent = a.extent == b.extent or ArgKind.AGGREGATE in (a.kind, b.kind) or a.kind is ArgKind.POINTER
        if conflict and same_kind and same_extent:
            shared = {a.name: call.args[b.name]} if a.kind is ArgKind.AGGREGATE else {b.name: call.args[a.name]}
            yield _variant(call, f"{where}.{a.name}+{b.name}.alias", (f"{a.name}= and {b.name}= are the same array",),
                           args=shared)


def misuses() -> list[Misuse]:
    """Every generated misuse of every array parameter of every public primitive, each in the first form (overload,
    those with a callback left out) that has the parameter: the check reads the parameter's declaration, which is
    the same in every form."""
    found: dict[str, Misuse] = {}
    for prim in all_public_primitives():
        for ov in (ov for ov in prim.method.overloads if _callable(ov)):
            for m in _cases(base_call(prim, ov)):
                scope, name, _, what, kind = m.id.split(".")
                found.setdefault(f"{scope}.{name}.{what}.{kind}", m)
    return list(found.values())


def kernel(source: str, name: str, label: str = "contract case") -> Any:
    """Compile ``source`` into a numba-cuda-mlir kernel named ``name``; error messages name its lines in the file
    ``<{label} {name}>``."""
    import numpy as np
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    filename = f"<{label} {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    env: dict[str, Any] = {"cuda": cuda, "np": np, "coop": coop}
    exec(compile(source, filename, "exec"), env)
    return cuda.jit(env[name])
