"""NVRTC, behind the small :class:`Compiler` protocol (the seam tests fake or count).

:class:`NvrtcCompiler` calls NVRTC through ``cuda.bindings.nvrtc`` (raw options are needed for
precompiled headers; cuda.core 1.2.2's ``ProgramOptions(pch=True)`` raised a TypeError) and returns
LTO-IR. No GPU or driver is needed. An NVRTC API failure (not a compile error) comes back as a failed
:class:`CompileResult` whose log names the call, so the provider raises
:class:`~cuda_coop.errors.CompileError`, never a bare ``RuntimeError``.

Precompiled headers (``_pch``). Parsing CCCL is most of a cold compile, and every provider starts with
the same include preamble (``_render.preamble``). When a process starts its first compile with a given
(preamble, options), a forked child compiles the preamble alone with ``--create-pch``, on another core
and at the same time (about 1.3-1.6 times that compile; a ~140-155 MB file in a private temporary
directory; :meth:`NvrtcCompiler.prepare` lets the provider start it before it fingerprints the headers for
its key, 60-70 ms earlier on the 2-core host); later compiles with the same
preamble, options and in-memory headers pass ``--use-pch`` and skip the parse
(``benchmarks/provider_compile.py``'s load-scan-store provider, C++20: ~0.26 s instead of ~0.50 s on the
2-core development host). The child builds in an NVRTC PCH heap at the address the parent's is, or will
be, at (:class:`_Heap`); that is what lets the parent load the file (a PCH built in a heap at another
address is refused: "incompatible ... heap allocation address").
A compile waits for a build in flight when the build is expected to end soon enough that waiting and
then using it costs less than a compile without it, never longer than that, and never again for a build
that outlived such a wait (:meth:`NvrtcCompiler._ready`); nothing waits for one at exit:
the child is killed and the directory removed (a thread would have to be waited for: a process
exiting while NVRTC runs in a thread segfaults, measured). A PCH that fails to build or to load is
dropped, never an error; a compile error in a compile that used the PCH is a compile error (the PCH
is kept). A process that compiles a single kernel spends one core on a build it never uses, killed at
exit. PCH options never enter cache keys: the output is byte-identical with and without a PCH
(tested). Without ``os.fork`` (Windows) there is no PCH.

Across processes (``_pch_store``, the process's compiler with the persistent cache on): the heap is
mapped at the machine's canonical address (``_pch_heap``), a compile given the header and toolkit
identity looks its PCH up in the store before building one, and a build it starts is kept there and
outlives the process (detached, never killed at exit), so that a new process's first compile loads it
instead of parsing CCCL. A build :meth:`NvrtcCompiler.prepare` starts before the identity is known works
the identity out in its child (:class:`~._pch_store.NamedLater`), and the first compile that knows it stops that build
where the store already keeps the PCH.

Module state (STYLE 14): :data:`HEAP` (the process's PCH heap), :func:`default_compiler`
(``functools.cache``); ``_reset_for_tests``.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import ToolkitNotFoundError
from ._pch import SYSTEM_CLOCK, Clock, PchDirectory, PchEntry, Publish, can_fork
from ._pch_heap import canonical_address, is_free, map_heap_at
from ._pch_store import NamedLater, PchStore, default_store, store_key

__all__ = ["CompileResult", "Compiler", "NvrtcCompiler", "default_compiler"]

_log = logging.getLogger("cuda.coop")

_PCH_HEAP_BYTES = 512 << 20
_BUILD_PER_COMPILE = 1.6
"""A PCH build takes about this many compiles without it: the preamble's parse, then ~155 MB written. With the
light prologue of ``_prologue``, in C++17: 1.3 on the 2-core development host, 1.5 or more on the H200's host; in
C++20, which made compiles faster than builds, 1.0-1.3 on the 2-core host. An upper estimate."""
_WAIT_SHARE = 0.7
"""The longest a compile waits for a build in flight, as a share of a compile without the PCH. A compile with
the PCH takes a third (H200 host) to a half (2-core host) of one without it, so a wait this long costs at
worst a fifth of a compile more than not waiting, and a build that ends sooner saves most of one."""
_INSTALL_HINT = "pip install 'cuda-coop[numba-cuda-mlir-cu13]' (or -cu12)"
# NVRTC's own notes about a PCH it used or created: informational, removed from the log.
_PCH_NOTE = re.compile(r'^"[^"\n]*": (?:using|creating) precompiled header file "[^"\n]*"\n?', re.MULTILINE)


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
        """Compile ``source`` with ``options``; ``preamble`` is its leading include block (a PCH hint);
        ``headers`` are in-memory headers by include name, found before the include path; ``identity``
        names the contents behind the include paths and the toolkit (a PCH kept across processes needs it)."""
        ...


class _ApiError(Exception):
    """An NVRTC API call failed (reported in a failed CompileResult's log, never raised to users)."""


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
        raise _ApiError(f"{what} failed: {msg.decode() if isinstance(msg, bytes) else msg}")
    return values[0] if len(values) == 1 else tuple(values)


def _compile(
    source: str, options: Sequence[str], name: str, headers: Mapping[str, str] | None = None
) -> tuple[bytes | None, str, Any]:
    """One NVRTC program: (LTO-IR or None, log, PCH create status or None); API failures in the log."""
    nvrtc = _nvrtc()
    names = [n.encode() for n in headers or {}]
    texts = [t.encode() for t in (headers or {}).values()]
    try:
        prog = _check(nvrtc, nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), len(names), texts, names),
                      "nvrtcCreateProgram")
    except _ApiError as exc:
        return None, f"NVRTC: {exc}", None
    try:
        opts = [o.encode() for o in options]
        err = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0]
        size = _check(nvrtc, nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
        buf = b" " * size
        _check(nvrtc, nvrtc.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog")
        log = buf.rstrip(b"\0").decode(errors="replace")
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return None, log if log.strip() else f"NVRTC: nvrtcCompileProgram failed: {err} (empty log)", None
        size = _check(nvrtc, nvrtc.nvrtcGetLTOIRSize(prog), "nvrtcGetLTOIRSize")
        ltoir = b" " * size
        _check(nvrtc, nvrtc.nvrtcGetLTOIR(prog, ltoir), "nvrtcGetLTOIR")
        status = None
        if any(o.startswith("--create-pch") for o in options):
            status = nvrtc.nvrtcGetPCHCreateStatus(prog)[0]
        return ltoir, log, status
    except _ApiError as exc:
        return None, f"NVRTC: {exc}", None
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _pch_problem(log: str) -> str | None:
    """The line of ``log`` saying the PCH could not be used (missing, invalid, other heap), if any."""
    for line in _PCH_NOTE.sub("", log).splitlines():
        if "precompiled header" in line.lower() or "(pch)" in line.lower():
            return line.strip()
    return None


def _build_pch(preamble: str, options: Sequence[str], headers: Mapping[str, str] | None, part: str) -> bool:
    """Compile ``preamble`` creating a PCH at ``part`` (runs in the forked child, or inline in tests)."""
    ltoir, _, status = _compile(preamble, [*options, f"--create-pch={part}"], "cuda_coop_pch.cu", headers)
    return ltoir is not None and status == _nvrtc().nvrtcResult.NVRTC_SUCCESS


class NvrtcCompiler:
    """NVRTC through cuda.bindings, with optional in-process precompiled headers.

    Parameters
    ----------
    pch:
        Build and use precompiled headers (see the module docstring). Off where ``os.fork`` is missing.
    pch_after:
        Successful compiles per (preamble, options) before the PCH build starts: 0 (the default)
        starts it with the first compile, on another core, so that it is ready for the second.
    background:
        Build the PCH in a forked child (True) or inline after the triggering compile (tests).
    store:
        Where PCHs are kept across processes (``_pch_store``; the persistent cache's, for the process's
        compiler): a compile given an ``identity`` looks its PCH up there first, and a build it starts is
        kept there, when NVRTC's PCH heap sits at the machine's canonical address (``_pch_heap``).
    clock:
        Where compiles and PCH builds read the time and waits sleep (``_pch.Clock``; tests pass a fake one).

    Attributes
    ----------
    calls:
        Provider compiles so far (PCH builds not counted); tests count NVRTC calls with it.
    pch_builds:
        PCH builds started.
    pch_hits:
        Provider compiles that used a PCH.
    pch_waits:
        Provider compiles that waited for a PCH build in flight.
    pch_kept:
        PCHs found in the store (built by an earlier process).
    """

    def __init__(
        self, *, pch: bool = True, pch_after: int = 0, background: bool = True, store: PchStore | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.pch = pch and (can_fork() or not background)
        self.pch_after = pch_after
        self.background = background
        self.store = store
        self._clock = clock
        self.calls = 0
        self.pch_builds = 0
        self.pch_hits = 0
        self.pch_waits = 0
        self.pch_kept = 0
        self._lock = threading.Lock()
        self._active = 0
        self._pchs: dict[str, PchEntry] = {}
        self._seen: dict[str, int] = {}
        self._plain: dict[str, float] = {}  # per key: seconds of the first compile without the PCH
        self._waited_out: set[str] = set()  # keys whose build was still running after a compile waited for it
        self._steered: set[str] = set()  # keys whose build steered its own heap (forked before this one was mapped)
        self._named_later: set[str] = set()  # keys whose build prepare() started with a store, not yet looked up
        self._dir: PchDirectory | None = None

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
        """Compile ``source`` to LTO-IR; failures come back as a result with the log, not raised."""
        pch_key = self._pch_key(preamble, options, headers)
        if pch_key and preamble is not None:
            self._maybe_build(pch_key, preamble, options, headers, identity)
        entry = self._pchs.get(pch_key) if pch_key else None
        use = entry is not None and pch_key is not None and self._ready(entry, pch_key)
        with self._lock:
            self.calls += 1
            self._active += 1
        try:
            start = self._clock.now()
            extra = [f"--use-pch={entry.path}"] if use and entry else []
            run = functools.partial(_compile, source, [*options, *extra], name, headers)
            # The first compile with a PCH maps NVRTC's heap here unless a tiny compile did: at the address the
            # PCH needs (a kept one, or one built by a child forked before this process mapped its heap).
            ltoir, log, _ = HEAP.first(run) if use else run()
            if use and entry and (problem := _pch_problem(log)):
                _log.debug("cuda.coop: dropping precompiled header %s: %s", entry.path, problem)
                # One built at the canonical address (kept, or steered by its child) may just not fit this heap.
                canonical = entry.kept or pch_key in self._steered
                entry.drop(remove=not canonical or HEAP.where() is not None)
                if pch_key in self._steered and HEAP.where() is None:  # this process's heap landed elsewhere:
                    self._rebuild(pch_key)  # a build forked now inherits it
                use = False
                if ltoir is None:  # the PCH, not the source, made it fail: compile again without it
                    ltoir, log, _ = _compile(source, options, name, headers)
            seconds = self._clock.now() - start
        finally:
            with self._lock:
                self._active -= 1
        if use:
            with self._lock:
                self.pch_hits += 1
        _log.debug("cuda.coop: NVRTC %s in %.3f s (pch=%s): %s", name, seconds, use, " ".join(options))
        if ltoir is not None and pch_key and not use:
            with self._lock:
                self._plain.setdefault(pch_key, seconds)
        if ltoir is not None and pch_key and preamble is not None and entry is None:
            with self._lock:
                self._seen[pch_key] = self._seen.get(pch_key, 0) + 1
            self._maybe_build(pch_key, preamble, options, headers, identity)
        return CompileResult(ltoir=ltoir, log=_PCH_NOTE.sub("", log), seconds=seconds, used_pch=use)

    def prepare(
        self,
        preamble: str,
        options: Sequence[str],
        headers: Mapping[str, str] | None = None,
        identity: Callable[[], str] | None = None,
    ) -> None:
        """Start the PCH build for a compile about to come with this (preamble, options, headers), before its
        caller has fingerprinted the headers for its cache key (tens of ms, a process's first compile).

        With a store, a kept PCH is named by the header and toolkit identity, which ``identity()`` computes
        (the string the compile will pass): the child computes it while it builds and keeps the PCH under that
        name; the compile looks the name up in the store first and stops this build if the PCH is kept there.
        Only where the child can steer its own heap to the canonical address (else the compile builds it)."""
        if not self.background or (self.store is not None and (identity is None or not HEAP.placeable())):
            return
        if (key := self._pch_key(preamble, options, headers)) is not None:
            self._maybe_build(key, preamble, options, headers, later=identity if self.store is not None else None)

    def wait_for_pch(self, timeout: float | None = None) -> bool:
        """Wait for PCH builds in flight (``timeout`` in total); True if every one finished."""
        deadline = None if timeout is None else self._clock.now() + timeout
        for entry in list(self._pchs.values()):
            left = None if deadline is None else max(0.0, deadline - self._clock.now())
            if not entry.wait(left):
                return False
        return True

    def _ready(self, entry: PchEntry, key: str) -> bool:
        """Whether ``entry`` is usable now, after waiting for its build where that is expected to pay.

        A compile waits for a build in flight only when the build is expected to end within
        :data:`_WAIT_SHARE` of a compile without it (the first such compile's time, times
        :data:`_BUILD_PER_COMPILE`, after it started), never longer than that share, and only once per
        build: a build still running after such a wait is not waited for again (it may be stuck).
        """
        if entry.done() or entry.started is None or (plain := self._plain.get(key)) is None:
            return entry.usable()
        start = self._clock.now()
        left = entry.started + _BUILD_PER_COMPILE * plain - start
        with self._lock:
            if left > _WAIT_SHARE * plain or key in self._waited_out:
                return False
            self.pch_waits += 1
        entry.wait(min(_WAIT_SHARE * plain, max(left, 0.0) + 0.2 * plain))
        ready = entry.usable()
        if not entry.done():
            with self._lock:
                self._waited_out.add(key)
        _log.debug("cuda.coop: waited %.3f s for precompiled header %s: ready=%s", self._clock.now() - start,
                   entry.path, ready)
        return ready

    def _pch_key(self, preamble: str | None, options: Sequence[str], headers: Mapping[str, str] | None) -> str | None:
        if not self.pch or not preamble:
            return None
        parts = [preamble, *options, *(f"{n}\0{t}" for n, t in sorted((headers or {}).items()))]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]

    def _maybe_build(
        self,
        key: str,
        preamble: str,
        options: Sequence[str],
        headers: Mapping[str, str] | None = None,
        identity: str = "",
        *,
        later: Callable[[], str] | None = None,
    ) -> None:
        """Start the PCH build of ``key`` unless there is one (kept, built or in flight); ``later``: the store name
        is not known yet (:meth:`prepare`), the child works it out."""
        with self._lock:
            if key in self._pchs:
                self._kept_since(key, identity)
                return
            stored = None if later is not None else self._stored(key, identity)
            if self._use_kept(key, stored) or self._seen.get(key, 0) < self.pch_after:
                return
            if self.background and self._active:
                return  # never fork while NVRTC runs in another thread; the next compile tries again
            if self._dir is None:
                try:
                    self._dir = PchDirectory.create()
                except OSError as exc:
                    _log.debug("cuda.coop: no precompiled headers: %s", exc)
                    self.pch = False
                    return
            # The child must build into a heap at the address the parent loads from. Where heaps can be placed,
            # both put theirs at the canonical address (the child at its build, the parent at its first
            # --use-pch compile), so the fork comes first and no compile waits for a heap; elsewhere the parent
            # maps its heap before the fork, with a tiny compile, and the child inherits it. Kept only at the
            # canonical address, the heap every process of the machine has.
            steered = self.background and HEAP.placeable()
            if later is not None and not steered:
                return  # the compile builds it, once it has the identity
            if not steered and HEAP.allocate(steer=stored is not None) is None:
                stored = None
            build: Callable[[str], bool] = functools.partial(_build_pch, preamble, tuple(options), dict(headers or {}))
            if steered:
                build = functools.partial(_steered_build, build)
            try:
                entry, build = self._entry(key, build, stored, later)
            except OSError as exc:
                _log.debug("cuda.coop: precompiled headers are not kept: %s", exc)
                return
            self.pch_builds += 1
            if steered:
                self._steered.add(key)
            if self.background:
                entry.start_child(build)
        if not self.background:
            entry.build_inline(build)

    def _entry(
        self,
        key: str,
        build: Callable[[str], bool],
        stored: tuple[PchStore, str] | None,
        later: Callable[[], str] | None,
    ) -> tuple[PchEntry, Callable[[str], bool]]:
        """The new entry of ``key`` (private, kept under ``stored``'s name, or kept under the name the child works
        out with ``later``) and the build to run for it. Raises OSError where the store cannot be written."""
        assert self._dir is not None
        kept: tuple[Path, Path, Publish] | None = None
        if stored is not None:
            store, skey = stored
            kept = (store.path(skey), store.part(skey), functools.partial(store.seal, skey))
        elif later is not None and self.store is not None:
            named = NamedLater(self.store, key, later, _store_name)
            kept = (self._dir.path / f"{key}.pch", self.store.part(key), named.publish)
            build = functools.partial(named.build, build)
            self._named_later.add(key)
        entry = self._pchs[key] = self._dir.entry(key, store=kept, clock=self._clock)
        return entry, build

    def _kept_since(self, key: str, identity: str) -> None:
        """For a build :meth:`prepare` started before the store name was known, at the first compile that knows
        it: where an earlier process kept that PCH, stop the build and use the kept one. Called under the lock."""
        if key in self._named_later and identity and not self._pchs[key].done():
            self._named_later.discard(key)
            self._use_kept(key, self._stored(key, identity), stop=self._pchs[key])

    def _use_kept(self, key: str, stored: tuple[PchStore, str] | None, stop: PchEntry | None = None) -> bool:
        """Use the PCH the store keeps under ``stored``'s name, if any (``stop``: the build started before the
        name was known, no longer needed). Called under the lock."""
        if stored is None or (found := stored[0].find(stored[1])) is None:
            return False
        if stop is not None:
            stop.kill(detached=True)
        self._pchs[key] = PchEntry.built(found, kept=True)
        self.pch_kept += 1
        _log.debug("cuda.coop: using kept precompiled header %s", found)
        return True

    def _rebuild(self, key: str) -> None:
        """Forget the steered build of ``key`` so that the next compile builds its PCH again, in a child that inherits
        this process's heap (mapped now, wherever it is); that build is not steered, so it is the last."""
        with self._lock:
            self._steered.discard(key)
            self._pchs.pop(key, None)

    def _stored(self, key: str, identity: str) -> tuple[PchStore, str] | None:
        """The store and the entry's name there, where a PCH of ``key`` can be kept across processes."""
        if self.store is None or not identity or (name := _store_name(key, identity)) is None:
            return None
        try:
            self.store.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _log.debug("cuda.coop: precompiled headers are not kept: %s", exc)
            return None
        return self.store, name

    def _at_exit(self) -> None:
        """Kill PCH builds in flight (nothing will use them; a detached one finishes and is kept) and remove the
        directory; never waits."""
        if self._dir is not None:
            self._dir.close()


def _store_name(key: str, identity: str) -> str | None:
    """The store name of ``key``'s PCH built in a heap where this process's is, or will be (None: not at the
    canonical address, so not kept)."""
    address = HEAP.where()
    return None if address is None else store_key(key, identity, address, _PCH_HEAP_BYTES)


def _steered_build(build: Callable[[str], bool], part: str) -> bool:
    """``build(part)`` in a child forked before the heap was mapped: it maps the heap at the canonical address;
    a PCH whose heap landed elsewhere would be refused by the parent, so the build then fails."""
    return bool(HEAP.first(lambda: build(part))) and HEAP.where() is not None


def _map_heap() -> None:
    """A tiny ``--create-pch`` compile: NVRTC maps its PCH heap at the first compile that creates or uses a PCH."""
    with tempfile.TemporaryDirectory(prefix="cuda-coop-heap-") as tmp:
        _, log, status = _compile("__device__ int cuda_coop_pch_heap;\n", ["-rdc=true", f"--create-pch={tmp}/heap.pch"],
                                  "cuda_coop_heap.cu")
    if status != _nvrtc().nvrtcResult.NVRTC_SUCCESS:
        _log.debug("cuda.coop: could not map the PCH heap before the fork (%s): %s", status, log.strip())


class _Heap:
    """This process's NVRTC PCH heap, mapped once: steered to the machine's canonical address (``_pch_heap``)
    by the first compile that creates or uses a PCH (:meth:`first`), or, where it cannot be steered, by a tiny
    compile before the first PCH build's fork (:meth:`allocate`).

    NVRTC maps its PCH heap lazily, at the first compile that creates or uses a PCH, and a PCH loads
    only into a heap at the address it was built in. Left lazy, the child maps the heap at its build
    and the parent at its first ``--use-pch``, after whatever else it mapped meanwhile (a CUDA
    context, NumPy arrays): the addresses differ and NVRTC refuses the PCH ("incompatible ... heap
    allocation address"; seen on the GPU machine, reproduced in the compile tier). Steered, both land at
    the canonical address, where PCHs kept in the store were built too, and the parent's first compile
    does not wait for a heap. Unsteered, the tiny compile (~40-60 ms on the 2-core host, once per process)
    maps it in the parent before the fork, and the child inherits it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._mapped = False
        self._address: int | None = None

    def where(self) -> int | None:
        """The canonical address if the heap is there, or will be put there when mapped; else None."""
        with self._lock:
            return self._address if self._mapped else canonical_address(_PCH_HEAP_BYTES)

    def placeable(self) -> bool:
        """Whether the heap is not mapped yet and its canonical range is free now (a child forked now can steer its
        heap there; where it cannot, the parent maps its heap before the fork, which works wherever it lands)."""
        with self._lock:
            address = None if self._mapped else canonical_address(_PCH_HEAP_BYTES)
            return address is not None and is_free(address, _PCH_HEAP_BYTES)

    def allocate(self, *, steer: bool = False) -> int | None:
        """Map the heap now unless it is; its address when that is the canonical one."""
        with self._lock:
            if not self._mapped:
                self._map(steer, _map_heap)
            return self._address

    def first(self, run: Callable[[], Any]) -> Any:
        """``run()`` (a compile with a kept PCH); steered, as the compile that maps the heap, if none did yet."""
        with self._lock:
            if not self._mapped:
                return self._map(True, run)
        return run()

    def _map(self, steer: bool, run: Callable[[], Any]) -> Any:
        self._mapped = True
        nvrtc = _nvrtc()
        try:
            _check(nvrtc, nvrtc.nvrtcSetPCHHeapSize(_PCH_HEAP_BYTES), "nvrtcSetPCHHeapSize")
        except _ApiError as exc:  # a PCH is an optimisation: a build then fails and is dropped
            _log.debug("cuda.coop: %s", exc)
            return run()
        address = canonical_address(_PCH_HEAP_BYTES) if steer else None
        if address is None:
            return run()
        out: list[Any] = []
        if map_heap_at(address, _PCH_HEAP_BYTES, lambda: out.append(run())):
            self._address = address
        return out[0]


HEAP = _Heap()


def _unlock_heap_in_child() -> None:
    """After a fork, in the child: a fresh lock for :data:`HEAP` (another thread of the parent may have held it,
    and a steered build takes it)."""
    heap = HEAP
    if isinstance(heap, _Heap):
        heap._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_unlock_heap_in_child)


@functools.cache
def default_compiler() -> NvrtcCompiler:
    """The process-wide compiler (PCH on) used by providers that are given none; it keeps its PCHs in
    the persistent cache when that is on."""
    return NvrtcCompiler(store=default_store())


def _reset_for_tests() -> None:
    HEAP.__init__()  # type: ignore[misc]
    default_compiler.cache_clear()
    default_store.cache_clear()
