"""One spec drives everything: the public stubs, their docs and the typing agree with the CUB specs.

The stubs are checked against their specs when they are declared (``_dsl._primitive``); this checks that the
check catches a drifted stub, that every stub is registered, that the generated docs name the algorithms and
the example ids resolve, and that ``cuda_coop`` has no import circle.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import cuda.coop as coop
from cuda.coop._dsl._primitive import all_public_primitives, primitive
from cuda.coop._specs import all_primitives

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
import coop_sources

PACKAGE = Path(coop.__file__).resolve().parent
PUBLIC = all_public_primitives()


def test_every_public_stub_is_registered() -> None:
    names = {f"{m}.{n}" for m, mod in (("block", coop.block), ("warp", coop.warp)) for n in mod.__all__}
    assert {p.name for p in PUBLIC} == names


@pytest.mark.parametrize("prim", [p for p in PUBLIC if p.spec.algorithm is not None and "algorithm" in
                                  p.signature.parameters], ids=lambda p: p.name)
def test_docs_name_every_algorithm_and_the_default(prim) -> None:
    """A stub's generated docstring lists each algorithm by its public name and says which is the default.
    (That a stub's parameters and defaults are its spec's is checked when the stub is declared: see
    ``test_the_check_catches_a_drifted_stub``.)"""
    doc = getattr(getattr(coop, prim.name.split(".")[0]), prim.name.split(".")[1]).__doc__ or ""
    for member in prim.spec.algorithm:
        assert f'"{member.short_name}"' in doc, member
    assert f'"{prim.signature.parameters["algorithm"].default}"`` (the default' in doc


def test_the_check_catches_a_drifted_stub() -> None:
    with pytest.raises(AssertionError, match="defaults"):

        @primitive("block_reduce", "sum", module="block")
        def sum(x, *, valid_items=None, algorithm="raking", items_per_thread=None, broadcast=False):  # spec: other
            """Drifted."""

    with pytest.raises(AssertionError, match="parameters"):

        @primitive("warp_scan", "exclusive_scan", module="warp")
        def exclusive_scan(x, op, *, threads=32):  # initial_value and warp_aggregate are missing
            """Drifted."""


def test_every_example_id_resolves_to_a_marked_example() -> None:
    examples = {ex.id for ex in coop_sources.find_examples()}
    for spec in all_primitives():
        assert spec.example is not None, spec.name
        assert spec.example in examples, f"{spec.name}: example {spec.example!r} has no # example-begin marker"


def _imports(path: Path, package: str) -> set[str]:
    """Modules of ``cuda_coop`` that ``path`` imports (anywhere in the file, lazily or not)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    module = module.removesuffix(".__init__")
    base = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            parts = base.split(".")
            root = ".".join(parts[: len(parts) - node.level + 1])
            target = f"{root}.{node.module}" if node.module else root
            for alias in node.names:  # ``from . import _seams`` imports a module; ``from ._x import f`` its parent
                found.add(f"{target}.{alias.name}" if _exists(f"{target}.{alias.name}") else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith(package))
    return {m for m in found if m != module}


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def test_no_import_circle() -> None:
    package = PACKAGE.name
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        if "_headers" in path.parts:
            continue
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        graph[module] = {m for m in _imports(path, package) if _exists(m)}
    # A package's __init__ importing its own submodules is not a circle; a submodule importing its
    # package's __init__ (or a sibling that imports back) is.
    edges = {m: {d for d in deps if not d.startswith(m + ".")} for m, deps in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                cycle = [*stack[stack.index(dep) :], dep]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
