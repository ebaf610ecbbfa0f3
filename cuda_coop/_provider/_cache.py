"""Provider caches: an ABC, an in-memory LRU, the persistent on-disk cache, and the process default.

The persistent cache (seed: ``CUDA_COOP_ENABLE_CACHE``) is enabled when this module is imported with
that variable truthy; ``XDG_CACHE_HOME`` / ``LOCALAPPDATA`` are read at the same time
(``_cache_dir.cache_dir``). Providers live in ``<cache dir>/cuda-coop/providers/<aa>/<key>.ltoir``,
content-addressed by the provider key digest (``_key.provider_key``); kernels linked with them (cubins)
in ``<cache dir>/cuda-coop/kernels/<aa>/<key>.cubin``, by the link's key (``_key.link_key``). Each
directory is a :class:`DiskCache` of its own, with its own size bound.

Entry format (all integers little-endian)::

    magic b"CCOOPLTO" | format u32 | key length u16 | key (ASCII hex) | payload length u64
    | SHA-256(payload) | payload (LTO-IR, or a cubin)

A read checks the magic, the format, that the key inside is the key asked for, the length and the
checksum; any failure is a miss, and the entry is removed so the recompiled provider (or the relinked
kernel) replaces it.
Whether the payload links is checked by the kernel's link (``Provider.recompile``). The removal is guarded:
the file is first renamed aside, and if it is not the very file that was read (another process
replaced it meanwhile) it is linked back, so a fresh entry is never deleted.

Writes go to a unique temporary file in the same directory, are flushed to disk (``fsync``), then
renamed over the entry (``os.replace``): readers see a whole entry or none, a crash leaves at most a
temporary file (swept after an hour), and concurrent writers of one key each install a complete entry
(the last one wins). A directory that cannot be written (read-only, or a file in its place) is
reported once per process with a :class:`ProviderCacheWarning` naming the directory and the fix.

The size is bounded without walking the directory on every write: the first write of a process
walks it (removing least recently used entries, by mtime, until the total is under the bound, and
stale temporary files); later writes add their size to that total and walk again only when it
exceeds the bound or every :attr:`DiskCache.check_every` writes (other processes write too).

Module state (STYLE 14): ``_STATE`` (settings read at import), :func:`default_cache` (``functools.cache``);
``_reset_for_tests`` re-reads the settings.
"""

from __future__ import annotations

import abc
import contextlib
import functools
import hashlib
import logging
import os
import struct
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import _env
from .._cache_dir import cache_dir

__all__ = [
    "DEFAULT_MAX_BYTES",
    "CacheSettings",
    "DiskCache",
    "LayeredCache",
    "MemoryCache",
    "ProviderCache",
    "ProviderCacheWarning",
    "default_cache",
    "default_link_cache",
    "kernel_disk_cache",
    "settings",
]

_log = logging.getLogger("cuda.coop")

DEFAULT_MAX_BYTES = 1 << 30
"""Bound of the persistent cache: 1 GiB (a typical provider is ~150 KB of LTO-IR)."""

_MAGIC = b"CCOOPLTO"
_FORMAT = 1
_HEAD = struct.Struct("<8sIH")
_TAIL = struct.Struct("<Q32s")
_STALE_TMP_SECONDS = 3600

class ProviderCacheWarning(UserWarning):
    """The persistent provider cache is enabled but its directory cannot be used."""


class ProviderCache(abc.ABC):
    """Maps a provider key digest to LTO-IR bytes."""

    @abc.abstractmethod
    def get(self, key: str) -> bytes | None:
        """The bytes stored under ``key``, or None (missing or invalid: an invalid entry is removed)."""

    @abc.abstractmethod
    def discard(self, key: str) -> None:
        """Remove ``key`` if present."""

    @abc.abstractmethod
    def put(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key`` (replacing what was there). Never raises for I/O problems."""

    @abc.abstractmethod
    def clear(self) -> None:
        """Remove every entry."""


class MemoryCache(ProviderCache):
    """An in-process LRU bounded by total bytes."""

    def __init__(self, max_bytes: int = 256 << 20) -> None:
        self.max_bytes = max_bytes
        self._data: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            data = self._data.get(key)
            if data is not None:
                self._data.move_to_end(key)
            return data

    def discard(self, key: str) -> None:
        with self._lock:
            old = self._data.pop(key, None)
            self._size -= len(old) if old is not None else 0

    def put(self, key: str, data: bytes) -> None:
        with self._lock:
            old = self._data.pop(key, None)
            self._size -= len(old) if old is not None else 0
            self._data[key] = data
            self._size += len(data)
            while self._size > self.max_bytes and len(self._data) > 1:
                _, dropped = self._data.popitem(last=False)
                self._size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._size = 0


@dataclass(frozen=True, slots=True)
class CacheStats:
    """What :meth:`DiskCache.stats` reports."""

    root: Path
    entries: int
    total_bytes: int
    max_bytes: int


def encode_entry(key: str, data: bytes) -> bytes:
    """An entry's bytes: header (magic, format, key, length, checksum) then the payload."""
    k = key.encode("ascii")
    return _HEAD.pack(_MAGIC, _FORMAT, len(k)) + k + _TAIL.pack(len(data), hashlib.sha256(data).digest()) + data


def decode_entry(key: str, blob: bytes) -> bytes | None:
    """The payload of ``blob`` if it is a whole, valid entry for ``key``; None otherwise."""
    if len(blob) < _HEAD.size:
        return None
    magic, fmt, klen = _HEAD.unpack_from(blob)
    start = _HEAD.size + klen + _TAIL.size
    if magic != _MAGIC or fmt != _FORMAT or len(blob) < start:
        return None
    if blob[_HEAD.size : _HEAD.size + klen] != key.encode("ascii"):
        return None
    length, digest = _TAIL.unpack_from(blob, _HEAD.size + klen)
    payload = blob[start:]
    if len(payload) != length or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


class DiskCache(ProviderCache):
    """The persistent, content-addressed provider cache (see the module docstring).

    Parameters
    ----------
    root:
        Directory of the entries (created on first write).
    max_bytes:
        Bound on the total size of the entries.
    check_every:
        Writes between two walks of the directory (see the module docstring).
    suffix:
        File name suffix of the entries (``.ltoir`` for providers, ``.cubin`` for linked kernels).
    """

    def __init__(
        self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES, *, check_every: int = 64, suffix: str = ".ltoir"
    ) -> None:
        self.root = Path(root)
        self.suffix = suffix
        self.max_bytes = max_bytes
        self.check_every = check_every
        self.walks = 0
        """Walks of the directory so far (tests check that writes do not walk it each time)."""
        self._lock = threading.Lock()
        self._total: int | None = None
        self._writes_since_walk = 0
        self._warned = False

    def _path(self, key: str) -> Path:
        if len(key) < 8 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"cache keys are lower-case hex digests, got {key!r}")
        return self.root / key[:2] / f"{key}{self.suffix}"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        try:
            with path.open("rb") as f:
                identity = _identity(os.fstat(f.fileno()))
                blob = f.read()
        except OSError:
            return None
        data = decode_entry(key, blob)
        if data is None:
            _log.debug("cuda.coop: cache entry %s is corrupt (%d bytes); removing it", path, len(blob))
            _remove_if_same(path, identity)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # LRU: a hit makes the entry recent
        return data

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        blob = encode_entry(key, data)
        try:
            _write_atomically(path, blob, prefix=f".{key[:16]}.")
        except OSError as exc:
            self._warn_once(exc)
            return
        with self._lock:
            self._writes_since_walk += 1
            if self._total is not None:
                self._total += len(blob)
            walk = self._total is None or self._total > self.max_bytes or self._writes_since_walk >= self.check_every
        if walk:
            self.evict()

    def discard(self, key: str) -> None:
        with contextlib.suppress(OSError):
            self._path(key).unlink()

    def _warn_once(self, exc: OSError) -> None:
        _log.debug("cuda.coop: cannot write to the cache %s: %s", self.root, exc)
        with self._lock:
            if self._warned:
                return
            self._warned = True
        warnings.warn(
            f"cuda.coop: the cache directory {self.root} cannot be written ({exc}); nothing is cached on "
            f"disk in this process. {_FIX}",
            ProviderCacheWarning,
            stacklevel=2,
        )

    def problem(self) -> str | None:
        """Why entries cannot be written to :attr:`root` (None if they can); creates nothing."""
        return _directory_problem(self.root)

    def _entries(self) -> Iterator[tuple[Path, os.stat_result]]:
        try:
            shards = list(os.scandir(self.root))
        except OSError:
            return
        for shard in shards:
            if not shard.is_dir():
                continue
            with contextlib.suppress(OSError), os.scandir(shard.path) as it:
                for entry in it:
                    with contextlib.suppress(OSError):
                        yield Path(entry.path), entry.stat()

    def evict(self) -> None:
        """Walk the directory: remove stale temporary files, then LRU entries beyond :attr:`max_bytes`."""
        now = time.time()
        entries = []
        for path, st in self._entries():
            if path.suffix == self.suffix:
                entries.append((st.st_mtime, st.st_size, path))
            elif now - st.st_mtime > _STALE_TMP_SECONDS:  # left by a killed writer
                with contextlib.suppress(OSError):
                    path.unlink()
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
        with self._lock:
            self.walks += 1
            self._total, self._writes_since_walk = total, 0

    def stats(self) -> CacheStats:
        """Number and total size of the entries."""
        sizes = [st.st_size for path, st in self._entries() if path.suffix == self.suffix]
        return CacheStats(root=self.root, entries=len(sizes), total_bytes=sum(sizes), max_bytes=self.max_bytes)

    def clear(self) -> None:
        for path, _ in self._entries():
            with contextlib.suppress(OSError):
                path.unlink()
        for shard in list(self.root.glob("??")):
            with contextlib.suppress(OSError):
                shard.rmdir()
        with self._lock:
            self._total = None


_FIX = (
    "Make it a writable directory, or point XDG_CACHE_HOME (LOCALAPPDATA on Windows) at a writable location, "
    "or unset CUDA_COOP_ENABLE_CACHE."
)


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _remove_if_same(path: Path, identity: tuple[int, int, int, int]) -> None:
    """Remove ``path`` only if it is still the file with ``identity`` (never an entry written since)."""
    aside = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.bad.tmp")
    try:
        path.rename(aside)  # atomic: from here on, nobody else sees or replaces this file
    except OSError:
        return  # gone already (another reader removed it, or a writer is replacing it)
    try:
        if _identity(aside.stat()) == identity:
            return
        with contextlib.suppress(FileExistsError):  # not ours: put it back, unless a newer one is there
            os.link(aside, path)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            aside.unlink()


def _write_atomically(path: Path, blob: bytes, *, prefix: str) -> None:
    """Write ``blob`` to a temporary file beside ``path``, fsync it, rename it over ``path``, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
    if sys.platform != "win32":  # make the rename itself durable (best effort)
        with contextlib.suppress(OSError):
            dfd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


def _directory_problem(root: Path) -> str | None:
    """Why files cannot be created in ``root`` (or in the directories it would be created in)."""
    probe = root
    while not probe.exists():
        if probe.parent == probe:
            return f"no existing parent directory of {root}"
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is not a directory"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable"
    if probe == root:
        try:
            fd, tmp = tempfile.mkstemp(prefix=".probe.", suffix=".tmp", dir=root)
        except OSError as exc:
            return f"cannot create files in {root}: {exc}"
        os.close(fd)
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
    return None


class LayeredCache(ProviderCache):
    """The memory cache in front of an optional disk cache; disk hits are promoted to memory."""

    def __init__(self, memory: MemoryCache, disk: DiskCache | None) -> None:
        self.memory = memory
        self.disk = disk

    def get(self, key: str) -> bytes | None:
        data = self.memory.get(key)
        if data is None and self.disk is not None:
            data = self.disk.get(key)
            if data is not None:
                self.memory.put(key, data)
        return data

    def put(self, key: str, data: bytes) -> None:
        self.memory.put(key, data)
        if self.disk is not None:
            self.disk.put(key, data)

    def discard(self, key: str) -> None:
        self.memory.discard(key)
        if self.disk is not None:
            self.disk.discard(key)

    def clear(self) -> None:
        self.memory.clear()
        if self.disk is not None:
            self.disk.clear()


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """The persistent cache's configuration, read when this module is imported."""

    enabled: bool
    root: Path
    """Where providers (LTO-IR) are kept."""
    kernels: Path
    """Where kernels linked with providers (cubins) are kept."""
    pch: Path
    """Where precompiled headers are kept (``_pch_store``)."""


def _read_settings() -> CacheSettings:
    base = cache_dir() / "cuda-coop"
    return CacheSettings(
        enabled=_env.flag("CUDA_COOP_ENABLE_CACHE"), root=base / "providers", kernels=base / "kernels", pch=base / "pch"
    )


_STATE = {"settings": _read_settings()}


def settings() -> CacheSettings:
    """Whether the persistent cache is on, and where it is (as read at import)."""
    return _STATE["settings"]


@functools.cache
def default_cache() -> LayeredCache:
    """The process-wide cache: memory, plus the disk cache when ``CUDA_COOP_ENABLE_CACHE`` was set."""
    conf = settings()
    return LayeredCache(MemoryCache(), DiskCache(conf.root) if conf.enabled else None)


@functools.cache
def default_link_cache() -> DiskCache | None:
    """The process-wide cache of linked kernels: on disk when ``CUDA_COOP_ENABLE_CACHE`` was set, else None.

    There is no memory layer: numba-cuda-mlir keeps every kernel it linked in memory already.
    """
    conf = settings()
    return kernel_disk_cache(conf.kernels) if conf.enabled else None


def kernel_disk_cache(root: Path) -> DiskCache:
    """The on-disk cache of linked kernels (cubins) at ``root``."""
    return DiskCache(root, DEFAULT_MAX_BYTES, suffix=".cubin")


def _reset_for_tests() -> None:
    """Re-read the settings (as a fresh import would) and drop the default caches."""
    _STATE["settings"] = _read_settings()
    default_cache.cache_clear()
    default_link_cache.cache_clear()
