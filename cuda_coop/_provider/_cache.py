"""Provider caches: an ABC, an in-memory LRU, the persistent on-disk cache, and the process default.

The persistent cache (seed: ``CUDA_COOP_ENABLE_CACHE``) is enabled when this module is imported with
that variable truthy; ``XDG_CACHE_HOME`` / ``LOCALAPPDATA`` are read at the same time
(``_cache_dir.cache_dir``). Entries live in ``<cache dir>/cuda-coop/providers/<aa>/<key>.ltoir``,
content-addressed by the provider key digest (``_key``).

Entry format (all integers little-endian)::

    magic b"CCOOPLTO" | format u32 | key length u16 | key (ASCII hex) | payload length u64
    | SHA-256(payload) | payload (LTO-IR)

A read checks the magic, the format, that the key inside is the key asked for, the length and the
checksum; any mismatch (truncated, garbage, another key) is a miss, and the entry is removed so the
recompiled provider replaces it. Writes go to a unique temporary file in the same directory, then
``os.replace``: readers see a whole entry or none, and concurrent writers of one key each install a
complete entry (the last one wins). The size is bounded: after a write, least recently used entries
(by mtime; a hit refreshes it) are removed until the total is under the bound.

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
import tempfile
import threading
import time
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
    "default_cache",
    "settings",
]

_log = logging.getLogger("cuda.coop")

DEFAULT_MAX_BYTES = 1 << 30
"""Bound of the persistent cache: 1 GiB (a typical provider is ~150 KB of LTO-IR)."""

_MAGIC = b"CCOOPLTO"
_FORMAT = 1
_HEAD = struct.Struct("<8sIH")
_TAIL = struct.Struct("<Q32s")
_SUFFIX = ".ltoir"
_STALE_TMP_SECONDS = 3600


class ProviderCache(abc.ABC):
    """Maps a provider key digest to LTO-IR bytes."""

    @abc.abstractmethod
    def get(self, key: str) -> bytes | None:
        """The bytes stored under ``key``, or None (missing or invalid)."""

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
    """

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes

    def _path(self, key: str) -> Path:
        if len(key) < 8 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"cache keys are lower-case hex digests, got {key!r}")
        return self.root / key[:2] / f"{key}{_SUFFIX}"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        data = decode_entry(key, blob)
        if data is None:
            _log.debug("cuda.coop: cache entry %s is corrupt (%d bytes); removing it", path, len(blob))
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # LRU: a hit makes the entry recent
        return data

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        tmp: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(encode_entry(key, data))
            Path(tmp).replace(path)
            tmp = None
        except OSError as exc:
            _log.debug("cuda.coop: cannot write cache entry %s: %s", path, exc)
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    Path(tmp).unlink()
        self.evict()

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
        """Remove stale temporary files, then least recently used entries beyond :attr:`max_bytes`."""
        now = time.time()
        entries = []
        for path, st in self._entries():
            if path.suffix == _SUFFIX:
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

    def stats(self) -> CacheStats:
        """Number and total size of the entries."""
        sizes = [st.st_size for path, st in self._entries() if path.suffix == _SUFFIX]
        return CacheStats(root=self.root, entries=len(sizes), total_bytes=sum(sizes), max_bytes=self.max_bytes)

    def clear(self) -> None:
        for path, _ in self._entries():
            with contextlib.suppress(OSError):
                path.unlink()
        for shard in list(self.root.glob("??")):
            with contextlib.suppress(OSError):
                shard.rmdir()


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

    def clear(self) -> None:
        self.memory.clear()
        if self.disk is not None:
            self.disk.clear()


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """The persistent cache's configuration, read when this module is imported."""

    enabled: bool
    root: Path


def _read_settings() -> CacheSettings:
    return CacheSettings(
        enabled=_env.flag("CUDA_COOP_ENABLE_CACHE"),
        root=cache_dir() / "cuda-coop" / "providers",
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


def _reset_for_tests() -> None:
    """Re-read the settings (as a fresh import would) and drop the default cache."""
    _STATE["settings"] = _read_settings()
    default_cache.cache_clear()
