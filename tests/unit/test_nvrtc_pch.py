"""The precompiled-header policy of NvrtcCompiler, with NVRTC faked (host only).

Nothing here depends on how fast the machine is: a build a test needs in flight is held in its child until the test
lets it go (``FakeNvrtc.hold``), and where the policy reads the time (how long compiles take, when a build is
expected to end, how long to wait for it) the compiler's clock is a ``FakeClock``, whose time passes only by the fake
compiles and waits. Waits for a build to end are bounded by ``HANG_SECONDS`` (``tests/helpers/waits.py``), which
only a hang reaches.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cuda.coop._provider import _nvrtc, _pch, _pch_store
from cuda.coop._provider._nvrtc import NvrtcCompiler
from tests.helpers.fakes import OK, FakeClock, FakeNvrtc
from tests.helpers.waits import HANG_SECONDS

PREAMBLE = "#include <cub/block/block_reduce.cuh>\n"
OPTIONS = ("-arch=sm_90", "-rdc=true")
CANONICAL = 0x600000000000
"""The heap's canonical address in these tests."""


class _Heap:
    """Stands in for ``_nvrtc.HEAP``: NVRTC's heap at ``address``, or (None) not where kept PCHs need it;
    ``placeable``: not mapped yet, and steerable (then a build forks before any heap is mapped)."""

    def __init__(self, address: int | None, *, placeable: bool = False) -> None:
        self.address = address
        self.first_compiles = 0
        self.allocations = 0
        self._placeable = placeable

    def where(self) -> int | None:
        return self.address

    def placeable(self) -> bool:
        return self._placeable

    def allocate(self, *, steer: bool = False) -> int | None:
        self.allocations += 1
        return self.address if steer else None

    def first(self, run: Callable[[], object]) -> object:
        self.first_compiles += 1
        return run()


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeNvrtc]:
    fake = FakeNvrtc()
    monkeypatch.setattr(_nvrtc, "_compile", fake)
    monkeypatch.setattr(_nvrtc, "HEAP", _Heap(None))
    monkeypatch.setattr(
        _nvrtc, "_nvrtc", lambda: types.SimpleNamespace(nvrtcResult=types.SimpleNamespace(NVRTC_SUCCESS=OK))
    )
    yield fake
    fake.release()  # a build a failed test left held ends


def _compile(c: NvrtcCompiler, n: int = 1) -> list[_nvrtc.CompileResult]:
    return [c.compile(PREAMBLE + f"int x{i};", OPTIONS, name="p.cu", preamble=PREAMBLE) for i in range(n)]


def _uses(options: tuple[str, ...]) -> bool:
    return any(o.startswith("--use-pch=") for o in options)


def test_the_build_starts_with_the_first_compile(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(background=False)  # inline: the build ends before the compile that started it
    [result] = _compile(c)
    assert c.pch_builds == 1 and len(fake.calls) == 2
    assert next(o for o in fake.calls[0] if "pch" in o).startswith("--create-pch=")
    assert result.used_pch and _uses(fake.calls[1])


def test_pch_after_counts_successful_compiles(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=2, background=False)
    c.compile(PREAMBLE + "static_assert(false);", OPTIONS, name="p.cu", preamble=PREAMBLE)  # does not count
    results = _compile(c, 4)
    assert [r.used_pch for r in results] == [False, False, True, True]
    assert (c.calls, c.pch_builds, c.pch_hits) == (5, 1, 2)
    assert next(o for o in fake.calls[3] if "pch" in o).startswith("--create-pch=")
    assert _uses(fake.calls[4]) and not _uses(fake.calls[1])


@pytest.fixture
def clock(fake: FakeNvrtc, tmp_path: Path) -> FakeClock:
    """The clock of the compilers :func:`_clocked` makes; builds are held until its time reaches their end."""
    return FakeClock(fake, tmp_path / "release")


def _clocked(clock: FakeClock, **options: object) -> NvrtcCompiler:
    c = NvrtcCompiler(clock=clock, **options)  # type: ignore[arg-type]
    clock.compilers.append(c)
    return c


def _timed(c: NvrtcCompiler, clock: FakeClock) -> tuple[bool, float]:
    """Whether a compile used the PCH, and how much of the clock's time it took (its wait included)."""
    start = clock.now()
    [result] = _compile(c)
    return result.used_pch, clock.now() - start


def test_a_compile_waits_for_a_build_about_to_end(fake: FakeNvrtc, clock: FakeClock) -> None:
    fake.compile_seconds, fake.build_seconds = 1.0, 1.1
    c = _clocked(clock)  # the build starts with the first compile, in a child, and takes a little longer
    assert _timed(c, clock)[0] is False
    used, seconds = _timed(c, clock)  # expected to end 0.6 s from now (1.6 compiles after its start): worth a wait
    assert used and c.pch_waits == 1
    assert seconds == pytest.approx(fake.build_seconds - fake.compile_seconds, abs=0.01)  # waited until it ended
    c._at_exit()


def test_a_compile_waits_at_most_its_share_and_once_per_build(fake: FakeNvrtc, clock: FakeClock) -> None:
    fake.compile_seconds, fake.build_seconds = 0.4, 30.0
    c = _clocked(clock)
    _timed(c, clock)
    clock.advance(0.3)  # the build is expected to end 0.34 s from its start (1.6 compiles): 0.06 s ago
    used, seconds = _timed(c, clock)  # ... but does not: the wait is cut short, then the compile goes on without it
    waited = seconds - fake.compile_seconds
    assert not used and c.pch_waits == 1 and 0 < waited <= _nvrtc._WAIT_SHARE * fake.compile_seconds
    used, seconds = _timed(c, clock)  # the same build is not waited for again
    assert not used and c.pch_waits == 1 and seconds == pytest.approx(fake.compile_seconds)
    c._at_exit()


def test_a_compile_does_not_wait_for_a_build_far_from_done(fake: FakeNvrtc, clock: FakeClock) -> None:
    fake.compile_seconds, fake.build_seconds = 0.4, 30.0
    c = _clocked(clock, pch_after=1)  # the build starts after the first compile: a whole build to go
    _timed(c, clock)
    used, seconds = _timed(c, clock)
    assert not used and c.pch_waits == 0 and seconds == pytest.approx(fake.compile_seconds)
    c._at_exit()


def test_background_build(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1)
    _compile(c)
    assert c.wait_for_pch(HANG_SECONDS)
    assert _compile(c)[0].used_pch


def test_a_fork_that_fails_means_no_pch_not_a_failed_compile(monkeypatch: pytest.MonkeyPatch, fake: FakeNvrtc) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    c = NvrtcCompiler()
    results = _compile(c, 3)
    assert all(r.ok for r in results) and not any(r.used_pch for r in results)
    assert c.pch_builds == 1 and not any(_uses(o) for o in fake.calls)
    c._at_exit()


def test_other_options_get_their_own_pch(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1, background=False)
    _compile(c)
    c.compile(PREAMBLE, ("-arch=sm_100",), name="p.cu", preamble=PREAMBLE)
    assert c.pch_builds == 2


def test_in_memory_headers_reach_every_program_and_key_the_pch(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1, background=False)
    light = {"cuda/std/__cccl/prologue.h": "// light\n"}
    c.compile(PREAMBLE + "int x;", OPTIONS, name="p.cu", preamble=PREAMBLE, headers=light)
    c.compile(PREAMBLE + "int y;", OPTIONS, name="p.cu", preamble=PREAMBLE, headers=light)
    assert fake.headers == [light, light, light]  # the compile, the PCH build, the compile with the PCH
    assert _uses(fake.calls[2]) and c.pch_builds == 1
    c.compile(PREAMBLE + "int z;", OPTIONS, name="p.cu", preamble=PREAMBLE)  # other headers: another PCH
    assert c.pch_builds == 2 and fake.headers[3] == {}


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


def test_exit_removes_the_directory(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1, background=False)
    _compile(c)
    assert c._dir is not None and any(c._dir.path.iterdir())
    c._at_exit()
    assert not c._dir.path.exists()


def test_a_compile_error_with_the_pch_is_a_compile_error_and_keeps_the_pch(fake: FakeNvrtc) -> None:
    c = NvrtcCompiler(pch_after=1, background=False)
    _compile(c, 2)
    calls = len(fake.calls)
    bad = c.compile(PREAMBLE + "static_assert(false);", OPTIONS, name="p.cu", preamble=PREAMBLE)
    assert not bad.ok and "static assertion failed" in bad.log
    assert "precompiled header" not in bad.log  # NVRTC's note about the PCH is not part of the error
    assert len(fake.calls) == calls + 1, "a compile error must not be retried as if the PCH were bad"
    assert _compile(c)[0].used_pch, "the PCH must survive a compile error"


def test_a_damaged_pch_is_dropped_after_a_compile_that_fell_back(fake: FakeNvrtc) -> None:
    fake.use_warns = True
    c = NvrtcCompiler(pch_after=1, background=False)
    results = _compile(c, 4)
    assert all(r.ok for r in results) and not any(r.used_pch for r in results)
    assert sum(_uses(o) for o in fake.calls) == 1


def test_exit_does_not_wait_for_a_build_in_flight(fake: FakeNvrtc, clock: FakeClock) -> None:
    fake.compile_seconds, fake.build_seconds = 1.0, float("inf")  # held in its child for good: only a kill ends it
    c = _clocked(clock, pch_after=1)
    _compile(c)
    assert c.pch_builds == 1 and c._dir is not None
    [entry] = c._pchs.values()
    pid = entry._pid
    assert pid is not None and not entry.done()
    assert not _compile(c)[0].used_pch and c.pch_waits == 0  # never waits for it either
    c._at_exit()  # a wait here would fail (FakeClock.HORIZON)
    assert not c._dir.path.exists()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # killed and reaped


# -- stale directories of dead processes -----------------------------------------------------------------

OWNER = r"""
import signal, sys
from collections.abc import Callable, Iterator
from pathlib import Path
from cuda.coop._provider._pch import PchDirectory
d = PchDirectory.create(Path(sys.argv[1]))
(d.path / "x.pch.part").write_bytes(b"partial")
print(d.path, flush=True)
signal.pause()  # until the test kills it
"""


def _owner(tmp: Path) -> tuple[subprocess.Popen[str], Path]:
    env = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1"}
    proc = subprocess.Popen([sys.executable, "-c", OWNER, str(tmp)], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    path = Path(proc.stdout.readline().strip())
    proc.stdout.close()
    return proc, path


def test_directories_of_killed_processes_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    dead, dead_dir = _owner(tmp_path)
    live, live_dir = _owner(tmp_path)
    try:
        dead.kill()
        dead.wait()
        born = max(d.stat().st_mtime for d in (dead_dir, live_dir))
        later = born + 2 * _pch.MIN_AGE_SECONDS
        assert _pch.sweep_stale(tmp_path, now=born) == []  # too young to judge
        assert _pch.sweep_stale(tmp_path, now=later) == [dead_dir]
        assert not dead_dir.exists() and live_dir.is_dir()
        mine = _pch.PchDirectory.create(tmp_path)  # creating a directory sweeps; a live owner's stays
        assert live_dir.is_dir() and _pch.sweep_stale(tmp_path, now=later + 1e6) == []
        mine.close()
        assert not mine.path.exists()
    finally:
        live.kill()
        live.wait()
    assert _pch.sweep_stale(tmp_path, now=later) == [live_dir]


def test_lockless_directories_are_swept_only_when_a_day_old(tmp_path: Path) -> None:
    old = tmp_path / f"{_pch.PREFIX}old"
    old.mkdir()
    born = old.stat().st_mtime
    assert _pch.sweep_stale(tmp_path, now=born + 3600) == []
    assert _pch.sweep_stale(tmp_path, now=born + _pch.UNLOCKED_AGE_SECONDS) == [old]


def test_default_compiler_is_shared() -> None:
    assert _nvrtc.default_compiler() is _nvrtc.default_compiler()
    assert _nvrtc.default_compiler().pch and _nvrtc.default_compiler().pch_after == 0


def test_a_forked_child_exiting_normally_leaves_the_owners_directory(tmp_path: Path) -> None:
    d = _pch.PchDirectory.create(tmp_path)
    pid = os.fork()
    if pid == 0:  # e.g. a user's os.fork() child that runs exit handlers
        d.close()
        os._exit(0)
    os.waitpid(pid, 0)
    assert d.path.is_dir()
    d.close()
    assert not d.path.exists()


def test_a_build_started_from_a_worker_thread_outlives_the_thread(fake: FakeNvrtc, tmp_path: Path) -> None:
    import threading

    fake.hold(tmp_path / "release")
    c = NvrtcCompiler(pch_after=1)
    worker = threading.Thread(target=_compile, args=(c,))
    worker.start()
    worker.join()  # the thread that forked the build is gone before the build ends
    [entry] = c._pchs.values()
    assert c.pch_builds == 1 and not entry.done()
    fake.release()
    assert c.wait_for_pch(HANG_SECONDS)
    assert _compile(c)[0].used_pch
    c._at_exit()


def _stored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *, placeable: bool = False) -> _pch_store.PchStore:
    """A store, and the heap at the canonical address (``placeable``: not mapped yet, a child steers its own)."""
    monkeypatch.setattr(_nvrtc, "HEAP", _Heap(CANONICAL, placeable=placeable))
    return _pch_store.PchStore(tmp_path / "pch")


def test_a_build_is_kept_and_a_later_process_uses_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc
) -> None:
    store = _stored(monkeypatch, tmp_path)
    first = NvrtcCompiler(background=False, store=store)
    first.compile(PREAMBLE + "int x;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert first.pch_builds == 1 and store.stats().entries == 1
    heap, allocations, firsts = _nvrtc.HEAP, _nvrtc.HEAP.allocations, _nvrtc.HEAP.first_compiles
    later = NvrtcCompiler(background=False, store=store)  # another process: nothing built in it
    result = later.compile(PREAMBLE + "int y;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert result.used_pch and later.pch_kept == 1 and later.pch_builds == 0
    # that compile maps the heap (no build, so no tiny compile)
    assert heap.first_compiles == firsts + 1 and heap.allocations == allocations
    assert fake.calls[-1][-1] == f"--use-pch={next(store.root.glob('*.pch'))}"
    other = NvrtcCompiler(background=False, store=store)  # other headers' contents: not that PCH
    other.compile(PREAMBLE + "int z;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h2\0t")
    assert other.pch_kept == 0 and other.pch_builds == 1 and store.stats().entries == 2


def test_no_identity_or_no_canonical_heap_keeps_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc
) -> None:
    store = _stored(monkeypatch, tmp_path)
    NvrtcCompiler(background=False, store=store).compile(PREAMBLE + "int x;", OPTIONS, name="p.cu", preamble=PREAMBLE)
    monkeypatch.setattr(_nvrtc, "HEAP", _Heap(None))  # the heap could not be placed
    c = NvrtcCompiler(background=False, store=store)
    c.compile(PREAMBLE + "int x;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert c.pch_builds == 1 and store.stats().entries == 0 and not store.root.exists()


def test_a_kept_pch_nvrtc_refuses_is_removed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc) -> None:
    store = _stored(monkeypatch, tmp_path)
    NvrtcCompiler(background=False, store=store).compile(PREAMBLE + "int x;", OPTIONS, name="p.cu",
                                                         preamble=PREAMBLE, identity="h\0t")
    fake.use_warns = True
    c = NvrtcCompiler(background=False, store=store)
    result = c.compile(PREAMBLE + "int y;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert result.ok and not result.used_pch and c.pch_kept == 1
    assert not list(store.root.glob("*.pch")) and store.find(next(store.root.glob("*.json")).stem) is None


def test_a_kept_pch_refused_where_the_heap_is_elsewhere_stays(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc
) -> None:
    store = _stored(monkeypatch, tmp_path)
    NvrtcCompiler(background=False, store=store).compile(PREAMBLE + "int x;", OPTIONS, name="p.cu",
                                                         preamble=PREAMBLE, identity="h\0t")
    fake.use_warns = True  # NVRTC: "incompatible ... heap allocation address"
    heap = _nvrtc.HEAP

    def misplaced(run: Callable[[], object]) -> object:  # the compile mapped the heap, but not there
        heap.address = None
        return run()

    monkeypatch.setattr(heap, "first", misplaced)
    c = NvrtcCompiler(background=False, store=store)
    result = c.compile(PREAMBLE + "int y;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert result.ok and not result.used_pch and c.pch_kept == 1
    assert store.stats().entries == 1  # other processes can still use it


def test_a_kept_build_outlives_its_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc, clock: FakeClock
) -> None:
    fake.build_seconds = float("inf")  # held in its child until the test lets it go
    store = _stored(monkeypatch, tmp_path)
    c = _clocked(clock, store=store)
    c.compile(PREAMBLE + "int x;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    [entry] = c._pchs.values()
    pid = entry._pid
    assert pid is not None and entry.detached and not entry.done()
    c._at_exit()  # neither waits for it (FakeClock.HORIZON) nor kills it
    assert os.waitpid(pid, os.WNOHANG) == (0, 0), "the build ended with its process"
    assert store.stats().entries == 0
    fake.release()
    _, status = os.waitpid(pid, 0)  # let go, the build ends: kept for the next process
    assert os.waitstatus_to_exitcode(status) == 0 and store.stats().entries == 1


def test_a_steerable_heap_is_not_mapped_before_the_fork(monkeypatch: pytest.MonkeyPatch, fake: FakeNvrtc) -> None:
    heap = _Heap(0x600000000000, placeable=True)
    monkeypatch.setattr(_nvrtc, "HEAP", heap)
    c = NvrtcCompiler()  # the forked child steers its own heap; the parent's first --use-pch compile steers its
    [first] = _compile(c)
    assert not first.used_pch and heap.allocations == 0 and heap.first_compiles == 0  # no tiny compile
    assert c.wait_for_pch(HANG_SECONDS)
    [later] = _compile(c)
    assert later.used_pch and heap.first_compiles == 1
    c._at_exit()


@pytest.mark.parametrize("landed", [True, False])
def test_a_steered_build_fails_where_its_heap_landed_elsewhere(monkeypatch: pytest.MonkeyPatch, landed: bool) -> None:
    heap = _Heap(0x600000000000, placeable=True)

    def first(run: Callable[[], object]) -> object:
        heap.address = 0x600000000000 if landed else None
        return run()

    monkeypatch.setattr(heap, "first", first)
    monkeypatch.setattr(_nvrtc, "HEAP", heap)
    built: list[str] = []
    assert _nvrtc._steered_build(lambda part: bool(built.append(part)) or True, "x.part") is landed
    assert built == ["x.part"]


def test_a_forked_child_gets_an_unlocked_heap() -> None:
    # Another thread of the parent may hold the heap's lock at the fork; a steered build in the child takes it.
    heap = _nvrtc.HEAP
    with heap._lock:
        pid = os.fork()
        if pid == 0:
            os._exit(0 if heap._lock.acquire(timeout=5) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_steered_pch_refused_where_this_heap_landed_elsewhere_is_built_once_more(
    monkeypatch: pytest.MonkeyPatch, fake: FakeNvrtc
) -> None:
    # The child steered its heap to the canonical address; the parent's could not go there (the range was taken
    # after the fork), so NVRTC refuses the PCH. One more build, forked now, inherits the parent's heap.
    heap = _Heap(0x600000000000, placeable=True)
    parent = os.getpid()

    def first(run: Callable[[], object]) -> object:  # the child's heap lands at the address, the parent's elsewhere
        if os.getpid() == parent:
            heap.address, heap._placeable = None, False
            heap.first_compiles += 1
        return run()

    monkeypatch.setattr(heap, "first", first)
    monkeypatch.setattr(_nvrtc, "HEAP", heap)
    fake.use_warns = True  # every PCH is refused, the one built again too
    c = NvrtcCompiler()
    for n in range(5):
        assert _compile(c)[0].ok
        assert c.wait_for_pch(HANG_SECONDS)
        if n == 1:  # refused: its file stays (it may serve a process whose heap is at that address)
            assert not c._pchs and next(c._dir.path.glob("*.pch")).is_file()
    assert c.pch_builds == 2 and heap.allocations == 1 and c.pch_hits == 0
    assert not list(c._dir.path.glob("*.pch"))  # the one built in this heap, refused too, is removed
    c._at_exit()


def test_prepare_starts_the_build_only_where_nothing_is_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc
) -> None:
    c = NvrtcCompiler(pch_after=0)
    c.prepare(PREAMBLE, OPTIONS)  # before the compile's key is known: a forked child builds
    c.prepare(PREAMBLE, OPTIONS)
    assert c.pch_builds == 1 and c.wait_for_pch(HANG_SECONDS) and not fake.calls
    assert _compile(c)[0].used_pch and c.pch_builds == 1  # the compile uses the build the preparation started
    c._at_exit()
    for other in (NvrtcCompiler(store=_pch_store.PchStore(tmp_path / "pch")), NvrtcCompiler(background=False),
                  NvrtcCompiler(pch_after=1)):
        other.prepare(PREAMBLE, OPTIONS)  # no identity to name a kept PCH by; inline builds wait; not yet
        assert other.pch_builds == 0
    monkeypatch.setattr(_nvrtc, "HEAP", _Heap(0x600000000000))  # mapped already: the compile builds it
    NvrtcCompiler(store=_pch_store.PchStore(tmp_path / "pch")).prepare(PREAMBLE, OPTIONS, identity=lambda: "h\0t")
    assert not (tmp_path / "pch").exists()



def _kept_name(c: NvrtcCompiler, identity: str) -> str:
    key = c._pch_key(PREAMBLE, OPTIONS, None)
    assert key is not None
    return _pch_store.store_key(key, identity, CANONICAL, _nvrtc._PCH_HEAP_BYTES)


def test_prepare_with_a_store_keeps_the_build_under_the_name_the_compile_looks_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc
) -> None:
    store = _stored(monkeypatch, tmp_path, placeable=True)
    c = NvrtcCompiler(store=store)
    c.prepare(PREAMBLE, OPTIONS, identity=lambda: "h\0t")  # the child works the identity out while it builds
    assert c.pch_builds == 1 and c.wait_for_pch(HANG_SECONDS) and not fake.calls
    result = c.compile(PREAMBLE + "int x;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    kept = store.path(_kept_name(c, "h\0t"))
    assert result.used_pch and fake.calls[-1][-1] == f"--use-pch={kept}" and c.pch_builds == 1
    [entry] = c._pchs.values()
    if entry._pid is not None:  # usable once in place; the child seals it after, then ends
        os.waitpid(entry._pid, 0)
    assert store.find(kept.stem) == kept and store.stats().entries == 1
    c._at_exit()
    later = NvrtcCompiler(store=store)  # another process: the kept PCH, no build
    result = later.compile(PREAMBLE + "int y;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert result.used_pch and later.pch_kept == 1 and later.pch_builds == 0
    later._at_exit()


def test_an_early_build_is_stopped_where_an_earlier_process_kept_the_pch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc
) -> None:
    store = _stored(monkeypatch, tmp_path, placeable=True)
    NvrtcCompiler(background=False, store=store).compile(PREAMBLE + "int x;", OPTIONS, name="p.cu",
                                                         preamble=PREAMBLE, identity="h\0t")
    fake.hold(tmp_path / "release")  # never let go: only the compile that finds the kept PCH ends it
    c = NvrtcCompiler(store=store)
    c.prepare(PREAMBLE, OPTIONS, identity=lambda: "h\0t")
    assert c.pch_builds == 1
    result = c.compile(PREAMBLE + "int y;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert result.used_pch and c.pch_kept == 1 and c.pch_waits == 0  # the kept one at once, no wait for the build
    kept = store.path(_kept_name(c, "h\0t"))
    assert fake.calls[-1][-1] == f"--use-pch={kept}"
    assert store.stats().entries == 1 and not list(store.root.glob("*.part"))  # the stopped build left nothing
    c._at_exit()


def test_an_early_build_without_an_identity_keeps_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake: FakeNvrtc
) -> None:
    store = _stored(monkeypatch, tmp_path, placeable=True)

    def identity() -> str:
        raise OSError("the headers are gone")

    c = NvrtcCompiler(store=store)
    c.prepare(PREAMBLE, OPTIONS, identity=identity)
    assert c.pch_builds == 1 and c.wait_for_pch(HANG_SECONDS)
    result = c.compile(PREAMBLE + "int x;", OPTIONS, name="p.cu", preamble=PREAMBLE, identity="h\0t")
    assert result.ok and not result.used_pch and store.stats().entries == 0 and not list(store.root.glob("*.part"))
    c._at_exit()
