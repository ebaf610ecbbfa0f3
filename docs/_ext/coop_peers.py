"""The comparison with PyTorch, Triton and CuPy, and the recipe gallery, as reStructuredText, read without Sphinx.

Used by the ``coop_gallery`` Sphinx extension (directives ``coop-peers`` and ``coop-recipes``) and by
``tests/unit/test_peers_results.py``:

- :func:`comparison_lines`: the performance page's section, from the committed ``benchmarks/results/peers.json``
  (written by ``benchmarks/peers.py`` on a GPU), its plot ``peers.svg`` and table ``peers.csv``; one sentence saying
  that nothing has been measured when the JSON is not committed;
- :func:`gallery_lines`: every recipe of ``examples/recipes/``, whole, with the ratios measured for its task in
  the committed JSON (or that they have not been measured).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coop_sources import REPO, find_examples

RESULTS = REPO / "benchmarks" / "results"
PEERS_JSON = RESULTS / "peers.json"
RECIPES_DIR = REPO / "examples" / "recipes"
NOT_MEASURED = (
    "The comparison with PyTorch, Triton and CuPy has not been measured yet: ``benchmarks/peers.py``, run on a GPU, "
    "writes ``benchmarks/results/peers.json``, from which this section is generated."
)
RECIPE_TASKS = {
    "row_top_k": ("row top-k",),
    "row_softmax": ("row softmax",),
    "row_layer_norm": ("row layer norm",),
    "row_argmax": ("row argmax", "row argmin"),
    "row_cumsum": ("row cumsum",),
    "row_sort": ("row sort",),
    "byte_histogram": ("byte histogram",),
    "array_sum": ("whole-array sum",),
}
"""Each recipe (file stem), in the gallery's order, and the tasks of ``peers.json`` it is measured by."""


def committed(path: Path = PEERS_JSON) -> dict[str, Any] | None:
    """The committed comparison, or None when it has not been committed."""
    return json.loads(path.read_text()) if path.is_file() else None


def _versions(result: dict[str, Any]) -> str:
    names = {"cuda_coop": "cuda-coop", "numba-cuda-mlir": "numba-cuda-mlir", "torch": "PyTorch", "triton": "Triton",
             "cupy": "CuPy", "python": "Python"}
    return ", ".join(f"{label} {result['versions'][key]}" for key, label in names.items() if key in result["versions"])


def comparison_lines(result: dict[str, Any] | None) -> list[str]:
    """The performance page's comparison section (no section title)."""
    if result is None:
        return [NOT_MEASURED]
    rows = [r for r in result["rows"] if "ratio" in r]
    ahead = sum(r["ratio"] <= 1.0 for r in rows)
    out = [
        f"Measured on an {result['device']} on {result['date'][:10]} ({_versions(result)}) with "
        "``benchmarks/peers.py``. Each row is one task, written as a fused kernel with cuda-coop (the recipes "
        f"below, :ref:`recipes`) and with each peer; every result was checked against NumPy before it was timed, and "
        "the peer is the fastest whose result was right. All ran on the same data, interleaved on one stream; each "
        f"figure is the median of {result['reps']} samples of {result['batch']} launches. A device-to-device copy "
        f"ran at {result['copy_gbps']:.0f} GB/s in the same run (bytes read and written); the column 'of the copy "
        "bandwidth' is the least traffic the task needs, read and written in cuda-coop's time, over that.",
        "",
        f"cuda-coop's time over the fastest correct peer's is at most 1.0 in {ahead} of the {len(rows)} rows "
        "(below 1, cuda-coop is faster).",
        "",
        ".. image:: /../benchmarks/results/peers.svg",
        "   :alt: cuda-coop time / fastest correct peer time, per task",
        "",
        ".. csv-table::",
        "   :header-rows: 1",
        "   :class: coop-compact",
        "",
        *(f"   {line}" for line in (RESULTS / "peers.csv").read_text().splitlines()),
        "",
    ]
    return out + _shape_lines(result) + _missing_lines(result)


def _shape_lines(result: dict[str, Any]) -> list[str]:
    """How the shape ``coop.row_shape`` picked did against its neighbours, and the auto load against vectorize."""
    timed = [r for r in result["rows"] if "shapes_ms" in r]
    if not timed:
        return []
    other = [r for r in timed if r["best_shape"] != r["shape"]]
    text = (f"The shape ``coop.row_shape`` picked was the fastest of those timed (its neighbours: half and twice the "
            f"threads) in {len(timed) - len(other)} of {len(timed)} rows")
    if other:
        text += "; elsewhere: " + "; ".join(
            f"{r['task']} {r['size']}, {r['best_shape']} at {r['shapes_ms'][r['best_shape']] / r['coop_ms']:.3f} of "
            f"{r['shape']}'s time" for r in other)
    loads = [r for r in timed if "vectorize" in r["loads_ms"]]
    faster = [r for r in loads if r["loads_ms"]["vectorize"] < 0.98 * r["loads_ms"]["auto"]]
    text += (f". Loads left to ``\"auto\"`` against ``\"vectorize\"``: vectorize was at least 2% faster in "
             f"{len(faster)} of {len(loads)} rows.")
    return [text, ""]


def _missing_lines(result: dict[str, Any]) -> list[str]:
    """The peers that were not timed in some row, and why (absent, no function for the task, wrong, failed)."""
    seen: dict[str, set[str]] = {}
    for r in result["rows"]:
        for name, verdict in r.get("check", {}).items():
            if verdict != "ok":
                seen.setdefault(f"``{name}``: {verdict}", set()).add(r["task"])
    if not seen:
        return []
    items = [f"- {what} ({', '.join(sorted(tasks))})" for what, tasks in sorted(seen.items())]
    return ["Not timed, and why:", "", *items, ""]


def measured(stem: str, result: dict[str, Any] | None) -> list[str]:
    """What the committed comparison says of the recipe ``stem``: one line per row of its tasks."""
    if result is None:
        return ["Not measured yet against PyTorch, Triton and CuPy (see :doc:`/performance`)."]
    rows = [r for r in result["rows"] if r["task"] in RECIPE_TASKS[stem]]
    if not rows:
        return ["Not in the committed comparison (``benchmarks/results/peers.json``)."]
    out = [f"Measured on an {result['device']} ({result['date'][:10]}), cuda-coop's time over the fastest correct "
           "peer's:", ""]
    for r in rows:
        if "ratio" in r:
            out.append(f"- {r['task']}, {r['size']}: **{r['ratio']:.2f}** against ``{r['peer']}`` "
                       f"({r['coop_ms']:.4f} ms and {r['peer_ms']:.4f} ms)")
        else:
            out.append(f"- {r['task']}, {r['size']}: no ratio ({r.get('error') or 'no correct result to compare'})")
    return [*out, ""]


def gallery_lines(result: dict[str, Any] | None, directory: Path = RECIPES_DIR) -> list[str]:
    """Every recipe of ``directory``, whole, with what was measured of it. ValueError: a recipe without a task in
    :data:`RECIPE_TASKS`, or one without its marked example."""
    examples = {ex.path.stem: ex for ex in find_examples(directory)}
    files = sorted(p.stem for p in directory.glob("*.py"))
    unknown = sorted(set(files) - set(RECIPE_TASKS))
    if unknown:
        raise ValueError(f"recipes without a task in coop_peers.RECIPE_TASKS: {', '.join(unknown)}")
    out: list[str] = []
    for stem in (s for s in RECIPE_TASKS if s in files):
        if stem not in examples:
            raise ValueError(f"examples/recipes/{stem}.py has no '# example-begin' marker")
        ex = examples[stem]
        rel = ex.path.relative_to(REPO).as_posix()
        out += [f".. _recipe-{stem}:", "", f"{stem}.py", "^" * len(f"{stem}.py"), "", ex.summary, ""]
        out += measured(stem, result)
        out += [f"``{rel}``, the whole file (highlighted: the kernel and its launch, lines {ex.first}-{ex.last}). "
                f"Run it with ``python {rel}``: it checks itself against NumPy and prints ``PASS`` or ``FAIL``.", "",
                f".. literalinclude:: /../{rel}", "   :language: python", "   :linenos:",
                f"   :emphasize-lines: {ex.first}-{ex.last}", ""]
    return out
