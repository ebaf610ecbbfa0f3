"""The precompiled packs this process consults, what they answered, and what a precompile records.

Lookup (:func:`lookup`): the packs of ``_pack_sources.sources()``, in that order. A pack whose
identity (:class:`~._pack.PackIdentity`: cuda-coop version, portable toolkit and header identities)
differs from the compile's is not used; otherwise the first pack holding a sound entry for the key
that serves the compiling DSL's kernels answers. Keys already cover options and arch
(``_key.portable_provider_key``; a kernel's key covers its providers' bytes and its DSL). Every "not used
because ..." goes to the ``cuda.coop`` logger at DEBUG, once per pack and reason, and stays inspectable:
:attr:`Pack.refused <._pack.Pack.refused>` for entries,
:func:`why_not_used` for whole packs; ``python -m cuda.coop`` lists both for every entry. A damaged
file (or one the kernel's link refuses) also warns (:class:`~._pack.PackWarning`), once per pack and
reason: a rebuild or a reinstall fixes it.

Recording (:func:`recording`): while a precompile compiles a kernel in this thread, every provider
and linked kernel it produces or reads is noted with its portable key.

Module state: ``_OPEN`` (opened packs by directory, reopened when the manifest changes), ``_NOTED``
(reasons already said) and ``_WHY`` (each pack's reason at its last lookup), under ``_LOCK``; the
thread-local recorder.
:func:`_reset_for_tests` clears them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .._version import __version__
from ._pack import MANIFEST, Kind, Pack, PackIdentity, PackWarning
from ._toolchain import Toolchain

__all__ = [
    "Recording",
    "active",
    "identity_of",
    "lookup",
    "open_pack",
    "packs",
    "recorder",
    "recording",
    "refuse",
    "why_not_used",
]

_log = logging.getLogger("cuda.coop")
_LOCK = threading.Lock()
_OPEN: dict[Path, tuple[tuple[int, int, int], Pack]] = {}
_NOTED: set[tuple[Path, str]] = set()
_WHY: dict[Path, str | None] = {}
_RECORDER = threading.local()


def open_pack(path: Path, origin: str) -> Pack:
    """The pack at ``path``, opened once per manifest version. Raises ``PackError`` if it is not a pack."""
    try:
        st = (path / MANIFEST).stat()
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        stamp = (0, 0, 0)
    with _LOCK:
        found = _OPEN.get(path)
        if found is not None and found[0] == stamp:
            return found[1]
    pack = Pack(path, origin)
    with _LOCK:
        _OPEN[path] = (stamp, pack)
    return pack


def packs() -> list[Pack]:
    """The configured packs, in lookup order (see ``_pack_sources``).

    Raises
    ------
    ConfigurationError, PackError
        A configured path is relative or is not a pack; an entry point cannot be loaded.
    """
    from .._pack_sources import sources

    return [open_pack(path, origin) for path, origin in sources()]


def identity_of(toolchain: Toolchain) -> PackIdentity:
    """The identity a pack needs to serve a compile with ``toolchain``."""
    headers, toolkit = toolchain.portable
    return PackIdentity(cuda_coop_version=__version__, header_identity=headers, toolkit_identity=toolkit,
                        toolkit=dict(toolchain.toolkit_versions))


def _note(pack: Pack, why: str, *, damaged: bool = False) -> None:
    """Say, once per pack and reason, why ``pack`` (or one of its entries) is not used.

    ``damaged``: a file of the pack is, so a rebuild or a reinstall fixes it: a :class:`PackWarning` too.
    Otherwise (another identity or format) only the ``cuda.coop`` logger hears it, at DEBUG.
    """
    with _LOCK:
        if (pack.path, why) in _NOTED:
            return
        _NOTED.add((pack.path, why))
    _log.debug("cuda.coop: pack %s (%s) is not used: %s", pack.path, pack.origin, why)
    if damaged:
        warnings.warn(
            f"cuda.coop: the precompiled pack {pack.path} ({pack.origin}) is damaged: {why}. What it would have "
            "served is compiled instead; rebuild the pack, or reinstall what installed it",
            PackWarning,
            stacklevel=3,
        )


def why_not_used(pack: Pack) -> str | None:
    """Why this process's last lookup did not use ``pack`` at all (None: it was usable, or not asked)."""
    with _LOCK:
        return _WHY.get(pack.path)


def lookup(kind: Kind, key: str, identity: PackIdentity, dsl: str) -> tuple[bytes, Pack] | None:
    """``(payload, pack)`` of the first configured pack with a sound entry ``key`` for ``identity`` that serves kernels
    of ``dsl`` (``"numba_mlir"``, ``"numba_cuda"``); else None."""
    for pack in packs():
        why = pack.problem or (pack.identity.mismatch(identity) if pack.identity is not None else None)
        with _LOCK:
            _WHY[pack.path] = why
        if why is not None:
            _note(pack, why, damaged=pack.damaged)
            continue
        entry = pack.entry(kind, key)
        if entry is None:
            continue
        if dsl not in entry.dsls:
            _note(pack, f"{entry.file} serves {' and '.join(entry.dsls)} kernels, not {dsl} ones")
            continue
        data = pack.read(kind, key, dsl)
        if data is not None:
            return data, pack
        _note(pack, pack.refused.get(key, "refused"), damaged=True)
    return None


def refuse(pack: Pack, kind: Kind, key: str, why: str) -> None:
    """Stop serving ``key`` from ``pack`` in this process (the kernel's link failed with it), and say so."""
    pack.refuse(key, why)
    entry = pack.entry(kind, key)
    _note(pack, f"{entry.file if entry is not None else key}: {why}", damaged=True)


@dataclass
class Recording:
    """What the kernels compiled under :func:`recording` were made of."""

    providers: dict[str, tuple[bytes, Toolchain, tuple[str, ...]]] = field(default_factory=dict)
    """Portable provider key -> (LTO-IR, the toolchain it was compiled with, its NVRTC options as the key has them)."""
    kernels: dict[str, tuple[bytes, tuple[str, ...]]] = field(default_factory=dict)
    """Portable link key -> (cubin, the portable keys of its providers)."""


def recorder() -> Recording | None:
    """The recording in progress in this thread, if any."""
    found: Recording | None = getattr(_RECORDER, "current", None)
    return found


@contextlib.contextmanager
def recording() -> Iterator[Recording]:
    """Record, in this thread, every provider and linked kernel compiled (or read) until the block ends."""
    previous = recorder()
    _RECORDER.current = Recording()
    try:
        yield _RECORDER.current
    finally:
        _RECORDER.current = previous


def active() -> bool:
    """Whether kernel links should be keyed for packs: a pack is configured or a precompile records."""
    return recorder() is not None or bool(packs())


def _reset_for_tests() -> None:
    with _LOCK:
        _OPEN.clear()
        _NOTED.clear()
        _WHY.clear()
    from .. import _pack_sources

    _pack_sources._reset_for_tests()


def __dir__() -> list[str]:
    return sorted(__all__)

