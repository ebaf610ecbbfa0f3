"""The precompiled-header policy of NvrtcCompiler, with NVRTC faked (host only)."""

from __future__ import annotations

import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from cuda.coop._provider import _nvrtc
from cuda.coop._provider._nvrtc import NvrtcCompiler

OK = object()
PREAMBLE = "#include <cub/block/block_reduce.cuh>\n"
OPTIONS = ("-arch=sm_90", "-rdc=true")


class FakeNvrtc:
    """Stands in for ``_nvrtc._compile``: records options; can fail PCH builds or PCH use."""

    def __init__(self, *, build_ok: bool = True, use_ok: bool = True) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.build_ok = build_ok
        self.use_ok = use_ok

    def __call__(self, source: str, options: Sequence[str], name: str) -> tuple[bytes | None, str, object]:
        self.calls.append(tuple(options))
        create = [o for o in options if o.startswith("--create-pch=")]
        if create:
            if self.build_ok:
                Path(create[0].split("=", 1)[1]).write_bytes(b"pch")
            return b"", "creating precompiled header", OK if self.build_ok else "heap exhausted"
        if any(o.startswith("--use-pch=") for o in options) and not self.use_ok:
            return None, "error: cannot load precompiled header file", None
        return b"LTOIR", "", None


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeNvrtc:
    fake = FakeNvrtc()
    monkeypatch.setattr(_nvrtc, "_compile", fake)
    monkeypatch.setattr(_nvrtc, "_set_heap_size", lambda: None)
    monkeypatch.setattr(
        _nvrtc, "_nvrtc", lambda: types.SimpleNamespace(nvrtcResult=types.SimpleNamespace(NVRTC_SUCCESS=OK))
    )
    return fake


def _compile(c: NvrtcCompiler, n: int = 1) -> list[_nvrtc.CompileResult]:
    return [c.compile(PREAMBLE + f"int x{i};", OPTIONS, name="p.cu", preamble=PREAMBLE) for i in range(n)]


def _uses(options: tuple[str, ...]) -> bool:
    return any(o.startswith("--use-pch=") for o in options)


def test_single_kernel_processes_never_build_a_pch(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(background=False)
    _compile(c)
    assert c.pch_builds == 0 and len(fake.calls) == 1


def test_pch_is_built_after_the_second_compile_and_used_by_later_ones(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(background=False)
    results = _compile(c, 4)
    assert [r.used_pch for r in results] == [False, False, True, True]
    assert (c.calls, c.pch_builds, c.pch_hits) == (4, 1, 2)
    assert next(o for o in fake.calls[2] if "pch" in o).startswith("--create-pch=")
    assert _uses(fake.calls[3]) and not _uses(fake.calls[0])


def test_background_build(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1)
    _compile(c)
    assert c.wait_for_pch(30)
    assert _compile(c)[0].used_pch


def test_other_options_get_their_own_pch(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1, background=False)
    _compile(c)
    c.compile(PREAMBLE, ("-arch=sm_100",), name="p.cu", preamble=PREAMBLE)
    assert c.pch_builds == 2


def test_failed_build_is_dropped(monkeypatch: pytest.MonkeyPatch, fake: FakeNvrtc) -> None:
    fake.build_ok = False
    c = NvrtcCompiler(pch_after=1, background=False)
    results = _compile(c, 3)
    assert not any(r.used_pch for r in results) and c.pch_builds == 1


def test_unloadable_pch_is_dropped_and_the_compile_retried(fake: FakeNvrtc) -> None:
    fake.use_ok = False
    c = NvrtcCompiler(pch_after=1, background=False)
    results = _compile(c, 3)
    assert all(r.ok for r in results) and not any(r.used_pch for r in results)
    assert sum(_uses(o) for o in fake.calls) == 1  # tried once, then never again


def test_no_pch_when_disabled_or_without_preamble(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch=False, pch_after=1, background=False)
    _compile(c, 3)
    assert c.pch_builds == 0
    c = NvrtcCompiler(pch_after=1, background=False)
    for _ in range(3):
        c.compile("int x;", OPTIONS, name="p.cu")
    assert c.pch_builds == 0


def test_exit_waits_then_removes_the_directory(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1, background=False)
    _compile(c)
    assert c._dir is not None and any(c._dir.iterdir())
    c._at_exit()
    assert not c._dir.exists()


def test_default_compiler_is_shared() -> None:
    assert _nvrtc.default_compiler() is _nvrtc.default_compiler()
    assert _nvrtc.default_compiler().pch and _nvrtc.default_compiler().pch_after == 2
