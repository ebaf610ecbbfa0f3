"""NVRTC, behind the small :class:`Compiler` protocol (the seam tests fake or count).

:class:`NvrtcCompiler` calls NVRTC through ``cuda.bindings.nvrtc`` (raw options are needed for
precompiled headers; cuda.core 1.2.2's ``ProgramOptions(pch=True)`` raised a TypeError) and returns
LTO-IR. No GPU or driver is needed.

Precompiled headers. Parsing CCCL is ~95% of a cold compile, and every provider starts with the same
include preamble (``_render.preamble``). Once a process has compiled ``pch_after`` providers (default
2) with a given (preamble, options), a background thread compiles the preamble alone with
``--create-pch`` (~2 s of one core on a 2-core machine; a ~300 MB file in a private temporary
directory); later compiles with the same preamble and options pass ``--use-pch`` and skip the parse
(~0.5 s instead of ~1.2 s). No compile ever waits for a PCH: one that finds it still being built does
not use it, and a PCH that fails to build or to load is dropped, never an error. A process that
compiles a single kernel never builds one. At exit, a build in flight is waited for (NVRTC must not
run while the interpreter finalises) and the directory is removed. A PCH cannot be shared between
processes (NVRTC rejects its heap address); across processes the persistent provider cache is the
lever. PCH options never enter cache keys: the output is byte-identical with and without a PCH
(tested).

Module state (STYLE 14): :func:`default_compiler` (``functools.cache``); ``_reset_for_tests``.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import ToolkitNotFoundError

__all__ = ["CompileResult", "Compiler", "NvrtcCompiler", "default_compiler"]

_log = logging.getLogger("cuda.coop")

_PCH_HEAP_BYTES = 512 << 20
_EXIT_WAIT_SECONDS = 30.0
_INSTALL_HINT = "pip install 'cuda-coop[numba-cuda-mlir-cu13]' (or -cu12)"


@dataclass(frozen=True, slots=True)
class CompileResult:
    """What one compile produced: LTO-IR on success, and NVRTC's log either way."""

    ltoir: bytes | None
    log: str
    seconds: float = 0.0
    used_pch: bool = False

    @property
    def ok(self) -> bool:
        return self.ltoir is not None


class Compiler(Protocol):
    """Compiles one translation unit to LTO-IR."""

    def compile(self, source: str, options: Sequence[str], *, name: str, preamble: str | None = None) -> CompileResult:
        """Compile ``source`` with ``options``; ``preamble`` is its leading include block (a PCH hint)."""
        ...


def _nvrtc() -> Any:
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        raise ToolkitNotFoundError(
            f"compiling providers needs cuda-bindings and NVRTC ({exc}); {_INSTALL_HINT}"
        ) from None
    return nvrtc


def _check(nvrtc: Any, result: tuple[Any, ...], what: str) -> Any:
    err, *values = result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, msg = nvrtc.nvrtcGetErrorString(err)
        raise RuntimeError(f"{what}: {msg.decode() if isinstance(msg, bytes) else msg}")
    return values[0] if len(values) == 1 else tuple(values)


def _compile(source: str, options: Sequence[str], name: str) -> tuple[bytes | None, str, Any]:
    """One NVRTC program: (LTO-IR or None, log, PCH create status or None)."""
    nvrtc = _nvrtc()
    prog = _check(nvrtc, nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        opts = [o.encode() for o in options]
        err = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0]
        size = _check(nvrtc, nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
        buf = b" " * size
        _check(nvrtc, nvrtc.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog")
        log = buf.rstrip(b"\0").decode(errors="replace")
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return None, log or str(err), None
        size = _check(nvrtc, nvrtc.nvrtcGetLTOIRSize(prog), "nvrtcGetLTOIRSize")
        ltoir = b" " * size
        _check(nvrtc, nvrtc.nvrtcGetLTOIR(prog, ltoir), "nvrtcGetLTOIR")
        status = None
        if any(o.startswith("--create-pch") for o in options):
            status = nvrtc.nvrtcGetPCHCreateStatus(prog)[0]
        return ltoir, log, status
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


class _Pch:
    """One precompiled header: built in the background, then used by later compiles."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.ready = threading.Event()
        self.ok = False


class NvrtcCompiler:
    """NVRTC through cuda.bindings, with optional in-process precompiled headers.

    Parameters
    ----------
    pch:
        Build and use precompiled headers (see the module docstring).
    pch_after:
        Compiles per (preamble, options) before the PCH is built: 2 (the default) builds it after the
        second, so single-kernel processes never pay for one; 1 builds it after the first.
    background:
        Build the PCH in a background thread (True) or inline after the triggering compile.

    Attributes
    ----------
    calls:
        Provider compiles so far (PCH builds not counted); tests count NVRTC calls with it.
    pch_builds:
        PCH builds started.
    pch_hits:
        Provider compiles that used a PCH.
    """

    def __init__(self, *, pch: bool = True, pch_after: int = 2, background: bool = True) -> None:
        self.pch = pch
        self.pch_after = pch_after
        self.background = background
        self.calls = 0
        self.pch_builds = 0
        self.pch_hits = 0
        self._lock = threading.Lock()
        self._pchs: dict[str, _Pch] = {}
        self._seen: dict[str, int] = {}
        self._dir: Path | None = None

    def compile(self, source: str, options: Sequence[str], *, name: str, preamble: str | None = None) -> CompileResult:
        """Compile ``source`` to LTO-IR; failures come back as a result with the log, not raised."""
        pch_key = self._pch_key(preamble, options)
        entry = self._pchs.get(pch_key) if pch_key else None
        use = entry is not None and entry.ready.is_set() and entry.ok
        with self._lock:
            self.calls += 1
        start = time.perf_counter()
        extra = [f"--use-pch={entry.path}"] if use and entry else []
        ltoir, log, _ = _compile(source, [*options, *extra], name)
        if ltoir is None and use and entry and "precompiled header" in log:
            _log.debug("cuda.coop: dropping precompiled header %s: %s", entry.path, log)
            entry.ok, use = False, False
            ltoir, log, _ = _compile(source, options, name)
        seconds = time.perf_counter() - start
        if use:
            with self._lock:
                self.pch_hits += 1
        _log.debug("cuda.coop: NVRTC %s in %.3f s (pch=%s): %s", name, seconds, use, " ".join(options))
        if ltoir is not None and pch_key and preamble is not None and entry is None:
            self._maybe_build(pch_key, preamble, options)
        return CompileResult(ltoir=ltoir, log=log, seconds=seconds, used_pch=use)

    def wait_for_pch(self, timeout: float | None = None) -> bool:
        """Wait for PCH builds in flight (``timeout`` in total); True if every one finished."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for entry in list(self._pchs.values()):
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not entry.ready.wait(left):
                return False
        return True

    def _pch_key(self, preamble: str | None, options: Sequence[str]) -> str | None:
        if not self.pch or not preamble:
            return None
        return hashlib.sha256("\0".join([preamble, *options]).encode()).hexdigest()[:24]

    def _maybe_build(self, key: str, preamble: str, options: Sequence[str]) -> None:
        with self._lock:
            self._seen[key] = seen = self._seen.get(key, 0) + 1
            if seen < self.pch_after or key in self._pchs:
                return
            if self._dir is None:
                self._dir = Path(tempfile.mkdtemp(prefix="cuda-coop-pch-"))
                atexit.register(self._at_exit)
            entry = self._pchs[key] = _Pch(self._dir / f"{key}.pch")
            self.pch_builds += 1
        if self.background:
            threading.Thread(
                target=self._build,
                args=(entry, preamble, options),
                name="cuda-coop-pch",
                daemon=False,  # NVRTC must not still run when the interpreter exits
            ).start()
        else:
            self._build(entry, preamble, options)

    def _at_exit(self) -> None:
        """Let builds in flight finish (bounded), then remove the PCH directory."""
        self.wait_for_pch(_EXIT_WAIT_SECONDS)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)

    def _build(self, entry: _Pch, preamble: str, options: Sequence[str]) -> None:
        try:
            _set_heap_size()
            start = time.perf_counter()
            ltoir, log, status = _compile(preamble, [*options, f"--create-pch={entry.path}"], "cuda_coop_pch.cu")
            nvrtc = _nvrtc()
            entry.ok = ltoir is not None and status == nvrtc.nvrtcResult.NVRTC_SUCCESS and entry.path.is_file()
            _log.debug(
                "cuda.coop: precompiled header %s built in %.3f s: ok=%s %s",
                entry.path,
                time.perf_counter() - start,
                entry.ok,
                log.strip(),
            )
        except Exception as exc:  # a PCH is an optimisation: never let it fail a compile
            _log.debug("cuda.coop: precompiled header build failed: %r", exc)
            entry.ok = False
        finally:
            entry.ready.set()


@functools.cache
def _set_heap_size() -> None:
    nvrtc = _nvrtc()
    _check(nvrtc, nvrtc.nvrtcSetPCHHeapSize(_PCH_HEAP_BYTES), "nvrtcSetPCHHeapSize")


@functools.cache
def default_compiler() -> NvrtcCompiler:
    """The process-wide compiler (PCH on) used by providers that are given none."""
    return NvrtcCompiler()


def _reset_for_tests() -> None:
    default_compiler.cache_clear()
