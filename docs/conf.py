"""Sphinx configuration for cuda-coop's documentation (built with ``-W`` in CI).

Build: ``python -m sphinx -W -b html docs docs/_build/html`` with the ``docs`` extra installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

from cuda.coop import __version__

project = "cuda-coop"
author = "cuda-coop developers"
copyright = "cuda-coop developers"
version = release = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "coop_docs",
    "coop_gallery",
]

exclude_patterns = ["_build"]
nitpicky = True
# Standard-library and third-party names in signatures: there is no intersphinx (no network).
nitpick_ignore_regex = [
    ("py:class", r"(pathlib\.)?Path|collections\.abc\..*|typing\..*|Literal|Sequence|Mapping|Callable|Any"),
    ("py:class", r"os\.PathLike"),
    ("py:class", r"numba_cuda_mlir\..*"),
]

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

html_theme = "furo"
html_static_path = ["_static"]
html_css_files = ["coop.css"]
html_title = f"cuda-coop {release}"
