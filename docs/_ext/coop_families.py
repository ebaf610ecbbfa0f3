"""The primitive families, their functions, algorithms and types, read from the spec registry.

Everything the docs say about primitives comes from here, computed when the docs are built, so a
family registered in ``cuda.coop._specs._FAMILIES`` (with public stubs in ``cuda.coop.block`` or
``cuda.coop.warp``) gets its reference page, its row in the family table and the support matrix
without any edit to the docs. Used by the ``coop_docs`` Sphinx extension and by the unit tests.

A *family* is one module of ``cuda.coop._specs`` (``block_load_store`` holds BlockLoad and
BlockStore); a spec without public functions is not shown.

Run ``python docs/_ext/coop_families.py --write-readme`` to regenerate the family table of README.md
(between its ``families:begin`` / ``families:end`` markers); a unit test checks it is current.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cuda.coop as coop
from cuda.coop._dsl._primitive import Primitive, all_public_primitives
from cuda.coop._specs import (
    _FAMILIES,
    BUILTIN_TYPES,
    ArgKind,
    CubEnum,
    PrimitiveSpec,
    Request,
    Scope,
    TemplateParam,
    TParamKind,
    UserCallback,
    UserOp,
    bind,
    get_primitive,
)
from cuda.coop.errors import SpecError

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"

PRIMITIVE_NAME = re.compile(r"\bcoop\.(block|warp)\.([A-Za-z_]\w*)")
"""A primitive named in prose or code: ``coop.block.load`` (also inside ``cuda.coop.block.load``)."""


def dsl_types() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(item dtypes, element types of other typed arguments) the Numba-CUDA-MLIR integration passes."""
    from cuda.coop.numba_mlir import _lowering

    return tuple(_lowering.SUPPORTED), tuple(_lowering.ELEMENT_TYPES)


@dataclass(frozen=True)
class Algorithm:
    short: str
    """The ``algorithm=`` value: ``"raking"``."""
    cpp: str
    """CUB's enumerator: ``cub::BLOCK_SCAN_RAKING``."""
    default: bool
    overview: str
    performance: str


@dataclass(frozen=True)
class TypedArgument:
    """A runtime argument whose element type binds a type template parameter other than ``dtype``."""

    names: tuple[str, ...]
    """The public arguments carrying it (``flags``)."""
    tparam: str
    """The spec's template parameter (``flag_type``)."""
    types: tuple[str, ...]
    """The element types the spec and the DSL both accept."""


@dataclass(frozen=True)
class Function:
    """A public stub: ``coop.block.load``."""

    prim: Primitive
    obj: Any

    @property
    def module(self) -> str:
        return self.prim.name.split(".")[0]

    @property
    def name(self) -> str:
        return self.prim.name.split(".")[1]

    @property
    def qualname(self) -> str:
        """``cuda.coop.block.load``."""
        return f"cuda.coop.{self.prim.name}"

    @property
    def call(self) -> str:
        """How kernels spell it: ``coop.block.load``."""
        return f"coop.{self.prim.name}"

    @property
    def cub_method(self) -> str:
        """The C++ member function(s) it calls: ``cub::BlockMergeSort::Sort / StableSort``."""
        return f"{self.prim.spec.cub_class}::" + " / ".join(self.prim.method.cpp_names())

    @property
    def summary(self) -> str:
        """The first sentence of the stub's hand-written docstring."""
        doc = inspect.getdoc(self.obj) or ""
        return " ".join(doc.split("\n\n")[0].split())


@dataclass(frozen=True)
class Family:
    module: str
    """Module of ``cuda.coop._specs``: ``block_load_store``."""
    specs: tuple[PrimitiveSpec, ...]
    functions: tuple[Function, ...]
    summary: str
    """What the family does, from the module docstring, without its leading class names."""

    @property
    def scope(self) -> Scope:
        return self.specs[0].scope

    @property
    def classes(self) -> tuple[str, ...]:
        """C++ classes without their namespace: ``("BlockLoad", "BlockStore")``."""
        return tuple(s.cub_class.rsplit("::", 1)[-1] for s in self.specs)

    @property
    def title(self) -> str:
        return " and ".join(self.classes)

    @property
    def docname(self) -> str:
        """The generated reference page (see ``coop_docs``)."""
        return f"families/{self.module}"


def _summary(module: Any) -> str:
    doc = (module.__doc__ or "").strip().split("\n\n")[0]
    text = " ".join(doc.split())
    # "``cub::BlockReduce``: a reduction ..." -> "A reduction ..." (also ``cuda_coop::`` compositions)
    text = re.sub(r"^(``[\w:]+``(,| and) )*``[\w:]+``:\s*", "", text)
    return text[:1].upper() + text[1:]


def families() -> tuple[Family, ...]:
    """Every family with at least one public function: block families, then warp, each in registry order.

    Raises
    ------
    ValueError
        If a public function's spec belongs to no family module (it would be documented nowhere).
    """
    stubs = [(p, getattr(getattr(coop, p.name.split(".")[0]), p.name.split(".")[1])) for p in all_public_primitives()]
    claimed: set[str] = set()
    found: list[Family] = []
    for module_name in _FAMILIES:
        module = importlib.import_module(f"cuda.coop._specs.{module_name}")
        specs = [
            v for v in vars(module).values()
            if isinstance(v, PrimitiveSpec) and v.name not in claimed and get_primitive(v.name) is v
        ]
        functions = tuple(Function(p, obj) for p, obj in stubs if any(p.spec is s for s in specs))
        specs = [s for s in specs if any(f.prim.spec is s for f in functions)]
        if not specs:
            continue
        claimed |= {s.name for s in specs}
        found.append(Family(module_name, tuple(specs), functions, _summary(module)))
    orphans = sorted(p.name for p, _ in stubs if p.spec.name not in claimed)
    if orphans:
        raise ValueError(f"public primitives whose spec is in no module of _specs._FAMILIES: {', '.join(orphans)}")
    order = {Scope.BLOCK: 0, Scope.WARP: 1}
    return tuple(sorted(found, key=lambda f: order[f.scope]))


def family(module: str) -> Family:
    """The family defined by ``cuda.coop._specs.<module>``; ValueError listing the others."""
    for fam in families():
        if fam.module == module:
            return fam
    raise ValueError(f"no family {module!r} with public functions; families: {', '.join(f.module for f in families())}")


# --- types -------------------------------------------------------------------------------------------


def _allowed(kinds: tuple[str, ...], names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for n in names if not kinds or BUILTIN_TYPES[n].kind in kinds)


def item_types(spec: PrimitiveSpec) -> tuple[str, ...]:
    """The item dtypes (``dtype``) a kernel may use: the spec's kinds, among those the DSL passes."""
    dtype = next(t for t in spec.tparams if t.name == "dtype")
    return _allowed(dtype.kinds, dsl_types()[0])


def typed_arguments(fn: Function) -> tuple[TypedArgument, ...]:
    """The function's other typed arguments (flags, ranks, counters...) and the element types they take."""
    element = dsl_types()[1]
    out: dict[str, TypedArgument] = {}
    tparams = {t.name: t for t in fn.prim.spec.tparams}
    for ov in fn.prim.method.overloads:
        tparams |= {t.name: t for t in ov.tparams}
    public = set(fn.prim.signature.parameters)
    for ov in fn.prim.method.overloads:
        for p in ov.all_params:
            tp = tparams.get(p.type or "")
            if tp is None or tp.kind is not TParamKind.TYPE or tp.name == "dtype" or p.name not in public:
                continue
            if p.kind is ArgKind.OUTPUT and p.extent is None:
                continue
            known = out.get(tp.name)
            names = tuple(dict.fromkeys((*(known.names if known else ()), p.name)))
            out[tp.name] = TypedArgument(names, tp.name, _allowed(tp.kinds, element))
    return tuple(out.values())


def set_by(tp: TemplateParam, functions: list[Function]) -> str:
    """How a kernel sets a class template parameter (reStructuredText): launch, arrays or keyword."""
    if tp.inferred:
        return f"the launch's block shape (``cuda.blockDim.{tp.inferred[-1]}``)"
    params = [p for fn in functions for ov in fn.prim.method.overloads for p in ov.all_params
              if fn.prim.signature.parameters.get(p.name) is not None]
    if tp.kind is TParamKind.TYPE:
        carriers = list(dict.fromkeys(p.name for p in params if p.type == tp.name))
        if carriers:
            return "the element type of " + " or ".join(f"``{n}``" for n in carriers)
    extents = list(dict.fromkeys(p.name for p in params if p.extent == tp.name))
    if extents:
        return (f"the extent of the per-thread array {' or '.join(f'``{n}``' for n in extents)} "
                f"(``{tp.name}=`` may restate it)")
    if any(tp.name in fn.prim.signature.parameters for fn in functions):
        cub = all(fn.prim.spec.cub_class.startswith("cub::") for fn in functions)
        return f"``{tp.name}=``" + (f" ({default_phrase(tp, cub)})" if tp.optional else "")
    return f"fixed: ``{tp.default}``" if tp.optional else "not settable"


def default_phrase(tp: TemplateParam, cub: bool = True) -> str:
    """The one default a call sees, in reStructuredText; for ``"auto"``, CUB's own default named as CUB's.

    ``default "auto" (cuda-coop's measured choice); CUB's own default is BLOCK_REDUCE_WARP_REDUCTIONS``,
    ``default "direct", as in CUB``, ``default 32``. ``cub``: whether the class is CUB's (not a composition of
    cuda-coop's own, whose defaults are not CUB's to state).
    """
    if tp.auto is not None:
        whose = "CUB's own default is" if cub else "without a measurement it is"
        return (f'default ``"auto"`` (cuda-coop\'s measured choice); {whose} ``{tp.default.name}`` '
                f'(``"{tp.default.short_name}"``)')
    if tp.enum is not None:
        return f'default ``"{tp.default.short_name}"``' + (", as in CUB" if cub else "")
    return f"default ``{tp.default!r}``"


_PROBE_BLOCK = (128, 1, 1)
"""The launch the support matrix asks the specs about (a multiple of the warp, a power of two)."""


def _stand_in(tp: TemplateParam, spec: PrimitiveSpec, dtype: str, algorithm: CubEnum | None) -> Any:
    """The probe's value for a template parameter; None to leave it to the spec (inferred, defaulted)."""
    if tp.name == "dtype":
        return dtype
    if tp.enum is not None and tp.enum is spec.algorithm and algorithm is not None:
        return algorithm
    if tp.inferred or tp.optional:
        return None
    if tp.kind is TParamKind.TYPE:
        allowed = _allowed(tp.kinds, dsl_types()[1])
        return "int32" if "int32" in allowed else allowed[0]
    small = {TParamKind.INT: 4, TParamKind.BOOL: False}
    return small.get(tp.kind, next(iter(tp.enum)) if tp.enum is not None else None)


def _probe(fn: Function, dtype: str, algorithm: CubEnum | None) -> bool:
    """Whether some overload of ``fn`` binds with items of ``dtype`` (and ``algorithm``), the other
    template parameters at their defaults or a small valid value, operators user functions."""
    spec = fn.prim.spec
    for ov in fn.prim.method.overloads:
        params = {tp.name: v for tp in (*spec.tparams, *ov.tparams)
                  if (v := _stand_in(tp, spec, dtype, algorithm)) is not None}
        for p in ov.all_params:
            if p.kind is ArgKind.OPERATOR:
                params[p.name] = UserOp("probe_op")
            elif p.kind is ArgKind.CALLBACK:
                params[p.name] = UserCallback("probe_callback")
        try:
            bind(Request(spec.name, fn.prim.method.name, ov.name, **params), _PROBE_BLOCK)
        except SpecError:
            continue
        return True
    return False


def accepted_types(fn: Function, algorithm: CubEnum | None = None) -> tuple[str, ...]:
    """The item dtypes ``fn`` takes (with ``algorithm``; its default if None): the spec's kinds among
    the DSL's types, less those the spec's constraints refuse. If no type at all binds (the probe's
    stand-in values do not suit this spec), the kinds alone decide."""
    kinds = item_types(fn.prim.spec)
    accepted = tuple(t for t in kinds if _probe(fn, t, algorithm))
    return accepted if accepted or algorithm is not None else kinds


def algorithm_restrictions(fn: Function) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(algorithm, refused types)`` for each algorithm that refuses some, not all, of the types
    ``fn`` takes with its default algorithm."""
    if fn.prim.spec.algorithm is None:
        return ()
    base = accepted_types(fn)
    out = []
    for member in fn.prim.spec.algorithm:
        refused = tuple(t for t in base if t not in accepted_types(fn, member))
        if 0 < len(refused) < len(base):
            out.append((member.short_name, refused))
    return tuple(out)


MATRIX_GROUPS = (
    ("Integer items", ("int", "uint")),
    ("Floating-point items", ("float",)),
    ("Complex items", ("complex",)),
)
"""The support matrix's tables, by the kinds of item type they show (one wide table would not fit a screen)."""


def matrix_groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(title, item types)`` of each table of the support matrix: every item type the DSL passes, in its order,
    in the table of its kind (a kind no group names gets a table of its own)."""
    items = dsl_types()[0]
    groups = [(title, tuple(t for t in items if BUILTIN_TYPES[t].kind in kinds)) for title, kinds in MATRIX_GROUPS]
    named = {k for _, kinds in MATRIX_GROUPS for k in kinds}
    for kind in dict.fromkeys(BUILTIN_TYPES[t].kind for t in items if BUILTIN_TYPES[t].kind not in named):
        groups.append((f"{kind} items", tuple(t for t in items if BUILTIN_TYPES[t].kind == kind)))
    return tuple((title, types) for title, types in groups if types)


def not_yet_types() -> tuple[str, ...]:
    """Built-in dtypes the specs know but the DSL does not pass as items yet."""
    items = dsl_types()[0]
    return tuple(n for n in BUILTIN_TYPES if n not in items)


# --- algorithms ----------------------------------------------------------------------------------------


def algorithms(spec: PrimitiveSpec) -> tuple[Algorithm, ...]:
    """The members of the spec's algorithm enum, with CUB's trade-offs (empty without an enum)."""
    if spec.algorithm is None:
        return ()
    default = next(t.default for t in spec.tparams if t.enum is spec.algorithm)
    out = []
    for member in spec.algorithm:
        doc = member.__doc__ or ""
        m = re.search(r"Overview\n-+\n(.*?)\n\nPerformance considerations\n-+\n(.*)", doc, re.DOTALL)
        overview, performance = (m[1], m[2]) if m else (doc, "")
        out.append(Algorithm(member.short_name, str(member), member is default, " ".join(overview.split()),
                             " ".join(performance.split())))
    return tuple(out)


# --- README ----------------------------------------------------------------------------------------------

_BEGIN = "<!-- families:begin (generated by python docs/_ext/coop_families.py --write-readme) -->"
_END = "<!-- families:end -->"


def readme_block() -> str:
    """The README's family table: one row per family, with its CUB classes and functions."""
    rows = ["| class | what | functions |", "|---|---|---|"]
    for fam in families():
        fns = ", ".join(f"`{f.call}`" for f in fam.functions)
        cub = ", ".join(f"`{s.cub_class}`" for s in fam.specs)
        rows.append(f"| {cub} | {fam.summary} | {fns} |")
    rows += ["", "The item types each function takes: [support matrix](docs/support_matrix.rst)."]
    return "\n".join([_BEGIN, *rows, _END])


def readme_with_block(text: str) -> str:
    """``text`` (README.md) with its generated block replaced by :func:`readme_block`."""
    start, end = text.find(_BEGIN), text.find(_END)
    if start < 0 or end < start:
        raise ValueError(f"README.md has no generated block ({_BEGIN!r} ... {_END!r})")
    return text[:start] + readme_block() + text[end + len(_END):]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-readme"]:
        sys.exit("usage: python docs/_ext/coop_families.py --write-readme")
    README.write_text(readme_with_block(README.read_text()))
    print(f"updated {README}")
