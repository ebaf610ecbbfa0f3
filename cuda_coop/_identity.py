"""Header and toolkit identities for cache keys, computed once per compile attempt.

Seed: "providers created during one compiler attempt share header and toolkit identity when they
select the same ordered include roots ... header contents are fingerprinted once per selection in
that attempt ... a later attempt resolves current headers". The provider layer creates one
:class:`CompileAttempt` per kernel compile and asks it; a new attempt sees edited headers.

The fingerprint is of *contents*: SHA-256 over the roots in their order and, for every regular file
under each root, its relative path, size and SHA-256. Two things keep it cheap without trusting a
path, size or mtime alone:

- a per-process memo of each file's content hash, keyed by its full stat identity (device, inode,
  size, mtime and ctime, in ns). An edit that restores the size and the mtime (``touch -d``, an
  extraction that keeps mtimes) still sets the ctime, which no user call can set back, so the file is
  hashed again; a later attempt in a warm process costs one ``stat`` per file;
- with the persistent provider cache on (``CUDA_COOP_ENABLE_CACHE``), the same stat-to-hash records
  are kept per root in ``<cache dir>/cuda-coop/header-stamps/`` so that a new process costs one
  ``stat`` per file too. Files changed less than :data:`_RACY_NS` before they were hashed are never
  recorded (the "racy" window of a coarse ctime clock), so they are hashed again next time.

:func:`fingerprints` also gives a *portable* fingerprint of the same files, with each root named by
its place in the order rather than its path: precompiled packs key their entries with it, so that a
pack serves wherever the same headers are installed.

Measured (CPU time, 2-core development host under load; installed bundle plus the wheel's CUDA
headers, 2,565 files, 27 MB): a new attempt in a warm process ~15 ms; a new process with stamps
~18 ms; a new process without them 65-75 ms (a single buffered read and SHA-256 per file, through the
builtin ``open``; a thread pool cost more CPU than it saved; the stamps are written with the C JSON
encoder). A whole ``resolve_toolchain`` per attempt in a warm process: ~20 ms.

Module state: ``_MEMO`` (path -> stat identity and hash) under ``_LOCK``, and the memoised stamp
directory; :func:`_reset_for_tests` clears both.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import _env
from ._cache_dir import cache_dir
from ._cuda_headers import CudaInclude, resolve_cuda_include
from ._toolkit import Toolkit, resolve_toolkit

__all__ = ["CompileAttempt", "HeaderIdentity", "fingerprint", "fingerprints", "recorded"]

_RACY_NS = 2_000_000_000
"""A file whose ctime or mtime is this close to the moment it was hashed is not memoised."""
_STAMP_FORMAT = 1

_StatKey = tuple[int, int, int, int, int]
_MEMO: dict[str, tuple[_StatKey, str]] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class HeaderIdentity:
    """Ordered include roots and a fingerprint of everything under them."""

    roots: tuple[Path, ...]
    digest: str
    portable: str = ""
    """The same fingerprint with the roots named by their place in the order, not their path
    (:func:`fingerprints`); the digest itself where a test's fingerprinter gives only that."""


def _walk(root: Path) -> list[tuple[str, str, _StatKey]]:
    """``(path relative to root, absolute path, stat identity)`` of every file; follows links once per dir."""
    entries: list[tuple[str, str, _StatKey]] = []
    try:
        st = root.stat()
    except OSError:
        return entries
    seen = {(st.st_dev, st.st_ino)}
    top = str(root)
    cut = len(top.rstrip(os.sep)) + 1
    stack = [top]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    try:
                        if entry.is_dir():
                            dst = entry.stat()
                            if (dst.st_dev, dst.st_ino) not in seen:
                                seen.add((dst.st_dev, dst.st_ino))
                                stack.append(entry.path)
                        elif entry.is_file():
                            f = entry.stat()
                            key = (f.st_dev, f.st_ino, f.st_size, f.st_mtime_ns, f.st_ctime_ns)
                            entries.append((entry.path[cut:], entry.path, key))
                    except OSError:  # vanished, or a dangling link: it cannot be #included either
                        continue
        except OSError:
            continue
    entries.sort()
    return entries


def _hash_file(path: str) -> str:
    """SHA-256 of a file's contents ("" when it cannot be read: then it cannot be #included either)."""
    try:
        with open(path, "rb") as fh:  # noqa: PTH123 (a Path per file costs ~10 us); one read: headers are small
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return ""


@functools.cache
def _stamp_dir() -> Path | None:
    """Where stat-to-hash records persist: only with the persistent provider cache on."""
    if not _env.flag("CUDA_COOP_ENABLE_CACHE"):
        return None
    return cache_dir() / "cuda-coop" / "header-stamps"


def _stamp_file(directory: Path, root: Path) -> Path:
    return directory / f"{hashlib.sha256(str(root).encode()).hexdigest()[:32]}.json"


def _load_stamps(path: Path, root: Path) -> dict[str, tuple[_StatKey, str]]:
    """The recorded ``relative path -> (stat identity, hash)`` of ``root``; empty when absent or damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != _STAMP_FORMAT or data.get("root") != str(root):
            return {}
        return {rel: (tuple(rec[:5]), rec[5]) for rel, rec in data["files"].items()}
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return {}


def _save_stamps(path: Path, root: Path, records: dict[str, tuple[_StatKey, str]]) -> None:
    """Write the records atomically; a failure only costs hashing again next time."""
    payload = {"format": _STAMP_FORMAT, "root": str(root), "files": {r: [*k, h] for r, (k, h) in records.items()}}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".stamp-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(payload, separators=(",", ":")))  # json.dump to a file is pure Python: 5x slower
            Path(tmp).replace(path)
        except OSError:
            with contextlib.suppress(OSError):
                Path(tmp).unlink()


def _settled(key: _StatKey, now_ns: int) -> bool:
    """Whether a file last changed long enough before ``now_ns`` for its stat identity to be trusted."""
    return now_ns - max(key[3], key[4]) >= _RACY_NS


def _root_hashes(root: Path, files: list[tuple[str, str, _StatKey]], stamp_dir: Path | None) -> list[str]:
    """Content hashes of ``files`` (in order), reading only those whose stat identity is not known."""
    hashes: list[str | None] = []
    with _LOCK:
        for _, path, key in files:
            known = _MEMO.get(path)
            hashes.append(known[1] if known is not None and known[0] == key else None)
    stamp_path = _stamp_file(stamp_dir, root) if stamp_dir is not None else None
    stamps: dict[str, tuple[_StatKey, str]] = {}
    if stamp_path is not None and None in hashes:  # the records are read only when the memo falls short
        stamps = _load_stamps(stamp_path, root)
        with _LOCK:
            for i, (rel, path, key) in enumerate(files):
                if hashes[i] is None and (rec := stamps.get(rel)) is not None and rec[0] == key:
                    hashes[i] = rec[1]
                    _MEMO[path] = rec
    todo = [i for i, h in enumerate(hashes) if h is None]
    for i in todo:  # sequential: a thread pool cost more CPU than it saved for ~2,500 small files
        hashes[i] = _hash_file(files[i][1])
    now = time.time_ns()
    done = [h or "" for h in hashes]
    settled = {i for i in todo if done[i] and _settled(files[i][2], now)}
    with _LOCK:
        for i in settled:
            _MEMO[files[i][1]] = (files[i][2], done[i])
    if stamp_path is not None and (todo or (stamps and len(files) != len(stamps))):
        hashed = set(todo)
        fresh = {rel: (key, done[i]) for i, (rel, _, key) in enumerate(files) if i not in hashed or i in settled}
        _save_stamps(stamp_path, root, fresh)
    return done


def fingerprints(roots: Sequence[Path], *, stamp_dir: Path | bool | None = True) -> tuple[str, str]:
    """The fingerprint of the ordered roots (:func:`fingerprint`) and its portable twin, in one walk.

    The portable fingerprint hashes the same files, but names each root by its place in the order
    instead of its path: the same headers installed elsewhere (another venv, another machine) get the
    same one. Precompiled packs key their entries with it; the persistent cache, with the first.

    Parameters
    ----------
    roots:
        Include directories, in search order.
    stamp_dir:
        Where stat-to-hash records persist across processes: ``True`` (default) for the provider
        cache's place when ``CUDA_COOP_ENABLE_CACHE`` is on, ``None``/``False`` for none, or a folder.
    """
    directory = _stamp_dir() if stamp_dir is True else (stamp_dir or None)
    located = hashlib.sha256(b"cuda-coop headers v2\0")
    portable = hashlib.sha256(b"cuda-coop portable headers v1\0")
    for index, given in enumerate(roots):
        root = Path(given)
        located.update(f"root\0{root}\0{root.is_dir()}\n".encode())
        portable.update(f"root\0{index}\0{root.is_dir()}\n".encode())
        files = _walk(root)
        for (rel, _, key), digest in zip(files, _root_hashes(root, files, directory), strict=True):
            line = f"{rel}\0{key[2]}\0{digest}\n".encode()
            located.update(line)
            portable.update(line)
    return located.hexdigest(), portable.hexdigest()


def recorded(roots: Sequence[Path]) -> bool:
    """Whether a fingerprint of ``roots`` is cheap in this process: every root's files hashed here before, or
    their stat-to-hash records kept (with the persistent cache on). Files may have changed since; this only
    says whether a fingerprint would have to hash every file (tens of ms) before it knows."""
    directory = _stamp_dir()
    for given in roots:
        root = Path(given)
        with _LOCK:
            memoised = any(path.startswith(f"{root}{os.sep}") for path in _MEMO)
        if not memoised and (directory is None or not _stamp_file(directory, root).is_file()):
            return False
    return True


def fingerprint(roots: Sequence[Path], *, stamp_dir: Path | bool | None = True) -> str:
    """The content fingerprint of the ordered include roots (see the module docstring); parameters as for
    :func:`fingerprints`."""
    return fingerprints(roots, stamp_dir=stamp_dir)[0]


def _toolkit_for(include: CudaInclude) -> Toolkit:
    return resolve_toolkit(cuda_include=include)


class CompileAttempt:
    """One compile attempt: memoises header identities per ordered roots, and toolkits per CUDA include.

    Parameters
    ----------
    include_resolver:
        Replaces :func:`resolve_cuda_include` (a test seam); called for every :meth:`toolkit` call,
        so the CUDA include selection is checked for each new provider.
    toolkit_resolver:
        Replaces ``resolve_toolkit(cuda_include=...)`` (a test seam); called once per selected
        CUDA include directory in this attempt.
    fingerprinter:
        Replaces :func:`fingerprints` (a test seam); one that returns a single digest gives it as the
        portable one too (stricter: it names the roots by path).
    """

    def __init__(
        self,
        *,
        include_resolver: Callable[[], CudaInclude] = resolve_cuda_include,
        toolkit_resolver: Callable[[CudaInclude], Toolkit] = _toolkit_for,
        fingerprinter: Callable[[Sequence[Path]], str | tuple[str, str]] = fingerprints,
    ) -> None:
        self._resolve_include = include_resolver
        self._resolve_toolkit = toolkit_resolver
        self._fingerprint = fingerprinter
        self._headers: dict[tuple[Path, ...], HeaderIdentity] = {}
        self._toolkits: dict[CudaInclude, Toolkit] = {}
        self._lock = threading.Lock()

    def header_identity(self, include_roots: Sequence[Path]) -> HeaderIdentity:
        """The identity of these include roots, in this order; fingerprinted once per attempt."""
        roots = tuple(Path(r) for r in include_roots)
        with self._lock:
            found = self._headers.get(roots)
            if found is None:
                digests = self._fingerprint(roots)
                digest, portable = digests if isinstance(digests, tuple) else (digests, digests)
                found = self._headers[roots] = HeaderIdentity(roots=roots, digest=digest, portable=portable)
            return found

    def toolkit(self) -> Toolkit:
        """The toolkit for the CUDA include directory selected now; resolved once per selection per attempt.

        Raises what :func:`resolve_cuda_include` and :func:`resolve_toolkit` raise.
        """
        include = self._resolve_include()  # root selection is checked for each new provider
        with self._lock:
            found = self._toolkits.get(include)
            if found is None:
                found = self._toolkits[include] = self._resolve_toolkit(include)
            return found

    def toolkit_identity(self) -> str:
        """:attr:`Toolkit.identity` of this attempt's toolkit."""
        return self.toolkit().identity


def _reset_for_tests() -> None:
    with _LOCK:
        _MEMO.clear()
    _stamp_dir.cache_clear()


def __dir__() -> list[str]:
    return sorted(__all__)
