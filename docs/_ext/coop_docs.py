"""Sphinx directives that generate parts of cuda-coop's documentation from the code.

- ``coop-env-variables``: the runtime environment variables, one ``envvar`` entry each, from
  ``cuda_coop._env.VARIABLES`` (the registry the code reads them through).
- ``coop-cmake-variables``: the build-time CMake cache variables (``option(CUDA_COOP_...)`` and
  ``set(CUDA_COOP_... CACHE ...)`` in CMakeLists.txt and cmake/*.cmake), one ``cmakevar`` entry
  each, with CMake's default and help string.
- ``coop-public-modules``: an ``automodule`` for every public module of ``cuda.coop``.
- ``coop-examples``: every example of examples/*.py, cut between ``# example-begin <id>`` and
  ``# example-end <id>`` markers (no examples yet is not an error; a broken marker is).

The sources are read by :mod:`coop_sources`, which the tests use too.
"""

from __future__ import annotations

import re

from coop_sources import CMAKE_FILES, PACKAGE_DIR, REPO, cmake_cache_variables, find_examples
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

# Public modules that activate a DSL backend when imported, with the package they need.
BACKEND_MODULES = {"numba_mlir": "numba_cuda_mlir"}


# --- directives --------------------------------------------------------------------------------


class _GeneratedRst(SphinxDirective):
    """A directive whose content is reStructuredText generated at build time."""

    has_content = False
    allow_titles = False
    """Whether the generated text has section titles (they join the page's sections)."""

    def lines(self) -> list[str]:
        raise NotImplementedError

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
        names.sort(key=lambda n: n == "errors")
        out = [".. automodule:: cuda.coop", "   :members:", ""]
        for name in names:
            self.env.note_dependency(str(PACKAGE_DIR / name))
            module = f"cuda.coop.{name}"
            out += [module, "-" * len(module), ""]
            if name in BACKEND_MODULES:
                out += [f"Importing ``{module}`` activates the integration; it needs ``{BACKEND_MODULES[name]}``.", ""]
            out += [f".. automodule:: {module}", "   :members:", ""]
        return out


class Examples(_GeneratedRst):
    allow_titles = True

    def lines(self) -> list[str]:
        try:
            examples = find_examples()
        except ValueError as exc:
            raise self.error(str(exc)) from None
        if not examples:
            return ["No examples have been added to ``examples/`` yet."]
        out: list[str] = []
        for ex in examples:
            rel = ex.path.relative_to(REPO).as_posix()
            title = f"{ex.id}"
            out += [title, "-" * len(title), ""]
            if ex.summary:
                out += [_rst_text(ex.summary), ""]
            out += [f"From ``{rel}``, lines {ex.first}-{ex.last}:", "",
                    f".. literalinclude:: /../{rel}", "   :language: python", f"   :lines: {ex.first}-{ex.last}",
                    "   :dedent:", ""]
        return out


def _rst_text(text: str) -> str:
    """Plain text from the code, made safe for inline reStructuredText."""
    return re.sub(r"([*`|_\\])", r"\\\1", text)


def setup(app: Sphinx) -> dict[str, object]:
    if not PACKAGE_DIR.is_dir():
        raise ExtensionError(f"cuda-coop's source is not at {PACKAGE_DIR}")
    app.add_object_type("cmakevar", "cmakevar", indextemplate="pair: %s; CMake variable")
    app.add_directive("coop-env-variables", EnvVariables)
    app.add_directive("coop-cmake-variables", CMakeVariables)
    app.add_directive("coop-public-modules", PublicModules)
    app.add_directive("coop-examples", Examples)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
