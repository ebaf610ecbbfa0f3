"""The documentation builds warning-free (``sphinx -W``, nitpicky) and shows what the tests run.

Needs the ``docs`` extra (Sphinx, the theme, and the Numba-CUDA-MLIR backend that the API reference
imports); the site is built once per session (``tests/packaging/conftest.py``). Locally the build is skipped
without the extra; in CI (CI=true) a missing extra is a failure.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import cuda.coop
from cuda.coop import _env, errors

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
CONSUMER = REPO / "tests" / "packaging" / "consumer"
sys.path.insert(0, str(DOCS / "_ext"))

import coop_sources  # noqa: E402

PAGES = ("index", "installation", "configuration", "calling-model", "uniformity", "contracts", "cpp", "api", "examples",
         "known_issues", "registration", "support_matrix", "migration", "performance")


def _text(site: Path, page: str) -> str:
    """A page's text: tags removed (syntax highlighting splits code into spans), entities decoded."""
    raw = (site / f"{page}.html").read_text()
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def _ids(site: Path, page: str) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', (site / f"{page}.html").read_text()))


def test_every_page_is_built(site: Path) -> None:
    for page in PAGES:
        assert (site / f"{page}.html").is_file(), page


def test_cpp_page_shows_the_consumer_the_tests_build(site: Path) -> None:
    """Every file of tests/packaging/consumer (which test_consumer.py builds with nvcc) appears verbatim."""
    text = _text(site, "cpp")
    files = sorted(p for p in CONSUMER.iterdir() if p.is_file())
    assert {p.name for p in files} >= {"CMakeLists.txt", "consumer.cu", "build.sh"}
    for path in files:
        for line in path.read_text().splitlines():
            assert line.strip() in text, f"{path.name}: {line!r} is not on the C++ page"
    rst = (DOCS / "cpp.rst").read_text()
    for path in files:
        assert f".. literalinclude:: ../tests/packaging/consumer/{path.name}" in rst


def test_cpp_page_shows_the_recipe_cmake_test(site: Path) -> None:
    text = _text(site, "cpp")
    for line in (REPO / "recipe" / "test_cmake" / "CMakeLists.txt").read_text().splitlines():
        assert line.strip() in text, line


def test_configuration_page_has_every_variable(site: Path) -> None:
    ids = _ids(site, "configuration")
    for var in _env.VARIABLES:
        assert f"envvar-{var.name}" in ids, var.name
    for var in coop_sources.cmake_cache_variables():
        assert f"cmakevar-{var.name}" in ids, var.name


def test_api_page_documents_the_public_api(site: Path) -> None:
    """Primitives on the family pages under api (see test_docs_reference.py); the rest on registration."""
    ids = _ids(site, "registration")
    for name in cuda.coop.__all__:
        if name.startswith("__"):
            continue
        page_ids = _ids(site, "api") if name in {"block", "warp"} else ids
        target = f"module-cuda.coop.{name}" if name in {"block", "warp"} else f"cuda.coop.{name}"
        assert target in page_ids, name
    for name in errors.__all__:
        assert f"cuda.coop.errors.{name}" in ids, name
    families = set().union(*(_ids(site, str(p.relative_to(site).with_suffix("")))
                             for p in (site / "families").glob("*.html")))
    for module in ("block", "warp"):
        for name in getattr(cuda.coop, module).__all__:
            assert f"cuda.coop.{module}.{name}" in families, f"{module}.{name}"


def test_examples_page_shows_every_example(site: Path) -> None:
    text = _text(site, "examples")
    for example in coop_sources.find_examples():
        lines = example.path.read_text().splitlines()[example.first - 1:example.last]
        for line in lines:
            assert line.strip() in text, f"{example.id}: {line!r}"
