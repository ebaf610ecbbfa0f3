"""The documented configuration and the configuration the code reads are the same.

- Environment variables: the set documented in docs/configuration.rst (by hand, and generated from
  ``cuda_coop._env.VARIABLES``) equals the set the source of ``cuda.coop`` reads, found by scanning
  every ``_env.get(...)`` / ``_env.flag(...)`` / ``_env.path(...)`` / ``_env.paths(...)`` call;
  nothing outside ``_env.py`` touches ``os.environ``.
- CMake cache variables: every ``CUDA_COOP_*`` cache variable of CMakeLists.txt and cmake/*.cmake is
  documented in docs/installation.rst or docs/configuration.rst, and every one documented exists.
- Examples: the markers the docs cut examples by are well formed.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cuda.coop import _env

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PACKAGE = REPO / "cuda_coop"
sys.path.insert(0, str(DOCS / "_ext"))

import coop_sources  # noqa: E402

REGISTRY = {v.name for v in _env.VARIABLES}
ENV_MODULE_ATTRS = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def _rst(name: str) -> str:
    return (DOCS / name).read_text()


def _roles(role: str) -> set[str]:
    """Targets of :role:`X` and ``.. role:: X`` in every page."""
    found: set[str] = set()
    for page in DOCS.glob("*.rst"):
        text = page.read_text()
        found |= set(re.findall(rf":{role}:`([^`<]+)`", text))
        found |= set(re.findall(rf"^\.\. {role}:: (\S+)", text, re.MULTILINE))
    return {name.strip() for name in found}


# --- scanning the source for environment reads ---------------------------------------------------


@dataclass(frozen=True)
class Read:
    where: str
    names: frozenset[str] | None
    """The variables read, or None when the argument could not be resolved statically."""
    registry: bool = False
    """True for a loop over the registry itself (``for v in _env.VARIABLES: _env.get(v.name)``)."""


class _Scanner(ast.NodeVisitor):
    """Finds the names passed to ``_env.get`` / ``_env.flag`` in one module, and raw os.environ use.

    An argument resolves when it is a string literal, a module-level string constant, or the target
    of a ``for`` loop over a literal or module-level tuple/list of such strings.
    """

    def __init__(self, path: Path, tree: ast.Module) -> None:
        self.rel = path.relative_to(REPO).as_posix()
        self.reads: list[Read] = []
        self.raw: list[str] = []
        self.env_aliases: set[str] = set()      # names bound to the cuda.coop._env module
        self.func_aliases: set[str] = set()     # names bound to _env.get / _env.flag
        self.os_aliases: set[str] = {"os"}
        self.constants: dict[str, frozenset[str]] = {}
        self.loops: list[tuple[str, frozenset[str] | None, bool]] = []
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and (value := self._strings(node.value)) is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.constants[target.id] = value

    def _strings(self, node: ast.expr | None) -> frozenset[str] | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return frozenset({node.value})
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            parts = [self._strings(e) for e in node.elts]
            if parts and all(p is not None for p in parts):
                return frozenset().union(*parts)  # type: ignore[arg-type]
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        return None

    def _is_registry(self, node: ast.expr) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "VARIABLES"
                and isinstance(node.value, ast.Name) and node.value.id in self.env_aliases) or (
            isinstance(node, ast.Name) and node.id == "VARIABLES")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "os":
                self.os_aliases.add(alias.asname or "os")
            if alias.name.endswith("coop._env") and alias.asname:
                self.env_aliases.add(alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            bound = alias.asname or alias.name
            if module == "os" and alias.name in ENV_MODULE_ATTRS:
                self.raw.append(f"{self.rel}:{node.lineno}: from os import {alias.name}")
            if alias.name == "_env" and (module in {"", "cuda.coop"} or module.endswith("coop")):
                self.env_aliases.add(bound)
            if module.endswith("_env") and alias.name in {"get", "flag", "path", "paths"}:
                self.func_aliases.add(bound)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in ENV_MODULE_ATTRS and isinstance(node.value, ast.Name) and node.value.id in self.os_aliases:
            self.raw.append(f"{self.rel}:{node.lineno}: os.{node.attr}")
        self.generic_visit(node)

    def _visit_loop(self, target: ast.expr, iterable: ast.expr, body: list[ast.AST]) -> None:
        pushed = isinstance(target, ast.Name)
        if pushed:
            self.loops.append((target.id, self._strings(iterable), self._is_registry(iterable)))  # type: ignore[union-attr]
        for child in body:
            self.visit(child)
        if pushed:
            self.loops.pop()

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._visit_loop(node.target, node.iter, [*node.body, *node.orelse])

    def _visit_comprehension(self, node: ast.expr, parts: list[ast.AST]) -> None:
        pushed = 0
        for gen in node.generators:  # type: ignore[attr-defined]
            self.visit(gen.iter)
            if isinstance(gen.target, ast.Name):
                self.loops.append((gen.target.id, self._strings(gen.iter), self._is_registry(gen.iter)))
                pushed += 1
            for cond in gen.ifs:
                self.visit(cond)
        for part in parts:
            self.visit(part)
        del self.loops[len(self.loops) - pushed:]

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._visit_comprehension(node, [node.elt])

    visit_SetComp = visit_ListComp  # type: ignore[assignment]
    visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._visit_comprehension(node, [node.key, node.value])

    def _loop(self, name: str) -> tuple[frozenset[str] | None, bool] | None:
        for target, values, registry in reversed(self.loops):
            if target == name:
                return values, registry
        return None

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        is_read = (isinstance(func, ast.Attribute) and func.attr in {"get", "flag", "path", "paths"}
                   and isinstance(func.value, ast.Name) and func.value.id in self.env_aliases) or (
            isinstance(func, ast.Name) and func.id in self.func_aliases)
        if is_read:
            where = f"{self.rel}:{node.lineno}"
            arg = node.args[0] if node.args else None
            if (names := self._strings(arg)) is not None and not (isinstance(arg, ast.Name) and self._loop(arg.id)):
                self.reads.append(Read(where, names))
            elif isinstance(arg, ast.Name) and (loop := self._loop(arg.id)):
                self.reads.append(Read(where, loop[0], registry=loop[1]))
            elif (isinstance(arg, ast.Attribute) and arg.attr == "name" and isinstance(arg.value, ast.Name)
                  and (loop := self._loop(arg.value.id)) and loop[1]):
                self.reads.append(Read(where, None, registry=True))
            else:
                self.reads.append(Read(where, None))
        self.generic_visit(node)


def _modules() -> Iterator[Path]:
    yield from sorted(PACKAGE.rglob("*.py"))


@pytest.fixture(scope="module")
def scanned() -> tuple[list[Read], list[str]]:
    reads: list[Read] = []
    raw: list[str] = []
    for path in _modules():
        if path == PACKAGE / "_env.py":
            continue
        scanner = _Scanner(path, tree := ast.parse(path.read_text(), filename=str(path)))
        scanner.visit(tree)
        reads += scanner.reads
        raw += scanner.raw
    return reads, raw


def test_scanner_resolves_the_patterns_it_claims() -> None:
    source = '''
import os as system
from cuda.coop import _env as e
from ._env import flag as is_on
_ONE = "A"
_MANY = ("B", "C")
def f():
    e.get("LIT")
    e.get(_ONE)
    for name in _MANY:
        e.get(name)
    is_on("D")
    {v.name: e.get(v.name) for v in e.VARIABLES}
    e.get(compute())
    system.environ.get("RAW")
    e.path("P")
'''
    tree = ast.parse(source)
    scanner = _Scanner(PACKAGE / "fake.py", tree)
    scanner.visit(tree)
    resolved = [sorted(r.names) for r in scanner.reads if r.names is not None]
    assert resolved == [["LIT"], ["A"], ["B", "C"], ["D"], ["P"]]
    assert [r.registry for r in scanner.reads if r.names is None] == [True, False]
    assert scanner.raw == ["cuda_coop/fake.py:15: os.environ"]


def test_no_environment_access_outside_env_module(scanned: tuple[list[Read], list[str]]) -> None:
    _, raw = scanned
    assert not raw, "read environment variables through cuda_coop._env (get/flag) only:\n" + "\n".join(raw)


def test_every_read_is_resolvable(scanned: tuple[list[Read], list[str]]) -> None:
    reads, _ = scanned
    unresolved = [r.where for r in reads if r.names is None and not r.registry]
    assert not unresolved, (
        "pass _env.get/flag a string literal, a module-level constant, or a loop variable over a "
        "tuple of them, so that this test can see which variable is read:\n" + "\n".join(unresolved))


def test_variables_read_in_code_are_the_registry(scanned: tuple[list[Read], list[str]]) -> None:
    reads, _ = scanned
    read = set().union(*(r.names for r in reads if r.names is not None))
    assert read - REGISTRY == set(), "read but not in cuda_coop._env.VARIABLES"
    assert REGISTRY - read == set(), "in cuda_coop._env.VARIABLES but never read by name"


# --- environment variables in the docs -----------------------------------------------------------


def test_configuration_page_generates_the_registry_reference() -> None:
    assert ".. coop-env-variables::" in _rst("configuration.rst")


def test_every_registered_variable_is_explained_in_configuration_page() -> None:
    text = _rst("configuration.rst")
    missing = sorted(name for name in REGISTRY if f":envvar:`{name}`" not in text)
    assert not missing, "explain these in docs/configuration.rst (with :envvar:`NAME`)"


def test_every_documented_variable_is_registered() -> None:
    assert _roles("envvar") - REGISTRY == set()


def test_truthy_rule_is_the_codes() -> None:
    text = " ".join(_rst("configuration.rst").split())
    rule = text[text.index("**The truthy rule.**"):]
    rule = rule[: rule.index("A variable that is not set")]
    for value in sorted(_env._FALSY - {""}):
        assert f"``{value}``" in rule, value
    assert "empty string" in rule
    for value in ("1", "true", "yes", "on", " On ", "anything"):
        assert _env.truthy(value)
    for value in ("", "0", "false", " NO ", "Off"):
        assert not _env.truthy(value)
    assert not _env.truthy(None)


# --- CMake cache variables ------------------------------------------------------------------------


def test_cmake_parser_finds_every_cache_variable() -> None:
    parsed = {v.name for v in coop_sources.cmake_cache_variables()}
    raw: set[str] = set()
    for path in coop_sources.CMAKE_FILES:
        text = re.sub(r"#[^\n]*", "", path.read_text())
        raw |= set(re.findall(r"\boption\(\s*(CUDA_COOP_\w+)", text))
        raw |= {m for m, rest in re.findall(r"\bset\(\s*(CUDA_COOP_\w+)([^)]*)\)", text) if "CACHE" in rest}
    assert raw, "no CUDA_COOP_* cache variable found at all"
    assert parsed == raw
    seed = {"CUDA_COOP_INSTALL_HEADER_BUNDLE": "ON", "CUDA_COOP_ALLOW_DIRTY_HEADER_BUNDLE": "OFF",
            "CUDA_COOP_CCCL_SOURCE_REVISION": ""}
    defaults = {v.name: v.default for v in coop_sources.cmake_cache_variables()}
    assert {k: defaults.get(k) for k in seed} == seed


def test_every_cmake_cache_variable_is_documented() -> None:
    text = _rst("installation.rst") + _rst("configuration.rst")
    missing = sorted(v.name for v in coop_sources.cmake_cache_variables() if f":cmakevar:`{v.name}`" not in text)
    assert not missing, "document these in docs/installation.rst or docs/configuration.rst (:cmakevar:`NAME`)"
    assert ".. coop-cmake-variables::" in _rst("configuration.rst")


def test_every_documented_cmake_variable_exists() -> None:
    assert _roles("cmakevar") - {v.name for v in coop_sources.cmake_cache_variables()} == set()


# --- examples -------------------------------------------------------------------------------------


def test_example_markers_are_well_formed() -> None:
    for example in coop_sources.find_examples():
        assert example.first <= example.last


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("# example-begin a\nx = 1\n", "never end"),
        ("x = 1\n# example-end a\n", "without example-begin"),
        ("# example-begin a\n# example-end a\n", "is empty"),
        ("# example-begin a\nx = 1\n# example-end a\n# example-begin a\ny = 2\n# example-end a\n", "begins twice"),
    ],
)
def test_broken_example_markers_are_errors(tmp_path: Path, body: str, error: str) -> None:
    (tmp_path / "ex.py").write_text(body)
    with pytest.raises(ValueError, match=error):
        coop_sources.find_examples(tmp_path)


def test_example_is_cut_exactly(tmp_path: Path) -> None:
    (tmp_path / "ex.py").write_text(
        '"""Sum a tile.\n\nMore."""\n# example-begin sum_2d\na = 1\n# example-end sum_2d\n'
        "# example-begin sum\nb = 2\nc = 3\n# example-end sum\n")
    found = {e.id: (e.first, e.last, e.summary) for e in coop_sources.find_examples(tmp_path)}
    assert found == {"sum_2d": (5, 5, "Sum a tile."), "sum": (8, 9, "Sum a tile.")}


# --- the rules of issue 10, said in the docs and held by the code ---------------------------------


def _text() -> str:
    return " ".join(_rst("configuration.rst").split())


def test_path_rule_is_documented_as_coded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = _text()
    rule = text[text.index("**The path rule.**"):text.index("**The truthy rule.**")]
    for words in ("empty value counts as unset", "``~``", "absolute path", "relative path"):
        assert words in rule, words
    from cuda.coop.errors import ConfigurationError

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", "~/x")
    assert _env.path("CUDA_COOP_CCCL_ROOT") == tmp_path / "x"
    monkeypatch.setenv("CUDA_COOP_CCCL_ROOT", "x")
    with pytest.raises(ConfigurationError):
        _env.path("CUDA_COOP_CCCL_ROOT")


def test_version_rule_examples_are_the_codes() -> None:
    from cuda.coop import _registration

    text = _text()
    rule = text[text.index("checks the installed backend's version"):]
    rule = rule[: rule.index("Installing an extra")]
    backend = _registration._BACKENDS["numba_mlir"]
    accepted = ["0.5", "0.5.4+cu13", "0.5.0.post1", "0.5.1rc1"]
    refused = ["0.5.0rc1", "0.5.0.dev1", "0.6.0rc1", "0.6.0.dev0"]
    for version in accepted + refused:
        assert f"``{version}``" in rule, version
        assert backend.supports(version) is (version in accepted), version


def test_toolkit_rule_is_the_codes() -> None:
    text = _text()
    for rule in ("nvrtc-builtins is exactly NVRTC's version.",
                 "nvJitLink has NVRTC's major version and is not older than NVRTC.",
                 "The CUDA headers have NVRTC's major version and are not newer than NVRTC.",
                 "Where the pieces live is not part of the rule."):
        assert rule in text, rule
    from cuda.coop import _toolkit

    doc = " ".join((_toolkit.__doc__ or "").split())
    assert "not newer than NVRTC" in doc and "not older than NVRTC" in doc and "never an error by itself" in doc


def test_cccl_root_markers_are_the_codes() -> None:
    from cuda.coop import _cccl

    text = _text()
    assert f"``{_cccl._CHECKOUT_MARKER.as_posix()}``" in text
    for marker in _cccl._BUNDLE_MARKERS:
        assert marker.as_posix() in text, marker
    assert "CUDA Toolkit root" in text and "is refused" in text


def test_revision_rule_is_the_cmake_code() -> None:
    cmake = (REPO / "cmake" / "CudaCoopRevision.cmake").read_text()
    limit = re.search(r"set\(_CUDA_COOP_REVISION_MAX_LENGTH (\d+)\)", cmake)
    assert limit is not None
    text = _text()
    assert f"longer than {limit.group(1)} characters" in text and "``release/3.6``" in text
    assert "need no CCCL at all" in text  # CUDA_COOP_INSTALL_HEADER_BUNDLE=OFF


def test_header_identity_rule_is_documented() -> None:
    text = _text()
    assert "**The header identity is of contents.**" in text
    assert "SHA-256" in text and "change time" in text
