"""Test fakes, one place for all of them (the unit tier only; each has a real counterpart in a higher tier).

- :class:`FakeCompiler` stands in for NVRTC behind the provider's compiler seam (real: tests/compile).
- :class:`FakeNvrtc` stands in for ``_nvrtc._compile`` in the PCH policy tests
  (real: tests/compile/test_provider_pch.py).
- :class:`FakeBackend` stands in for the library loader of ``_toolkit`` (real: tests/compile/test_conda_prefix.py).
- :data:`TOOLCHAIN` is a toolchain that points at no files (real: ``resolve_toolchain`` in tests/compile).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cuda.coop._provider import Toolchain
from cuda.coop._provider._nvrtc import CompileResult

__all__ = ["OK", "TOOLCHAIN", "FakeBackend", "FakeCompiler", "FakeNvrtc"]

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
    """Stands in for ``_nvrtc._compile``: records options; can fail PCH builds or PCH use."""

    def __init__(self, *, build_ok: bool = True, use_ok: bool = True, build_seconds: float = 0.0) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.headers: list[dict[str, str]] = []
        self.build_ok = build_ok
        self.use_ok = use_ok
        self.use_warns = False
        self.build_seconds = build_seconds
        self.compile_seconds = 0.0  # a compile without a PCH; one with a PCH takes none

    def __call__(
        self, source: str, options: Sequence[str], name: str, headers: Mapping[str, str] | None = None
    ) -> tuple[bytes | None, str, object]:
        self.calls.append(tuple(options))
        self.headers.append(dict(headers or {}))
        create = [o.split("=", 1)[1] for o in options if o.startswith("--create-pch=")]
        if create:
            time.sleep(self.build_seconds)
            if self.build_ok:
                Path(create[0]).write_bytes(b"pch")
            return b"", f'"{name}": creating precompiled header file "{create[0]}"\n', OK if self.build_ok else "heap"
        use = [o.split("=", 1)[1] for o in options if o.startswith("--use-pch=")]
        note = f'"{name}": using precompiled header file "{use[0]}"\n' if use else ""
        if use and not self.use_ok:  # what NVRTC 13 says when the file is gone
            return None, f'Catastrophic error: cannot open precompiled header file "{use[0]}"\n', None
        if use and self.use_warns:  # ... and when it is damaged or from another process (the compile goes on)
            return b"LTOIR", f'Warning #626-D: precompiled header file "{use[0]}" is either invalid\n', None
        if not use:
            time.sleep(self.compile_seconds)
        if "static_assert" in source:
            return None, note + 'p.cu(3): error: static assertion failed with "too big"\n1 error detected\n', None
        return b"LTOIR", note, None



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
