"""The docs' reference parts are generated from the spec registry, and what the docs say exists does.

- Every public primitive belongs to a family (so it gets a reference page), every family shows its
  CUB class, algorithms (parsed from the spec enums) and an example that exists.
- Every ``examples/*.py`` has a marked example, and the examples page renders them all.
- README.md and the docs name only ``coop.block.X`` / ``coop.warp.X`` primitives that exist.
- README.md's generated family table is current, and its two fresh-machine commands are there.

No Sphinx here (tests/packaging/test_docs_build.py builds the site); the types come from the
Numba-CUDA-MLIR integration, so the module needs that extra.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba_cuda_mlir", reason="the support matrix reads the Numba-CUDA-MLIR integration's types")

import cuda.coop
from cuda.coop._dsl._primitive import all_public_primitives
from cuda.coop._specs import BUILTIN_TYPES

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import coop_families  # noqa: E402
import coop_sources  # noqa: E402

FRESH_MACHINE_COMMANDS = ("bash scripts/main.sh", "bash scripts/test.sh")


def _documents() -> list[Path]:
    """What the docs and the README say: hand-written pages, snippets the pages include, the README."""
    return [REPO / "README.md", *sorted(DOCS.rglob("*.rst")), *sorted((DOCS / "_snippets").glob("*.py"))]


def unknown_primitives(text: str) -> set[str]:
    """``coop.block.X`` / ``coop.warp.X`` names in ``text`` that cuda.coop does not export."""
    return {
        f"coop.{module}.{name}"
        for module, name in coop_families.PRIMITIVE_NAME.findall(text)
        if name not in getattr(cuda.coop, module).__all__
    }


# --- families ------------------------------------------------------------------------------------------


def test_every_public_primitive_is_on_a_family_page() -> None:
    documented = [fn.prim.name for fam in coop_families.families() for fn in fam.functions]
    assert sorted(documented) == sorted(p.name for p in all_public_primitives())
    assert len(set(documented)) == len(documented), "a primitive is on two family pages"
    for module in ("block", "warp"):
        exported = {f"{module}.{n}" for n in getattr(cuda.coop, module).__all__}
        assert exported <= set(documented), exported - set(documented)


def test_families_come_from_the_registry() -> None:
    from cuda.coop._specs import _FAMILIES

    fams = coop_families.families()
    assert {f.module for f in fams} <= set(_FAMILIES)
    assert [f.scope.value for f in fams] == sorted((f.scope.value for f in fams), key=("block", "warp").index)
    for fam in fams:
        assert fam.title and fam.summary[:1].isupper(), fam.module
        assert all(re.fullmatch(r"\w+::\w+", s.cub_class) and s.header.endswith(".cuh") for s in fam.specs)
        assert fam.title == " and ".join(s.cub_class.split("::")[-1] for s in fam.specs)
        assert "::" not in fam.summary.split(":")[0], fam.summary  # the leading class names are stripped
    with pytest.raises(ValueError, match="no family 'block_nothing'"):
        coop_families.family("block_nothing")


def test_algorithms_are_parsed_from_the_spec_enums() -> None:
    seen = 0
    for fam in coop_families.families():
        for spec in fam.specs:
            algos = coop_families.algorithms(spec)
            if spec.algorithm is None:
                assert algos == ()
                continue
            seen += 1
            assert [a.short for a in algos] == [m.short_name for m in spec.algorithm]
            assert sum(a.default for a in algos) == 1, spec.name
            for a in algos:
                assert a.overview and a.performance, f"{spec.name} {a.cpp}: Overview/Performance not parsed"
                assert "Overview" not in a.overview and "----" not in a.performance
    assert seen, "no family has an algorithm enum"


def test_item_types_are_the_spec_kinds_among_the_dsl_types() -> None:
    items, elements = coop_families.dsl_types()
    assert "int32" in items and "bool" not in items and set(items) <= set(elements)
    assert set(coop_families.not_yet_types()) == set(BUILTIN_TYPES) - set(items)
    for fam in coop_families.families():
        for spec in fam.specs:
            kinds = next(t.kinds for t in spec.tparams if t.name == "dtype")
            expected = [t for t in items if not kinds or BUILTIN_TYPES[t].kind in kinds]
            assert list(coop_families.item_types(spec)) == expected, spec.name
        for fn in fam.functions:
            for arg in coop_families.typed_arguments(fn):
                assert arg.types and set(arg.types) <= set(elements), (fn.call, arg)
                assert set(arg.names) <= set(fn.prim.signature.parameters), (fn.call, arg)


def test_the_matrix_asks_the_specs_constraints() -> None:
    """Types come from the kinds, less what the constraints refuse; the probe binds for every function."""
    for fam in coop_families.families():
        for fn in fam.functions:
            kinds = coop_families.item_types(fn.prim.spec)
            accepted = coop_families.accepted_types(fn)
            assert set(accepted) <= set(kinds), fn.call
            assert any(coop_families._probe(fn, t, None) for t in kinds), (
                f"{fn.call}: no item type binds with the probe's stand-in values; extend _stand_in")
    block_sum = next(fn for fam in coop_families.families() for fn in fam.functions if fn.call == "coop.block.sum")
    restrictions = dict(coop_families.algorithm_restrictions(block_sum))
    assert "int8" in restrictions["warp_reductions_nondeterministic"]  # CUB's atomics add 32/64-bit types only
    assert "int32" not in restrictions["warp_reductions_nondeterministic"]
    assert "raking" not in restrictions


def test_every_family_example_exists() -> None:
    ids = {ex.id for ex in coop_sources.find_examples()}
    for fam in coop_families.families():
        for spec in fam.specs:
            assert spec.example is None or spec.example in ids, (
                f"{spec.name}: spec.example={spec.example!r} is not marked in examples/*.py (# example-begin)")


# --- examples --------------------------------------------------------------------------------------------


def unshown_examples(directory: Path) -> list[str]:
    """Files of ``directory/*.py`` with no marked example (the docs cut examples by their markers)."""
    marked = {ex.path for ex in coop_sources.find_examples(directory)}
    return [p.name for p in sorted(directory.glob("*.py")) if p not in marked]


def test_every_example_file_is_shown_in_the_docs() -> None:
    """Each examples/*.py has a marked example, which the examples page (``coop-examples``) renders."""
    assert ".. coop-examples::" in (DOCS / "examples.rst").read_text()
    assert list(coop_sources.EXAMPLES_DIR.glob("*.py")), "no examples"
    missing = unshown_examples(coop_sources.EXAMPLES_DIR)
    assert not missing, f"the docs do not show these (mark them: # example-begin <id> ... end <id>): {missing}"


def test_every_example_has_recorded_gpu_output() -> None:
    """The examples page shows what each example printed on a GPU: a recorded run that passed, for every
    example file but those ``recorded.json`` lists as pending (added without a GPU), and no output of an example that
    is gone. (tests/gpu/test_examples.py checks that the
    examples still print it.)"""
    scripts = sorted(coop_sources.EXAMPLES_DIR.glob("*.py"))
    recorded = coop_sources.recording()
    assert recorded.device and recorded.date
    for script in scripts:
        printed = coop_sources.recorded_output(script)
        if script.stem in recorded.pending:  # added without a GPU: the next GPU run records it
            assert printed is None, f"{script.name} has recorded output: remove it from recorded.json's pending"
            continue
        assert printed is not None, f"{script.name}: no docs/example_output/{script.stem}.txt"
        assert printed.strip().splitlines()[-1] == "PASS", f"{script.name}: the recorded run did not pass"
    stems = {p.stem for p in scripts}
    stale = [p.name for p in coop_sources.EXAMPLE_OUTPUT_DIR.glob("*.txt") if p.stem not in stems]
    assert not stale, f"recorded output of examples that no longer exist: {stale}"
    assert set(recorded.pending) <= stems, f"pending examples that do not exist: {set(recorded.pending) - stems}"


def test_output_shape_masks_numbers_but_not_verdicts() -> None:
    shape = coop_sources.output_shape
    assert shape("scan of 12 int64: ok\nPASS\n") == shape("scan of 345 int64: ok\nPASS")
    assert shape("max |error| 1.2e-07\n") == shape("max |error| 3.50e-06")
    assert shape("scan: ok\nPASS") != shape("scan: WRONG\nFAIL")


def test_an_unmarked_example_is_caught(tmp_path: Path) -> None:
    (tmp_path / "shown.py").write_text("# example-begin a\nx = 1\n# example-end a\n")
    (tmp_path / "hidden.py").write_text("x = 1\n")
    assert unshown_examples(tmp_path) == ["hidden.py"]


# --- names of primitives -----------------------------------------------------------------------------------


def test_the_name_check_catches_unknown_primitives() -> None:
    text = "use coop.block.load, cuda.coop.warp.sum and :func:`cuda.coop.block.radix_sort_keys_x`; coop.grid.x"
    assert unknown_primitives(text) == {"coop.block.radix_sort_keys_x"}
    assert unknown_primitives("coop_exp.block.radix_sort_keys(dtype)") == set()


def test_docstrings_the_docs_show_name_only_existing_primitives() -> None:
    """The family pages show the stubs' docstrings and the specs' docs."""
    texts = {fn.call: inspect.getdoc(fn.obj) or "" for fam in coop_families.families() for fn in fam.functions}
    texts |= {spec.name: spec.doc for fam in coop_families.families() for spec in fam.specs}
    bad = {name: sorted(u) for name, text in texts.items() if (u := unknown_primitives(text))}
    assert not bad, bad


def test_readme_and_docs_name_only_existing_primitives() -> None:
    bad = {str(p.relative_to(REPO)): sorted(u) for p in _documents() if (u := unknown_primitives(p.read_text()))}
    assert not bad, f"these name primitives cuda.coop does not have: {bad}"


# --- README ------------------------------------------------------------------------------------------------


def test_readme_family_table_is_current() -> None:
    text = (REPO / "README.md").read_text()
    assert coop_families.readme_with_block(text) == text, (
        "README.md's family table is stale: run python docs/_ext/coop_families.py --write-readme")
    for fam in coop_families.families():
        assert f"`{fam.specs[0].cub_class}`" in text, fam.module


def test_readme_block_is_replaced_not_appended() -> None:
    block = coop_families.readme_block()
    stale = "before\n" + block.replace("| `", "| `stale", 1) + "\nafter\n"
    assert coop_families.readme_with_block(stale) == f"before\n{block}\nafter\n"
    with pytest.raises(ValueError, match="no generated block"):
        coop_families.readme_with_block("no markers")


def test_readme_keeps_the_fresh_machine_commands() -> None:
    text = (REPO / "README.md").read_text()
    section = text[text.index("## On a fresh machine"):]
    for command in FRESH_MACHINE_COMMANDS:
        assert re.search(rf"```bash\n{re.escape(command)}\n```", section), command


def test_readme_links_exist() -> None:
    text = re.sub(r"```.*?```|`[^`]*`", "", (REPO / "README.md").read_text(), flags=re.DOTALL)  # not code
    links = re.findall(r"\]\(((?!https?:)[^)#]+)", text)
    assert links, "README.md links to nothing"
    missing = [link for link in links if not (REPO / link).exists()]
    assert not missing, missing


# --- what the generated reference says (issue 31) ------------------------------------------------------------


def _public_docs() -> dict[str, str]:
    return {fn.call: inspect.getdoc(fn.obj) or "" for fam in coop_families.families() for fn in fam.functions}


def _parameter_doc(doc: str, name: str) -> str:
    """The text of one parameter in the numpy-style Parameters section of a stub's docstring."""
    m = re.search(rf"^{name}:\n((?:    .*\n?)+)", doc, re.MULTILINE)
    return " ".join(m[1].split()) if m else ""


def test_auto_doc_names_the_architectures_the_table_measured() -> None:
    """"auto" says where it was measured, and what it does elsewhere; a table measured on another GPU must change
    the sentence."""
    import json

    from cuda.coop._dsl._primitive import _AUTO_DOC
    from cuda.coop._specs._auto import TABLE_PATH

    table = json.loads(TABLE_PATH.read_text())
    measured = set(table["archs"])
    assert measured and set(re.findall(r"sm_\d+", _AUTO_DOC)) == measured, (measured, _AUTO_DOC)
    assert table["device"] in _AUTO_DOC
    assert "On an architecture the table was not measured on" in _AUTO_DOC and "CUB's default" in _AUTO_DOC
    assert "for the item size, items per thread, block size and architecture" not in _AUTO_DOC


def test_auto_paragraph_only_where_algorithm_takes_auto() -> None:
    from cuda.coop._dsl._primitive import _AUTO_DOC, own_auto_doc

    for fam in coop_families.families():
        for fn in fam.functions:
            param = fn.prim.signature.parameters.get("algorithm")
            takes_auto = param is not None and param.default == "auto"
            paragraph = _AUTO_DOC if fn.prim.spec.cub_class.startswith("cub::") else own_auto_doc()
            assert (paragraph in (inspect.getdoc(fn.obj) or "")) == takes_auto, fn.call


def test_docstrings_state_one_default_algorithm() -> None:
    """``"x" (the default`` names one algorithm; with auto, CUB's default is called CUB's own (a composition's, its
    fallback)."""
    for fam in coop_families.families():
        for fn in fam.functions:
            spec = fn.prim.spec
            if spec.algorithm is None or "algorithm" not in fn.prim.signature.parameters:
                continue
            doc = inspect.getdoc(fn.obj) or ""
            defaults = set(re.findall(r'``"(\w+)"`` \(the default', doc))
            assert defaults == {fn.prim.signature.parameters["algorithm"].default}, (fn.call, defaults)
            tp = next(t for t in spec.tparams if t.enum is spec.algorithm)
            if tp.auto is not None:
                whose = "CUB's own default" if spec.cub_class.startswith("cub::") else "its fallback"
                assert f"({whose}, ``{tp.default.name}``)" in doc, fn.call


def test_examples_are_named_by_a_link() -> None:
    for fam in coop_families.families():
        for fn in fam.functions:
            ident = fn.prim.spec.example
            if ident:
                assert f"Example: :ref:`{ident} <example-{ident}>`" in (inspect.getdoc(fn.obj) or ""), fn.call


def test_block_scans_document_output_and_both_forms_of_x() -> None:
    docs = _public_docs()
    for name in ("exclusive_sum", "inclusive_sum", "exclusive_scan", "inclusive_scan"):
        doc = docs[f"coop.block.{name}"]
        output = _parameter_doc(doc, "output")
        assert "Array form only" in output and "in place" in output and "no ``output``" in output, (name, output)
        assert "or a ``cuda.local.array`` of its items" in _parameter_doc(doc, "x"), name
    for call in ("coop.block.reduce", "coop.block.sum", "coop.warp.reduce", "coop.block.argmax"):
        assert "or a ``cuda.local.array`` of its items" in _parameter_doc(docs[call], "x"), call
    assert "cuda.local.array" not in _parameter_doc(docs["coop.warp.exclusive_sum"], "x"), "warp scans: scalar only"


def test_every_described_parameter_has_text() -> None:
    """No parameter of a stub is documented by an empty string because one overload had no doc (``output``)."""
    for call, doc in _public_docs().items():
        section = doc.split("Parameters\n----------\n", 1)[-1] if "Parameters\n" in doc else ""
        for name, text in re.findall(r"^(\w+):\n((?:    .*\n?)*)", section, re.MULTILINE):
            assert text.strip(), (call, name)


def test_numba_cuda_mlir_extras_install_ml_dtypes() -> None:
    """bfloat16 NumPy arrays on the host (docs/support_matrix.rst): ml_dtypes 0.4.0 is the oldest whose typeof
    and compile path were checked (0.3.2 does not import with NumPy 2)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for name in ("numba-cuda-mlir-cu13", "numba-cuda-mlir-cu12"):
        assert "ml_dtypes>=0.4.0" in extras[name], name


def test_benchmarks_readme_describes_every_script() -> None:
    text = (REPO / "benchmarks" / "README.md").read_text()
    for script in sorted((REPO / "benchmarks").glob("*.py")):
        assert f"`{script.name}`" in text, script.name
