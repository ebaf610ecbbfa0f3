"""The cuda-coop code the migration guide shows (docs/_snippets/migration.py) computes what NumPy does."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_snippets"))

import migration


@pytest.mark.parametrize("snippet", sorted(migration.CHECKS))
def test_snippet_matches_numpy(snippet: str, rng: np.random.Generator) -> None:
    assert migration.CHECKS[snippet](rng, 7), snippet
