"""Draw the suite's results: an SVG of every case's cuda-coop / CUB ratio, and the table as CSV.

    python benchmarks/plot.py [benchmarks/results/suite.json]

Writes ``suite.svg`` and ``suite.csv`` next to the JSON, and, where the run timed every reduce and scan
algorithm against a twin with the same algorithm, ``suite_parity.svg`` (docs/performance.rst shows them). Plain
SVG, no plotting library: the figure is a deterministic function of the JSON, so a test can check that
the committed files were drawn from the committed data.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT = Path(__file__).resolve().parent / "results" / "suite.json"
BAR_H, GAP, LEFT, WIDTH = 14, 4, 260, 760
LOW, HIGH = 0.90, 1.10
"""Ratio axis; bars are clipped to it (the CSV has the exact figures)."""


def _x(ratio: float) -> float:
    clipped = min(max(ratio, LOW), HIGH)
    return LEFT + (clipped - LOW) / (HIGH - LOW) * (WIDTH - LEFT - 20)


def _header(result: dict[str, Any], width: int, height: int, title: str) -> list[str]:
    """The SVG element and the figure's title, naming the run."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="11">',
        f'<text x="10" y="18" font-size="13">{title} ({result["device"]}, '
        f'{result["date"][:10]}; median of {result["reps"]} samples)</text>',
    ]


def _guides(target: float, label_y: int, height: int) -> list[str]:
    """Vertical lines at 1.00 and at ``target`` (dashed), labelled at ``label_y``."""
    out = []
    for ratio, dash in ((1.0, ""), (target, ' stroke-dasharray="4,3"')):
        x = _x(ratio)
        out.append(f'<line x1="{x:.1f}" y1="{label_y - 12}" x2="{x:.1f}" y2="{height - 10}" stroke="#555"{dash}/>')
        out.append(f'<text x="{x - 10:.1f}" y="{label_y}">{ratio:.2f}</text>')
    return out


def svg(result: dict[str, Any]) -> str:
    """A horizontal bar per case: its ratio (left of 1.0 cuda-coop is faster), the 1.02 target marked."""
    rows = result["rows"]
    height = 60 + len(rows) * (BAR_H + GAP)
    out = [*_header(result, WIDTH, height, "cuda-coop time / CUB C++ time"), *_guides(1.02, 40, height)]
    for k, row in enumerate(rows):
        y = 48 + k * (BAR_H + GAP)
        x0, x1 = _x(1.0), _x(row["ratio"])
        ok = row["cub_ok"] and row["coop_ok"]
        color = "#c0392b" if not ok or row["ratio"] > 1.02 else "#2e86c1"
        out.append(f'<text x="10" y="{y + BAR_H - 3}">{row["case"]}</text>')
        out.append(
            f'<rect x="{min(x0, x1):.1f}" y="{y}" width="{max(abs(x1 - x0), 1):.1f}" height="{BAR_H}" fill="{color}"/>'
        )
        out.append(f'<text x="{max(x0, x1) + 4:.1f}" y="{y + BAR_H - 3}">{row["ratio"]:.3f}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


PARITY_TARGET = 1.03
COLORS = ("#2e86c1", "#e67e22", "#27ae60", "#8e44ad", "#7f8c8d", "#d4ac0d")


def parity_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows that timed each algorithm on both sides (reduce and scan)."""
    return [r for r in result["rows"] if "same_algorithm" in r]


def parity_svg(result: dict[str, Any]) -> str:
    """A line per reduce/scan case with a mark per algorithm at its same-algorithm ratio (cuda-coop with the
    algorithm chosen explicitly over a twin with the same algorithm), the 1.03 target marked."""
    rows = parity_rows(result)
    algorithms = list(dict.fromkeys(a for r in rows for a in r["same_algorithm"]))
    legend, x, y = [], 10, 32
    for k, name in enumerate(algorithms):  # a mark and a name per algorithm, wrapping at the figure's width
        if x > 10 and x + 16 + 6 * len(name) > WIDTH:
            x, y = 10, y + 16
        legend += [f'<circle cx="{x + 4}" cy="{y}" r="4" fill="{COLORS[k % len(COLORS)]}"/>',
                   f'<text x="{x + 12}" y="{y + 4}">{name}</text>']
        x += 28 + 6 * len(name)
    top = y + 24
    height = top + 20 + len(rows) * (BAR_H + GAP)
    out = [*_header(result, WIDTH + 50, height, "same algorithm: cuda-coop time / CUB C++ time"), *legend,
           *_guides(PARITY_TARGET, top, height)]
    for k, row in enumerate(rows):
        y = top + 8 + k * (BAR_H + GAP)
        out.append(f'<text x="10" y="{y + BAR_H - 3}">{row["case"]}</text>')
        worst = max(row["same_algorithm"].values())
        for a, ratio in row["same_algorithm"].items():
            color = COLORS[algorithms.index(a) % len(COLORS)]
            out.append(f'<circle cx="{_x(ratio):.1f}" cy="{y + BAR_H / 2}" r="4" fill="{color}"/>')
        mark = ' fill="#c0392b"' if worst > PARITY_TARGET or not all(row["twin_ok"].values()) else ""
        out.append(f'<text x="{WIDTH}" y="{y + BAR_H - 3}"{mark}>{worst:.3f}</text>')  # the case's worst
    out.append("</svg>")
    return "\n".join(out) + "\n"


def table(result: dict[str, Any]) -> str:
    """CSV: case, n, CUB ms, cuda-coop ms, ratio, every result checked, where the call was left to
    ``algorithm="auto"`` its time over the fastest algorithm auto may pick, chosen explicitly, and the host
    time of one launch call of each kernel (numba-cuda-mlir's dispatch; cuda.core's for the twin)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["case", "n", "CUB C++ ms", "cuda-coop ms", "ratio", "checked", "auto / best explicit",
                     "launch call µs (cuda-coop / cuda.core)"])
    for r in result["rows"]:
        ok = r["cub_ok"] and r["coop_ok"] and all(r.get("explicit_ok", {}).values())
        auto = f"{r['auto_vs_best']:.3f} ({r['best_explicit']})" if "auto_vs_best" in r else ""
        times = [f"{r['cub_ms']:.4f}", f"{r['coop_ms']:.4f}", f"{r['ratio']:.3f}"]
        launch = f"{r['coop_launch_us']:.1f} / {r['cub_launch_us']:.1f}" if "coop_launch_us" in r else ""
        writer.writerow([r["case"], r["n"], *times, "ok" if ok else "WRONG", auto, launch])
    return buf.getvalue()


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT
    result = json.loads(path.read_text())
    path.with_suffix(".svg").write_text(svg(result))
    path.with_suffix(".csv").write_text(table(result))
    print(f"wrote {path.with_suffix('.svg')} and {path.with_suffix('.csv')}")
    if parity_rows(result):
        parity = path.with_name(f"{path.stem}_parity.svg")
        parity.write_text(parity_svg(result))
        print(f"wrote {parity}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
