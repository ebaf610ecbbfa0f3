"""Precompiled-header files of one process: a private directory, built by forked children, swept when stale.

A :class:`PchDirectory` is ``<tmp>/cuda-coop-pch-XXXXXXXX`` holding ``owner.lock``, which the owning
process keeps locked (``flock``) for its lifetime, and one ``<key>.pch`` per (preamble, options). A
process killed while it owns one (a build in flight or not) leaves the directory behind; the kernel
drops the lock with the process, so the next process that creates a PCH directory removes every
directory whose lock it can take (:func:`sweep_stale`). A directory younger than a minute is never
touched (its owner may not have locked it yet); one without a lock file (older cuda-coop versions)
is removed once it is a day old.

A :class:`PchEntry` is built by a forked child (``start_child``): the child builds in an NVRTC PCH heap at
the parent's address (``_nvrtc._Heap``), writes ``<key>.pch.part`` and renames it to ``<key>.pch`` on
success, then ``os._exit``\\s. The parent polls without blocking (``usable``); at exit it kills the child
instead of waiting. A child forked while another thread was inside NVRTC could block on a lock copied
in the locked state; the compiler therefore forks only when none of its own compiles is in flight, and a
child that never finishes, or a fork that fails, only means no PCH (a child is killed at exit).

An entry built for the persistent store (``_pch_store``) is *detached*: its child builds into the
store's part file and publishes it there, runs in a session of its own with its standard streams on
``/dev/null`` and no other inherited descriptor, and is not killed at exit, so a short script's build
is still kept for the next process (:data:`BUILD_TIMEOUT_SECONDS` bounds it).

Module state: none (each directory registers its own ``atexit`` cleanup).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import signal
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

__all__ = ["SYSTEM_CLOCK", "Clock", "PchDirectory", "PchEntry", "Publish", "can_fork", "sweep_stale"]

_log = logging.getLogger("cuda.coop")

PREFIX = "cuda-coop-pch-"
LOCK_NAME = "owner.lock"
MIN_AGE_SECONDS = 60.0
"""A directory younger than this is never swept (its owner may be between ``mkdtemp`` and ``flock``)."""
UNLOCKED_AGE_SECONDS = 86400.0
"""A directory without a lock file (written by an older cuda-coop) is swept once this old."""

Build = Callable[[str], bool]
"""Builds a PCH at the given path; True on success."""
Publish = Callable[[Path, Callable[[Path], object]], bool]
"""Puts a finished build (its part file) in place, calls the callback with that place as soon as it is usable
there, then finishes its own work (a seal); True if the build was placed."""


class Clock(Protocol):
    """The time the PCH policy reads and the waits it makes: :data:`SYSTEM_CLOCK`, or in tests one whose time
    passes only when they let it (so that no test of the policy depends on how fast the machine is)."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass."""
        ...


class _SystemClock:
    def now(self) -> float:
        return time.perf_counter()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


SYSTEM_CLOCK: Clock = _SystemClock()
"""``time.perf_counter`` and ``time.sleep``."""


def can_fork() -> bool:
    """Whether PCHs can be built here: ``os.fork`` and ``fcntl.flock`` (POSIX)."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    return hasattr(os, "fork")


def _try_lock(fd: int) -> bool:
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


BUILD_TIMEOUT_SECONDS = 600
"""A detached build still running after this long is stopped (``SIGALRM``)."""


def _detach() -> None:
    """In a forked child that may outlive its parent: a session of its own, standard streams on
    ``/dev/null`` and every other inherited descriptor closed (so that nothing waiting for the parent's
    pipes to close waits for the child), and a time limit."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, _max_fd())
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(BUILD_TIMEOUT_SECONDS)


def _max_fd() -> int:
    try:
        return min(os.sysconf("SC_OPEN_MAX"), 1 << 16)
    except (OSError, ValueError):
        return 1 << 10


def sweep_stale(tmp: Path | None = None, *, now: float | None = None) -> list[Path]:
    """Remove PCH directories in ``tmp`` whose owner is dead; the removed paths.

    Owned means ``owner.lock`` is locked: a live owner holds the lock, so only directories of dead
    processes are removed, whatever their age beyond :data:`MIN_AGE_SECONDS`.
    """
    tmp = Path(tmp or tempfile.gettempdir())
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        candidates = [
            Path(e.path) for e in os.scandir(tmp) if e.name.startswith(PREFIX) and e.is_dir(follow_symlinks=False)
        ]
    except OSError:
        return removed
    for path in candidates:
        try:
            age = now - path.stat().st_mtime
            if age < MIN_AGE_SECONDS:
                continue
            fd = os.open(path / LOCK_NAME, os.O_RDWR)
        except FileNotFoundError:
            if age >= UNLOCKED_AGE_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
            continue
        except OSError:  # another user's directory, or it vanished: not ours to judge
            continue
        try:
            if _try_lock(fd):  # the owner is gone
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        finally:
            os.close(fd)
    if removed:
        _log.debug("cuda.coop: removed stale precompiled-header directories: %s", ", ".join(map(str, removed)))
    return removed


class PchEntry:
    """One precompiled header: built once (in a child or inline), then used until dropped."""

    def __init__(self, path: Path, lock_fd: int, *, part: Path | None = None, publish: Publish | None = None,
                 marker: Path | None = None, clock: Clock = SYSTEM_CLOCK) -> None:
        self.path = path
        self._clock = clock
        self._part = part or path.with_name(path.name + ".part")
        self._publish = publish
        self._marker = marker
        self.kept = False
        """Whether the PCH was built by another process (found in the persistent store)."""
        self._lock_fd = lock_fd
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._done = False
        self._ok = False
        self.started: float | None = None
        """The clock's ``now()`` when the build started."""

    @property
    def detached(self) -> bool:
        """Whether a build in flight outlives this process (one that publishes to the persistent store)."""
        return self._publish is not None

    @classmethod
    def built(cls, path: Path, *, kept: bool = False) -> PchEntry:
        """An entry for a PCH that exists already; ``kept``: by an earlier process, in the persistent store."""
        entry = cls(path, -1)
        entry._done = entry._ok = True
        entry.kept = kept
        return entry

    def _finish(self, build: Build) -> bool:
        """Build into the part, then publish it (rename it into place, or hand it to the store)."""
        if not build(str(self._part)):
            return False
        if self._publish is not None:
            return self._publish(self._part, self._placed)
        self._part.replace(self.path)
        return True

    def _placed(self, path: Path) -> None:
        """In the builder: this build is at ``path`` (the parent may use it while the build is sealed). The marker
        holds the path: a build the parent could not name when it forked names it there."""
        if self._marker is not None:
            with contextlib.suppress(OSError):
                tmp = self._marker.with_name(self._marker.name + ".part")
                tmp.write_text(str(path), encoding="utf-8")
                tmp.replace(self._marker)

    def start_child(self, build: Build) -> None:
        """Fork a child that builds the PCH; returns at once."""
        self.started = self._clock.now()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12+: fork with threads
                pid = os.fork()
        except OSError as exc:  # out of processes or memory: no PCH, never a failed compile
            _log.debug("cuda.coop: could not fork a precompiled-header build: %s", exc)
            with self._lock:
                self._done, self._ok = True, False
            return
        if pid == 0:  # the child: build, publish, leave without running the parent's exit handlers
            code = 1
            try:
                # The parent keeps the directory locked; do not prolong it. (No PR_SET_PDEATHSIG: it fires
                # when the forking *thread* ends, which would kill builds started from worker threads; an
                # orphaned build just finishes in seconds, and its directory is swept later.)
                os.close(self._lock_fd)
                if self.detached:
                    _detach()
                code = 0 if self._finish(build) else 1
            except BaseException:  # anything: the parent only sees "no PCH"
                code = 1
            finally:
                os._exit(code)
        self._pid = pid

    def build_inline(self, build: Build) -> None:
        """Build the PCH in this thread (tests, and the fallback when a child cannot be forked)."""
        ok = False
        self.started = self._clock.now()
        try:
            ok = self._finish(build)
        except Exception as exc:  # a PCH is an optimisation: never let it fail a compile
            _log.debug("cuda.coop: precompiled header build failed: %r", exc)
            ok = False
        with self._lock:
            self._done, self._ok = True, ok
        _log.debug("cuda.coop: precompiled header %s built inline: ok=%s", self.path, ok)

    def _poll(self) -> None:
        if self._pid is not None:
            try:
                pid, _ = os.waitpid(self._pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else (SIGCHLD ignored, os.wait()): it is over
                pid = self._pid
            if pid:
                self._pid = None
                if not self._done:  # a file at a store's path may be another process's: only the marker is ours
                    placed = self._marker.exists() if self._marker is not None else self.path.is_file()
                    if placed and self._marker is not None:
                        with contextlib.suppress(OSError):
                            self.path = Path(self._marker.read_text(encoding="utf-8") or self.path)
                    self._done, self._ok = True, placed
                    _log.debug("cuda.coop: precompiled header %s ready: ok=%s", self.path, self._ok)
        if not self._done and self._marker is not None and self._marker.exists():  # placed, still being sealed
            with contextlib.suppress(OSError):
                self.path = Path(self._marker.read_text(encoding="utf-8") or self.path)
            self._done, self._ok = True, True
            _log.debug("cuda.coop: precompiled header %s ready: ok=True", self.path)

    def done(self) -> bool:
        """Whether the build finished (successfully or not)."""
        with self._lock:
            self._poll()
            return self._done

    def usable(self) -> bool:
        """Whether the PCH is built and was not dropped; never blocks."""
        with self._lock:
            self._poll()
            return self._done and self._ok

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the build finished; False on timeout."""
        deadline = None if timeout is None else self._clock.now() + timeout
        while not self.done():
            if deadline is not None and self._clock.now() >= deadline:
                return False
            self._clock.sleep(0.005)
        return True

    def drop(self, *, remove: bool = True) -> None:
        """Never use this PCH again (it failed to load); ``remove`` its file too (it is bad, not only unfit here)."""
        with self._lock:
            self._ok = False
        if remove:
            with contextlib.suppress(OSError):
                self.path.unlink()

    def kill(self, *, detached: bool = False) -> None:
        """Stop a build in flight (SIGKILL: its output is never used); a detached one is left to finish unless
        ``detached`` (its part file is removed then)."""
        with self._lock:
            if self._pid is None or (self.detached and not detached):
                return
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
            self._pid, self._done, self._ok = None, True, False
            if self.detached:
                with contextlib.suppress(OSError):
                    self._part.unlink()


class PchDirectory:
    """This process's PCH directory, locked while the process lives (see the module docstring)."""

    def __init__(self, path: Path, lock_fd: int) -> None:
        self.path = path
        self._lock_fd = lock_fd
        self._entries: list[PchEntry] = []
        self._owner = os.getpid()

    @classmethod
    def create(cls, tmp: Path | None = None) -> PchDirectory:
        """Sweep stale directories, then make and lock a new one (removed at exit)."""
        sweep_stale(tmp)
        path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=tmp))
        fd = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        if not _try_lock(fd):  # cannot happen for a fresh private file
            os.close(fd)
            shutil.rmtree(path, ignore_errors=True)
            raise OSError(f"cannot lock {path / LOCK_NAME}")
        self = cls(path, fd)
        atexit.register(self.close)
        return self

    def entry(self, key: str, *, store: tuple[Path, Path, Publish] | None = None,
              clock: Clock = SYSTEM_CLOCK) -> PchEntry:
        """A new entry ``<key>.pch`` in this directory; or, with ``store=(path, part, publish)``, one built at
        ``part`` and handed to ``publish``, which puts it at ``path`` (a build that outlives the process); the
        builder marks it placed with ``<key>.ready`` here. ``clock``: where it reads its start and waits."""
        if store is None:
            entry = PchEntry(self.path / f"{key}.pch", self._lock_fd, clock=clock)
        else:
            path, part, publish = store
            entry = PchEntry(path, self._lock_fd, part=part, publish=publish, marker=self.path / f"{key}.ready",
                             clock=clock)
        self._entries.append(entry)
        return entry

    def close(self) -> None:
        """Kill builds in flight, remove the directory, release the lock; never waits for a build.

        Does nothing in a forked child of the owner (its exit handlers must not remove the owner's PCHs).
        """
        if os.getpid() != self._owner:
            return
        for entry in self._entries:
            entry.kill()
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = -1
