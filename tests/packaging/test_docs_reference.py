"""The built site shows what the spec registry holds: one page per family, the family table, the
support matrix, the migration table, and every example file.

Reads the site built once per session (``tests/packaging/conftest.py``); needs the ``docs`` extra: skipped
locally without it, a failure in CI.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
sys.path.insert(0, str(DOCS / "_ext"))


def _text(site: Path, page: str) -> str:
    raw = (site / f"{page}.html").read_text()
    raw = raw[raw.index("<article"):raw.index("</article>")]  # the page, not the navigation
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", raw)).split())  # highlighting splits code into spans


def _rows(site: Path, page: str) -> dict[str, list[str]]:
    """Table rows of a page by their first cell's text (first table first): the other cells' texts."""
    raw = (site / f"{page}.html").read_text()
    rows = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", raw, re.DOTALL):
        cells = [" ".join(html.unescape(re.sub(r"<[^>]+>", "", c)).split())
                 for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.DOTALL)]
        if cells:
            rows.setdefault(cells[0], cells[1:])  # the first table wins
    return rows


def _links(site: Path, page: str) -> set[str]:
    return set(re.findall(r'href="([^"#]+)', (site / f"{page}.html").read_text()))


def test_one_page_per_family_with_class_functions_algorithms_types_example(site: Path) -> None:
    import coop_families
    import coop_sources

    examples = {ex.id: ex for ex in coop_sources.find_examples()}
    pages = {p.stem for p in (site / "families").glob("*.html")}
    assert pages == {fam.module for fam in coop_families.families()}
    for fam in coop_families.families():
        text = _text(site, fam.docname)
        for spec in fam.specs:
            assert spec.cub_class in text and spec.header in text, fam.module
            for algo in coop_families.algorithms(spec):
                assert algo.cpp in text and " ".join(algo.performance.replace("``", "").split()[:6]) in text, algo
            if spec.example:
                ex = examples[spec.example]
                for line in ex.path.read_text().splitlines()[ex.first - 1:ex.last]:
                    assert " ".join(line.split()) in text, (fam.module, line)
        for fn in fam.functions:
            assert fn.cub_method in text and fn.call in text, fn.call
            assert f"{fn.call} {', '.join(coop_families.accepted_types(fn))}" in text, (fn.call, "item types")
        assert "(Any)" not in text, f"{fam.module}: the stubs' Any annotations are shown"


def test_index_and_api_link_every_family(site: Path) -> None:
    import coop_families

    for page in ("index", "api"):
        links = _links(site, page)
        for fam in coop_families.families():
            assert f"{fam.docname}.html" in links, (page, fam.module)
    assert "def tile_sums(x, partial):" in _text(site, "index")


def test_support_matrix_has_every_function_and_type(site: Path) -> None:
    import coop_families

    rows = _rows(site, "support_matrix")
    items, _ = coop_families.dsl_types()
    assert rows["function"] == list(items)
    for fam in coop_families.families():
        for fn in fam.functions:
            expected = ["✓" if t in coop_families.accepted_types(fn) else "" for t in items]
            assert rows.get(fn.call) == expected, fn.call
            for algorithm, refused in coop_families.algorithm_restrictions(fn):
                assert f'{fn.call} with algorithm="{algorithm}" does not take {", ".join(refused)}.' in (
                    _text(site, "support_matrix")), (fn.call, algorithm)


def test_migration_table_names_todays_functions(site: Path) -> None:
    text = _text(site, "migration")
    assert "coop.block.reduce" in text and "coop.warp.exclusive_sum" in text
    assert "link=block_reduce.files" in text  # the old convention is shown next to the new one


def test_every_example_file_appears_on_the_examples_page(site: Path) -> None:
    text = _text(site, "examples")
    for path in sorted((REPO / "examples").glob("*.py")):
        assert f"examples/{path.name}" in text, path.name


def test_performance_page_shows_the_committed_results(site: Path) -> None:
    results = REPO / "benchmarks" / "results"
    text = _text(site, "performance")
    if not (results / "suite.json").is_file():
        assert "No results have been committed yet" in text
        return
    assert (site / "_images" / "suite.svg").is_file()
    rows = _rows(site, "performance")
    for line in (results / "suite.csv").read_text().splitlines()[1:]:
        case, *cells = line.split(",")
        assert rows.get(case) == cells, case


def test_performance_page_shows_the_committed_compile_times(site: Path) -> None:
    data = REPO / "benchmarks" / "results" / "kernel_compile.json"
    text = _text(site, "performance")
    if not data.is_file():
        assert "No compile-time results have been committed yet" in text
        return
    summary = json.loads(data.read_text())["summary"]
    assert f"Measured on an {summary['device']} with {summary['cpus']} CPUs on {summary['date'][:10]}" in text
    for row in summary["cold"] + summary["warm"]:  # every kernel's first launch, with its total in ms
        assert f"{row['kernel']} {row['total'] * 1000:.1f}" in text, row["kernel"]
