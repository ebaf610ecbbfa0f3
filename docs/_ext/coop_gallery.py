"""Sphinx directives for the comparison with PyTorch, Triton and CuPy and for the recipe gallery.

- ``coop-peers``: the performance page's section from the committed ``benchmarks/results/peers.json`` (its plot
  ``peers.svg`` and table ``peers.csv``), or one sentence saying it has not been measured;
- ``coop-recipes``: every recipe of ``examples/recipes/``, whole, with its measured ratios.

The text is made by :mod:`coop_peers`, which the unit tests read without Sphinx.
"""

from __future__ import annotations

import coop_peers
from coop_docs import _GeneratedRst
from sphinx.application import Sphinx


class PeersComparison(_GeneratedRst):
    def lines(self) -> list[str]:
        return coop_peers.comparison_lines(self.committed("peers.json", "peers.svg", "peers.csv"))


class RecipeGallery(_GeneratedRst):
    allow_titles = True

    def lines(self) -> list[str]:
        for path in sorted(coop_peers.RECIPES_DIR.glob("*.py")):
            self.env.note_dependency(str(path))
        try:
            return coop_peers.gallery_lines(self.committed("peers.json"))
        except ValueError as exc:
            raise self.error(str(exc)) from None


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("coop-peers", PeersComparison)
    app.add_directive("coop-recipes", RecipeGallery)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
