"""The one seed of the random tests (tests/helpers/seed.py and the ``rng`` fixture of tests/conftest.py), host only.

A test's data depends on the run's seed and its own node id only: not on the tests that ran before it, and it moves
when the seed does. A failing random test reports the seed and the command that reruns it with the same data.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import seed
from tests.helpers.waits import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]
A = "tests/gpu/test_x.py::test_a[int32-128x1x1]"
B = "tests/gpu/test_x.py::test_b"


def _draw(nodeid: str) -> list[int]:
    return seed.generator(nodeid).integers(0, 2**62, 4).tolist()


def test_a_tests_data_does_not_depend_on_the_tests_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seed.ENV, raising=False)
    alone = _draw(A)
    _draw(B)
    assert _draw(A) == alone, "the data of a test changed with the tests that ran before it"
    assert _draw(B) != alone, "two tests drew the same data"


def test_the_seed_moves_every_tests_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seed.ENV, raising=False)
    default = (_draw(A), _draw(B))
    monkeypatch.setenv(seed.ENV, str(seed.DEFAULT))
    assert (_draw(A), _draw(B)) == default
    monkeypatch.setenv(seed.ENV, "7")
    moved = (_draw(A), _draw(B))
    assert moved[0] != default[0] and moved[1] != default[1]
    monkeypatch.setenv(seed.ENV, "0x7")
    assert (_draw(A), _draw(B)) == moved


@pytest.mark.parametrize("value", ["-1", "seven", "1.5"])
def test_a_seed_that_is_not_a_non_negative_integer_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(seed.ENV, value)
    with pytest.raises(pytest.UsageError, match=rf"^{seed.ENV}={value!r} is not a non-negative integer"):
        seed.base_seed()


def test_a_script_draws_from_the_seed_its_test_passes(
    rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = rng.bit_generator.state
    env = seed.child_env(rng, {})
    rng.bit_generator.state = state
    assert seed.child_env(rng, {}) == env, "the script's seed does not repeat with the test's data"
    assert seed.child_env(rng, {}) != env
    code = "from tests.helpers import seed; print(seed.script_generator().integers(0, 2**62))"
    drawn = [subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, cwd=REPO, capture_output=True,
                            text=True, check=True, timeout=HANG_SECONDS).stdout for _ in range(2)]
    monkeypatch.setenv(seed.ENV, env[seed.ENV])
    assert drawn[0] == drawn[1] == f"{seed.script_generator().integers(0, 2**62)}\n"
    monkeypatch.setenv(seed.ENV, str(int(env[seed.ENV]) + 1))
    assert drawn[0] != f"{seed.script_generator().integers(0, 2**62)}\n"


def test_no_test_makes_a_generator_of_its_own() -> None:
    """Every random input comes from the rng fixture or a script's seed (tests/helpers/seed.py): a generator made
    elsewhere (``default_rng``, NumPy's or Python's global state) would not move with the seed nor be reported."""
    own = re.compile(r"\b(?:default_rng|RandomState|np\.random\.(?:seed|rand|randn|randint|random|permutation|shuffle|"
                     r"choice|normal|uniform|integers))\(|^\s*(?:import random|from random import)", re.M)
    found = [f"{path.relative_to(REPO)}:{text[: m.start()].count(chr(10)) + 1}"
             for path in sorted((REPO / "tests").rglob("*.py")) if path != REPO / "tests" / "helpers" / "seed.py"
             for text in [path.read_text(encoding="utf-8")] for m in own.finditer(text)]
    assert not found, f"generators outside tests/helpers/seed.py: {found}"


RANDOM_TESTS = """
import numpy as np

def test_fails(rng: np.random.Generator) -> None:
    assert False, f"drew {rng.integers(0, 2**62)}"

def test_passes(rng: np.random.Generator) -> None:
    rng.integers(0, 2**62)

def test_fails_without_random_inputs() -> None:
    assert False, "no random inputs"
"""


def _pytest(folder: Path, *args: str, seed_value: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in (seed.ENV, "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    if seed_value is not None:
        env[seed.ENV] = seed_value
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
                          cwd=folder, env=env, capture_output=True, text=True, check=False, timeout=HANG_SECONDS)
    return proc.stdout + proc.stderr


def _drawn(output: str) -> set[str]:
    return set(re.findall(r"AssertionError: drew (\d+)", output))


def test_a_failing_random_test_reports_its_seed_and_how_to_rerun_it(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F403\n")
    (tmp_path / "test_random.py").write_text(textwrap.dedent(RANDOM_TESTS))
    out = _pytest(tmp_path, "-rA", "test_random.py", seed_value="123")
    assert f"random inputs: {seed.ENV}=123" in out, out  # the run's header
    hint = seed.rerun_hint("test_random.py::test_fails", 123)
    assert hint == (f"random inputs from {seed.ENV}=123; rerun with the same data: {seed.ENV}=123 python -m pytest "
                    "'test_random.py::test_fails'")
    assert out.count("random seed") == 1 and hint in out, out  # the failing random test, not the others
    drawn = _drawn(out)
    assert len(drawn) == 1 and _drawn(_pytest(tmp_path, "test_random.py::test_fails", seed_value="123")) == drawn, (
        "the rerun command does not repeat the data")
    other = _pytest(tmp_path, "test_random.py::test_fails", seed_value="124")
    assert _drawn(other) != drawn and f"{seed.ENV}=124 python -m pytest" in other
