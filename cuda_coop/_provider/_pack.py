"""A precompiled pack: a directory of provider LTO-IR and linked kernels, and the manifest that names them.

Layout (every path in the manifest is relative to the pack, so a pack can be moved or copied)::

    <pack>/manifest.json
    <pack>/providers/<aa>/<key>.ltoir   provider LTO-IR, under _key.portable_provider_key(...).digest
    <pack>/kernels/<aa>/<key>.cubin     linked kernels, under _key.link_key(...) of the portable identities

Each file is a persistent-cache entry (``_cache.encode_entry``: magic, format, key, length, SHA-256,
payload), content-addressed by its key as the cache's are. ``manifest.json`` holds the format
(:data:`PACK_FORMAT`), what the entries were compiled with (:class:`PackIdentity`: cuda-coop version,
CCCL version and revision, portable header and toolkit identities, toolkit versions) and one record per
entry (:class:`PackEntry`: kind, key, file, payload size and SHA-256, arch, kernel, block, the DSLs whose
kernels it serves, ...). An entry serves only kernels of the DSLs it records: a pack built for numba-cuda-mlir
kernels is never used for a numba-cuda kernel, nor the other way round.

Reading never trusts a file: an entry is served only when its file decodes as an entry for its key and
its payload has the size and SHA-256 the manifest records; anything else refuses that entry (the
reason is kept in :attr:`Pack.refused`). Writing (:class:`PackWriter`) writes each file atomically and
the manifest last, so a pack being written is never read half-done.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from ..errors import PackError
from ._cache import _write_atomically, decode_entry, encode_entry

__all__ = ["MANIFEST", "PACK_FORMAT", "Pack", "PackEntry", "PackIdentity", "PackWarning", "PackWriter"]

PACK_FORMAT = 2
"""The manifest format this cuda-coop writes and reads (2: each entry records its DSLs)."""
MANIFEST = "manifest.json"
_SUFFIX = {"provider": ".ltoir", "kernel": ".cubin"}
_DIRECTORY = {"provider": "providers", "kernel": "kernels"}
Kind = Literal["provider", "kernel"]


class PackWarning(UserWarning):
    """A file of a precompiled pack is damaged: the entry is not used and the kernel compiles as usual."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PackIdentity:
    """What a pack's entries were compiled with; a pack serves only a process that compiles with the same."""

    cuda_coop_version: str
    header_identity: str
    """The portable header identity (``_identity.fingerprints``): contents of the ordered include roots."""
    toolkit_identity: str
    """The portable toolkit identity (``_toolkit.Toolkit.portable_identity``): the versions below."""
    toolkit: Mapping[str, str] = field(default_factory=dict)
    """NVRTC, nvrtc-builtins, nvJitLink and CUDA headers versions (for people; the identity hashes them)."""
    cccl_version: str = ""
    cccl_revision: str = ""

    def mismatch(self, current: PackIdentity) -> str | None:
        """Why entries compiled with this identity are not used by a process with ``current`` (None: they are)."""
        if self.cuda_coop_version != current.cuda_coop_version:
            return f"built by cuda-coop {self.cuda_coop_version}; this is cuda-coop {current.cuda_coop_version}"
        if self.toolkit_identity != current.toolkit_identity:
            theirs, ours = _versions(self.toolkit), _versions(current.toolkit)
            return f"built with toolkit {theirs}; this process compiles with {ours}"
        if self.header_identity != current.header_identity:
            return (
                f"built against other headers (CCCL {self.cccl_version or '?'}, revision {self.cccl_revision or '?'}, "
                f"header identity {self.header_identity[:16]}); this process compiles against header identity "
                f"{current.header_identity[:16]}"
            )
        return None


def _versions(toolkit: Mapping[str, str]) -> str:
    return ", ".join(f"{name} {version}" for name, version in toolkit.items()) or "(versions not recorded)"


@dataclass(frozen=True, kw_only=True, slots=True)
class PackEntry:
    """One entry of a pack's manifest."""

    kind: Kind
    key: str
    file: str
    """Relative to the pack, ``/``-separated."""
    size: int
    sha256: str
    """Of the payload (LTO-IR or cubin), not of the file."""
    arch: str
    kernel: str
    """``module.qualname`` of the kernel it was compiled for."""
    block: tuple[int, int, int]
    dsls: tuple[str, ...]
    """The DSLs whose kernels the entry serves (``"numba_mlir"``, ``"numba_cuda"``): a kernel's, the one that
    compiled it; a provider's, those of the kernels it was compiled for."""
    options: tuple[str, ...] = ()
    """A provider's NVRTC options, with the include roots named by their place."""
    signature: str = ""
    grid: tuple[int, int, int] = (1, 1, 1)
    providers: tuple[str, ...] = ()
    """A kernel's providers (their keys)."""
    seconds: float = 0.0
    """How long the kernel took to compile when the pack was built."""


def _entry_path(kind: Kind, key: str) -> str:
    return f"{_DIRECTORY[kind]}/{key[:2]}/{key}{_SUFFIX[kind]}"


def _check_key(key: object) -> str:
    if not isinstance(key, str) or len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        raise ValueError(f"key {key!r} is not 64 lower-case hex digits")
    return key


def _dims(value: object) -> tuple[int, int, int]:
    if not (isinstance(value, list) and len(value) == 3 and all(type(v) is int and v > 0 for v in value)):
        raise ValueError(f"{value!r} is not 3 positive integers")
    return (value[0], value[1], value[2])


def _strings(value: object, what: str) -> tuple[str, ...]:
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise ValueError(f"{what} {value!r} is not a list of strings")
    return tuple(value)


def _parse_entry(raw: object) -> PackEntry:
    if not isinstance(raw, dict):
        raise ValueError(f"an entry is {type(raw).__name__}, not an object")
    kind, key = raw.get("kind"), _check_key(raw.get("key"))
    if kind not in _SUFFIX:
        raise ValueError(f"entry {key[:16]}: kind {kind!r} is neither 'provider' nor 'kernel'")
    if raw.get("file") != _entry_path(kind, key):  # never a path out of the pack
        raise ValueError(f"entry {key[:16]}: file {raw.get('file')!r} is not {_entry_path(kind, key)!r}")
    size, sha, seconds = raw.get("size"), raw.get("sha256"), raw.get("seconds", 0.0)
    if type(size) is not int or size < 0 or not isinstance(sha, str) or len(sha) != 64:
        raise ValueError(f"entry {key[:16]}: size {size!r} or sha256 {sha!r} is malformed")
    texts = {name: raw.get(name, "") for name in ("arch", "kernel", "signature")}
    if not all(isinstance(v, str) for v in texts.values()) or not isinstance(seconds, int | float):
        raise ValueError(f"entry {key[:16]}: arch, kernel, signature or seconds is malformed")
    dsls = _strings(raw.get("dsls"), "dsls")
    if not dsls or (kind == "kernel" and len(dsls) != 1):
        raise ValueError(f"entry {key[:16]}: dsls {list(dsls)!r} names no DSL, or several for a kernel")
    return PackEntry(
        kind=kind, key=key, file=raw["file"], size=size, sha256=sha, arch=texts["arch"], kernel=texts["kernel"],
        block=_dims(raw.get("block")), dsls=dsls, options=_strings(raw.get("options", []), "options"),
        signature=texts["signature"], grid=_dims(raw.get("grid", [1, 1, 1])),
        providers=tuple(_check_key(k) for k in _strings(raw.get("providers", []), "providers")),
        seconds=float(seconds),
    )


def _parse_identity(raw: dict[str, Any]) -> PackIdentity:
    cccl, toolkit = raw.get("cccl", {}), raw.get("toolkit", {})
    texts = (raw.get("cuda_coop_version"), raw.get("header_identity"), raw.get("toolkit_identity"))
    if not all(isinstance(t, str) and t for t in texts):
        raise ValueError("cuda_coop_version, header_identity or toolkit_identity is missing")
    if not (isinstance(cccl, dict) and isinstance(toolkit, dict)
            and all(isinstance(v, str) for v in (*cccl.values(), *toolkit.values()))):
        raise ValueError("cccl or toolkit is not an object of strings")
    return PackIdentity(
        cuda_coop_version=str(texts[0]), header_identity=str(texts[1]), toolkit_identity=str(texts[2]),
        toolkit=dict(toolkit), cccl_version=cccl.get("version", ""), cccl_revision=cccl.get("revision", ""),
    )


@dataclass(frozen=True, slots=True)
class _Manifest:
    format: int
    identity: PackIdentity | None
    entries: tuple[PackEntry, ...]


def _read_manifest(path: Path) -> _Manifest:
    """The manifest at ``path``; ``ValueError`` or ``OSError`` saying what is wrong with it."""
    try:
        raw = json.loads(path.read_bytes())
        if not isinstance(raw, dict) or type(raw.get("format")) is not int:
            raise ValueError("it has no integer 'format'")
        if raw["format"] != PACK_FORMAT:  # another format: its identity and entries are not read
            return _Manifest(raw["format"], None, ())
        entries = raw.get("entries")
        if not isinstance(entries, list):
            raise ValueError("it has no list of 'entries'")
        return _Manifest(PACK_FORMAT, _parse_identity(raw), tuple(_parse_entry(e) for e in entries))
    except (TypeError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
        raise ValueError(str(exc)) from None


class Pack:
    """A pack directory, opened for reading.

    Parameters
    ----------
    path:
        The pack's directory (holding ``manifest.json``).
    origin:
        Where it was configured (``cuda.coop.add_pack``, ``CUDA_COOP_PACK_PATH``, an entry point), for messages.

    Raises
    ------
    PackError
        ``path`` is not a directory holding ``manifest.json``. A manifest that cannot be read or parsed
        does not raise: :attr:`problem` says why the pack serves nothing.
    """

    def __init__(self, path: Path, origin: str = "") -> None:
        self.path = Path(path)
        self.origin = origin
        manifest = self.path / MANIFEST
        if not manifest.is_file():
            what = "does not exist" if not self.path.exists() else f"has no {MANIFEST}"
            raise PackError(
                f"{self.path} ({origin or 'pack'}) is not a cuda-coop pack: it {what}. Give the directory "
                "python -m cuda.coop precompile --out wrote"
            )
        self.problem: str | None = None
        """Why the whole pack serves nothing: a damaged manifest, or another format (None: it can serve)."""
        self.damaged = False
        """Whether :attr:`problem` is a damaged manifest (rather than another format)."""
        self.identity: PackIdentity | None = None
        self.entries: tuple[PackEntry, ...] = ()
        try:
            parsed = _read_manifest(manifest)
        except (OSError, ValueError) as exc:
            self.problem, self.damaged = f"its {MANIFEST} is damaged or unreadable ({exc})", True
        else:
            self.identity, self.entries = parsed.identity, parsed.entries
            if parsed.format != PACK_FORMAT:
                self.problem = (
                    f"it is in pack format {parsed.format} and this cuda-coop reads format {PACK_FORMAT}; "
                    "rebuild it with this cuda-coop"
                )
        self._index = {(e.kind, e.key): e for e in self.entries}
        self.refused: dict[str, str] = {}
        """Entry key -> why it was refused (a damaged file, or a link that failed with it)."""
        self._lock = threading.Lock()

    def entry(self, kind: Kind, key: str) -> PackEntry | None:
        """The manifest's record of ``key``, or None."""
        return self._index.get((kind, key))

    def verify(self, entry: PackEntry) -> tuple[bytes | None, str | None]:
        """``(payload, None)`` if ``entry``'s file is whole and is what the manifest says; else ``(None, why)``."""
        path = self.path / PurePosixPath(entry.file)
        try:
            blob = path.read_bytes()
        except OSError as exc:
            return None, f"{entry.file} cannot be read ({exc.strerror or exc})"
        data = decode_entry(entry.key, blob)
        if data is None:
            return None, f"{entry.file} is not a whole entry for its key (truncated or overwritten, {len(blob)} bytes)"
        if len(data) != entry.size or hashlib.sha256(data).hexdigest() != entry.sha256:
            return None, f"{entry.file} does not hold what the manifest records (size or SHA-256 differs)"
        return data, None

    def read(self, kind: Kind, key: str, dsl: str) -> bytes | None:
        """The payload under ``key`` if this pack holds a sound entry for it that serves ``dsl``'s kernels; None
        otherwise.

        A damaged entry is refused (its reason kept in :attr:`refused`) and reads as None.
        """
        entry = self._index.get((kind, key))
        if entry is None or self.problem is not None or dsl not in entry.dsls:
            return None
        with self._lock:
            if key in self.refused:
                return None
        data, why = self.verify(entry)
        if why is not None:
            self.refuse(key, why)
        return data

    def refuse(self, key: str, why: str) -> None:
        """Stop serving ``key`` in this process, for ``why``."""
        with self._lock:
            self.refused.setdefault(key, why)

    def __repr__(self) -> str:
        return f"<Pack {self.path} ({len(self.entries)} entries)>"


class PackWriter:
    """Writes entries into a pack directory, then its manifest (:meth:`commit`).

    A directory that holds a pack already keeps its entries when the identity is the same (a pack is
    built for several arches, or in several runs); new entries of the same key replace old ones.

    Parameters
    ----------
    out:
        The pack's directory; created if missing.
    identity:
        What the entries are compiled with.

    Raises
    ------
    PackError
        ``out`` is a file, a directory with other content than a pack, or a pack of another identity or format.
    """

    def __init__(self, out: Path, identity: PackIdentity) -> None:
        self.out = Path(out)
        self.identity = identity
        self._entries: dict[tuple[str, str], PackEntry] = {}
        if self.out.exists() and not self.out.is_dir():
            raise PackError(f"precompile(out={str(self.out)!r}): it is a file; give a directory for the pack")
        if (self.out / MANIFEST).is_file():
            try:
                old = _read_manifest(self.out / MANIFEST)
            except (OSError, ValueError) as exc:
                raise PackError(
                    f"precompile(out={str(self.out)!r}) holds a damaged pack ({exc}); remove it, or write the new "
                    "pack to an empty directory"
                ) from None
            reason = "another pack format" if old.identity is None else old.identity.mismatch(identity)
            if reason is not None:
                raise PackError(
                    f"precompile(out={str(self.out)!r}) holds a pack of another identity ({reason}); write the new "
                    "pack to an empty directory, or remove the old one first"
                )
            self._entries = {(e.kind, e.key): e for e in old.entries}
        elif self.out.is_dir() and any(self.out.iterdir()):
            raise PackError(
                f"precompile(out={str(self.out)!r}) is a directory that is not empty and holds no pack; give an "
                "empty or new directory"
            )

    def add(self, kind: Kind, key: str, data: bytes, *, dsl: str, **meta: Any) -> PackEntry:
        """Write ``data`` as the entry ``key`` of ``kind`` for a kernel of ``dsl`` (``meta``: the :class:`PackEntry`
        fields besides). A provider already in the pack for another DSL's kernels serves both."""
        old = self._entries.get((kind, key))
        dsls = tuple(sorted({dsl, *(old.dsls if old is not None and kind == "provider" else ())}))
        entry = PackEntry(kind=kind, key=_check_key(key), file=_entry_path(kind, key), size=len(data),
                          sha256=hashlib.sha256(data).hexdigest(), dsls=dsls, **meta)
        _write_atomically(self.out / PurePosixPath(entry.file), encode_entry(key, data), prefix=f".{key[:16]}.")
        self._entries[(kind, key)] = entry
        return entry

    @property
    def entries(self) -> tuple[PackEntry, ...]:
        """Every entry the manifest will list, by kernel, block and arch, each kernel's providers first."""
        return tuple(sorted(self._entries.values(), key=lambda e: (e.kernel, e.block, e.arch, e.kind != "provider",
                                                                     e.key)))

    def commit(self) -> Path:
        """Write the manifest (atomically); returns its path."""
        ident = self.identity
        manifest = {
            "format": PACK_FORMAT,
            "cuda_coop_version": ident.cuda_coop_version,
            "cccl": {"version": ident.cccl_version, "revision": ident.cccl_revision},
            "header_identity": ident.header_identity,
            "toolkit_identity": ident.toolkit_identity,
            "toolkit": dict(ident.toolkit),
            "entries": [asdict(e) for e in self.entries],  # tuples become lists
        }
        path = self.out / MANIFEST
        _write_atomically(path, (json.dumps(manifest, indent=1) + "\n").encode(), prefix=".manifest.")
        return path
