"""The kept precompiled headers (``_pch_store``) and the heap placement's arithmetic (``_pch_heap``), host only."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from cuda.coop._provider import _pch_heap
from cuda.coop._provider._pch_store import KEEP, PchStore, store_key


def _kept(store: PchStore, key: str, data: bytes = b"PCH" * 1000) -> Path:
    part = store.part(key)
    part.write_bytes(data)
    assert store.seal(key, part) and not part.exists()
    return store.path(key)


def test_a_sealed_entry_is_found(tmp_path: Path) -> None:
    store = PchStore(tmp_path / "pch")
    path = _kept(store, "k1")
    assert store.find("k1") == path and store.find("k2") is None
    seal = json.loads((tmp_path / "pch" / "k1.json").read_text())
    assert seal["size"] == path.stat().st_size and len(seal["sha256"]) == 64


def test_the_key_names_every_component() -> None:
    base = store_key("pch", "headers\0toolkit", 0x600000000000, 512 << 20)
    others = [store_key("pch2", "headers\0toolkit", 0x600000000000, 512 << 20),
              store_key("pch", "headers2\0toolkit", 0x600000000000, 512 << 20),
              store_key("pch", "headers\0toolkit", 0x600000200000, 512 << 20),
              store_key("pch", "headers\0toolkit", 0x600000000000, 256 << 20)]
    assert len({base, *others}) == 5 and len(base) == 32


def test_a_truncated_or_rewritten_file_is_never_trusted(tmp_path: Path) -> None:
    # NVRTC maps the file it is given: a truncated one is SIGBUS, a damaged one SIGSEGV (measured).
    store = PchStore(tmp_path)
    path = _kept(store, "k")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert store.find("k") is None
    path = _kept(store, "k", data)
    st = path.stat()
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(damaged))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime: only the ctime tells
    assert store.find("k") is None


def test_a_copy_with_the_same_contents_is_rehashed_and_resealed(tmp_path: Path) -> None:
    store = PchStore(tmp_path)
    path = _kept(store, "k")
    path.write_bytes(path.read_bytes())  # another stat identity, same bytes (a restored backup)
    seal = tmp_path / "k.json"
    before = json.loads(seal.read_text())["stat"]
    assert store.find("k") == path
    after = json.loads(seal.read_text())["stat"]
    assert after != before and after[4] == path.stat().st_ctime_ns


def test_a_lone_file_or_seal_is_not_an_entry(tmp_path: Path) -> None:
    store = PchStore(tmp_path)
    (tmp_path / "k.pch").write_bytes(b"x")  # a seal may be on its way
    assert store.find("k") is None and store.stats().entries == 0
    path = _kept(store, "j")
    path.unlink()
    assert store.find("j") is None


def test_trim_keeps_the_most_recently_used_and_sweeps_old_parts(tmp_path: Path) -> None:
    store = PchStore(tmp_path, keep=KEEP + 2)
    old = time.time() - 100
    for i in range(KEEP + 2):
        _kept(store, f"k{i}")
        os.utime(tmp_path / f"k{i}.json", (old + i, old + i))
    store.keep = KEEP
    assert store.find("k0") is not None  # used: now the newest
    stale = store.part("k9")
    stale.write_bytes(b"half")
    os.utime(stale, (old - 7200, old - 7200))
    fresh = store.part("k8")
    fresh.write_bytes(b"in flight")
    store.trim()
    kept = sorted(p.stem for p in tmp_path.glob("*.pch"))
    assert kept == sorted(["k0", *(f"k{i}" for i in range(KEEP + 2 - (KEEP - 1), KEEP + 2))])
    assert not stale.exists() and fresh.exists()
    assert store.stats().entries == KEEP
    store.clear()
    assert store.stats().entries == 0 and not list(tmp_path.glob("*.pch"))


def test_a_failed_seal_leaves_nothing(tmp_path: Path) -> None:
    store = PchStore(tmp_path)
    part = store.part("k")
    assert not store.seal("k", part)  # the build wrote nothing
    assert store.find("k") is None and not list(tmp_path.iterdir())


MAPS = [(0x1000, 0x2000, "a"), (0x3000, 0x5000, "b"), (0x4000, 0x6000, "c"), (0x9000, 0xA000, "[stack]")]


def test_free_gaps_and_mapped() -> None:
    assert _pch_heap.free_gaps(MAPS, 0x0, 0x9000) == [(0x0, 0x1000), (0x2000, 0x3000), (0x6000, 0x9000)]
    assert _pch_heap.free_gaps(MAPS, 0x1800, 0x3800) == [(0x2000, 0x3000)]
    assert _pch_heap.mapped(MAPS, 0x3000, 0x6000) and not _pch_heap.mapped(MAPS, 0x1000, 0x3000)


def test_is_free_reads_the_maps(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.write_text("00001000-00002000 r--p 00000000 00:00 0 a\n00009000-0000a000 rw-p 00000000 00:00 0 [stack]\n")
    assert _pch_heap.is_free(0x2000, 0x7000, maps_path=str(maps))
    assert not _pch_heap.is_free(0x1800, 0x1000, maps_path=str(maps))
    assert not _pch_heap.is_free(0x2000, 0x1000, maps_path=str(tmp_path / "absent"))


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="placing the PCH heap reads /proc/self/maps (Linux)")
def test_the_canonical_address_is_free_and_below_the_stack() -> None:
    size = 512 << 20
    address = _pch_heap.canonical_address(size)
    assert address is not None and address % (2 << 20) == 0
    maps = _pch_heap._maps()
    stack = next(start for start, _, name in maps if name == "[stack]")
    assert address + size < stack and address > stack // 2
