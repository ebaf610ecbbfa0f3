"""Check docs/migration.rst against the ``cuda.coop._experimental`` of a released cuda-cccl wheel.

Run::

    pip download --no-deps cuda-cccl==1.1.1 -d /tmp/w && python scripts/check_migration.py /tmp/w/cuda_cccl-1.1.1-*.whl

The argument is a wheel or a directory (an unpacked wheel, or the ``_experimental`` package itself);
``--page`` names another page. Nothing is imported from the wheel (it needs numba-cuda and a GPU): its
sources are read with :mod:`ast`. Checked:

- every ``.. code-block:: python`` of the page with ``:class: migration-before`` parses, and every name
  it reaches through ``coop_exp`` (or another alias of ``cuda.coop._experimental`` that it imports)
  exists: ``coop_exp.X`` in ``_experimental``, ``coop_exp.block.X`` / ``coop_exp.warp.X`` in those
  packages, ``coop_exp.block.C.M`` among the attributes of class ``C``;
- every call of such a name binds to the definition's signature: no unknown keyword, no missing required
  parameter, no more positional arguments than it takes, no parameter given twice;
- every attribute read on a factory's result (``block_reduce.files``) is one of class ``Invocable``'s;
- every row of ``.. coop-migration-table::``: the old column names a definition in the wheel, and a
  signature shown there is the wheel's (parameter names, order and defaults);
- every function the wheel's ``block`` and ``warp`` export has a row in that table.

Not checked: the calls a kernel makes to a factory's result (their overloads are made from types at run
time). Exit status 0 and a short report when everything matches; 1 and the list of mismatches otherwise.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tempfile
import textwrap
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "migration.rst"
MODULE = "cuda.coop._experimental"
DEFAULT_ALIAS = "coop_exp"
BEFORE_CLASS = "migration-before"
TABLE_DIRECTIVE = "coop-migration-table"
RESULT_CLASS = ("_types", "Invocable")
"""Module and name of the class every factory returns (``Invocable(...)`` in each factory)."""


# --- the wheel's sources ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One parameter of a function, its default as source text (None: required)."""

    name: str
    default: str | None = None
    kind: str = "positional"
    """``positional`` (positional or keyword), ``keyword`` (keyword-only), ``*`` or ``**``."""


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]

    @classmethod
    def of(cls, node: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool = False) -> Signature:
        """The signature of ``node``; ``drop_first`` leaves out ``self``."""
        a = node.args
        positional = [*a.posonlyargs, *a.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        params = [Param(p.arg, None if d is None else ast.unparse(d))
                  for p, d in zip(positional, defaults, strict=True)]
        if drop_first:
            params = params[1:]
        if a.vararg:
            params.append(Param(a.vararg.arg, kind="*"))
        params += [Param(p.arg, None if d is None else ast.unparse(d), "keyword")
                   for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
        if a.kwarg:
            params.append(Param(a.kwarg.arg, kind="**"))
        return cls(tuple(params))

    def __str__(self) -> str:
        out = []
        for p in self.params:
            prefix = {"*": "*", "**": "**"}.get(p.kind, "")
            out.append(prefix + p.name + ("" if p.default is None else f"={p.default}"))
        return "(" + ", ".join(out) + ")"

    def bind(self, positional: int, keywords: list[str]) -> list[str]:
        """Why a call with ``positional`` arguments and these keywords does not bind (empty: it does)."""
        takes = [p for p in self.params if p.kind == "positional"]
        named = {p.name for p in self.params if p.kind in ("positional", "keyword")}
        varargs = any(p.kind == "*" for p in self.params)
        varkw = any(p.kind == "**" for p in self.params)
        problems = []
        if positional > len(takes) and not varargs:
            problems.append(f"{positional} positional arguments, takes at most {len(takes)}")
        given = {p.name for p in takes[:positional]}
        for kw in keywords:
            if kw not in named and not varkw:
                problems.append(f"unknown keyword {kw}=")
            elif kw in given:
                problems.append(f"{kw} given twice (positionally and as a keyword)")
        given |= set(keywords)
        problems += [f"required parameter {p.name} not given" for p in self.params
                     if p.kind in ("positional", "keyword") and p.default is None and p.name not in given]
        return problems


@dataclass
class Module:
    """One module (a ``.py`` file or a package's ``__init__.py``) of the unpacked tree, read with ast."""

    path: Path
    package: Path
    """The directory that relative imports start from."""
    tree: ast.Module
    names: dict[str, ast.AST | tuple[str, str]] = field(default_factory=dict)
    """Top-level name -> its def/class/assignment node, or (module to import, name) for an import."""
    all: list[str] | None = None

    @classmethod
    def read(cls, path: Path) -> Module:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        mod = cls(path, path.parent, tree)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                mod.names[node.name] = node
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                for alias in node.names:
                    mod.names[alias.asname or alias.name] = (base, alias.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        mod.names[target.id] = node
                        if target.id == "__all__" and node.value is not None:
                            try:
                                mod.all = list(ast.literal_eval(node.value))
                            except ValueError:
                                mod.all = None
        return mod


Definition = Module | ast.AST
"""A module, or the ast node that defines a name (function, class, assignment)."""


class Package:
    """The unpacked ``_experimental`` package: resolves dotted names to their definitions."""

    def __init__(self, root: Path) -> None:
        self.root = root
        depth = len(MODULE.split("."))
        self.tree_root = root.parents[depth - 1] if len(root.parents) >= depth else root
        """Where absolute imports (``from cuda.coop._experimental.x import y``) start."""
        self._modules: dict[Path, Module] = {}

    def module(self, path: Path) -> Module | None:
        """The module at ``path`` (a package directory or a ``.py`` file without its suffix)."""
        for candidate in (path / "__init__.py", path.with_suffix(".py")):
            if candidate.is_file():
                if candidate not in self._modules:
                    self._modules[candidate] = Module.read(candidate)
                return self._modules[candidate]
        return None

    def _import(self, origin: Module, base: str) -> Path:
        """Where ``from <base> import ...`` in ``origin`` looks."""
        level = len(base) - len(base.lstrip("."))
        if level == 0:
            return self.tree_root.joinpath(*base.split("."))
        start = origin.package
        for _ in range(level - 1):
            start = start.parent
        rest = base[level:]
        return start.joinpath(*rest.split(".")) if rest else start

    def lookup(self, owner: Definition, name: str, depth: int = 0) -> Definition | None:
        """``owner.name``: a name defined or imported at a module's top level, or a class's attribute."""
        if isinstance(owner, ast.ClassDef):
            return class_members(owner).get(name)
        if not isinstance(owner, Module) or depth > 20:
            return None
        found = owner.names.get(name)
        if not isinstance(found, tuple):
            return found
        where = self._import(owner, found[0])
        submodule = self.module(where / found[1])
        if submodule is not None:
            return submodule
        target = self.module(where)
        return None if target is None else self.lookup(target, found[1], depth + 1)

    def resolve(self, dotted: list[str]) -> tuple[Definition | None, str]:
        """The definition of ``_experimental.<dotted>``, or None and the first part that is missing."""
        current: Definition | None = self.module(self.root)
        for i, part in enumerate(dotted):
            found = None if current is None else self.lookup(current, part)
            if found is None:
                return None, ".".join(dotted[: i + 1])
            current = found
        return current, ""

    def exports(self, subpackage: str) -> dict[str, Definition]:
        """The functions and classes ``_experimental.<subpackage>`` exports (``__all__``, else its public names)."""
        mod = self.module(self.root / subpackage)
        if mod is None:
            return {}
        names = mod.all if mod.all is not None else [n for n in mod.names if not n.startswith("_")]
        out = {}
        for name in names:
            found = self.lookup(mod, name)
            if found is not None:
                out[name] = found
        return out


def class_members(node: ast.ClassDef) -> dict[str, ast.AST]:
    """Names defined in a class body (methods, properties, class attributes)."""
    members: dict[str, ast.AST] = {}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            members[item.name] = item
        elif isinstance(item, ast.Assign):
            for target in item.targets:
                if isinstance(target, ast.Name):
                    members[target.id] = item
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            members[item.target.id] = item
    return members


def signature_of(definition: Definition) -> Signature | None:
    """A function's signature, a class's constructor's; None when there is none to check against."""
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return Signature.of(definition)
    if isinstance(definition, ast.ClassDef):
        init = class_members(definition).get("__init__")
        if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return Signature.of(init, drop_first=True)
    return None


def _what(definition: Definition) -> str:
    if isinstance(definition, Module):
        return "module"
    if isinstance(definition, ast.ClassDef):
        return "class"
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "function"
    return "value"


# --- the page ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A directive's content with the line number (1-based) of its first line in the page."""

    line: int
    text: str


def _directive_blocks(rst: str, pattern: str) -> Iterator[tuple[int, dict[str, str], Block]]:
    """Every directive whose first line matches ``pattern``: its line, options and content."""
    lines = rst.splitlines()
    i = 0
    while i < len(lines):
        head = re.match(r"^(\s*)\.\. " + pattern + r"\s*$", lines[i])
        if not head:
            i += 1
            continue
        indent = len(head.group(1))
        start = i + 1
        j = start
        options: dict[str, str] = {}
        while j < len(lines) and (m := re.match(r"^\s+:([\w-]+):\s*(.*)$", lines[j])):
            options[m.group(1)] = m.group(2).strip()
            j += 1
        body = []
        first = None
        while j < len(lines):
            line = lines[j]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            if first is None and line.strip():
                first = j + 1
            body.append(line)
            j += 1
        yield start, options, Block(first or start, textwrap.dedent("\n".join(body)).strip("\n"))
        i = j


def before_blocks(rst: str) -> list[Block]:
    """The page's old code: each ``.. code-block:: python`` with ``:class: migration-before``."""
    return [block for _, options, block in _directive_blocks(rst, r"code-block::\s+python")
            if BEFORE_CLASS in options.get("class", "").split()]


def table_rows(rst: str) -> list[tuple[int, str]]:
    """The old column of every row of the page's ``.. coop-migration-table::`` directives, with its line."""
    rows = []
    for _, _, block in _directive_blocks(rst, re.escape(TABLE_DIRECTIVE) + "::"):
        for offset, line in enumerate(block.text.splitlines()):
            if line.strip():
                rows.append((block.line + offset, line.split("|")[0].strip()))
    return rows


# --- the checks --------------------------------------------------------------------------------------


@dataclass
class Report:
    """What was checked, and every mismatch found."""

    page: str = "migration.rst"
    """The page's name in messages (``migration.rst:<line>: ...``)."""
    mismatches: list[str] = field(default_factory=list)
    blocks: int = 0
    names: set[str] = field(default_factory=set)
    calls: int = 0
    attributes: set[str] = field(default_factory=set)
    rows: int = 0


def _chain(node: ast.expr) -> list[str] | None:
    """``a.b.c`` -> ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _aliases(tree: ast.Module) -> set[str]:
    """The names a block gives ``cuda.coop._experimental`` (``coop_exp`` is assumed for fragments)."""
    found = {DEFAULT_ALIAS}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname for a in node.names if a.name == MODULE and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == MODULE.rpartition(".")[0]:
            found |= {a.asname or a.name for a in node.names if a.name == MODULE.rpartition(".")[2]}
    return found


def check_block(package: Package, block: Block, report: Report) -> None:
    """Check one block of old code: its names, its calls and the attributes read on factory results."""
    try:
        tree = ast.parse(block.text)
    except SyntaxError as exc:
        report.mismatches.append(f"{report.page}:{block.line + (exc.lineno or 1) - 1}: the code does not parse: "
                                 f"{exc.msg}")
        return
    resolved = _resolve_names(package, tree, block, report)
    results = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node.func) in resolved:
            _check_call(node, resolved[id(node.func)], f"{report.page}:{block.line + node.lineno - 1}", report)
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
              and isinstance(resolved.get(id(node.value.func)), ast.FunctionDef)):
            results |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    if results:
        _check_result_attributes(package, tree, results, block, report)


def _resolve_names(package: Package, tree: ast.Module, block: Block, report: Report) -> dict[int, Definition]:
    """Each ``coop_exp.<...>`` expression of ``tree`` (by node id) -> its definition in the wheel."""
    aliases = _aliases(tree)
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    resolved: dict[int, Definition] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        parts = _chain(node)
        if not parts or parts[0] not in aliases:
            continue
        found, missing = package.resolve(parts[1:])
        if found is None:
            report.mismatches.append(f"{report.page}:{block.line + node.lineno - 1}: {'.'.join(parts)}: "
                                     f"{MODULE}.{missing} does not exist")
            continue
        report.names.add(".".join(parts[1:]))
        resolved[id(node)] = found
    return resolved


def _check_call(node: ast.Call, definition: Definition, where: str, report: Report) -> None:
    """A call of a wheel's function or class binds to its signature."""
    name = ast.unparse(node.func)
    report.calls += 1
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return
    signature = signature_of(definition)
    if signature is None:
        if not isinstance(definition, ast.ClassDef):
            report.mismatches.append(f"{where}: {name} is a {_what(definition)}, not something to call")
        return
    for problem in signature.bind(len(node.args), [k.arg for k in node.keywords if k.arg]):
        report.mismatches.append(f"{where}: {name}{signature}: {problem}")


def _check_result_attributes(package: Package, tree: ast.Module, results: set[str], block: Block,
                             report: Report) -> None:
    """Attributes read on a factory's result must be members of the class the factories return."""
    module, cls_name = RESULT_CLASS
    owner = package.module(package.root / module)
    cls = None if owner is None else owner.names.get(cls_name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in results:
            where = f"{report.page}:{block.line + node.lineno - 1}: {node.value.id}.{node.attr}"
            if not isinstance(cls, ast.ClassDef):
                report.mismatches.append(f"{where}: the wheel has no class {cls_name} in {MODULE}.{module}")
            elif node.attr not in class_members(cls) or node.attr.startswith("_"):
                report.mismatches.append(f"{where}: {cls_name} has no public attribute {node.attr}")
            else:
                report.attributes.add(node.attr)


def check_row(package: Package, line: int, old: str, report: Report) -> str | None:
    """Check one row's old column; the dotted name it shows (None if it does not parse)."""
    where = f"{report.page}:{line}"
    try:
        expr = ast.parse(old, mode="eval").body
    except SyntaxError:
        report.mismatches.append(f"{where}: table row {old!r} is not a name or a call")
        return None
    call = expr if isinstance(expr, ast.Call) else None
    parts = _chain(call.func if call else expr)
    if parts is None:
        report.mismatches.append(f"{where}: table row {old!r} is not a name or a call")
        return None
    name = ".".join(parts)
    found, missing = package.resolve(parts)
    if found is None:
        report.mismatches.append(f"{where}: table row {name}: {MODULE}.{missing} does not exist")
        return name
    signature = signature_of(found)
    if call is not None and signature is not None:
        shown = Signature(tuple(
            [Param(ast.unparse(a)) for a in call.args]
            + [Param(k.arg or "**", ast.unparse(k.value)) for k in call.keywords]))
        wheel = Signature(tuple(Param(p.name, p.default) for p in signature.params if p.kind not in ("*", "**")))
        if str(shown) != str(wheel):
            report.mismatches.append(f"{where}: table row {name}{shown}: the wheel has {name}{signature}")
    return name


def check(rst: str, package: Package, page: str = "migration.rst") -> Report:
    """Every check of this module on the page text ``rst`` against ``package``."""
    report = Report(page)
    blocks = before_blocks(rst)
    if not blocks:
        report.mismatches.append(f"the page has no '.. code-block:: python' with ':class: {BEFORE_CLASS}'")
    for block in blocks:
        report.blocks += 1
        check_block(package, block, report)
    rows = table_rows(rst)
    if not rows:
        report.mismatches.append(f"the page has no '.. {TABLE_DIRECTIVE}::' rows")
    listed = set()
    for line, old in rows:
        report.rows += 1
        name = check_row(package, line, old, report)
        if name:
            listed.add(name)
    for sub in ("block", "warp"):
        for name, definition in package.exports(sub).items():
            if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) and f"{sub}.{name}" not in listed:
                report.mismatches.append(f"the wheel's {sub}.{name} has no row in the migration table")
    return report


# --- the wheel ---------------------------------------------------------------------------------------


def find_package(path: Path) -> Path:
    """The ``_experimental`` directory in an unpacked tree (or ``path`` itself)."""
    if (path / "__init__.py").is_file() and path.name == MODULE.rpartition(".")[2]:
        return path
    candidate = path.joinpath(*MODULE.split("."))
    if (candidate / "__init__.py").is_file():
        return candidate
    raise SystemExit(f"{path}: no {'/'.join(MODULE.split('.'))}/__init__.py (is this cuda-cccl 1.0 to 1.1.x?)")


def wheel_version(path: Path) -> str:
    """The ``Version:`` of a wheel's (or an unpacked tree's) METADATA; ``unknown`` if there is none."""
    text = ""
    if path.is_file():
        with zipfile.ZipFile(path) as whl:
            meta = [n for n in whl.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
            text = whl.read(meta[0]).decode() if meta else ""
    else:
        meta = sorted(path.glob("*.dist-info/METADATA"))
        text = meta[0].read_text(encoding="utf-8") if meta else ""
    found = re.search(r"^Version:\s*(\S+)", text, re.MULTILINE)
    return found.group(1) if found else "unknown"


def extract(wheel: Path, into: Path) -> Path:
    """Unpack the ``_experimental`` sources of ``wheel`` under ``into``; the package directory."""
    prefix = "/".join(MODULE.split(".")) + "/"
    with zipfile.ZipFile(wheel) as whl:
        members = [n for n in whl.namelist() if n.startswith(prefix) and n.endswith(".py")]
        if not members:
            raise SystemExit(f"{wheel}: no {prefix} in this wheel (is this cuda-cccl 1.0 to 1.1.x?)")
        whl.extractall(into, members)
    return into.joinpath(*MODULE.split("."))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="a cuda-cccl wheel, or a directory with its unpacked sources")
    parser.add_argument("--page", type=Path, default=PAGE, help=f"the page to check (default: {PAGE})")
    args = parser.parse_args(argv)
    rst = args.page.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        root = extract(args.wheel, Path(tmp)) if args.wheel.is_file() else find_package(args.wheel)
        report = check(rst, Package(root), args.page.name)
    print(f"cuda-cccl {wheel_version(args.wheel)} ({args.wheel.name}): {MODULE}")
    print(f"  old code blocks: {report.blocks}; names: {', '.join(sorted(report.names))}")
    print(f"  calls checked: {report.calls}; attributes of factory results: {', '.join(sorted(report.attributes))}")
    print(f"  migration table rows: {report.rows}")
    if report.mismatches:
        print(f"{len(report.mismatches)} mismatches:")
        for line in report.mismatches:
            print(f"  {line}")
        return 1
    print("OK: the page matches the wheel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
