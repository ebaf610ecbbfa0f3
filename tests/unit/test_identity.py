"""Header identity: ordered roots + fingerprint, once per selection per attempt; toolkit once per attempt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from cuda.coop import _identity
from cuda.coop._identity import CompileAttempt, HeaderIdentity, fingerprint


@pytest.fixture(autouse=True)
def _fresh_memo() -> Iterator[None]:
    _identity._reset_for_tests()
    yield
    _identity._reset_for_tests()


def tree(root: Path) -> Path:
    for rel in ("cub/block/block_reduce.cuh", "cub/version.cuh", "cuda/std/version"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"// {rel}\n")
    return root


def bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


class CountingFingerprint:
    def __init__(self) -> None:
        self.calls: list[tuple[Path, ...]] = []

    def __call__(self, roots: Sequence[Path]) -> str:
        self.calls.append(tuple(roots))
        return fingerprint(roots)


def test_fingerprint_is_stable(tmp_path: Path) -> None:
    root = tree(tmp_path / "a")
    assert fingerprint([root]) == fingerprint([root])


@pytest.mark.parametrize("edit", ["content", "add", "remove", "rename"])
def test_fingerprint_sees_edits(tmp_path: Path, edit: str) -> None:
    root = tree(tmp_path / "a")
    header = root / "cub" / "version.cuh"
    before = fingerprint([root])
    if edit == "content":
        header.write_text("// edited, and longer than before\n")
    elif edit == "add":
        (root / "cub" / "new.cuh").write_text("")
    elif edit == "remove":
        header.unlink()
    else:
        header.rename(root / "cub" / "version2.cuh")
    assert fingerprint([root]) != before


def test_fingerprint_is_of_contents_not_of_times(tmp_path: Path) -> None:
    """Same bytes at another mtime, or copied elsewhere under the same root name: same identity."""
    a = tree(tmp_path / "one" / "include")
    before = fingerprint([a])
    bump_mtime(a / "cub" / "version.cuh")
    assert fingerprint([a]) == before


def restore_times(path: Path, st: os.stat_result) -> None:
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def same_size_edit(path: Path, text: str, st: os.stat_result) -> None:
    """Write ``text`` (as long as the file was at ``st``) and restore its times: an edit that only the ctime shows,
    once the file system's coarse clock has ticked since ``st`` (written again until it has)."""
    while True:
        path.write_text(text)
        restore_times(path, st)
        after = path.stat()
        assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
        if after.st_ctime_ns != st.st_ctime_ns:
            return
        time.sleep(0.001)


@pytest.mark.parametrize("settled", [False, True], ids=["just-written", "memoised"])
def test_same_size_edit_with_mtime_restored_changes_the_identity(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, settled: bool
) -> None:
    """The case a path+size+mtime fingerprint misses (an extraction that keeps mtimes, touch -d)."""
    if settled:  # treat every file as settled, so that the first fingerprint memoises its hash
        monkeypatch.setattr(_identity, "_RACY_NS", 0)
    root = tree(tmp_path / "a")
    header = root / "cub" / "version.cuh"
    header.write_text("#define CUB_VERSION 300600\n")
    st = header.stat()
    before = fingerprint([root])
    same_size_edit(header, "#define CUB_VERSION 300700\n", st)
    assert fingerprint([root]) != before
    assert CompileAttempt().header_identity([root]).digest != before


def test_warm_process_reads_no_unchanged_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_identity, "_RACY_NS", 0)
    root = tree(tmp_path / "a")
    reads: list[str] = []
    real = _identity._hash_file
    monkeypatch.setattr(_identity, "_hash_file", lambda p: reads.append(p) or real(p))
    first = fingerprint([root], stamp_dir=None)
    assert len(reads) == 3
    assert fingerprint([root], stamp_dir=None) == first and len(reads) == 3
    (root / "cub" / "version.cuh").write_text("// v2 \n")  # another size
    assert fingerprint([root], stamp_dir=None) != first and len(reads) == 4


def test_recently_changed_files_are_not_memoised(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = tree(tmp_path / "a")  # just written: inside the racy window
    reads: list[str] = []
    real = _identity._hash_file
    monkeypatch.setattr(_identity, "_hash_file", lambda p: reads.append(p) or real(p))
    fingerprint([root], stamp_dir=None)
    fingerprint([root], stamp_dir=None)
    assert len(reads) == 6


STAMPED_RUN = """
import json, sys
from pathlib import Path
from cuda.coop import _identity
_identity._RACY_NS = int(sys.argv[3])
reads = []
real = _identity._hash_file
_identity._hash_file = lambda p: reads.append(p) or real(p)
digest = _identity.fingerprint([Path(sys.argv[1])], stamp_dir=Path(sys.argv[2]))
print(json.dumps({"digest": digest, "reads": len(reads)}))
"""


def _stamped(root: Path, stamps: Path, racy_ns: int = 0) -> dict[str, object]:
    env = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1"}  # no backend import: fast
    done = subprocess.run([sys.executable, "-c", STAMPED_RUN, str(root), str(stamps), str(racy_ns)],
                          capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_stamps_make_a_new_process_cheap_and_still_see_edits(tmp_path: Path) -> None:
    root, stamps = tree(tmp_path / "a"), tmp_path / "stamps"
    first = _stamped(root, stamps)
    assert first["reads"] == 3 and len(list(stamps.iterdir())) == 1
    second = _stamped(root, stamps)
    assert second == {"digest": first["digest"], "reads": 0}  # a new process read nothing
    header = root / "cub" / "version.cuh"
    same_size_edit(header, header.read_text().upper(), header.stat())
    third = _stamped(root, stamps)
    assert third["reads"] == 1 and third["digest"] != first["digest"]
    assert third["digest"] == fingerprint([root], stamp_dir=None)  # the same digest as without stamps


def test_damaged_stamps_are_ignored(tmp_path: Path) -> None:
    root, stamps = tree(tmp_path / "a"), tmp_path / "stamps"
    first = _stamped(root, stamps)
    (stamp,) = stamps.iterdir()
    stamp.write_text("{not json")
    assert _stamped(root, stamps) == {"digest": first["digest"], "reads": 3}


def test_stamp_dir_follows_the_persistent_cache_switch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CUDA_COOP_ENABLE_CACHE", raising=False)
    assert _identity._stamp_dir() is None
    _identity._reset_for_tests()
    monkeypatch.setenv("CUDA_COOP_ENABLE_CACHE", "1")
    assert _identity._stamp_dir() == tmp_path / "xdg" / "cccl" / "cuda-coop" / "header-stamps"


def test_fingerprint_depends_on_root_order(tmp_path: Path) -> None:
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert fingerprint([a, b]) != fingerprint([b, a])


def test_fingerprint_survives_symlink_loops(tmp_path: Path) -> None:
    root = tree(tmp_path / "a")
    (root / "cub" / "loop").symlink_to(root, target_is_directory=True)
    (root / "dangling.h").symlink_to(tmp_path / "missing.h")
    assert fingerprint([root]) == fingerprint([root])


def test_missing_root_is_part_of_the_identity(tmp_path: Path) -> None:
    a = tree(tmp_path / "a")
    assert fingerprint([a, tmp_path / "missing"]) != fingerprint([a])


def test_one_fingerprint_per_selection_per_attempt(tmp_path: Path) -> None:
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    counting = CountingFingerprint()
    attempt = CompileAttempt(fingerprinter=counting)
    first = attempt.header_identity([a, b])
    assert attempt.header_identity((a, b)) is first  # same ordered roots: shared
    assert isinstance(first, HeaderIdentity) and first.roots == (a, b)
    other = attempt.header_identity([b, a])  # another selection: its own identity
    assert other.digest != first.digest
    assert counting.calls == [(a, b), (b, a)]


def test_edits_within_an_attempt_are_not_seen_but_a_later_attempt_sees_them(tmp_path: Path) -> None:
    root = tree(tmp_path / "a")
    first_attempt = CompileAttempt()
    before = first_attempt.header_identity([root])
    (root / "cub" / "version.cuh").write_text("// edited between attempts, with a new size\n")
    assert first_attempt.header_identity([root]) == before  # existing providers keep their identity
    after = CompileAttempt().header_identity([root])
    assert after.roots == before.roots and after.digest != before.digest


def test_toolkit_is_resolved_once_per_selection_per_attempt(tmp_path: Path) -> None:
    from cuda.coop._cuda_headers import CudaInclude

    class FakeToolkit:
        def __init__(self, include: CudaInclude) -> None:
            self.identity = f"tk-{include.path.name}"

    selected = [CudaInclude(path=tmp_path / "a", origin="CUDA_PATH", cuda_version=(13, 5))]
    includes: list[int] = []
    toolkits: list[CudaInclude] = []

    def include_resolver() -> CudaInclude:
        includes.append(1)
        return selected[0]

    def resolver(include: CudaInclude) -> FakeToolkit:
        toolkits.append(include)
        return FakeToolkit(include)

    attempt = CompileAttempt(include_resolver=include_resolver, toolkit_resolver=resolver)  # type: ignore[arg-type]
    assert attempt.toolkit_identity() == attempt.toolkit_identity() == "tk-a"
    assert attempt.toolkit() is attempt.toolkit()
    assert len(includes) == 4 and len(toolkits) == 1  # selection checked every time, resolved once
    selected[0] = CudaInclude(path=tmp_path / "b", origin="CUDA_HOME", cuda_version=(13, 5))
    assert attempt.toolkit_identity() == "tk-b" and len(toolkits) == 2  # a new selection: its own toolkit
    CompileAttempt(include_resolver=include_resolver, toolkit_resolver=resolver).toolkit_identity()  # type: ignore[arg-type]
    assert len(toolkits) == 3  # a new attempt resolves again


def test_real_bundle_fingerprint() -> None:
    from cuda.coop import header_bundle

    include = header_bundle().include_dir
    digest = fingerprint([include])
    assert len(digest) == 64 and digest == fingerprint([include])


def test_recorded_says_whether_a_fingerprint_would_hash_every_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_identity, "_RACY_NS", 0)
    a, b, stamps = tree(tmp_path / "a"), tree(tmp_path / "b"), tmp_path / "stamps"
    monkeypatch.setattr(_identity, "_stamp_dir", lambda: None)  # the persistent cache off
    assert not _identity.recorded([a, b])
    fingerprint([a], stamp_dir=None)
    assert _identity.recorded([a]) and not _identity.recorded([a, b])  # hashed in this process: memoised
    _identity._MEMO.clear()  # a new process
    assert not _identity.recorded([a, b])
    fingerprint([a, b], stamp_dir=stamps)
    _identity._MEMO.clear()  # another one
    monkeypatch.setattr(_identity, "_stamp_dir", lambda: stamps)  # the persistent cache on: the records
    assert _identity.recorded([a, b]) and not _identity.recorded([a, tmp_path / "c"])
