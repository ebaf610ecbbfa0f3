"""One spec drives everything: the public stubs, their docs and the typing agree with the CUB specs.

Walks every public primitive and fails on any difference between the spec and the public function
(parameters, defaults, algorithm names, example ids); checks the checker itself catches a drifted stub;
and checks that ``cuda_coop`` has no import circle.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

import cuda.coop as coop
from cuda.coop._dsl._primitive import all_public_primitives, generated_doc, primitive, public_parameters
from cuda.coop._specs import all_primitives

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
import coop_sources

PACKAGE = Path(coop.__file__).resolve().parent
PUBLIC = all_public_primitives()


def test_every_public_stub_is_registered() -> None:
    names = {f"{m}.{n}" for m, mod in (("block", coop.block), ("warp", coop.warp)) for n in mod.__all__}
    assert {p.name for p in PUBLIC} == names


@pytest.mark.parametrize("prim", PUBLIC, ids=lambda p: p.name)
def test_stub_matches_its_spec(prim) -> None:
    stub = getattr(getattr(coop, prim.name.split(".")[0]), prim.name.split(".")[1])
    sig = inspect.signature(stub)
    expected = public_parameters(prim.spec, prim.method)
    assert list(sig.parameters) and set(sig.parameters) == set(expected)
    for name, param in sig.parameters.items():
        assert param.default == expected[name] or param.default is expected[name], name
    doc = stub.__doc__ or ""
    assert generated_doc(prim) in doc
    if prim.spec.algorithm is not None and "algorithm" in sig.parameters:  # histogram_init fixes it
        for member in prim.spec.algorithm:
            assert f'"{member.short_name}"' in doc, member
        default = sig.parameters["algorithm"].default
        assert f'"{default}"`` (default)' in doc


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
