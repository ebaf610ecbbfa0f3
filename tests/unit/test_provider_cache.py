"""Provider caches, source dumps, the cache CLI, and Provider with fake compilers (host only)."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import pytest

from cuda.coop._provider import DiskCache, LayeredCache, MemoryCache, Provider, _cache, _cache_cli
from cuda.coop._provider._cache import decode_entry, encode_entry
from cuda.coop._provider._dump import dump_name
from cuda.coop._provider._pch_store import PchStore
from cuda.coop._specs import Request
from cuda.coop.errors import CompileError
from tests.helpers.fakes import TOOLCHAIN, FakeCompiler

KEY = "ab" + "0" * 62
OTHER = "cd" + "1" * 62
REQUESTS = [Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16)]


def _provider(compiler: FakeCompiler, cache: object, **kw: object) -> Provider:
    return Provider(REQUESTS, block_dim=(256,), arch=90, toolchain=TOOLCHAIN, compiler=compiler, cache=cache, **kw)  # type: ignore[arg-type]


# -- entry format ---------------------------------------------------------------------------------


def test_entry_round_trip() -> None:
    assert decode_entry(KEY, encode_entry(KEY, b"payload")) == b"payload"
    assert decode_entry(KEY, encode_entry(KEY, b"")) == b""


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated payload
        lambda b: b[:10],  # truncated header
        lambda b: b"",
        lambda b: os.urandom(len(b)),  # garbage
        lambda b: b[:-1] + bytes([b[-1] ^ 1]),  # one flipped payload bit
        lambda b: b + b"x",  # trailing bytes
        lambda b: b"XXXXXXXX" + b[8:],  # magic
        lambda b: encode_entry(OTHER, b"payload"),  # the wrong key inside
    ],
    ids=["truncated", "truncated-header", "empty", "garbage", "bitflip", "trailing", "magic", "wrong-key"],
)
def test_damaged_entries_are_rejected(damage: object) -> None:
    assert decode_entry(KEY, damage(encode_entry(KEY, b"payload"))) is None  # type: ignore[operator]


# -- disk cache -------------------------------------------------------------------------------------


def test_disk_cache_put_get_and_layout(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    assert cache.get(KEY) is None
    cache.put(KEY, b"data")
    assert cache.get(KEY) == b"data"
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()] == [f"ab/{KEY}.ltoir"]
    cache.put(KEY, b"new")
    assert cache.get(KEY) == b"new"


@pytest.mark.parametrize("corrupt", ["truncate", "garbage", "wrong-key"])
def test_corrupt_entries_are_removed_then_replaced(tmp_path: Path, corrupt: str) -> None:
    cache = DiskCache(tmp_path)
    cache.put(KEY, b"data" * 100)
    path = tmp_path / "ab" / f"{KEY}.ltoir"
    blob = path.read_bytes()
    path.write_bytes(
        {"truncate": blob[:50], "garbage": os.urandom(400), "wrong-key": encode_entry(OTHER, b"data" * 100)}[corrupt]
    )
    assert cache.get(KEY) is None
    assert not path.exists()
    compiler = FakeCompiler()
    p = Provider(REQUESTS, block_dim=(256,), arch=90, toolchain=TOOLCHAIN, compiler=compiler, cache=cache)
    path = tmp_path / p.key.digest[:2] / f"{p.key.digest}.ltoir"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"garbage")
    assert p.ltoir().startswith(b"LTOIR:") and compiler.calls == 1 and p.origin == "nvrtc"
    assert decode_entry(p.key.digest, path.read_bytes()) == p.ltoir()


def test_unwritable_cache_warns_once_naming_the_directory_and_the_fix(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = DiskCache(blocker / "cache")
    assert cache.problem() == f"{blocker} is not a directory"
    with pytest.warns(_cache.ProviderCacheWarning) as record:
        cache.put(KEY, b"data")  # warned, not raised
        cache.put(OTHER, b"data")
    assert len(record) == 1
    message = str(record[0].message)
    assert str(blocker / "cache") in message and "CUDA_COOP_ENABLE_CACHE" in message and "XDG_CACHE_HOME" in message
    assert cache.get(KEY) is None


def test_writable_directory_has_no_problem_and_the_check_creates_nothing(tmp_path: Path) -> None:
    assert DiskCache(tmp_path / "a" / "b").problem() is None and not (tmp_path / "a").exists()
    (tmp_path / "a").mkdir()
    assert DiskCache(tmp_path / "a").problem() is None and not list((tmp_path / "a").iterdir())


def test_writes_do_not_walk_the_directory_every_time(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=1 << 30, check_every=50)
    for i in range(120):
        cache.put(f"{i:04x}" + "0" * 60, bytes(100))
    assert cache.walks == 3  # the first write, then every 50th
    small = DiskCache(tmp_path / "small", max_bytes=2000, check_every=1000)
    for i in range(10):
        small.put(f"{i:04x}" + "0" * 60, bytes(500))
        assert small.stats().total_bytes <= 2000  # going over the bound walks at once
    assert 1 < small.walks < 10


def test_writes_are_flushed_to_disk_before_the_rename(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, Path.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(Path, "replace", lambda self, target: (events.append("replace"), real_replace(self, target))[1])
    DiskCache(tmp_path).put(KEY, b"data")
    assert events[:2] == ["fsync", "replace"]


def test_removing_a_corrupt_entry_spares_one_written_meanwhile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Process A reads a corrupt entry; process B installs a good one; A must not delete B's entry."""
    cache = DiskCache(tmp_path)
    path = tmp_path / "ab" / f"{KEY}.ltoir"
    path.parent.mkdir()
    path.write_bytes(b"corrupt")
    real_decode = _cache.decode_entry

    def decode_then_other_writer(key: str, blob: bytes) -> bytes | None:
        DiskCache(tmp_path).put(KEY, b"fresh")  # B, between A's read and A's removal
        return real_decode(key, blob)

    monkeypatch.setattr(_cache, "decode_entry", decode_then_other_writer)
    assert cache.get(KEY) is None  # what A read was corrupt
    monkeypatch.undo()
    assert cache.get(KEY) == b"fresh"  # B's entry survived
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # nothing left aside


def test_a_corrupt_entry_is_removed_when_nobody_replaced_it(tmp_path: Path) -> None:
    path = tmp_path / "ab" / f"{KEY}.ltoir"
    path.parent.mkdir()
    path.write_bytes(b"corrupt")
    assert DiskCache(tmp_path).get(KEY) is None and not list(path.parent.iterdir())


def test_eviction_keeps_the_cache_under_its_bound(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=3000)
    keys = [f"{i:02x}" + "0" * 62 for i in range(6)]
    for i, key in enumerate(keys):
        cache.put(key, bytes(900))
        path = tmp_path / key[:2] / f"{key}.ltoir"
        os.utime(path, (time.time() - 100 + i, time.time() - 100 + i))
    assert cache.stats().total_bytes <= 3000
    assert cache.get(keys[-1]) is not None and cache.get(keys[0]) is None


def test_hits_refresh_recency(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=2500)
    a, b, c = ("a" + "0" * 63, "b" + "0" * 63, "c" + "0" * 63)
    for i, key in enumerate((a, b)):
        cache.put(key, bytes(1000))
        path = tmp_path / key[:2] / f"{key}.ltoir"
        os.utime(path, (time.time() - 100 + i, time.time() - 100 + i))
    assert cache.get(a) is not None  # a becomes the most recent
    cache.put(c, bytes(1000))
    assert cache.get(a) is not None and cache.get(b) is None


def test_stale_temporary_files_are_swept(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    cache.put(KEY, b"x")
    stale = tmp_path / "ab" / ".abandoned.tmp"
    fresh = tmp_path / "ab" / ".writing.tmp"
    stale.write_bytes(b"partial")
    fresh.write_bytes(b"partial")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    cache.evict()
    assert not stale.exists() and fresh.exists()


def test_clear(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    cache.put(KEY, b"x")
    cache.put(OTHER, b"y")
    assert cache.stats().entries == 2
    cache.clear()
    assert cache.stats().entries == 0 and cache.get(KEY) is None


def test_bad_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="hex digests"):
        DiskCache(tmp_path).get("../../etc/passwd")


def test_memory_cache_lru() -> None:
    cache = MemoryCache(max_bytes=10)
    cache.put("a", b"12345")
    cache.put("b", b"12345")
    assert cache.get("a") == b"12345"
    cache.put("c", b"12345")
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None
    cache.clear()
    assert cache.get("a") is None


def test_layered_cache_promotes_disk_hits(tmp_path: Path) -> None:
    disk = DiskCache(tmp_path)
    disk.put(KEY, b"data")
    layered = LayeredCache(MemoryCache(), disk)
    assert layered.get(KEY) == b"data"
    disk.clear()
    assert layered.get(KEY) == b"data"  # from memory now
    layered.put(OTHER, b"y")
    assert disk.get(OTHER) == b"y"


def test_settings_are_read_at_import(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CUDA_COOP_ENABLE_CACHE", "yes")
    assert _cache.settings().root != tmp_path / "cccl" / "cuda-coop" / "providers"  # not re-read
    try:
        _cache._reset_for_tests()  # what a fresh import does
        conf = _cache.settings()
        assert conf.enabled and conf.root == tmp_path / "cccl" / "cuda-coop" / "providers"
        assert isinstance(_cache.default_cache().disk, DiskCache)
        monkeypatch.setenv("CUDA_COOP_ENABLE_CACHE", "off")
        _cache._reset_for_tests()
        assert not _cache.settings().enabled and _cache.default_cache().disk is None
    finally:
        monkeypatch.undo()
        _cache._reset_for_tests()


# -- providers with a fake compiler -----------------------------------------------------------------------


def test_provider_compiles_once_then_hits() -> None:
    compiler, cache = FakeCompiler(), MemoryCache()
    first = _provider(compiler, cache)
    data = first.ltoir()
    assert compiler.calls == 1 and first.origin == "nvrtc"
    assert first.ltoir() is data and compiler.calls == 1
    second = _provider(compiler, cache)
    assert second.ltoir() == data and compiler.calls == 1 and second.origin == "cache"
    name, options, preamble = compiler.seen[0]
    assert name == f"cuda_coop_{first.key.digest[:16]}.cu"
    assert options == first.options and preamble and first.source.startswith(preamble)


def test_provider_needs_no_toolchain_for_symbols() -> None:
    p = Provider(REQUESTS, block_dim=(256,), arch=90, toolchain=None, compiler=FakeCompiler(), cache=MemoryCache())
    assert p.symbols[0].symbol.startswith("cuda_coop_") and p.externs == ()
    assert "block_reduce.sum" in repr(p)


def test_compile_failure_carries_log_source_and_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CUDA_COOP_SOURCE_DUMP_DIR", raising=False)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    p = _provider(FakeCompiler(fail=True), MemoryCache())
    with pytest.raises(CompileError) as info:
        p.ltoir()
    err = info.value
    assert "identifier" in err.log and err.options == p.options
    assert err.source_path is not None and err.source_path.read_text() == p.source
    assert err.source_path.parent == tmp_path / "cuda-coop-failed"
    assert "block_reduce.sum.array" in str(err) and str(err.source_path) in str(err)


def test_compile_failure_points_at_the_dump(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    p = _provider(FakeCompiler(fail=True), MemoryCache())
    with pytest.raises(CompileError) as info:
        p.ltoir()
    assert info.value.source_path == tmp_path / dump_name("numba_mlir", p.key.digest)


def test_dumps_on_compile_and_on_cache_hit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dumps = tmp_path / "dumps"
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(dumps))
    cache = MemoryCache()
    first = _provider(FakeCompiler(), cache, backend="my_dsl")
    first.ltoir()
    path = dumps / f"cuda_coop_my_dsl_{first.key.digest[:16]}.cu"
    assert path.read_text() == first.source
    path.unlink()
    second = _provider(FakeCompiler(), cache, backend="my_dsl")
    second.ltoir()
    assert second.origin == "cache" and path.read_text() == first.source
    assert [p.name for p in dumps.iterdir()] == [path.name]


def test_no_dump_without_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", "")
    monkeypatch.chdir(tmp_path)
    _provider(FakeCompiler(), MemoryCache()).ltoir()
    assert not list(tmp_path.iterdir())


def test_unwritable_dump_dir_warns(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(blocker / "dumps"))
    with pytest.warns(RuntimeWarning, match="CUDA_COOP_SOURCE_DUMP_DIR"):
        _provider(FakeCompiler(), MemoryCache()).ltoir()


def test_bad_backend_name() -> None:
    with pytest.raises(ValueError, match="backend name"):
        _provider(FakeCompiler(), MemoryCache(), backend="numba mlir")


# -- the cache CLI --------------------------------------------------------------------------------------------


def _cli(args: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    _cache_cli.add_arguments(parser)
    return parser.parse_args(args)


def test_cache_cli_shows_and_clears(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    providers, kernels = tmp_path / "providers", tmp_path / "kernels"
    conf = _cache.CacheSettings(enabled=True, root=providers, kernels=kernels, pch=tmp_path / "pch")
    monkeypatch.setattr(_cache, "_STATE", {"settings": conf})
    DiskCache(providers).put(KEY, bytes(2048))
    DiskCache(kernels, suffix=".cubin").put(KEY, bytes(4096))
    DiskCache(kernels, suffix=".cubin").put(OTHER, bytes(4096))
    store = PchStore(tmp_path / "pch")
    part = store.part("k")
    part.write_bytes(bytes(3 << 20))
    assert store.seal("k", part)
    assert _cache_cli.run(_cli([])) == 0
    out = capsys.readouterr().out
    assert "enabled" in out and str(providers) in out and "entries     1" in out and "2.1 KiB" in out
    assert str(kernels) in out and "entries     2" in out and "8.2 KiB" in out
    assert str(store.root) in out and "3.0 MiB of at most 4 entries" in out
    assert _cache_cli.run(_cli(["--clear", "--json"])) == 0
    report = json.loads(capsys.readouterr().out)
    cleared = {"entries": 0, "bytes": 0, "max_bytes": _cache.DEFAULT_MAX_BYTES}
    freed = report["kernels"]["cleared_bytes"]
    assert report == {
        "enabled": True,
        "problem": None,
        "directory": str(providers),
        **cleared,
        "cleared": 1,
        "cleared_bytes": report["cleared_bytes"],
        "kernels": {**cleared, "directory": str(kernels), "cleared": 2, "cleared_bytes": freed},
        "pch": {"directory": str(store.root), "entries": 0, "bytes": 0, "max_entries": 4, "cleared": 1,
                "cleared_bytes": 3 << 20},
    }
    assert report["cleared_bytes"] > 2048 and report["kernels"]["cleared_bytes"] > 8192  # entries hold a header
    assert DiskCache(providers).stats().entries == 0 and DiskCache(kernels, suffix=".cubin").stats().entries == 0
    assert store.find("k") is None


def test_recompile_evicts_the_entry_and_caches_what_nvrtc_makes(tmp_path: Path) -> None:
    """What the kernel's link calls when bytes from the disk cache do not link (the GPU-less compile tier
    checks it end to end: tests/compile/test_provider_processes.py)."""
    disk = DiskCache(tmp_path)
    compiler = FakeCompiler()
    p = _provider(compiler, LayeredCache(MemoryCache(), disk))
    disk.put(p.key.digest, b"forged")  # a well-formed entry whose payload does not link
    assert p.ltoir() == b"forged" and p.origin == "cache" and compiler.calls == 0
    data = p.recompile()
    assert compiler.calls == 1 and p.origin == "nvrtc" and data.startswith(b"LTOIR:") and p.ltoir() == data
    again = _provider(compiler, LayeredCache(MemoryCache(), disk))  # a later process: the new entry is used
    assert again.ltoir() == data and again.origin == "cache" and compiler.calls == 1


def test_diagnostics_name_the_entry_directory_and_an_unwritable_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "cccl").write_text("a file where the cache directory belongs")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "CUDA_COOP_ENABLE_CACHE": "1"}
    env["CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"] = "1"
    done = subprocess.run([sys.executable, "-m", "cuda.coop"], env=env, capture_output=True, text=True, check=False)
    section = done.stdout[done.stdout.index("Provider cache") :].split("Source dumps")[0]
    assert str(tmp_path / "cccl" / "cuda-coop" / "providers") in section
    assert f"yes, but NOTHING IS CACHED: {tmp_path / 'cccl'} is not a directory" in section
    assert "XDG_CACHE_HOME" in section  # the fix
    cache = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "cache", "--json"], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(cache.stdout)["problem"] == f"{tmp_path / 'cccl'} is not a directory"
