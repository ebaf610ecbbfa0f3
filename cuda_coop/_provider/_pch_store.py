"""Precompiled headers kept across processes in the persistent cache: ``<cache dir>/cuda-coop/pch``.

With ``CUDA_COOP_ENABLE_CACHE`` on, a process whose NVRTC PCH heap sits at the machine's canonical
address (``_pch_heap``) looks its precompiled header up here before building one, and a build it starts
is kept here, so that a new process's first compile skips parsing CCCL. An entry is a pair:

- ``<key>.pch``: NVRTC's file (~130-160 MB);
- ``<key>.json``: its seal, ``{"format", "size", "sha256", "stat": [dev, ino, size, mtime_ns, ctime_ns]}``.

The key (:func:`store_key`) covers the preamble, the NVRTC options (arch, C++ dialect, include roots), the
in-memory headers, the header identity (contents of every header under the roots), the toolkit identity
(NVRTC's library and version) and the heap's address and size.

NVRTC maps a PCH file and trusts it: a truncated one kills the process with ``SIGBUS``, a damaged one with
``SIGSEGV`` (measured, NVRTC 13.0.88). A file is therefore used only when its seal vouches for it: its stat
identity is the seal's (nothing wrote to it since the seal was made: no user call sets a ctime back), or
else its size and SHA-256 are (then the seal is renewed). Anything else is a miss, and the entry is
rebuilt. A writer builds ``.<key>.<unique>.part`` and renames it into place (its own process may use it
from then on), then flushes it to disk and writes the seal, atomically. A hit renews the seal's mtime; at
most :data:`KEEP` entries are kept, the least recently used going first, and a part or an unsealed file
older than an hour (a build killed midway) is removed.

Module state: :func:`default_store` (``functools.cache``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ._cache import settings

__all__ = ["KEEP", "NamedLater", "PchStore", "StoreStats", "default_store", "store_key"]

_log = logging.getLogger("cuda.coop")

KEEP = 4
"""Entries kept: one per (arch, options, headers) a user compiles for, ~0.6 GB at most."""
_FORMAT = 1
_STALE_PART_SECONDS = 3600.0


def store_key(pch_key: str, identity: str, address: int, heap_bytes: int) -> str:
    """The entry's name: 32 hex digits over the in-process PCH key (preamble, options, in-memory headers),
    the header and toolkit identity, and the heap's address and size."""
    h = hashlib.sha256(f"cuda-coop pch v{_FORMAT}\0{pch_key}\0{identity}\0{address:#x}\0{heap_bytes}".encode())
    return h.hexdigest()[:32]


def _stat_identity(st: os.stat_result) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    with path.open("rb") as fh:
        while n := fh.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class StoreStats:
    root: Path
    entries: int
    total_bytes: int


class PchStore:
    """The directory of kept precompiled headers (see the module docstring)."""

    def __init__(self, root: Path, keep: int = KEEP) -> None:
        self.root = Path(root)
        self.keep = keep

    def path(self, key: str) -> Path:
        """Where entry ``key``'s PCH is (or will be)."""
        return self.root / f"{key}.pch"

    def _seal_path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def part(self, key: str) -> Path:
        """A new private path in the store for a build of ``key`` (the directory is created)."""
        self.root.mkdir(parents=True, exist_ok=True)
        return self.root / f".{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}.part"

    def find(self, key: str) -> Path | None:
        """Entry ``key``'s PCH when its seal vouches for it (see the module docstring), else None."""
        path, seal_path = self.path(key), self._seal_path(key)
        try:
            seal = json.loads(seal_path.read_text(encoding="utf-8"))
            st = path.stat()
            if seal.get("format") != _FORMAT or seal.get("size") != st.st_size:
                return None
            if seal.get("stat") != _stat_identity(st):
                if _sha256(path) != seal.get("sha256"):
                    _log.debug("cuda.coop: kept precompiled header %s does not match its seal", path)
                    return None
                self._write_seal(key, st, seal["sha256"])
            with contextlib.suppress(OSError):
                os.utime(seal_path)  # least recently used goes first
            return path
        except (OSError, ValueError, TypeError, AttributeError):
            return None

    def seal(self, key: str, part: Path, placed: Callable[[Path], object] = lambda _: None) -> bool:
        """Publish a finished build at ``part`` as entry ``key``: rename it into place, call ``placed`` with its
        path (the file is usable from then on), then flush it to disk, seal it and trim the store; whether it was
        placed."""
        path = self.path(key)
        try:
            part.replace(path)
        except OSError as exc:
            _log.debug("cuda.coop: could not keep precompiled header %s: %s", key, exc)
            with contextlib.suppress(OSError):
                part.unlink()
            return False
        placed(path)
        try:
            with path.open("rb") as fh:
                os.fsync(fh.fileno())
            self._write_seal(key, path.stat(), _sha256(path))
        except OSError as exc:  # unsealed: no other process trusts it, and it is swept in an hour
            _log.debug("cuda.coop: could not seal precompiled header %s: %s", path, exc)
            return True
        self.trim()
        return True

    def _write_seal(self, key: str, st: os.stat_result, digest: str) -> None:
        payload = {"format": _FORMAT, "size": st.st_size, "sha256": digest, "stat": _stat_identity(st)}
        fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=".json.part", dir=self.root)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(payload))
                fh.flush()
                os.fsync(fh.fileno())
            Path(tmp).replace(self._seal_path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                Path(tmp).unlink()
            raise

    def _entries(self) -> list[tuple[float, str]]:
        """``(seal mtime, key)`` of every sealed entry, newest first; parts and lone files an hour old removed."""
        now = time.time()
        sealed: list[tuple[float, str]] = []
        try:
            items = list(os.scandir(self.root))
        except OSError:
            return sealed
        names = {e.name for e in items}
        for e in items:
            stem, _, suffix = e.name.rpartition(".")
            partner = {"json": f"{stem}.pch", "pch": f"{stem}.json"}.get(suffix)
            with contextlib.suppress(OSError):
                if suffix == "json" and partner in names:
                    sealed.append((e.stat().st_mtime, stem))
                elif (partner or suffix == "part") and now - e.stat().st_mtime > _STALE_PART_SECONDS:
                    Path(e.path).unlink()  # a build killed midway, or half an entry (a seal may be on its way)
        sealed.sort(reverse=True)
        return sealed

    def _remove(self, key: str) -> None:
        for p in (self._seal_path(key), self.path(key)):  # the seal first: a reader never trusts a lone file
            with contextlib.suppress(OSError):
                p.unlink()

    def trim(self) -> None:
        """Keep the :attr:`keep` most recently used entries."""
        for _, key in self._entries()[self.keep :]:
            self._remove(key)

    def stats(self) -> StoreStats:
        """Sealed entries and the bytes of their files."""
        total = count = 0
        for _, key in self._entries():
            with contextlib.suppress(OSError):
                total += self.path(key).stat().st_size
                count += 1
        return StoreStats(root=self.root, entries=count, total_bytes=total)

    def clear(self) -> None:
        """Remove every entry (a build in flight still publishes its own)."""
        for _, key in self._entries():
            self._remove(key)


class NamedLater:
    """The store name of a build forked before its header identity was known (``NvrtcCompiler.prepare``):
    the child computes the identity in a thread while NVRTC, which releases the GIL, builds; then keeps the PCH
    under the name it gives, or leaves it where another process kept one meanwhile."""

    JOIN_SECONDS = 60.0
    """How long the child waits for the identity after its build (a lock copied in the locked state by the fork
    would never be released: the PCH is then not kept, and the process that forked it does not use it)."""

    def __init__(
        self, store: PchStore, key: str, identity: Callable[[], str], name: Callable[[str, str], str | None]
    ) -> None:
        """``identity()``: the header and toolkit identity; ``name(key, identity)``: the entry's name in ``store``
        (None: the heap is not where kept PCHs are, so nothing is kept)."""
        self.store, self.key, self._identity, self._name = store, key, identity, name
        self._result: list[str] = []
        self._thread: threading.Thread | None = None

    def build(self, inner: Callable[[str], bool], part: str) -> bool:
        """In the child: start the identity's thread, then build at ``part``."""
        self._thread = threading.Thread(target=self._resolve, daemon=True)
        self._thread.start()
        return inner(part)

    def _resolve(self) -> None:
        try:
            self._result.append(self._identity())
        except Exception as exc:  # the headers cannot be resolved: the compile will say so; keep nothing
            _log.debug("cuda.coop: no identity for precompiled header %s: %r", self.key, exc)

    def publish(self, part: Path, placed: Callable[[Path], object]) -> bool:
        """In the child, after the build: keep it under its name (:meth:`PchStore.seal`)."""
        if self._thread is not None:
            self._thread.join(self.JOIN_SECONDS)
        skey = self._name(self.key, self._result[0]) if self._result and self._result[0] else None
        if skey is None:
            part.unlink(missing_ok=True)
            return False
        if (found := self.store.find(skey)) is not None:  # kept by another process while this one built
            part.unlink(missing_ok=True)
            placed(found)
            return True
        return self.store.seal(skey, part, placed)


@functools.cache
def default_store() -> PchStore | None:
    """The process's store: ``<cache dir>/cuda-coop/pch`` when the persistent cache is on, else None."""
    conf = settings()
    return PchStore(conf.pch) if conf.enabled else None
