"""Test fakes, one place for all of them (the unit tier only; each has a real counterpart in a higher tier).

- :class:`FakeCompiler` stands in for NVRTC behind the provider's compiler seam (real: tests/compile).
- :class:`FakeNvrtc` stands in for ``_nvrtc._compile`` in the PCH policy tests
  (real: tests/compile/test_provider_pch.py), and :class:`FakeClock` for the compiler's clock (``_pch.Clock``) there:
  time passes only when a compile or a wait says so, and a held build ends when that time reaches its end.
- :class:`FakeBackend` stands in for the library loader of ``_toolkit`` (real: tests/compile/test_conda_prefix.py).
- :data:`TOOLCHAIN` is a toolchain that points at no files (real: ``resolve_toolchain`` in tests/compile).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuda.coop._provider import Toolchain
from cuda.coop._provider._nvrtc import CompileResult

__all__ = ["OK", "TOOLCHAIN", "FakeBackend", "FakeClock", "FakeCompiler", "FakeNvrtc"]

OK = object()
"""The success code FakeNvrtc returns."""

TOOLCHAIN = Toolchain(
    cccl_include_roots=(Path("/cccl/include"),),
    cccl_version=3006000,
    cuda_include=Path("/cuda/include"),
    header_identity="h" * 64,
    toolkit_identity="t" * 64,
    nvrtc_version=(13, 5),
)


class FakeCompiler:
    """Counts calls; returns fixed bytes, or fails with a log."""

    def __init__(self, *, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail
        self.seen: list[tuple[str, tuple[str, ...], str | None]] = []

    def compile(
        self,
        source: str,
        options: Sequence[str],
        *,
        name: str,
        preamble: str | None = None,
        headers: Mapping[str, str] | None = None,
        identity: str = "",
    ) -> CompileResult:
        self.calls += 1
        self.seen.append((name, tuple(options), preamble))
        self.identity = identity
        if self.fail:
            return CompileResult(ltoir=None, log='p.cu(12): error: identifier "x" is undefined')
        return CompileResult(ltoir=b"LTOIR:" + source[-40:].encode(), log="")



class FakeNvrtc:
    """Stands in for ``_nvrtc._compile``: records options; can fail PCH builds or PCH use.

    A PCH build runs at once, unless :meth:`hold` made builds wait (in their forked child) for :meth:`release`. A
    compile without a PCH takes ``compile_seconds`` of its :class:`FakeClock`'s time (one with a PCH takes none);
    a held build, ``build_seconds`` of it. Nothing sleeps.
    """

    def __init__(self, *, build_ok: bool = True, use_ok: bool = True) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.headers: list[dict[str, str]] = []
        self.build_ok = build_ok
        self.use_ok = use_ok
        self.use_warns = False
        self.build_seconds = 0.0
        self.compile_seconds = 0.0
        self.clock: FakeClock | None = None
        self._gate: Path | None = None

    def hold(self, gate: Path) -> None:
        """From now on a build waits, in its child, until :meth:`release` (``gate``: a path that does not exist)."""
        self._gate = gate

    def release(self) -> None:
        """Let every held build end."""
        if self._gate is not None:
            self._gate.touch()

    def __call__(
        self, source: str, options: Sequence[str], name: str, headers: Mapping[str, str] | None = None
    ) -> tuple[bytes | None, str, object]:
        self.calls.append(tuple(options))
        self.headers.append(dict(headers or {}))
        create = [o.split("=", 1)[1] for o in options if o.startswith("--create-pch=")]
        if create:
            while self._gate is not None and not self._gate.exists():  # held: the test lets it go
                time.sleep(0.001)
            if self.build_ok:
                Path(create[0]).write_bytes(b"pch")
            return b"", f'"{name}": creating precompiled header file "{create[0]}"\n', OK if self.build_ok else "heap"
        use = [o.split("=", 1)[1] for o in options if o.startswith("--use-pch=")]
        note = f'"{name}": using precompiled header file "{use[0]}"\n' if use else ""
        if use and not self.use_ok:  # what NVRTC 13 says when the file is gone
            return None, f'Catastrophic error: cannot open precompiled header file "{use[0]}"\n', None
        if use and self.use_warns:  # ... and when it is damaged or from another process (the compile goes on)
            return b"LTOIR", f'Warning #626-D: precompiled header file "{use[0]}" is either invalid\n', None
        if not use and self.clock is not None:
            self.clock.advance(self.compile_seconds)
        if "static_assert" in source:
            return None, note + 'p.cu(3): error: static assertion failed with "too big"\n1 error detected\n', None
        return b"LTOIR", note, None


class FakeClock:
    """The clock of the compilers in :attr:`compilers` (``_pch.Clock``): its time passes only by :meth:`advance`
    (a :class:`FakeNvrtc` compile, a test) and :meth:`sleep` (a wait for a build). The builds are held
    (:meth:`FakeNvrtc.hold`); the sleep that takes the time to a build's start + ``FakeNvrtc.build_seconds`` lets it
    go and returns once its child has ended, so a wait sees the build end exactly when the policy expects it to.
    A wait that passes :data:`HORIZON` of this time fails: it waits for a build that never ends."""

    HORIZON = 3600.0

    def __init__(self, fake: FakeNvrtc, gate: Path) -> None:
        self.fake = fake
        self.time = 1000.0
        self.compilers: list[Any] = []
        fake.clock = self
        fake.hold(gate)

    def now(self) -> float:
        return self.time

    def advance(self, seconds: float) -> None:
        self.time += seconds

    def sleep(self, seconds: float) -> None:
        self.time += seconds
        assert self.time < 1000.0 + self.HORIZON, "waited an hour of fake time for a build that never ends"
        for compiler in self.compilers:
            for entry in list(compiler._pchs.values()):
                due = entry.started is not None and self.time >= entry.started + self.fake.build_seconds
                if due and not entry.done():
                    self.fake.release()
                    while not entry.done():  # its child, let go, ends
                        time.sleep(0.001)


@dataclass
class FakeBackend:
    """Binds what it is told to; a preloaded path wins, as a real loader's soname check makes it."""

    paths: dict[str, Path]
    versions: dict[str, tuple[int, int]]
    preload_wins: bool = True
    binds: list[tuple[str, Path | None]] = field(default_factory=list)

    def bind(self, libname: str, preload: Path | None) -> tuple[Path, str]:
        self.binds.append((libname, preload))
        if preload is not None and self.preload_wins:
            return preload, "was-already-loaded-from-elsewhere"
        return self.paths[libname], "site-packages"

    def version(self, libname: str) -> tuple[int, int]:
        return self.versions[libname]
