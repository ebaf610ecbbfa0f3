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


# --- the one path rule ---------------------------------------------------------------------------

PATH_VAR = "CUDA_COOP_CCCL_ROOT"


@pytest.mark.parametrize("value", [None, ""])
def test_path_unset_or_empty_is_none(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(PATH_VAR, raising=False)
    else:
        monkeypatch.setenv(PATH_VAR, value)
    assert _env.path(PATH_VAR) is None
    assert _env.path(PATH_VAR, relative="unset") is None


def test_path_absolute_is_kept_as_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(PATH_VAR, str(tmp_path / "a" / ".." / "b"))
    assert _env.path(PATH_VAR) == tmp_path / "a" / ".." / "b"  # not resolved: the caller decides


@pytest.mark.parametrize("value", ["~", "~/x/y"])
def test_path_tilde_is_the_home_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv(PATH_VAR, value)
    assert _env.path(PATH_VAR) == Path(str(tmp_path / "home") + value[1:])


@pytest.mark.parametrize("value", ["relative", "./x", "../x", " /leading-space", "~no-such-user-xyz/x"])
def test_path_relative_is_an_error_or_unset(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    from cuda.coop.errors import ConfigurationError

    monkeypatch.setenv(PATH_VAR, value)
    with pytest.raises(ConfigurationError) as info:
        _env.path(PATH_VAR)
    message = str(info.value)
    assert PATH_VAR in message and repr(value) in message and "absolute path" in message
    assert _env.path(PATH_VAR, relative="unset") is None


@pytest.mark.parametrize(("value", "absolute"), [("C:\\x", True), ("\\\\srv\\share", True), ("C:x", False),
                                                 ("\\x", False), ("/x", False)])
def test_path_windows_rule(monkeypatch: pytest.MonkeyPatch, value: str, absolute: bool) -> None:
    monkeypatch.setenv("LOCALAPPDATA", value)
    got = _env.path("LOCALAPPDATA", relative="unset", platform="win32")
    assert (got is not None) is absolute


def test_path_refuses_a_switch() -> None:
    with pytest.raises(KeyError, match="not a path"):
        _env.path(SWITCH)


def test_is_windows() -> None:
    import sys

    assert _env.is_windows("win32") and not _env.is_windows("linux") and not _env.is_windows("darwin")
    assert _env.is_windows() is (sys.platform == "win32")


def test_one_is_windows_helper() -> None:
    """No module but _env defines its own platform test."""
    package = Path(_env.__file__).parent
    defining = [p.name for p in package.rglob("*.py") if "def _is_windows" in p.read_text(encoding="utf-8")]
    assert defining == []


def test_path_variables_are_read_by_the_path_rule() -> None:
    """Every reader of a registered path variable goes through _env.path (never _env.get + its own parsing)."""
    package = Path(_env.__file__).parent
    paths = {v.name for v in _env.VARIABLES if v.kind == "path"}
    offenders = []
    for file in sorted(package.rglob("*.py")):
        if file.name == "_env.py":
            continue
        tree = ast.parse(file.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "_env" and node.args):
                arg = node.args[0]
                name = arg.value if isinstance(arg, ast.Constant) else constants.get(getattr(arg, "id", ""))
                if name in paths:
                    offenders.append(f"{file.relative_to(package).as_posix()} {name}")
    assert offenders == []
