"""The seed's truthy rule, and the rule that only cuda_coop._env reads the environment."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cuda.coop import _env

SWITCH = "CUDA_COOP_ENABLE_CACHE"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, False),
        ("", False),
        ("0", False),
        ("false", False),
        ("FALSE", False),
        ("False", False),
        ("no", False),
        ("No", False),
        ("off", False),
        ("OFF", False),
        ("  off  ", False),
        ("\t0\n", False),
        ("   ", False),
        ("1", True),
        ("true", True),
        ("TRUE", True),
        ("yes", True),
        ("on", True),
        (" On ", True),
        ("2", True),
        ("anything", True),
        ("00", True),
        ("n", True),
    ],
)
def test_truthy_table(monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool) -> None:
    assert _env.truthy(value) is expected
    if value is None:
        monkeypatch.delenv(SWITCH, raising=False)
    else:
        monkeypatch.setenv(SWITCH, value)
    assert _env.flag(SWITCH) is expected


def test_values_are_read_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SWITCH, "1")
    assert _env.flag(SWITCH)
    monkeypatch.setenv(SWITCH, "off")
    assert not _env.flag(SWITCH)
    monkeypatch.delenv(SWITCH)
    assert _env.get(SWITCH) is None


def test_unregistered_variable_is_refused() -> None:
    with pytest.raises(KeyError, match="VARIABLES"):
        _env.get("CUDA_COOP_NOT_A_VARIABLE")


def test_every_variable_of_the_seed_is_registered() -> None:
    names = [v.name for v in _env.VARIABLES]
    assert len(names) == len(set(names))
    seed = {
        "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION",
        "CUDA_COOP_CCCL_ROOT",
        "CUDA_COOP_ENABLE_CACHE",
        "XDG_CACHE_HOME",
        "LOCALAPPDATA",
        "CUDA_COOP_SOURCE_DUMP_DIR",
        "CUDA_PATH",
        "CUDA_HOME",
        "CUDA_ROOT",
    }
    assert seed <= set(names)


def _environment_reads(path: Path) -> list[int]:
    """Lines of ``path`` that touch os.environ / os.getenv / os.putenv."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in {"environ", "environb", "getenv", "putenv", "unsetenv"}
    ]


def test_only_env_module_reads_the_environment() -> None:
    package = Path(_env.__file__).parent
    offenders = {
        str(path.relative_to(package)): lines
        for path in sorted(package.rglob("*.py"))
        if path.name != "_env.py" and (lines := _environment_reads(path))
    }
    assert not offenders, f"read environment variables through cuda_coop._env, not directly: {offenders}"
