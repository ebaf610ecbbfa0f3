"""The built site shows what the spec registry holds: one page per family, the family table, the
support matrix, the migration table, and every example file; and what a newcomer reads is right: one default
for ``algorithm=``, a linked and complete example on every family page, tables that fit the page, the
calling-model page, the requirements, and a performance page without the project's internal targets.

Reads the site built once per session (``tests/packaging/conftest.py``); needs the ``docs`` extra: skipped
locally without it, a failure in CI.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
sys.path.insert(0, str(DOCS / "_ext"))


_PLAIN = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2026": "..."})
"""Sphinx's smart quotes and ellipses back to what the sources spell."""


def _text(site: Path, page: str) -> str:
    raw = (site / f"{page}.html").read_text()
    raw = raw[raw.index("<article"):raw.index("</article>")]  # the page, not the navigation
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", raw)).split())  # highlighting splits code into spans
    return text.translate(_PLAIN)


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


def _anchors(site: Path, page: str) -> set[str]:
    """Links with their fragment (``../examples.html#example-block-reduce-sum``)."""
    return set(re.findall(r'href="([^"]+#[^"]+)"', (site / f"{page}.html").read_text()))


def _tables(site: Path, page: str) -> list[list[list[str]]]:
    """Every table of the page's article, as rows of cell texts (the header row first)."""
    raw = (site / f"{page}.html").read_text()
    raw = raw[raw.index("<article"):raw.index("</article>")]
    tables = []
    for table in re.findall(r"<table[^>]*>(.*?)</table>", raw, re.DOTALL):
        rows = [[" ".join(html.unescape(re.sub(r"<[^>]+>", "", c)).split())
                 for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.DOTALL)]
                for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.DOTALL)]
        tables.append([r for r in rows if r])
    return tables


MAX_MATRIX_COLUMNS = 9
"""The most columns a table of the support matrix may have: the function and eight types fit a 1400 px screen
(docs/_static/coop.css), the fifteen of one table did not."""


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
    """One table per kind of type, each of at most MAX_MATRIX_COLUMNS columns, together every type once and every
    function in each."""
    import coop_families

    items, _ = coop_families.dsl_types()
    tables = [t for t in _tables(site, "support_matrix") if t[0][0] == "function" and set(t[0][1:]) <= set(items)]
    assert [t[0][1:] for t in tables] == [list(types) for _, types in coop_families.matrix_groups()]
    assert [typ for t in tables for typ in t[0][1:]] == list(items), "every item type in exactly one table"
    for table in tables:
        assert len(table[0]) <= MAX_MATRIX_COLUMNS, f"a table of {len(table[0])} columns does not fit the page"
        rows = {row[0]: row[1:] for row in table[1:]}
        for fam in coop_families.families():
            for fn in fam.functions:
                expected = ["✓" if t in coop_families.accepted_types(fn) else "" for t in table[0][1:]]
                assert rows.get(fn.call) == expected, (fn.call, table[0])
    text = _text(site, "support_matrix")
    for fam in coop_families.families():
        for fn in fam.functions:
            for algorithm, refused in coop_families.algorithm_restrictions(fn):
                assert f'{fn.call} with algorithm="{algorithm}" does not take {", ".join(refused)}.' in text, (
                    fn.call, algorithm)


def test_matrix_groups_cover_every_type_of_every_kind() -> None:
    """A kind no group names still gets a table (a new kind of item type is not dropped from the matrix)."""
    import coop_families

    items, _ = coop_families.dsl_types()
    shown = [t for _, types in coop_families.matrix_groups() for t in types]
    assert sorted(shown) == sorted(items) and len(shown) == len(set(shown))


def test_family_pages_state_one_default_for_algorithm(site: Path) -> None:
    """Where the text calls an algorithm the default (``"x" (default``, ``default "x"``), it is one name per class:
    ``"auto"`` where auto applies, CUB's default otherwise; CUB's own default is named as CUB's."""
    import coop_families

    marked = re.compile(r'"(\w+)" \((?:the )?default|\bdefault "(\w+)"')
    seen = 0
    for fam in coop_families.families():
        text = _text(site, fam.docname)
        for spec in fam.specs:
            if spec.algorithm is None:
                continue
            tp = next(t for t in spec.tparams if t.enum is spec.algorithm)
            names = {m.short_name for m in spec.algorithm} | {"auto"}
            defaults = {a or b for a, b in marked.findall(text)} & names
            expected = "auto" if tp.auto is not None else tp.default.short_name
            assert defaults == {expected}, (fam.module, defaults)
            if tp.auto is not None:
                whose = "CUB's own default is" if spec.cub_class.startswith("cub::") else "without a measurement it is"
                assert f"{whose} {tp.default.name}" in text, fam.module
                assert "algorithm='auto'" in text, fam.module  # the signatures
                assert "On an architecture the table was not measured on" in text, fam.module
            seen += 1
    assert seen, "no family has an algorithm"


def test_family_pages_link_and_show_their_whole_example(site: Path) -> None:
    """Each family page shows its example file whole (host code included), and every function's "Example:" is a
    link to the example on the examples page, whose anchor exists."""
    import coop_families
    import coop_sources

    examples = {ex.id: ex for ex in coop_sources.find_examples()}
    targets = _ids(site, "examples")
    for fam in coop_families.families():
        text, links = _text(site, fam.docname), _anchors(site, fam.docname)
        for spec in fam.specs:
            if not spec.example:
                continue
            ex = examples[spec.example]
            for line in ex.path.read_text().splitlines():
                assert " ".join(line.split()) in text, (fam.module, line)
            anchor = "example-" + spec.example.replace("_", "-")
            assert f"../examples.html#{anchor}" in links, (fam.module, anchor)
            assert anchor in targets, anchor
            assert f"Example: {spec.example} on the examples page." in text, fam.module
        assert "in the examples." not in text, f"{fam.module}: an example named but not linked"


def _ids(site: Path, page: str) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', (site / f"{page}.html").read_text()))


def test_calling_model_page_states_the_rule(site: Path) -> None:
    text = _text(site, "calling-model")
    for phrase in (
        "Positional, in order: the data the call reads (x, keys, samples, run_values; then other per-thread arrays "
        "it reads), then the arrays it must write (head_flags, indices, ranks, decoded_items, out_keys, counters), "
        "then the operator (op, compare); load(src, items) and store(dst, items) take the memory array first",
        "Keyword-only: everything else: optional arrays (output=, values=, ...), every scalar (k=, valid_items=, "
        "initial_value=, offset=, ...), and compile-time options (algorithm=, items_per_thread=, threads=, ...).",
        "x names the items a call reads, items the per-thread array of load/store, output the array receiving a "
        "result.",
        "rank = (cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.z * cuda.blockDim.x * "
        "cuda.blockDim.y)",
        "cuda.local.array(1, dtype)",
        "they must match",
        "cuda.syncthreads()",
    ):
        assert phrase in text, phrase
    assert {"contracts.html", "uniformity.html"} <= _links(site, "calling-model")
    toc = (DOCS / "index.rst").read_text()
    assert "   calling-model\n   api\n" in toc, "the calling-model page is in the toctree next to api"


def test_installation_lists_the_requirements(site: Path) -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    rows = {row[0]: " ".join(row[1:]) for t in _tables(site, "installation") for row in t[1:]}
    assert {"Python", "operating system", "GPU", "NVIDIA driver", "CUDA toolkit"} <= rows.keys(), rows.keys()
    floor = project["requires-python"].removeprefix(">=")
    assert f"{floor} or newer" in rows["Python"]
    for classifier in project["classifiers"]:
        if classifier.startswith("Operating System"):
            assert classifier.split(" :: ")[-1].split()[-1] in rows["operating system"], classifier
    assert "Linux x86_64" in rows["operating system"]
    assert "7.5" in rows["GPU"] and "580" in rows["NVIDIA driver"] and "525" in rows["NVIDIA driver"]
    assert "requirements" in _ids(site, "installation")


def test_migration_table_names_todays_functions(site: Path) -> None:
    text = _text(site, "migration")
    assert "coop.block.reduce" in text and "coop.warp.exclusive_sum" in text
    assert "link=block_reduce.files" in text  # the old convention is shown next to the new one


def test_every_example_file_appears_on_the_examples_page(site: Path) -> None:
    text = _text(site, "examples")
    for path in sorted((REPO / "examples").glob("*.py")):
        assert f"examples/{path.name}" in text, path.name


def test_performance_page_shows_the_committed_results(site: Path) -> None:
    """Every case's row, less the columns with one value in every case (said once above the table)."""
    from coop_docs import power_of_two

    results = REPO / "benchmarks" / "results"
    text = _text(site, "performance")
    if not (results / "suite.json").is_file():
        assert "No results have been committed yet" in text
        return
    assert (site / "_images" / "suite.svg").is_file()
    header, *body = [line.split(",") for line in (results / "suite.csv").read_text().splitlines()]
    same = [i for i in range(1, len(header)) if len({row[i] for row in body}) == 1]
    rows = _rows(site, "performance")
    for case, *cells in body:
        shown = [power_of_two(c) for i, c in enumerate(cells, start=1) if i not in same]
        assert rows.get(case) == shown, case
    for i in same:
        assert f"{header[i]} = {body[0][i]}" in text, header[i]


def test_performance_page_shows_the_committed_compile_times(site: Path) -> None:
    """The first launch of each kernel, cold, with the kept precompiled header and from the cache, and the new grid;
    none of the internal targets."""
    data = REPO / "benchmarks" / "results" / "kernel_compile.json"
    text = _text(site, "performance")
    if not data.is_file():
        assert "No compile-time results have been committed yet" in text
        return
    summary = json.loads(data.read_text())["summary"]
    assert f"Measured on an {summary['device']} with {summary['cpus']} CPUs on {summary['date'][:10]}" in text
    rows = {key.split()[0]: cells for key, cells in _rows(site, "performance").items()}
    warm = {row["kernel"]: row for row in summary["warm"]}
    kept = {row["kernel"]: row for row in summary["kept"]}
    grid = {row["kernel"]: row for row in summary["new_grid"]}
    for row in summary["cold"]:
        name = row["kernel"]
        assert rows[name] == [f"{row['total'] * 1000:.1f}", f"{kept[name]['total'] * 1000:.1f}",
                              f"{warm[name]['total'] * 1000:.1f}", f"{grid[name]['total'] * 1000:.1f}"], name


def test_performance_page_is_for_users(site: Path) -> None:
    """What a first launch costs and how the cache and packs change it; the targets live in benchmarks/README.md."""
    text = _text(site, "performance")
    assert "Every new Python process compiles every kernel again" in text
    assert "CUDA_COOP_ENABLE_CACHE" in text and "packs.html" in _links(site, "performance")
    for internal in ("OVER", "target", "<= 1200 ms"):
        assert internal not in text, internal
    readme = (REPO / "benchmarks" / "README.md").read_text()
    assert "## Targets" in readme and "OVER" in readme
