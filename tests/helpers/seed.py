"""One seed for every random test, printed when a test fails and settable from the environment.

``CUDA_COOP_TEST_SEED`` (a non-negative integer; :data:`DEFAULT` when unset or empty) is the run's base seed.
Each test draws from its own generator, seeded with the base seed and its node id (:func:`generator`), so its
data does not depend on which other tests ran or in which order, and ``CUDA_COOP_TEST_SEED=<seed> pytest <id>``
reproduces a failure alone. The ``rng`` fixture (``tests/conftest.py``) hands the generator to a test and adds
the seed and the rerun command to its report when it fails; the run's header prints the seed.

Every random test takes the ``rng`` fixture and passes it down: no helper, module or parametrization makes a
generator of its own (their data would then depend on which tests ran, and in which order, or not move with
the seed). A script a test runs in a subprocess (a compute-sanitizer script, a fresh process) gets a seed drawn
from the test's generator in its environment (:func:`child_env`) and draws from :func:`script_generator`;
run by hand, ``CUDA_COOP_TEST_SEED=<seed> python -m <script>`` repeats its data.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DEFAULT", "ENV", "base_seed", "child_env", "generator", "rerun_hint", "script_generator"]

ENV = "CUDA_COOP_TEST_SEED"
DEFAULT = 20261204


def base_seed() -> int:
    """The run's base seed: ``CUDA_COOP_TEST_SEED``, or :data:`DEFAULT` when it is unset or empty."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT
    try:
        seed = int(raw, 0)
    except ValueError:
        seed = -1
    if seed < 0:
        raise pytest.UsageError(f"{ENV}={raw!r} is not a non-negative integer; set it to e.g. {DEFAULT} or unset it")
    return seed


def generator(nodeid: str, seed: int | None = None) -> np.random.Generator:
    """The generator of the test ``nodeid`` under the base seed ``seed`` (:func:`base_seed` when None)."""
    import numpy as np

    test = int.from_bytes(hashlib.sha256(nodeid.encode()).digest()[:8], "little")
    return np.random.default_rng([base_seed() if seed is None else seed, test])


def rerun_hint(nodeid: str, seed: int) -> str:
    """The line a failing random test reports: its seed and the command that reruns it with the same data."""
    return f"random inputs from {ENV}={seed}; rerun with the same data: {ENV}={seed} python -m pytest '{nodeid}'"


def child_env(rng: np.random.Generator, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default ``os.environ``) with ``CUDA_COOP_TEST_SEED`` set to a seed drawn from ``rng``: the environment
    of a script a test runs, whose data then moves with the test's seed and reruns with it."""
    return {**(os.environ if env is None else env), ENV: str(int(rng.integers(2**63)))}


def script_generator() -> np.random.Generator:
    """The generator of a script run by a test in a subprocess: seeded with ``CUDA_COOP_TEST_SEED`` alone, which
    the test set (:func:`child_env`)."""
    import numpy as np

    return np.random.default_rng(base_seed())
