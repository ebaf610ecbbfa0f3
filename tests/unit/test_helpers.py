"""The shared test helpers themselves (host only): a helper that stopped seeing a failure would turn every
family's test of it green. SASS checks on listings written here, goldens in a temporary folder, the sanitizer
runner with a stand-in compute-sanitizer (a shell script) and a stand-in family script."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.helpers import golden, golden_update, sanitizer
from tests.helpers.sass import assert_inlined, instructions
from tests.helpers.waits import HANG_SECONDS


def _line(address: int, instruction: str) -> str:
    """An instruction line as ``nvdisasm -c`` prints it."""
    return f"        /*{address:04x}*/                   {instruction} ;"


class _Compiled:
    """What ``assert_inlined`` reads of a ``CompiledKernel``: its SASS and its resource usage."""

    def __init__(self, *instructions: str, local: int = 0) -> None:
        lines = ["\t.headerflags\t@\"EF_CUDA_SM90\"", "        .text.kernel:"]
        lines += [_line(16 * i, ins) for i, ins in enumerate(("S2R R0, SR_TID.X", *instructions, "EXIT"))]
        self._sass = "\n".join(lines) + "\n"
        self._local = local

    def sass(self) -> str:
        return self._sass

    def resource_usage(self) -> dict[str, Any]:
        return {"reg": 16, "local": self._local}


CALL = "CALL.REL.NOINC 0x120"
LDL = "LDL R2, [R2]"
STL = "STL.128 [R1+0x90], R8"
SPILL_LDL = 'LDL.LU R23, [R1]                              (*"SpillRefill"*)'
SPILL_STL = 'STL [R1], R17                                 (*"SpillStore"*)'


def test_instructions_are_the_numbered_lines() -> None:
    compiled = _Compiled(LDL)
    assert [line.split("*/")[1].strip() for line in instructions(compiled.sass())] == [
        "S2R R0, SR_TID.X ;", "LDL R2, [R2] ;", "EXIT ;"
    ]


def test_a_clean_listing_passes() -> None:
    assert_inlined(_Compiled("LDG.E R2, desc[UR4][R2.64]", "STG.E desc[UR4][R4.64], R2"))


@pytest.mark.parametrize(("instruction", "op"), [(CALL, "CALL"), (LDL, "LDL"), (STL, "STL")])
def test_each_of_call_and_local_memory_fails(instruction: str, op: str) -> None:
    with pytest.raises(AssertionError, match=rf"^{op} in SASS: \['/\*0010\*/ +{re.escape(instruction)} ;'\]$"):
        assert_inlined(_Compiled(instruction))


@pytest.mark.parametrize("instruction", [LDL, STL])
def test_spills_allow_marked_spills_only(instruction: str) -> None:
    assert_inlined(_Compiled(SPILL_LDL, SPILL_STL), spills=True)
    with pytest.raises(AssertionError, match=r"^LDL in SASS"):
        assert_inlined(_Compiled(SPILL_LDL))  # a spill is local memory too, unless allowed
    with pytest.raises(AssertionError, match=rf"^{instruction[:3]} in SASS"):
        assert_inlined(_Compiled(SPILL_LDL, instruction), spills=True)
    with pytest.raises(AssertionError, match=r"^CALL in SASS"):
        assert_inlined(_Compiled(SPILL_LDL, CALL), spills=True)


def test_local_allows_any_local_memory_and_no_call() -> None:
    assert_inlined(_Compiled(LDL, STL, SPILL_LDL, local=64), local=True)
    with pytest.raises(AssertionError, match=r"^CALL in SASS"):
        assert_inlined(_Compiled(LDL, CALL), local=True)


def test_no_sass_and_a_local_frame_fail() -> None:
    class Empty(_Compiled):
        def sass(self) -> str:
            return "\t.headerflags\t@\"EF_CUDA_SM90\"\n"

    with pytest.raises(AssertionError, match=r"^no SASS"):
        assert_inlined(Empty())
    with pytest.raises(AssertionError):
        assert_inlined(_Compiled(local=16))
    assert_inlined(_Compiled(SPILL_LDL, local=16), spills=True)


# --- goldens -----------------------------------------------------------------------------------------------------


def test_golden_compares_and_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(golden_update._RUN, "requested", False)
    path = tmp_path / "sub" / "case.cu"
    rewrite = re.escape("python -m pytest --update-goldens <the test file>")
    with pytest.raises(AssertionError, match=rf"^missing golden {path}; write it with {rewrite}$"):
        golden.check_golden(path, "int x;\n")
    monkeypatch.setitem(golden_update._RUN, "requested", True)
    golden.check_golden(path, "int x;\n")  # written, then compared
    assert path.read_text(encoding="utf-8") == "int x;\n"
    monkeypatch.setitem(golden_update._RUN, "requested", False)
    golden.check_golden(path, "int x;\n")
    with pytest.raises(AssertionError, match=rf"^{path} is out of date; rewrite it with {rewrite} if intended$"):
        golden.check_golden(path, "int y;\n")


def test_a_golden_name_is_a_file_of_tests_data_render(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(golden_update._RUN, "requested", False)
    name = "reduce_scan"
    text = (golden.RENDER_DATA / f"{name}.cu").read_text(encoding="utf-8")
    golden.check_golden(name, text)
    with pytest.raises(AssertionError, match=r"reduce_scan\.cu is out of date"):
        golden.check_golden(name, text + "\n")


@pytest.mark.parametrize(
    ("option", "environ", "message"),
    [
        (False, {"CUDA_COOP_UPDATE_GOLDENS": "1"}, r"^CUDA_COOP_UPDATE_GOLDENS='1' is set in the environment; goldens "
                                                   r"are rewritten only with `python -m pytest --update-goldens"),
        (True, {"CUDA_COOP_UPDATE_GOLDENS": "0"}, r"^CUDA_COOP_UPDATE_GOLDENS='0' is set in the environment;.*: unset "
                                                  r"CUDA_COOP_UPDATE_GOLDENS$"),
        (False, {"CUDA_COOP_UPDATE_GOLDENS": "1", "CI": "true"}, r"^CUDA_COOP_UPDATE_GOLDENS='1' is set under CI=true, "
                                                                 r"where goldens are never rewritten"),
        (True, {"CI": "true"}, r"^--update-goldens under CI=true: CI compares the goldens and never rewrites them"),
    ],
    ids=["stray-variable", "variable-and-option", "variable-in-ci", "option-in-ci"],
)
def test_only_the_option_rewrites_goldens_and_never_in_ci(option: bool, environ: dict[str, str], message: str) -> None:
    assert golden_update.decide(False, {}) is False and golden_update.decide(True, {"CI": "false"}) is True
    with pytest.raises(pytest.UsageError, match=message):
        golden_update.decide(option, environ)


GOLDEN_TEST = """
from pathlib import Path
from tests.helpers import golden

def test_golden() -> None:
    path = Path("golden.cu")
    golden.check_golden(path.resolve(), "int z;\\n")
"""


@pytest.mark.parametrize(
    ("args", "environ", "outcome"),
    [
        (("--update-goldens",), {}, "1 passed"),  # asked for: rewritten, then compared
        ((), {"CUDA_COOP_UPDATE_GOLDENS": "1"}, "CUDA_COOP_UPDATE_GOLDENS='1' is set in the environment"),
        (("--update-goldens",), {"CI": "true"}, "--update-goldens under CI=true"),
    ],
    ids=["rewrite", "stray-variable", "option-in-ci"],
)
def test_the_run_decides_once_from_its_command_line(
    tmp_path: Path, args: tuple[str, ...], environ: dict[str, str], outcome: str
) -> None:
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F403\n")
    (tmp_path / "test_g.py").write_text(GOLDEN_TEST)
    (tmp_path / "golden.cu").write_text("int y;\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CUDA_COOP_UPDATE_GOLDENS", "PYTEST_ADDOPTS")}
    env.update(environ, PYTHONPATH=os.pathsep.join(p for p in (str(golden.RENDER_DATA.parents[2]),
                                                                env.get("PYTHONPATH")) if p))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args,
                           "test_g.py"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
                          timeout=HANG_SECONDS)
    assert outcome in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    rewritten = (tmp_path / "golden.cu").read_text() == "int z;\n"
    assert rewritten == (outcome == "1 passed")


def test_after_preamble_starts_at_the_version_check() -> None:
    text = "#include <cub/cub.cuh>\n#include <x>\nstatic_assert(CCCL_VERSION == 3006000, \"\");\nint x;\n"
    assert golden.after_preamble(text) == "static_assert(CCCL_VERSION == 3006000, \"\");\nint x;\n"


# --- the sanitizer runner ----------------------------------------------------------------------------------------


FAKE_SANITIZER = """\
#!/bin/sh
# compute-sanitizer --tool TOOL --target-processes all PYTHON -m MODULE: run the program, then summarise.
tool=$2
shift 4
"$@"
status=$?
if [ "$tool" = racecheck ]; then
    echo "========= RACECHECK SUMMARY: ${FAKE_ERRORS:-0} hazards displayed (${FAKE_ERRORS:-0} errors, 0 warnings)"
else
    echo "========= ERROR SUMMARY: ${FAKE_ERRORS:-0} errors"
fi
exit $status
"""

FAKE_SCRIPT = """\
import os, sys
print(f"seed {os.environ['CUDA_COOP_TEST_SEED']}")
for i in range(int(os.environ.get("FAKE_OKS", "2"))):
    print(f"OK fake_family block{i}")
print("OK other_family block0")
if os.environ.get("FAKE_ALL_OK", "1") == "1":
    print("ALL OK")
sys.exit(int(os.environ.get("FAKE_STATUS", "0")))
"""


@pytest.fixture
def fake_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.name != "posix":
        pytest.skip("the stand-in compute-sanitizer is a POSIX shell script")
    tool = tmp_path / "bin" / "compute-sanitizer"
    tool.parent.mkdir()
    tool.write_text(FAKE_SANITIZER)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "fake_family_script.py").write_text(FAKE_SCRIPT)
    monkeypatch.setenv("PATH", f"{tool.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))


@pytest.mark.usefixtures("fake_tool")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_run_clean_passes_a_clean_run(tool: str, rng: np.random.Generator) -> None:
    output = sanitizer.run_clean("fake_family_script", tool, "fake_family", 2, rng=rng, timeout=60)
    assert "ALL OK" in output
    sanitizer.run_clean("fake_family_script", tool, ["other_family"], 1, rng=rng, timeout=60)


@pytest.mark.usefixtures("fake_tool")
def test_run_clean_gives_the_script_a_seed_from_the_tests(rng: np.random.Generator) -> None:
    """The script's seed moves with the test's generator, repeats with it, and a failure names it."""
    state = rng.bit_generator.state
    first = re.search(r"^seed (\d+)$", sanitizer.run_clean("fake_family_script", "memcheck", "fake_family", 2, rng=rng,
                                                         timeout=60), re.M)
    rng.bit_generator.state = state
    again = re.search(r"^seed (\d+)$", sanitizer.run_clean("fake_family_script", "memcheck", "fake_family", 2, rng=rng,
                                                         timeout=60), re.M)
    other = sanitizer.run_clean("fake_family_script", "memcheck", "fake_family", 2, rng=rng, timeout=60)
    assert first is not None and again is not None and first[1] == again[1] and f"seed {first[1]}\n" not in other
    rng.bit_generator.state = state
    with pytest.raises(AssertionError, match=rf"CUDA_COOP_TEST_SEED={first[1]} .*python -m fake_family_script$"):
        sanitizer.run_clean("fake_family_script", "memcheck", "fake_family", 3, rng=rng, timeout=60)


@pytest.mark.usefixtures("fake_tool")
@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"FAKE_ALL_OK": "0"}, r"^the kernels of fake_family_script did not all run correctly under memcheck"),
        ({"FAKE_OKS": "1"}, r"^1 lines 'OK fake_family ', not 2"),
        ({"FAKE_OKS": "3"}, r"^3 lines 'OK fake_family ', not 2"),
        ({"FAKE_ERRORS": "2"}, r"^memcheck: \{'errors': 2\}"),
        ({"FAKE_STATUS": "1"}, r"^exit status 1"),
    ],
    ids=["no-all-ok", "too-few", "too-many", "errors", "status"],
)
def test_run_clean_fails_each_way(
    env: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch, rng: np.random.Generator
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(AssertionError, match=message):
        sanitizer.run_clean("fake_family_script", "memcheck", "fake_family", 2, rng=rng, timeout=60)


@pytest.mark.usefixtures("fake_tool")
def test_run_clean_checks_every_marker(rng: np.random.Generator) -> None:
    with pytest.raises(AssertionError, match=r"^1 lines 'OK other_family ', not 2"):
        sanitizer.run_clean("fake_family_script", "memcheck", ("fake_family", "other_family"), 2, rng=rng, timeout=60)


def test_summary_counts_reads_both_forms() -> None:
    """The parser reads both summary forms, and a nonzero count is seen."""
    assert sanitizer.summary_counts("memcheck", "========= ERROR SUMMARY: 2 errors\n") == {"errors": 2}
    line = "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
    assert sanitizer.summary_counts("racecheck", line) == {"hazards": 1, "errors": 1, "warnings": 0}
    with pytest.raises(AssertionError):
        sanitizer.summary_counts("synccheck", "no summary")


RACECHECK_REPORT = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at k(Array<int, (int)1, C, mutable, aligned>, long long)+0xa40
=========     and Write access at k(Array<int, (int)1, C, mutable, aligned>, long long)+0xa40 [12224 hazards]
=========
========= Warning: Race reported between Read access at f(float *)+0x260 in /x/k.cu:8
=========     and Write access at f(float *)+0x200 in /x/k.cu:6 [3 hazards]
=========     and Write access at f(float *)+0x2b0 in /x/k.cu:7 [1 hazard]
=========
========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)
"""


def test_races_reads_each_pair_of_the_analysis_report() -> None:
    k = "k(Array<int, (int)1, C, mutable, aligned>, long long)"
    assert sanitizer.races(RACECHECK_REPORT) == [
        sanitizer.Race("Error", "Write", k, 0xA40, "Write", k, 0xA40, 12224),
        sanitizer.Race("Warning", "Read", "f(float *)", 0x260, "Write", "f(float *)", 0x200, 3),
        sanitizer.Race("Warning", "Read", "f(float *)", 0x260, "Write", "f(float *)", 0x2B0, 1),
    ]
    assert sanitizer.races("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n") == []


@pytest.mark.usefixtures("fake_tool")
def test_run_clean_hands_known_races_over_and_checks_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rng: np.random.Generator
) -> None:
    """With ``known_races``, the listed races go to the callback and the summary must count them, no more."""
    tool = tmp_path / "bin" / "compute-sanitizer"
    tool.write_text(FAKE_SANITIZER.replace('if [ "$tool" = racecheck ]; then',
                                           'if [ "$tool" = racecheck ]; then\n    printf "%s" "$FAKE_REPORT"'))
    monkeypatch.setenv("FAKE_REPORT", RACECHECK_REPORT.rsplit("=========", 1)[0])
    seen: list[list[sanitizer.Race]] = []
    monkeypatch.setenv("FAKE_ERRORS", "3")  # the fake summary: 3 hazards, 3 errors (the report: 1 error, 2 warnings)
    with pytest.raises(AssertionError, match=r"^racecheck: \{'hazards': 3, 'errors': 3, 'warnings': 0\}, but"):
        sanitizer.run_clean("fake_family_script", "racecheck", "fake_family", 2, rng=rng, timeout=60,
                            known_races=seen.append)
    monkeypatch.setenv("FAKE_REPORT", RACECHECK_REPORT.split("========= Warning", maxsplit=1)[0])
    monkeypatch.setenv("FAKE_ERRORS", "1")
    sanitizer.run_clean("fake_family_script", "racecheck", "fake_family", 2, rng=rng, timeout=60,
                        known_races=seen.append)
    assert [len(r) for r in seen] == [1] and seen[0][0].hazards == 12224
    with pytest.raises(AssertionError, match="known_races is for racecheck, not memcheck"):
        sanitizer.run_clean("fake_family_script", "memcheck", "fake_family", 2, rng=rng, timeout=60,
                            known_races=seen.append)
