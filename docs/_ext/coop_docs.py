"""Sphinx directives that generate parts of cuda-coop's documentation from the code.

- ``coop-env-variables``: the runtime environment variables, one ``envvar`` entry each, from
  ``cuda_coop._env.VARIABLES`` (the registry the code reads them through).
- ``coop-cmake-variables``: the build-time CMake cache variables (``option(CUDA_COOP_...)`` and
  ``set(CUDA_COOP_... CACHE ...)`` in CMakeLists.txt and cmake/*.cmake), one ``cmakevar`` entry
  each, with CMake's default and help string.
- ``coop-public-modules``: an ``automodule`` for every public module of ``cuda.coop`` but the
  primitive modules (``block``, ``warp``), whose functions are on the family pages.
- ``coop-examples``: every example of examples/*.py, cut between ``# example-begin <id>`` and
  ``# example-end <id>`` markers (no examples yet is not an error; a broken marker is).
- ``coop-example <id>``: one of them.

From the spec registry (:mod:`coop_families`), so that a new family needs no edit here:

- one page per family, ``families/<module>.rst``, written when the build starts (the folder is
  generated and not tracked); each holds ``coop-family <module>``: the CUB class, the template
  parameters, the functions (autodoc), the algorithms and their trade-offs, the types, the example;
- ``coop-family-table``: the families, each linking to its page;
- ``coop-support-matrix``: function x item dtype, and the other typed arguments;
- ``coop-performance``: the committed benchmark results (benchmarks/results/), plot and table;
- ``coop-compile-times``: the committed kernel compile times (benchmarks/results/kernel_compile.json);
- ``coop-migration-table``: old ``cuda.coop._experimental`` factories (the directive's content) next
  to the functions that wrap the same CUB class today;
- ``coop-contracts``: every argument's contract (memory space, extent, offset, aliasing, operator), from
  the ``Param`` declarations; ``coop-uniform-arguments``: the arguments that must be uniform.

The sources are read by :mod:`coop_sources` and :mod:`coop_families`, which the tests use too.
"""

from __future__ import annotations

import ast
import csv
import importlib
import json
import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import coop_families
from coop_sources import (
    CMAKE_FILES,
    PACKAGE_DIR,
    REPO,
    Example,
    Recording,
    cmake_cache_variables,
    find_examples,
    recorded_output,
    recording,
)
from docutils import nodes
from docutils.parsers.rst import DirectiveError, directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from cuda.coop._dsl._primitive import _AUTO_DOC, own_auto_doc

logger = logging.getLogger(__name__)

# Public modules that activate a DSL backend when imported, with the package they need.
BACKEND_MODULES = {"numba_mlir": "numba_cuda_mlir", "numba_cuda": "numba-cuda"}


# --- directives --------------------------------------------------------------------------------


class _GeneratedRst(SphinxDirective):
    """A directive whose content is reStructuredText generated at build time."""

    has_content = False
    allow_titles = False
    """Whether the generated text has section titles (they join the page's sections)."""

    def lines(self) -> list[str]:
        raise NotImplementedError

    def committed(self, name: str, *also: str) -> Any:
        """The JSON of ``benchmarks/results/<name>`` (None when it has not been committed); the page is rebuilt
        when it, or one of the files ``also`` drawn from it, changes."""
        results = REPO / "benchmarks" / "results"
        if not (results / name).is_file():
            return None
        for each in (name, *also):
            self.env.note_dependency(str(results / each))
        return json.loads((results / name).read_text())

    def run(self) -> list[nodes.Node]:
        content = StringList(self.lines(), source=f"<{self.name} generated>")
        if self.allow_titles:
            holder: nodes.Element = nodes.section()
            nested_parse_with_titles(self.state, content, holder)
            return list(holder.children)
        holder = nodes.container()
        self.state.nested_parse(content, self.content_offset, holder)
        return [holder]


class EnvVariables(_GeneratedRst):
    def lines(self) -> list[str]:
        from cuda.coop import _env

        self.env.note_dependency(str(PACKAGE_DIR / "_env.py"))
        out: list[str] = []
        for var in _env.VARIABLES:
            kind = ("Switch (truthy rule)" if var.kind == "switch" else "Path or value") + f"; read {var.read_when}."
            out += [f".. envvar:: {var.name}", "", f"   *{kind}* {_rst_text(var.doc)}", ""]
        return out


class CMakeVariables(_GeneratedRst):
    def lines(self) -> list[str]:
        out: list[str] = []
        for path in CMAKE_FILES:
            self.env.note_dependency(str(path))
        for var in cmake_cache_variables():
            default = f"``{var.default}``" if var.default else "empty"
            doc = _rst_text(var.doc.rstrip(".")) + "."
            out += [f".. cmakevar:: {var.name}", "",
                    f"   {var.type}, default {default}, defined in ``{var.source}``. {doc}", ""]
        return out


class PublicModules(_GeneratedRst):
    """``automodule`` for cuda.coop and each public submodule (errors last)."""

    allow_titles = True

    def lines(self) -> list[str]:
        names = sorted(
            p.stem if p.is_file() else p.name
            for p in PACKAGE_DIR.iterdir()
            if not p.name.startswith("_")
            and ((p.is_file() and p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").is_file()))
        )
        primitive_modules = {p.name.split(".")[0] for p in coop_families.all_public_primitives()}
        names = [n for n in names if n not in primitive_modules]
        backends = list(BACKEND_MODULES)  # the integrations in the order of their registration, errors last
        names.sort(key=lambda n: (n == "errors", backends.index(n) if n in backends else -1))
        out = [".. automodule:: cuda.coop", "   :members:", ""]
        documented: dict[int, str] = {}  # a class two integrations export (CompiledKernel) is documented once
        for name in names:
            self.env.note_dependency(str(PACKAGE_DIR / name))
            module = f"cuda.coop.{name}"
            out += [module, "-" * len(module), ""]
            if name in BACKEND_MODULES:
                out += [f"Importing ``{module}`` activates the integration; it needs ``{BACKEND_MODULES[name]}``.", ""]
            exported = importlib.import_module(module)
            again = [m for m in getattr(exported, "__all__", ()) if isinstance(getattr(exported, m), type)
                     and id(getattr(exported, m)) in documented]
            for m in again:
                out += [f"``{m}``: as in :mod:`{documented[id(getattr(exported, m))]}`.", ""]
            out += [f".. automodule:: {module}", "   :members:"]
            out += [f"   :exclude-members: {', '.join(again)}", ""] if again else [""]
            documented.update({id(getattr(exported, m)): module for m in getattr(exported, "__all__", ())
                               if isinstance(getattr(exported, m), type)})
        return out


class Examples(_GeneratedRst):
    """``.. coop-examples::``: every file of examples/, whole, with its recorded output. Each file's section has the
    labels ``example-file-<stem>`` and ``example-<id>`` for each of its marked examples (the reference pages link
    them)."""

    allow_titles = True

    def lines(self) -> list[str]:
        try:
            examples = find_examples()
        except ValueError as exc:
            raise self.error(str(exc)) from None
        if not examples:
            return ["No examples have been added to ``examples/`` yet."]
        try:
            recorded = recording()
        except ValueError as exc:
            raise self.error(str(exc)) from None
        out: list[str] = []
        for path in sorted({ex.path for ex in examples}):
            here = [ex for ex in examples if ex.path == path]
            out += [f".. _{example_label(path)}:", ""]
            out += [line for ex in here for line in (f".. _{example_label(ex.id)}:", "")]
            title = path.name
            out += [title, "-" * len(title), ""]
            if here[0].summary:
                out += [_rst_text(here[0].summary), ""]
            out += _whole_file(path, here)
            self.env.note_dependency(str(path))
            out += _output(self, path, recorded)
        return out


def example_label(what: str | Path) -> str:
    """The label of an example on the examples page: ``example-<id>``, or ``example-file-<stem>`` for a file."""
    return f"example-file-{what.stem}" if isinstance(what, Path) else f"example-{what}"


def _whole_file(path: Path, shown: list[Example]) -> list[str]:
    """The whole example file, with the lines of the marked examples ``shown`` highlighted."""
    rel = path.relative_to(REPO).as_posix()
    spans = ", ".join(f"``{ex.id}`` (lines {ex.first}-{ex.last})" for ex in shown)
    lines = ",".join(f"{ex.first}-{ex.last}" for ex in shown)
    return [f"``{rel}``, the whole file; highlighted: {spans}. Run it with ``python {rel}`` on a machine with an "
            "NVIDIA GPU and cuda-coop's Numba-CUDA-MLIR extra (:doc:`/installation`); without a GPU it compiles its "
            "kernels for sm_90 and launches none.", "",
            f".. literalinclude:: /../{rel}", "   :language: python", "   :linenos:", f"   :emphasize-lines: {lines}",
            ""]


def _output(directive: SphinxDirective, path: Path, recorded: Recording) -> list[str]:
    """What ``path`` printed in the recorded GPU run, as a text block."""
    printed = recorded_output(path)
    if printed is None and path.stem in recorded.pending:
        return ["Not run on a GPU yet: this example was added in a session without one, and the next GPU run of the "
                "examples records what it prints.", ""]
    if printed is None:
        raise directive.error(f"{path.name} has no recorded output in docs/example_output/ (run the GPU tier's "
                              "example test with CUDA_COOP_RECORD_EXAMPLES=<folder> and copy it there)")
    return [f"Output on an {recorded.device} ({recorded.date}):", "", ".. code-block:: text", "",
            *(f"   {line}" for line in printed.strip().splitlines()), ""]


class OneExample(_GeneratedRst):
    """``.. coop-example:: <id>``: one marked example, with where it comes from.

    ``:program:`` makes it a program one can read top to bottom: the file's imports above the example
    come first, and the module-level functions named by ``:then:`` (``run_on_gpu``) after it.
    """

    required_arguments = 1
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {"program": directives.flag, "then": directives.unchanged}

    def lines(self) -> list[str]:
        ex = _example(self, self.arguments[0])
        if "program" not in self.options:
            return _include(ex)
        source = ex.path.read_text()
        tree = ast.parse(source)
        body: list[tuple[int, int]] = [(ex.first, ex.last)]
        functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        for name in self.options.get("then", "").split():
            if name not in functions:
                raise self.error(f"{ex.path.name} has no module-level function {name!r}")
            node = functions[name]
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            blank = 0  # the blank lines above the function, as in the file (PEP 8's two)
            while blank < 2 and first - 1 > body[-1][1] and not source.splitlines()[first - 2].strip():
                first, blank = first - 1, blank + 1
            body.append((first, node.end_lineno or node.lineno))
        lines = source.splitlines()
        shown = "\n".join(line for a, b in body for line in lines[a - 1:b])
        # the imports above the example whose names the shown code uses
        imports = [(n.lineno, n.end_lineno or n.lineno) for n in tree.body
                   if isinstance(n, ast.Import | ast.ImportFrom) and n.lineno < ex.first
                   and any(re.search(rf"\b{re.escape((a.asname or a.name).split('.')[0])}\b", shown)
                           for a in n.names)]
        ranges = imports + body
        rel = ex.path.relative_to(REPO).as_posix()
        spans = ",".join(f"{a}-{b}" for a, b in ranges)
        return [f"From ``{rel}`` (run it with ``python {rel}``):", "", f".. literalinclude:: /../{rel}",
                "   :language: python", f"   :lines: {spans}", ""]


def _example(directive: SphinxDirective, ident: str) -> Example:
    try:
        examples = {ex.id: ex for ex in find_examples()}
    except ValueError as exc:
        raise directive.error(str(exc)) from None
    if ident not in examples:
        raise directive.error(f"no example {ident!r} in examples/*.py; examples: {', '.join(sorted(examples))}")
    directive.env.note_dependency(str(examples[ident].path))
    return examples[ident]


def _include(ex: Example) -> list[str]:
    rel = ex.path.relative_to(REPO).as_posix()
    return [f"From ``{rel}``, lines {ex.first}-{ex.last} (run it with ``python {rel}``):", "",
            f".. literalinclude:: /../{rel}", "   :language: python", f"   :lines: {ex.first}-{ex.last}",
            "   :dedent:", ""]


# --- primitive families (from the spec registry) ------------------------------------------------------

FAMILY_DIR = "families"
"""Folder of the generated family pages, under the docs' source folder."""

_SCOPE = {"block": "the thread block", "warp": "each logical warp"}


def write_family_pages(app: Sphinx) -> None:
    """Write ``families/<module>.rst`` for every family (only files whose text changed); remove others."""
    folder = Path(app.srcdir) / FAMILY_DIR
    folder.mkdir(exist_ok=True)
    wanted: dict[str, str] = {}
    for fam in coop_families.families():
        rule = "=" * len(fam.title)
        wanted[f"{fam.module}.rst"] = (
            ".. Generated by docs/_ext/coop_docs.py from cuda-coop's spec registry at build time: do not edit.\n\n"
            f"{rule}\n{fam.title}\n{rule}\n\n.. coop-family:: {fam.module}\n"
        )
    for old in folder.glob("*.rst"):
        if old.name not in wanted:
            old.unlink()
    for name, text in wanted.items():
        path = folder / name
        if not path.is_file() or path.read_text() != text:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(text)
            tmp.replace(path)


def _note_specs(directive: SphinxDirective) -> None:
    """Rebuild the page when a spec or a public stub changes (incremental builds; CI builds with -E)."""
    for folder in ("_specs", "block", "warp"):
        for path in sorted((PACKAGE_DIR / folder).glob("*.py")):
            directive.env.note_dependency(str(path))


def _table(header: list[str], rows: list[list[str]], widths: str = "auto", cls: str = "") -> list[str]:
    """A ``list-table`` of reStructuredText cells (one line each); ``cls``: its HTML class (docs/_static/coop.css)."""
    out = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}"]
    out += [f"   :class: {cls}", ""] if cls else [""]
    for row in [header, *rows]:
        out.append(f"   * - {row[0] or ' '}")
        out += [f"     - {cell or ' '}" for cell in row[1:]]
    return [*out, ""]


def _func(fn: coop_families.Function) -> str:
    return f":func:`{fn.call} <{fn.qualname}>`"


def _types(names: tuple[str, ...]) -> str:
    return ", ".join(f"``{n}``" for n in names) or "none"


class FamilyPage(_GeneratedRst):
    """``.. coop-family:: <module>``: the reference of one family."""

    required_arguments = 1
    allow_titles = True

    def lines(self) -> list[str]:
        try:
            fam = coop_families.family(self.arguments[0])
        except ValueError as exc:
            raise self.error(str(exc)) from None
        _note_specs(self)
        scope = fam.functions[0].module
        out = [f".. py:currentmodule:: cuda.coop.{scope}", ""]
        for spec in fam.specs:
            out += [spec.doc, ""]
        for spec in fam.specs:
            if spec.cub_class.startswith("cub::"):
                out += [f":CUB class: ``{spec.cub_class}`` (``#include <{spec.header}>``)"]
            else:  # cuda-coop's own composition of CUB classes
                out += [f":Class: ``{spec.cub_class}``, cuda-coop's code on ``<{spec.header}>``"]
        items = tuple(dict.fromkeys(t for fn in fam.functions for t in coop_families.accepted_types(fn)))
        out += [f":Called by: every thread of {_SCOPE[scope]}, together, inside a kernel (:mod:`cuda.coop.{scope}`)",
                f":Item types: {_types(items)}",
                ":Temporary storage: allocated by cuda-coop, none to pass", ""]
        out += self._summary(fam) + self._examples(fam) + self._algorithms(fam) + self._parameters(fam)
        out += self._types(fam) + self._reference(fam)
        return out

    def _summary(self, fam: coop_families.Family) -> list[str]:
        rows = [[_func(fn), f"``{fn.cub_method}``", fn.summary] for fn in fam.functions]
        return ["Functions", "---------", "", *_table(["function", "C++ method", "what it does"], rows, "25 25 50")]

    def _reference(self, fam: coop_families.Family) -> list[str]:
        out = ["Reference", "---------", ""]
        for fn in fam.functions:
            out += [f".. autofunction:: {fn.qualname}", ""]
        return out

    def _parameters(self, fam: coop_families.Family) -> list[str]:
        out = ["Template parameters", "-------------------", "",
               "How each template parameter of the CUB class is set; nothing is declared ahead of the kernel.", ""]
        for spec in fam.specs:
            fns = [fn for fn in fam.functions if fn.prim.spec is spec]
            rows = []
            for tp in spec.tparams:
                rows.append([f"``{tp.cpp}``", coop_families.set_by(tp, fns), _rst_doc(tp.doc)])
            if len(fam.specs) > 1:
                out += [f"``{spec.cub_class}``:", ""]
            out += _table(["CUB", "set by", "meaning"], rows, "15 40 45")
        return out

    def _algorithms(self, fam: coop_families.Family) -> list[str]:
        out: list[str] = []
        for spec in fam.specs:
            algos = coop_families.algorithms(spec)
            if not algos or spec.algorithm is None:
                continue
            if not out:
                whose = "CUB's" if all(s.cub_class.startswith("cub::") for s in fam.specs) else "cuda-coop's"
                out += ["Algorithms", "----------", "",
                        f"Chosen with ``algorithm=`` (a compile-time constant); the trade-offs are {whose}.", ""]
            tp = next(t for t in spec.tparams if t.enum is spec.algorithm)
            cub = spec.cub_class.startswith("cub::")
            fns = [fn for fn in fam.functions if fn.prim.spec is spec]
            takers = [fn for fn in fns if tp.name in fn.prim.signature.parameters]
            out += [f"``{spec.algorithm.__name__}`` ({spec.cub_class}), ``algorithm=`` of "
                    f"{', '.join(_func(fn) for fn in takers)}: {coop_families.default_phrase(tp, cub)}.", ""]
            fixed = [fn for fn in fns if fn not in takers]
            if fixed:
                out += [f"{', '.join(_func(fn) for fn in fixed)} {'takes' if len(fixed) == 1 else 'take'} no "
                        "``algorithm=``.", ""]
            mark = (("CUB's own default" if cub else "the fallback of ``\"auto\"`` without a measurement")
                    if tp.auto is not None else "the default" + (", as in CUB" if cub else ""))
            if tp.auto is not None:
                specific = re.sub(r"^[A-Z][\w ]* algorithm; ", "", _rst_doc(tp.doc))  # "Scan algorithm; ..."
                auto_doc = _AUTO_DOC if cub else own_auto_doc()
                out += [f'The default, ``algorithm="auto"``, {auto_doc}. {specific} The rules are in '
                        "``cuda_coop/_specs/_auto.py``, the measurement in ``benchmarks/auto_table.py``.", "",
                        '``"auto"`` (the default)', "   cuda-coop's measured choice among the algorithms below, "
                        "made when the kernel compiles.", ""]
            for a in algos:  # a definition list: CUB's enumerators are too long for a table's columns
                out += [f'``"{a.short}"``: ``{a.cpp}``' + (f", {mark}" if a.default else ""),
                        f"   {_rst_doc(a.overview)}", "", f"   *Trade-offs:* {_rst_doc(a.performance)}", ""]
        return out

    def _types(self, fam: coop_families.Family) -> list[str]:
        out = ["Types", "-----", ""]
        rows = [[_func(fn), _types(coop_families.accepted_types(fn))] for fn in fam.functions]
        out += _table(["function", "item types (``dtype``)"], rows, "30 70") + _restrictions(fam.functions)
        rows = [[_func(fn), ", ".join(f"``{n}``" for n in arg.names), _types(arg.types)]
                for fn in fam.functions for arg in coop_families.typed_arguments(fn)]
        if rows:
            out += ["Other typed arguments:", "", *_table(["function", "argument", "element types"], rows, "30 25 45")]
        out += _records(fam.functions)
        out += ["All functions and types at once: :doc:`/support_matrix`.", ""]
        return out

    def _examples(self, fam: coop_families.Family) -> list[str]:
        ids = list(dict.fromkeys(s.example for s in fam.specs if s.example))
        if not ids:
            return []
        out = ["Example", "-------", ""]
        found: list[Example] = []
        for ident in ids:
            try:
                found.append(_example(self, ident))
            except DirectiveError as exc:  # report it, and still document the functions
                logger.warning(str(exc.msg), location=self.get_location())
        try:
            recorded = recording()
        except ValueError as exc:
            raise self.error(str(exc)) from None
        for path in dict.fromkeys(ex.path for ex in found):
            here = [ex for ex in found if ex.path == path]
            others = [ex.id for ex in find_examples() if ex.path == path and ex not in here]
            out += _whole_file(path, here)
            if others:
                out += [f"The file's other kernels are the examples of other families: "
                        f"{', '.join(f':ref:`{o} <{example_label(o)}>`' for o in others)}.", ""]
            out += _output(self, path, recorded)
        return out


class FamilyTable(_GeneratedRst):
    """``.. coop-family-table::``: every family, linking to its page; functions by their name in the module
    the scope column names (``subtract_left`` of ``coop.block``), so that the table fits the page."""

    def lines(self) -> list[str]:
        _note_specs(self)
        rows = [[f":doc:`{fam.title} </{fam.docname}>`", fam.scope.value, fam.summary,
                 ", ".join(f":func:`{fn.name} <{fn.qualname}>`" for fn in fam.functions)]
                for fam in coop_families.families()]
        return _table(["family", "scope", "what", "functions (of ``coop.<scope>``)"], rows, "20 8 34 38")


class SupportMatrix(_GeneratedRst):
    """``.. coop-support-matrix::``: public function x item dtype, then the other typed arguments."""

    def lines(self) -> list[str]:
        _note_specs(self)
        functions = [fn for fam in coop_families.families() for fn in fam.functions]
        accepted = {fn.call: set(coop_families.accepted_types(fn)) for fn in functions}
        out: list[str] = []
        for title, types in coop_families.matrix_groups():
            rows = [[_func(fn), *("✓" if t in accepted[fn.call] else "" for t in types)] for fn in functions]
            out += [f"**{title}**", "", *_table(["function", *types], rows, "auto", "coop-compact coop-matrix")]
        out += _restrictions(functions) + _records(functions)
        later = coop_families.not_yet_types()
        if later:
            out += [f"Known to the specs but not passed by the Numba-CUDA-MLIR integration yet: {_types(later)}.", ""]
        other = [[_func(fn), ", ".join(f"``{n}``" for n in arg.names), _types(arg.types)]
                 for fam in coop_families.families() for fn in fam.functions
                 for arg in coop_families.typed_arguments(fn)]
        if other:
            out += ["Arguments other than the items whose element type is free (flags, ranks, counters, counts):",
                    "", *_table(["function", "argument", "element types"], other, "30 25 45")]
        return out


class Performance(_GeneratedRst):
    """``.. coop-performance::``: the committed benchmark results (benchmarks/results/suite.json), their
    plot and table; a note when there are none."""

    def lines(self) -> list[str]:
        run = self.committed("suite.json", "suite.svg", "suite.csv")
        if run is None:
            return ["No results have been committed yet (``benchmarks/results/suite.json``)."]
        summary, rows = run["summary"], run["rows"]
        checked = sum(bool(r.get("cub_ok")) and bool(r.get("coop_ok")) for r in rows)
        out = [
            f"Measured on an {run['device']} on {run['date'][:10]}: cuda-coop {run['cuda_coop']}, "
            f"CCCL {run['cccl']}, Python {run['python']}; each figure is the median of {run['reps']} samples "
            f"of {run['batch']} launches.",
            "",
            f"Over the {len(rows)} cases ({checked} checked against NumPy on every tile), the ratio cuda-coop "
            f"time / CUB C++ time has median {summary['median']:.3f} and maximum {summary['max']:.3f}; "
            f"{_cases(summary['above_1.02'])} above 1.02 (below 1, cuda-coop is faster).",
            "",
        ]
        if "coop_launch_us" in summary:
            out += [
                f"One launch call took {summary['coop_launch_us']:.1f} µs on the host for a cuda-coop kernel "
                f"(numba-cuda-mlir's dispatcher) and {summary['cub_launch_us']:.1f} µs for its twin (cuda.core's "
                "``launch``), medians over the cases; the GPU times above exclude it.",
                "",
            ]
        if "auto_vs_best_max" in summary:
            out += [
                f"In the {summary['auto_cases']} cases whose call leaves ``algorithm`` to ``\"auto\"``, every "
                "algorithm auto may pick was also timed as an explicit choice, in the same kernel: auto's time over "
                f"the fastest of them is at most {summary['auto_vs_best_max']:.3f} "
                f"({_cases(summary['auto_above_1.02'])} above 1.02; the table's column 'auto / best explicit').",
                "",
            ]
        out += [".. image:: /../benchmarks/results/suite.svg", "   :alt: cuda-coop time / CUB C++ time per case", ""]
        header, *body = list(csv.reader((REPO / "benchmarks" / "results" / "suite.csv").read_text().splitlines()))
        same = [i for i in range(1, len(header)) if len({row[i] for row in body}) == 1]  # one value in every case
        if same:
            out += ["In every case: " + ", ".join(f"{_rst_text(header[i])} = {_rst_text(body[0][i])}" for i in same)
                    + ".", ""]
        keep = [i for i in range(len(header)) if i not in same]
        out += _table([_rst_text(header[i]) for i in keep],
                      [[_rst_text(power_of_two(row[i])) for i in keep] for row in body], "auto", "coop-compact")
        return out


class Parity(_GeneratedRst):
    """``.. coop-parity::``: the same algorithm on both sides (benchmarks/results/suite.json): each reduce and
    scan case's explicit algorithms against twins with the same algorithm, and the default against CUB's; the
    plot ``suite_parity.svg`` drawn from the same run."""

    def lines(self) -> list[str]:
        run = self.committed("suite.json", "suite_parity.svg")
        if run is None:
            return ["No results have been committed yet (``benchmarks/results/suite.json``)."]
        summary, rows = run["summary"], [r for r in run["rows"] if "same_algorithm" in r]
        if not rows:
            return ["The committed run did not time the algorithms on both sides (``suite.py --no-explicit``)."]
        others = [r for r in run["rows"] if "same_algorithm" not in r]
        algorithms = list(dict.fromkeys(a for r in rows for a in r["same_algorithm"]))
        pairs = sum(len(r["same_algorithm"]) for r in rows)
        same = [v for r in rows for v in r["same_algorithm"].values()]
        out = [
            f"From the same run: {pairs} pairs over {len(rows)} cases with a choice of algorithm "
            f"({', '.join(sorted({r['family'] for r in rows}))}), median "
            f"{statistics.median(same):.3f}, maximum {max(same):.3f}, {sum(v > 1.03 for v in same)} above 1.03"
            + (f"; the other {len(others)} cases, whose twins call the same algorithm as the cuda-coop kernel, at "
               f"most {max(r['ratio'] for r in others):.3f}" if others else "")
            + f". The default (``\"auto\"``) against CUB's default: median {summary['default_median']:.3f}, maximum "
            f"{summary['default_max']:.3f}, {_cases(summary['default_above_1.01'])} above 1.01.",
            "",
            ".. image:: /../benchmarks/results/suite_parity.svg",
            "   :alt: cuda-coop time / CUB C++ time per reduce and scan case, each algorithm on both sides",
            "",
        ]
        table = [[r["case"], f"{r['ratio']:.3f}", *(f"{r['same_algorithm'][a]:.3f}" if a in r["same_algorithm"]
                                                    else "" for a in algorithms)] for r in rows]
        return out + _table(["case", "default / CUB's default", *(f'``"{a}"``' for a in algorithms)], table,
                            "auto", "coop-compact")


class AbiGap(_GeneratedRst):
    """``.. coop-abi-gap::``: benchmarks/results/abi_gap.json (``benchmarks/abi_gap.py``), the reduce pairs over a
    same-algorithm ratio against the twin with Numba-CUDA-MLIR's store, and the cubin launched by cuda.core."""

    SAME = 1.005
    """``coop / numba-store twin`` at most this: the gap is the store."""

    def lines(self) -> list[str]:
        run = self.committed("abi_gap.json")
        if run is None:
            return ["No results have been committed yet (``benchmarks/results/abi_gap.json``)."]
        rows = run["rows"]
        store = [r for r in rows if r["coop_vs_numba_store"] <= self.SAME]
        rest = [r for r in rows if r["coop_vs_numba_store"] > self.SAME]
        checked = sum(all(r["ok"].values()) for r in rows)
        out = [
            f"Measured on an {run['device']} on {run['date'][:10]} ({run['reps']} samples of {run['batch']} launches "
            f"each; {checked} of {len(rows)} pairs with every result checked against NumPy). In {len(store)} of the "
            f"{len(rows)} pairs the cuda-coop kernel is within {self.SAME} of the twin with Numba-CUDA-MLIR's store: "
            "the gap is that store.",
            "",
        ]
        if rest:
            low, high = min(r["coop_vs_numba_store"] for r in rest), max(r["coop_vs_numba_store"] for r in rest)
            core = max(abs(r["coop_core_vs_numba_store"] / r["coop_vs_numba_store"] - 1) for r in rest)
            out += [
                f"In the other {len(rest)}, it stays {low:.3f}-{high:.3f} times that twin, and the same launched by "
                f"cuda.core (within {core:.1%}): the launch path is not the cause.",
                "",
            ]
        table = [[r["case"], f'``"{r["algorithm"]}"``', f"{r['coop_vs_twin']:.3f}", f"{r['coop_vs_numba_store']:.3f}",
                  f"{r['numba_store_vs_twin']:.3f}", f"{r['coop_core_vs_numba_store']:.3f}"] for r in rows]
        return out + _table(["case", "algorithm", "cuda-coop / twin", "cuda-coop / twin with Numba's store",
                             "twin with Numba's store / twin", "cubin by cuda.core / twin with Numba's store"],
                            table, "auto", "coop-compact")


def power_of_two(cell: str) -> str:
    """``2^28`` for ``268435456`` (the item counts of the benchmark table, narrower so), other cells as they are."""
    if cell.isdigit() and int(cell) >= 1024 and int(cell) & (int(cell) - 1) == 0:
        return f"2^{int(cell).bit_length() - 1}"
    return cell


class CompileTimes(_GeneratedRst):
    """``.. coop-compile-times::``: what a user waits for at a kernel's first launch, from the committed
    ``benchmarks/results/kernel_compile.json`` (``benchmarks/kernel_compile.py``); a note when there is none.
    The benchmark's own report, with the internal targets, is for benchmarks/README.md, not this page."""

    def lines(self) -> list[str]:
        run = self.committed("kernel_compile.json")
        if run is None:
            return ["No compile-time results have been committed yet (``benchmarks/results/kernel_compile.json``)."]
        summary = run["summary"]
        versions = ", ".join(f"{name} {summary[key]}" for name, key in
                             (("cuda-coop", "cuda_coop"), ("numba-cuda-mlir", "numba_cuda_mlir"), ("NVRTC", "nvrtc"))
                             if summary.get(key))
        warm = {row["kernel"]: row for row in summary["warm"]}
        kept = {row["kernel"]: row for row in summary.get("kept", [])}
        grid = {row["kernel"]: row for row in summary["new_grid"]}

        def ms(seconds: float | None) -> str:
            return "" if seconds is None else f"{seconds * 1000:.1f}"

        rows = [[f"``{row['kernel']}``" + (" (first)" if i == 0 else ""), ms(row["total"]),
                 ms(kept.get(row["kernel"], {}).get("total")), ms(warm.get(row["kernel"], {}).get("total")),
                 ms(grid.get(row["kernel"], {}).get("total"))]
                for i, row in enumerate(summary["cold"])]
        out = [f"Measured on an {summary['device']} with {summary['cpus']} CPUs on {summary['date'][:10]}: "
               f"{versions}, Python {summary['python']}; each figure is the median of {summary['reps']} fresh "
               "processes.", ""]
        if summary.get("gpu"):
            out += [f"Before its first kernel, a new process took {summary['import']:.1f} s to import "
                    f"numba-cuda-mlir and cuda.coop and {ms(summary['context'])} ms to create the CUDA context.", ""]
        out += _table(["kernel, in launch order", "new process, no cache: first launch (ms)",
                       "new process, precompiled header kept: first launch, new block (ms)",
                       "new process, cache filled: first launch (ms)", "same kernel, new grid (ms)"], rows,
                      "20 20 20 20 20")
        out += [f"For comparison, the first launch of a small kernel without cuda-coop calls took "
                f"{ms(summary['plain_again'])} ms in the process with the cache filled: numba-cuda-mlir's own "
                "compile, which every kernel pays.", ""]
        return out


def _cases(n: int) -> str:
    """``1 case is`` / ``3 cases are``."""
    return f"{n} case is" if n == 1 else f"{n} cases are"


def _records(functions: list[coop_families.Function]) -> list[str]:
    """Which of ``functions`` take records and tuples as items (``_specs._support.record_support``)."""
    from cuda.coop._specs._support import record_support

    support = {r.primitive: r for r in record_support()}
    rows = [[_func(fn), _rst_text(support[fn.prim.name].note)] for fn in functions if support[fn.prim.name].supported]
    if not rows:
        return []
    return [
        "Records (NumPy structured dtypes made with ``align=True``, of integer, float16/32/64 and bool fields) and "
        "tuples of such scalars are taken as items by:", "", *_table(["function", "how"], rows, "30 70"),
        "Sums of records and tuples are refused (they have no ``+``): pass a Python ``op`` to the function above. "
        "A record result, like any Numba record, refers to its bytes: the next call at the same place in the "
        "kernel (a loop's next iteration) rewrites them, so copy the fields you keep, or use a tuple.", "",
    ]


def _restrictions(functions: list[coop_families.Function]) -> list[str]:
    """A list of the algorithms that take fewer item types than their function's default algorithm."""
    out = []
    for fn in functions:
        for algorithm, refused in coop_families.algorithm_restrictions(fn):
            out.append(f'- {_func(fn)} with ``algorithm="{algorithm}"`` does not take {_types(refused)}.')
    return ["Algorithms that take fewer types:", "", *out, ""] if out else []


class Contracts(_GeneratedRst):
    """``.. coop-contracts::``: every public function's arguments that have a contract (``Param`` declarations,
    worded by ``cuda.coop._specs._contracts.describe``), and the arguments each may not share one array with."""

    def lines(self) -> list[str]:
        from cuda.coop._specs._contracts import describe, must_differ

        _note_specs(self)
        rows = []
        for fam in coop_families.families():
            for fn in fam.functions:
                public = set(fn.prim.signature.parameters)
                differ = must_differ(fn.prim.method)
                params = {p.name: p for ov in fn.prim.method.overloads for p in ov.all_params if p.name in public}
                for p in params.values():
                    text = describe(p)
                    others = [b if a == p.name else a for a, b in differ if p.name in (a, b)]
                    if others:
                        text += "; not the same array as " + ", ".join(f"``{o}``" for o in others)
                    if text:
                        rows.append([_func(fn), f"``{p.name}``", text])
        return _table(["function", "argument", "what it must be"], rows, "25 15 60")


class UniformArguments(_GeneratedRst):
    """``.. coop-uniform-arguments::``: the arguments CUB reads as one value for the threads that call together
    (``Param.uniform``), by function."""

    def lines(self) -> list[str]:
        _note_specs(self)
        rows = []
        for fam in coop_families.families():
            for fn in fam.functions:
                public = fn.prim.signature.parameters
                names = dict.fromkeys(
                    name for ov in fn.prim.method.overloads for p in ov.all_params if p.uniform
                    for name in (p.name, p.offset) if name and name in public
                )
                if names:
                    rows.append([_func(fn), ", ".join(f"``{n}``" for n in names)])
        return _table(["function", "arguments the same in every thread (block) or lane (logical warp)"], rows, "30 70")


class MigrationTable(_GeneratedRst):
    """``.. coop-migration-table::`` with content lines ``old call | cub::Class | method``: each old
    factory next to today's functions that wrap that CUB class (and method, if given)."""

    has_content = True

    def lines(self) -> list[str]:
        _note_specs(self)
        rows = []
        functions = [fn for fam in coop_families.families() for fn in fam.functions]
        for number, line in enumerate(self.content, start=1):
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3 or not parts[1].startswith("cub::"):
                raise self.error(f"line {number} {line!r}: expected 'old call | cub::Class | method or empty'")
            old, cub_class, method = parts
            scope = old.split(".")[0]
            now = [fn for fn in functions if fn.prim.spec.cub_class == cub_class and fn.module == scope
                   and (not method or method in (fn.prim.method.name, fn.prim.method.cpp))]
            cell = ", ".join(_func(fn) for fn in now) or f"not wrapped yet (``{cub_class}``)"
            rows.append([f"``{old}``", f"``{cub_class}``", cell])
        return _table(["cuda.coop._experimental", "CUB", "cuda-coop"], rows, "40 20 40")


def _rst_text(text: str) -> str:
    """Plain text from the code, made safe for inline reStructuredText."""
    return re.sub(r"([*`|_\\])", r"\\\1", text)


def _rst_doc(text: str) -> str:
    """A spec's doc string (already reStructuredText inline markup) on one line of a table cell."""
    return " ".join(text.split())


def drop_stub_typehints(app: Sphinx, what: str, name: str, obj: object, *_: object) -> None:
    """Primitive stubs annotate every parameter ``Any`` (a kernel's types decide): show no types for them.

    Runs after autodoc recorded the annotations (priority 600 > 500), before they are merged into the
    parameter list.
    """
    if what == "function" and getattr(obj, "__coop_primitive__", None) is not None:
        app.env.current_document.autodoc_annotations.pop(name, None)


def setup(app: Sphinx) -> dict[str, object]:
    if not PACKAGE_DIR.is_dir():
        raise ExtensionError(f"cuda-coop's source is not at {PACKAGE_DIR}")
    app.add_object_type("cmakevar", "cmakevar", indextemplate="pair: %s; CMake variable")
    app.add_directive("coop-env-variables", EnvVariables)
    app.add_directive("coop-cmake-variables", CMakeVariables)
    app.add_directive("coop-public-modules", PublicModules)
    app.add_directive("coop-examples", Examples)
    app.add_directive("coop-example", OneExample)
    app.add_directive("coop-family", FamilyPage)
    app.add_directive("coop-family-table", FamilyTable)
    app.add_directive("coop-support-matrix", SupportMatrix)
    app.add_directive("coop-migration-table", MigrationTable)
    app.add_directive("coop-contracts", Contracts)
    app.add_directive("coop-uniform-arguments", UniformArguments)
    app.add_directive("coop-performance", Performance)
    app.add_directive("coop-compile-times", CompileTimes)
    app.add_directive("coop-parity", Parity)
    app.add_directive("coop-abi-gap", AbiGap)
    app.connect("builder-inited", write_family_pages)
    app.connect("autodoc-process-signature", drop_stub_typehints, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
