"""Public primitive stubs: what a kernel calls, derived from the CUB spec it wraps.

A stub is a plain Python function with the documented signature. Called on the host it raises
:class:`~cuda.coop.errors.UsageError`; inside a kernel a DSL integration's planner finds the call
(``__coop_primitive__``) and replaces it with CUB code specialised for the launch.

The spec decides everything about the stub but its parameter order and its hand-written summary:
which parameters exist and their defaults (checked at import: a stub that differs from its spec is a
bug in cuda-coop and fails the import), which are compile-time constants, which are per-thread
arrays, and the generated part of the docstring (CUB method, algorithms, per-parameter docs).

Module state: ``_PRIMITIVES`` (qualified name -> Primitive), filled at import of
``cuda.coop.block`` / ``cuda.coop.warp`` and never changed afterwards.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._specs import ArgKind, Method, Param, PrimitiveSpec, Scope, TemplateParam, TParamKind, _auto, get_primitive
from ..errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])

_NO_DEFAULT = inspect.Parameter.empty


@dataclass(frozen=True, kw_only=True, slots=True)
class Primitive:
    """One public primitive: its spec method and how its arguments are bound.

    Everything but ``name`` and ``signature`` is derived from the spec (see :func:`public_parameters`).
    """

    name: str
    """Qualified public name, e.g. ``"block.load"``."""
    spec: PrimitiveSpec
    method: Method
    signature: inspect.Signature
    data: str
    """The first public parameter whose type is the primitive's ``dtype`` (its element type binds it)."""
    static: frozenset[str]
    """Compile-time constants: template parameters, operators and callbacks."""
    per_thread: frozenset[str]
    """Thread-local arrays: ARRAY inputs, array OUTPUTs and AGGREGATEs."""
    offsets: tuple[tuple[str, str], ...] = ()
    """``(offset parameter, pointer parameter)``: the pointer is advanced by the offset."""
    in_place: tuple[tuple[str, str], ...] = ()
    """``(output parameter, input parameter)``: an omitted output is the input (in place)."""
    states: tuple[tuple[str, str], ...] = ()
    """``(state parameter, callback parameter)``: the runtime argument carrying a callback's state."""
    extents: frozenset[str] = frozenset()
    """Template parameters that are per-thread array extents (``items_per_thread``): recovered from the
    arrays' definitions, a given value only restates them."""
    previous: tuple[str, ...] = ()
    """The positional order of an earlier release (in today's names), declared with the stub: a call passing
    positionally what is keyword-only now is told the keyword to use (``_old_spelling``)."""
    renamed: Mapping[str, str] = field(default_factory=dict)
    """Earlier parameter names and today's (``{"items": "x"}``), declared with the stub."""

    @property
    def target(self) -> tuple[str, str]:
        """The CUB spec and method it calls: ``("block_reduce", "sum")``."""
        return self.spec.name, self.method.name

    @property
    def scope(self) -> Scope:
        return self.spec.scope

    def param(self, name: str, *, array: bool = False) -> Param | None:
        """The spec parameter a public runtime argument carries (None for offsets and states); with
        ``array``, its per-thread-array form where one overload has it (``x`` of BlockReduce)."""
        found = [p for ov in self.method.overloads for p in ov.all_params if p.name == name]
        if array:
            found = [p for p in found if p.extent is not None] or found
        return found[0] if found else None

    @property
    def positional(self) -> tuple[str, ...]:
        """The parameters a call may pass by position, in order (the rest are keyword-only)."""
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return tuple(n for n, p in self.signature.parameters.items() if p.kind in kinds)

    def spelled(self, names: Iterable[str]) -> str:
        """The call passing ``names`` as today's signature wants them: ``coop.block.top_k(keys, out_keys, k=k)``."""
        given = set(names)
        parts = [n if n in self.positional else f"{n}={n}" for n in self.signature.parameters if n in given]
        return f"coop.{self.name}({', '.join(parts)})"

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], where: str) -> inspect.BoundArguments:
        """Bind call arguments to parameter names; a mismatch is a UsageError naming the primitive and call, and a
        call in an earlier spelling (a renamed keyword, a positional argument that is keyword-only now) is told
        what to write instead."""
        here = f"coop.{self.name}() at {where}"
        for old in kwargs.keys() & self.renamed.keys():
            new = self.renamed[old]
            names = [*self.positional[: len(args)], *(self.renamed.get(k, k) for k in kwargs)]
            raise UsageError(f"{here}: {old}= is {new}= now: {self.spelled(tuple(names))}")
        unknown = [k for k in kwargs if k not in self.signature.parameters]
        if unknown:
            allowed = list(self.signature.parameters)
            close = difflib.get_close_matches(unknown[0], allowed, n=1)
            hint = f"; did you mean {close[0]}=?" if close else ""
            raise UsageError(f"{here}: no parameter {unknown[0]!r}; it takes {', '.join(allowed)}{hint}")
        try:
            return self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise UsageError(f"{here}: {self._why(args, kwargs, exc)}") from None

    def _why(self, args: tuple[Any, ...], kwargs: dict[str, Any], exc: TypeError) -> str:
        """What is wrong with a call the signature does not bind, in the words of today's signature."""
        old = self._old_spelling(args, kwargs)
        if old is not None:
            return old
        if len(args) > len(self.positional):
            rest = [n for n in self.signature.parameters if n not in self.positional]
            return (
                f"{len(args)} positional arguments, but it takes {len(self.positional)} "
                f"({', '.join(self.positional)}); pass the others by keyword ({', '.join(f'{n}=' for n in rest)})"
            )
        missing = [n for n, p in self.signature.parameters.items()
                   if p.default is p.empty and n not in kwargs and n not in self.positional[: len(args)]]
        keyword_only = [n for n in missing if n not in self.positional]
        if keyword_only:
            names = (*self.positional[: len(args)], *kwargs, *missing)
            return f"{keyword_only[0]}= is required and keyword-only: {self.spelled(names)}"
        return str(exc)

    def _old_spelling(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
        """The fix for a call in the declared earlier positional order (``previous``), when it is one: more positional
        arguments than today's signature takes, or one given both by position and by keyword."""
        old = self.previous[: len(args)]
        if len(args) > len(self.previous) or set(old) & kwargs.keys() or old == self.positional[: len(args)]:
            return None
        crowded = len(args) > len(self.positional) or set(self.positional[: len(args)]) & kwargs.keys()
        if not crowded:
            return None
        moved = [n for n in old if n not in self.positional]
        fix = self.spelled((*old, *kwargs))
        if moved:
            return f"{moved[0]}= is keyword-only: {fix}"
        return f"the positional arguments are ({', '.join(self.positional)}) now: {fix}"


_PRIMITIVES: dict[str, Primitive] = {}


def _tparams(spec: PrimitiveSpec, method: Method) -> Iterator[TemplateParam]:
    # an overload's template parameter replaces the class's of the same name, as in ``bind``
    local = [t for ov in method.overloads for t in ov.tparams]
    seen: set[str] = {t.name for t in local if not t.public}
    for tp in (*spec.tparams, *local):
        if tp.name not in seen and tp.public and not tp.inferred and tp.kind is not TParamKind.TYPE:
            seen.add(tp.name)
            yield tp


def _extents(method: Method) -> set[str]:
    return {p.extent for ov in method.overloads for p in ov.all_params if p.extent is not None}


def _public_default(tp: TemplateParam, extents: set[str]) -> Any:
    if tp.name in extents:
        return None  # recovered from the per-thread arrays' definitions
    if not tp.optional:
        return _NO_DEFAULT
    return tp.public_default


def public_parameters(spec: PrimitiveSpec, method: Method) -> dict[str, Any]:
    """Every public parameter of the primitive calling ``spec.method`` and its default, from the spec.

    - each runtime parameter of any overload (a scalar OUTPUT is the return value, not a parameter),
      required (no default) if every overload has it, it is not an in-place output and the spec gives no
      default, else its public default (``Param.public_default``: an int, or ``None``);
    - each template parameter a call may give (not inferred from the launch, not a type), with the
      spec's default (an algorithm by its short name); a per-thread extent defaults to ``None``;
    - ``offset`` keywords of pointers (default ``0``) and the state argument of callbacks (``None``).
    """
    result: dict[str, Any] = {}

    def public(p: Param) -> bool:
        return not (p.kind is ArgKind.OUTPUT and p.extent is None)

    names_per_overload = [{p.name for p in ov.all_params if public(p)} for ov in method.overloads]
    for ov in method.overloads:
        for p in ov.all_params:
            if p.name in result or not public(p):
                continue
            # an output that defaults to an input (in place) is never required
            required = (
                p.in_place_of is None and p.default is None and all(p.name in names for names in names_per_overload)
            )
            result[p.name] = _NO_DEFAULT if required else p.public_default
            if p.offset is not None:
                result[p.offset] = 0
            if p.state is not None:
                result[p.state] = None
    extents = _extents(method)
    for tp in _tparams(spec, method):
        result[tp.name] = _public_default(tp, extents)
    return result


def _check_spellings(name: str, sig: inspect.Signature, previous: tuple[str, ...], renamed: Mapping[str, str]) -> None:
    """The earlier spellings a stub declares name today's parameters (a bug in cuda-coop otherwise)."""
    stale = [n for n in (*previous, *renamed.values()) if n not in sig.parameters]
    stale += [n for n in renamed if n in sig.parameters]
    if stale:
        raise AssertionError(f"coop.{name}: previous=/renamed= name {stale}, which are not (or still are) parameters")


def _derive(
    name: str,
    spec: PrimitiveSpec,
    method: Method,
    sig: inspect.Signature,
    *,
    previous: tuple[str, ...] = (),
    renamed: Mapping[str, str] | None = None,
) -> Primitive:
    _check_spellings(name, sig, previous, renamed or {})
    expected = public_parameters(spec, method)
    got = {n: p.default for n, p in sig.parameters.items()}
    if got.keys() != expected.keys():
        raise AssertionError(  # a bug in cuda-coop itself: the stub and its spec disagree
            f"coop.{name}: parameters {sorted(got)} differ from the spec's {sorted(expected)}"
        )
    wrong = {n: (got[n], d) for n, d in expected.items() if got[n] != d and got[n] is not d}
    if wrong:
        raise AssertionError(f"coop.{name}: defaults (stub, spec) differ: {wrong}")
    params = [p for ov in method.overloads for p in ov.all_params]
    static = {tp.name for tp in _tparams(spec, method)} | {
        p.name for p in params if p.kind in (ArgKind.OPERATOR, ArgKind.CALLBACK)
    }
    per_thread = {
        p.name
        for p in params
        if p.kind in (ArgKind.ARRAY, ArgKind.AGGREGATE) or (p.kind is ArgKind.OUTPUT and p.extent is not None)
    }
    data = next(n for n in sig.parameters if any(p.name == n and p.type == "dtype" for p in params))
    return Primitive(
        name=name,
        spec=spec,
        method=method,
        signature=sig,
        data=data,
        static=frozenset(static),
        per_thread=frozenset(per_thread),
        offsets=tuple(dict.fromkeys((p.offset, p.name) for p in params if p.offset)),
        in_place=tuple(dict.fromkeys((p.name, p.in_place_of) for p in params if p.in_place_of)),
        states=tuple(dict.fromkeys((p.state, p.name) for p in params if p.state)),
        extents=frozenset(_extents(method)),
        previous=previous,
        renamed=dict(renamed or {}),
    )


_AUTO_DOC = (
    "is cuda-coop's measured choice: among the algorithms that keep the result's arrangement and give the same "
    "result on every run, the one that ran fastest in the measurements of ``benchmarks/auto_table.py`` on sm_90 "
    "(an NVIDIA H200), for the call's item size and the measured block size and items per thread nearest the "
    f"call's, where it ran at least {_auto.MARGIN:.0%} faster than CUB's default (elsewhere CUB's default). On an "
    "architecture the table was not measured on, ``\"auto\"`` picks CUB's default"
)
"""Completes ``\"auto\"`` (or ``The default, algorithm=\"auto\",``) as a sentence; the architectures it names are
those of ``_specs/auto_table.json`` (a unit test compares them)."""


def own_auto_doc() -> str:
    """:data:`_AUTO_DOC` for cuda-coop's own compositions, whose fallback is not CUB's: the algorithm the spec names
    (``TemplateParam.default``)."""
    return _AUTO_DOC.replace("CUB's default", "its fallback")


def generated_doc(prim: Primitive) -> str:
    """The part of a stub's docstring that comes from its spec: CUB method, algorithms, example, parameters."""
    spec, method = prim.spec, prim.method
    calls = " / ".join(f"``{spec.cub_class}::{name}``" for name in method.cpp_names())
    lines = [f"Wraps {calls} (``{spec.header}``).", ""]
    who = "thread of the block" if spec.scope is Scope.BLOCK else "lane of the logical warp"
    same = f" Must be the same in every {who}: a thread-dependent value is refused (see :doc:`/uniformity`)."
    forms: dict[str, list[Param]] = {}
    for p in (p for ov in method.overloads for p in ov.all_params):
        forms.setdefault(p.name, []).append(p)
    docs: dict[str, str] = {}
    for name, params in forms.items():
        # a parameter with a scalar form and an array form (``x`` of reductions and scans) is described as both
        both = any(p.kind is ArgKind.SCALAR for p in params) and any(p.extent is not None for p in params)
        doc = (
            "This thread's item (scalar form), or a ``cuda.local.array`` of its items in blocked order (array form)."
            if both
            else next((p.doc for p in params if p.doc), "")
        )
        docs[name] = doc + (same if any(p.uniform for p in params) else "") if doc else ""
        for p in params:
            if p.offset:
                offset_doc = f"Index in ``{p.name}`` of the tile's first item (an integer)."
                docs.setdefault(p.offset, offset_doc + (same if p.uniform else ""))
            if p.state:
                docs.setdefault(p.state, f"The array whose data pointer ``{p.name}`` receives as its first argument.")
    for tp in _tparams(spec, method):
        docs.setdefault(tp.name, tp.doc)
    algo = next((t for t in spec.tparams if t.enum is not None and t.enum is spec.algorithm), None)
    if spec.algorithm is not None and algo is not None and algo.name in prim.signature.parameters:
        tp = algo  # a method may fix the algorithm (histogram_init): no such paragraph then
        own = spec.cub_class.startswith("cub::")  # cuda-coop's own compositions have no CUB default to name
        fallback = f"CUB's own default, ``{tp.default.name}``" if own else f"its fallback, ``{tp.default.name}``"
        cub = (f" ({fallback})" if tp.auto is not None
               else " (the default, as in CUB)" if own else " (the default)")
        names = ", ".join(f'``"{m.short_name}"``' + (cub if m is tp.default else "") for m in spec.algorithm)
        if tp.auto is not None:
            auto_doc = _AUTO_DOC if own else own_auto_doc()
            names = f'``"auto"`` (the default: cuda-coop\'s measured choice), {names}. ``"auto"`` {auto_doc}'
        lines += [f"Algorithms (``algorithm=``, ``{spec.algorithm.__name__}``): {names}.", ""]
    if spec.example:
        lines += [f"Example: :ref:`{spec.example} <example-{spec.example}>` on the examples page.", ""]
    described = [(n, docs[n]) for n in prim.signature.parameters if docs.get(n)]
    if described:  # last: numpy-style sections run to the end of the docstring
        lines += ["Parameters", "----------"]
        for n, doc in described:
            lines += [f"{n}:", f"    {doc}"]
    return "\n".join(lines)


def primitive(
    spec_name: str,
    method_name: str,
    *,
    module: str,
    previous: tuple[str, ...] = (),
    renamed: Mapping[str, str] | None = None,
) -> Callable[[F], F]:
    """Declare the public stub of ``spec_name.method_name`` in ``module`` (``"block"``/``"warp"``).

    The stub's body never runs; its signature is checked against the spec, and the spec's generated
    documentation is appended to its docstring. ``previous`` (the positional order of an earlier release, in
    today's names) and ``renamed`` (earlier names -> today's) let a call in the earlier spelling be told what to
    write instead (:meth:`Primitive.bind`).
    """

    def decorate(func: F) -> F:
        spec = get_primitive(spec_name)
        name = f"{module}.{func.__name__}"
        prim = _derive(
            name, spec, spec.method(method_name), inspect.signature(func), previous=previous, renamed=renamed
        )

        @functools.wraps(func)
        def stub(*args: Any, **kwargs: Any) -> Any:
            raise UsageError(
                f"coop.{name}() was called on the host; call it inside a numba-cuda-mlir kernel "
                "(@numba_cuda_mlir.cuda.jit) launched with a block shape, with cuda.coop.numba_mlir active "
                "(see cuda.coop.backend_status())"
            )

        stub.__doc__ = inspect.cleandoc(func.__doc__ or "") + "\n\n" + generated_doc(prim)
        stub.__coop_primitive__ = prim  # type: ignore[attr-defined]
        _PRIMITIVES[name] = prim
        return stub  # type: ignore[return-value]

    return decorate


def primitive_of(obj: Any) -> Primitive | None:
    """The primitive a Python object is the stub of, if any."""
    spec = getattr(obj, "__coop_primitive__", None)
    return spec if isinstance(spec, Primitive) else None


def all_public_primitives() -> tuple[Primitive, ...]:
    """Every public primitive declared so far (all of them once ``cuda.coop`` is imported)."""
    return tuple(_PRIMITIVES[k] for k in sorted(_PRIMITIVES))
