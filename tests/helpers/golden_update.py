"""Whether this run rewrites the golden files (``tests/helpers/golden.py``): only when asked for on purpose.

    python -m pytest --update-goldens tests/unit/test_render.py      # rewrite, then review the diff

The request is the pytest option :data:`OPTION`, given on the command line of the run that rewrites: nothing left
in a shell can turn it on. Under ``CI=true`` it is refused (CI compares the goldens, it never rewrites them), and
so is the environment variable :data:`ENV` that once asked for it, set to anything, in any run: a value left in a
developer's shell must not make the golden tests rewrite their files and pass, nor be ignored in silence.
``tests/conftest.py`` decides once per run (:func:`configure`); :func:`check_golden` reads :func:`requested`.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

__all__ = ["ENV", "OPTION", "configure", "decide", "requested"]

OPTION = "--update-goldens"
ENV = "CUDA_COOP_UPDATE_GOLDENS"
"""No longer read: set (non-empty), every run stops with a message naming :data:`OPTION`."""

_RUN = {"requested": False}
"""This run's decision (:func:`configure`)."""


def decide(option: bool, environ: Mapping[str, str]) -> bool:
    """Whether a run given ``option`` in ``environ`` rewrites the goldens; raises ``pytest.UsageError`` for the
    environment variable and for a request under ``CI=true``."""
    ci = environ.get("CI", "").strip().lower() == "true"
    if value := environ.get(ENV, ""):
        where = "under CI=true, where goldens are never rewritten" if ci else "in the environment"
        raise pytest.UsageError(
            f"{ENV}={value!r} is set {where}; goldens are rewritten only with `python -m pytest {OPTION} <test file>`"
            f" on purpose: unset {ENV}"
        )
    if option and ci:
        raise pytest.UsageError(
            f"{OPTION} under CI=true: CI compares the goldens and never rewrites them; rewrite them locally with "
            f"`python -m pytest {OPTION} <test file>`, review the diff and commit it"
        )
    return option


def configure(option: bool, environ: Mapping[str, str]) -> None:
    """Decide for this run (:func:`decide`); from ``tests/conftest.py``."""
    _RUN["requested"] = decide(option, environ)


def requested() -> bool:
    """Whether this run rewrites the goldens."""
    return _RUN["requested"]
