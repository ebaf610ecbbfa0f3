"""What the docs generate their reference parts from, read without Sphinx.

Used by the ``coop_docs`` Sphinx extension and by ``tests/unit/test_docs_config.py``:

- :func:`cmake_cache_variables`: every ``CUDA_COOP_*`` cache variable (``option(...)`` or
  ``set(... CACHE ...)``) in CMakeLists.txt and cmake/*.cmake;
- :func:`find_examples`: every example in examples/*.py, between ``# example-begin <id>`` and
  ``# example-end <id>`` marker lines;
- :func:`recorded_output`: what an example printed when it last ran on a GPU (docs/example_output/,
  written by the GPU tier's example test with ``CUDA_COOP_RECORD_EXAMPLES=<folder>``).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE_DIR = REPO / "cuda_coop"
EXAMPLES_DIR = REPO / "examples"
EXAMPLE_OUTPUT_DIR = REPO / "docs" / "example_output"
RECORDING = "recorded.json"
"""The file in :data:`EXAMPLE_OUTPUT_DIR` that says where and when the outputs were recorded."""
CMAKE_FILES = (REPO / "CMakeLists.txt", *sorted((REPO / "cmake").glob("*.cmake")))


# --- CMake cache variables ---------------------------------------------------------------------


@dataclass(frozen=True)
class CMakeVariable:
    name: str
    type: str
    default: str
    doc: str
    source: str


_OPTION = re.compile(r'\boption\(\s*(CUDA_COOP_\w+)\s+"((?:[^"\\]|\\.)*)"\s*(\w*)\s*\)', re.DOTALL)
_SET_CACHE = re.compile(
    r'\bset\(\s*(CUDA_COOP_\w+)\s+("(?:[^"\\]|\\.)*"|[^\s)]+)\s+CACHE\s+(\w+)\s+"((?:[^"\\]|\\.)*)"[^)]*\)',
    re.DOTALL,
)


def cmake_cache_variables(files: tuple[Path, ...] = CMAKE_FILES) -> list[CMakeVariable]:
    """Every ``CUDA_COOP_*`` cache variable the CMake project defines, in definition order."""
    found: dict[str, CMakeVariable] = {}
    for path in files:
        text = re.sub(r"#[^\n]*", "", path.read_text())  # CMake line comments
        rel = path.relative_to(REPO).as_posix()
        for m in _OPTION.finditer(text):
            found.setdefault(m[1], CMakeVariable(m[1], "BOOL", m[3] or "OFF", " ".join(m[2].split()), rel))
        for m in _SET_CACHE.finditer(text):
            found.setdefault(m[1], CMakeVariable(m[1], m[3], m[2].strip('"'), " ".join(m[4].split()), rel))
    return list(found.values())


# --- examples ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    id: str
    path: Path
    first: int
    """First line of the example (1-based), after the begin marker."""
    last: int
    """Last line of the example, before the end marker."""
    summary: str


_MARKER = re.compile(r"^\s*#\s*example-(begin|end)\s+(\S+)\s*$")


def find_examples(directory: Path = EXAMPLES_DIR) -> list[Example]:
    """Every marked example in ``directory/*.py``; malformed markers raise ValueError."""
    examples: list[Example] = []
    for path in sorted(directory.glob("*.py")) if directory.is_dir() else []:
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines), filename=str(path))
        summary = (ast.get_docstring(tree) or "").strip().split("\n\n")[0].replace("\n", " ")
        open_ids: dict[str, int] = {}
        for number, line in enumerate(lines, start=1):
            if not (m := _MARKER.match(line)):
                continue
            kind, ident = m.groups()
            if kind == "begin":
                if ident in open_ids or any(e.id == ident for e in examples):
                    raise ValueError(f"{path}:{number}: example {ident!r} begins twice")
                open_ids[ident] = number
            else:
                if ident not in open_ids:
                    raise ValueError(f"{path}:{number}: example-end {ident} without example-begin")
                first = open_ids.pop(ident) + 1
                if first > number - 1:
                    raise ValueError(f"{path}:{number}: example {ident!r} is empty")
                examples.append(Example(ident, path, first, number - 1, summary))
        if open_ids:
            raise ValueError(f"{path}: example(s) {', '.join(open_ids)} never end (no # example-end)")
    return examples


# --- recorded example output ---------------------------------------------------------------------


@dataclass(frozen=True)
class Recording:
    device: str
    date: str
    pending: tuple[str, ...] = ()
    """Examples (file stems) added in a session without a GPU: not run yet, so nothing recorded; the next GPU run of
    ``tests/gpu/test_examples.py`` with ``CUDA_COOP_RECORD_EXAMPLES`` records them (its ``recorded.json`` has none)."""


def recorded_output(script: Path, directory: Path = EXAMPLE_OUTPUT_DIR) -> str | None:
    """What ``script`` printed in the recorded GPU run (``<stem>.txt``), or None if it was not recorded."""
    path = directory / f"{script.stem}.txt"
    return path.read_text() if path.is_file() else None


def recording(directory: Path = EXAMPLE_OUTPUT_DIR) -> Recording:
    """Where and when the outputs in ``directory`` were recorded; ValueError when that is not written down."""
    path = directory / RECORDING
    try:
        data = json.loads(path.read_text())
        pending = tuple(str(stem) for stem in data.get("pending", ()))
        return Recording(device=str(data["device"]), date=str(data["date"]), pending=pending)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: needs {{\"device\": ..., \"date\": ...}} ({exc})") from None


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def output_shape(text: str) -> list[str]:
    """The lines of an example's output with every number masked: what must not change between runs
    (the checks' names and verdicts), while drawn sizes and error figures may."""
    return [_NUMBER.sub("#", line.rstrip()) for line in text.strip().splitlines()]
