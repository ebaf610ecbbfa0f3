"""Header identity: ordered roots + fingerprint, once per selection per attempt; toolkit once per attempt."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from cuda.coop._identity import CompileAttempt, HeaderIdentity, fingerprint


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


@pytest.mark.parametrize("edit", ["content", "mtime", "add", "remove"])
def test_fingerprint_sees_edits(tmp_path: Path, edit: str) -> None:
    root = tree(tmp_path / "a")
    header = root / "cub" / "version.cuh"
    before = fingerprint([root])
    if edit == "content":
        header.write_text("// edited, and longer than before\n")
    elif edit == "mtime":
        bump_mtime(header)
    elif edit == "add":
        (root / "cub" / "new.cuh").write_text("")
    else:
        header.unlink()
    assert fingerprint([root]) != before


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


def test_toolkit_is_resolved_once_per_attempt() -> None:
    class FakeToolkit:
        identity = "tk-1"

    calls: list[int] = []

    def resolver() -> FakeToolkit:
        calls.append(1)
        return FakeToolkit()

    attempt = CompileAttempt(toolkit_resolver=resolver)  # type: ignore[arg-type]
    assert attempt.toolkit_identity() == attempt.toolkit_identity() == "tk-1"
    assert attempt.toolkit() is attempt.toolkit()
    assert len(calls) == 1
    CompileAttempt(toolkit_resolver=resolver).toolkit_identity()  # type: ignore[arg-type]
    assert len(calls) == 2


def test_real_bundle_fingerprint() -> None:
    from cuda.coop import header_bundle

    include = header_bundle().include_dir
    digest = fingerprint([include])
    assert len(digest) == 64 and digest == fingerprint([include])
