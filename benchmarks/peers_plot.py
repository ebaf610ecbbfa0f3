"""Draw the peers comparison: an SVG of every row's cuda-coop time over the fastest correct peer's, and a CSV table.

    python benchmarks/peers_plot.py [benchmarks/results/peers.json]

Writes ``peers.svg`` and ``peers.csv`` next to the JSON (``peers.py`` calls it at the end of a run; the performance
page shows both). Plain SVG, no plotting library: the figure is a deterministic function of the JSON, so a test can
check that the committed files were drawn from the committed data. The ratio axis is logarithmic, from 1/8 to 4:
left of 1 cuda-coop is faster.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

DEFAULT = Path(__file__).resolve().parent / "results" / "peers.json"
BAR_H, GAP, LEFT, WIDTH, RIGHT = 14, 4, 330, 900, 250
LOW, HIGH = 1 / 8, 4.0
"""Ratio axis (log scale); bars are clipped to it (the CSV has the exact figures)."""


def _x(ratio: float) -> float:
    clipped = min(max(ratio, LOW), HIGH)
    span = WIDTH - LEFT - RIGHT
    return LEFT + (math.log2(clipped) - math.log2(LOW)) / (math.log2(HIGH) - math.log2(LOW)) * span


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def label(row: dict[str, Any]) -> str:
    return f"{row['task']}, {row['size']}"


def svg(result: dict[str, Any]) -> str:
    """A bar per row: cuda-coop's time over the fastest correct peer's, with the peer named; 1.0 and 0.8 marked."""
    rows = result["rows"]
    height = 60 + len(rows) * (BAR_H + GAP)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" '
        'font-size="11">',
        f'<text x="10" y="18" font-size="13">cuda-coop time / fastest correct peer time ({_escape(result["device"])},'
        f' {result["date"][:10]}; median of {result["reps"]} samples)</text>',
    ]
    for ratio, dash in ((1.0, ""), (0.8, ' stroke-dasharray="4,3"')):
        x = _x(ratio)
        out += [f'<line x1="{x:.1f}" y1="28" x2="{x:.1f}" y2="{height - 10}" stroke="#555"{dash}/>',
                f'<text x="{x - 10:.1f}" y="40">{ratio:.2f}</text>']
    for k, row in enumerate(rows):
        y = 48 + k * (BAR_H + GAP)
        out.append(f'<text x="10" y="{y + BAR_H - 3}">{_escape(label(row))}</text>')
        if "ratio" not in row:
            why = row.get("error") or ("cuda-coop wrong" if row.get("coop_ms") is None else "no correct peer")
            out.append(f'<text x="{LEFT}" y="{y + BAR_H - 3}" fill="#c0392b">{_escape(why)}</text>')
            continue
        x0, x1 = _x(1.0), _x(row["ratio"])
        color = "#2e86c1" if row["ratio"] <= 1.0 else "#c0392b"
        out.append(
            f'<rect x="{min(x0, x1):.1f}" y="{y}" width="{max(abs(x1 - x0), 1):.1f}" height="{BAR_H}" fill="{color}"/>'
        )
        out.append(f'<text x="{WIDTH - RIGHT + 6}" y="{y + BAR_H - 3}">{row["ratio"]:.2f} vs '
                   f'{_escape(row["peer"])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


HEADER = ["task", "size", "cuda-coop ms", "fastest correct peer", "peer ms", "ratio", "cuda-coop GB/s",
          "of the copy bandwidth", "shape (row_shape)", "fastest shape", "load auto picked", "vectorize / auto"]


def auto_load(row: dict[str, Any]) -> str:
    """What ``"auto"`` picked for the recipe's first loaded type."""
    return next((v for k, v in row.get("auto", {}).items() if k.startswith("load")), "")


def table_rows(result: dict[str, Any]) -> list[list[str]]:
    """The table's cells, row by row (:data:`HEADER`'s columns); empty cells where a row has no figure."""
    out = []
    for r in result["rows"]:
        coop_ms = r.get("coop_ms")
        loads = r.get("loads_ms", {})
        cells = [
            r["task"], r["size"],
            f"{coop_ms:.4f}" if coop_ms is not None else ("error" if "error" in r else "wrong"),
            r.get("peer") or "", f"{r['peer_ms']:.4f}" if r.get("peer_ms") is not None else "",
            f"{r['ratio']:.3f}" if "ratio" in r else "", f"{r['gbps']:.0f}" if "gbps" in r else "",
            f"{r['copy_fraction']:.0%}" if "copy_fraction" in r else "", r.get("shape", ""),
            r.get("best_shape", ""), auto_load(r),
            f"{loads['vectorize'] / loads['auto']:.3f}" if "vectorize" in loads and loads.get("auto") else "",
        ]
        out.append(cells)
    return out


def table(result: dict[str, Any]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(table_rows(result))
    return buf.getvalue()


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT
    result = json.loads(path.read_text())
    for drawn, text in ((path.with_suffix(".svg"), svg(result)), (path.with_suffix(".csv"), table(result))):
        drawn.write_text(text)
        print(f"wrote {drawn}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
