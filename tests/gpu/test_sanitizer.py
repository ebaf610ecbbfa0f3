"""compute-sanitizer finds nothing in one kernel per primitive family (load/store, reduce, scan,
warp reduce, warp scan): memcheck 0 errors, racecheck 0 hazards, synccheck 0 errors.

Each tool runs ``tests/gpu/_sanitizer_kernels.py`` in a subprocess (``tests/helpers/sanitizer.py``); the
script checks its results against NumPy and prints ``ALL OK``. compute-sanitizer comes from PATH,
``$CUDA_HOME/bin`` or ``/usr/local/cuda/bin``; without it these tests fail (a GPU run that cannot
sanitize is not green). The summary parser is tested on the host (tests/unit/test_helpers.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.sanitizer import run_clean

FAMILIES = ("load_store", "reduce", "scan", "warp_reduce", "warp_scan")


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """Every family ran on both blocks (``OK <family> `` twice each)."""
    run_clean("tests.gpu._sanitizer_kernels", tool, FAMILIES, 2, rng=rng)
