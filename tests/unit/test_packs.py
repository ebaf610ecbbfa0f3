"""Precompiled packs on the host: keys without install locations, the pack format, where packs come from.

The end-to-end behaviour (a fresh process compiling with no NVRTC or nvJitLink call, refusals, moves)
is in tests/compile/test_packs.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import cuda.coop as coop
from cuda.coop import _env, _identity, _pack_sources
from cuda.coop._cuda_headers import CudaInclude
from cuda.coop._provider import MemoryCache, Provider, _packs
from cuda.coop._provider._cache import encode_entry
from cuda.coop._provider._key import portable_options
from cuda.coop._provider._pack import MANIFEST, PACK_FORMAT, Pack, PackIdentity, PackWarning, PackWriter
from cuda.coop._specs import Request
from cuda.coop._toolkit import Library, Toolkit
from cuda.coop._version import __version__
from cuda.coop.errors import ConfigurationError, PackError
from tests.helpers.fakes import TOOLCHAIN, FakeCompiler

IDENTITY = PackIdentity(cuda_coop_version=__version__, header_identity="h" * 64, toolkit_identity="t" * 64,
                        toolkit={"nvrtc": "13.5"}, cccl_version="3.6.0", cccl_revision="abc")
KEY_A, KEY_B = "a" * 64, "b" * 64
META = {"arch": "sm_90", "kernel": "lib.k", "block": (128, 1, 1)}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CUDA_COOP_PACK_PATH", raising=False)
    monkeypatch.setattr("importlib.metadata.entry_points", lambda **kw: [])
    _packs._reset_for_tests()
    yield
    _packs._reset_for_tests()


def build(
    out: Path, identity: PackIdentity = IDENTITY, entries: dict[str, bytes] | None = None, dsl: str = "numba_mlir"
) -> Path:
    writer = PackWriter(out, identity)
    for key, data in (entries if entries is not None else {KEY_A: b"provider-" * 50, KEY_B: b"other" * 9}).items():
        writer.add("provider", key, data, dsl=dsl, **META)
    writer.commit()
    return out


# --- keys ----------------------------------------------------------------------------------------


def test_portable_fingerprint_ignores_where_the_headers_are_but_not_a_byte(tmp_path: Path) -> None:
    a = tmp_path / "a" / "include"
    (a / "cub").mkdir(parents=True)
    (a / "cub" / "version.cuh").write_text("// CUB 3.6\n")
    b = tmp_path / "elsewhere" / "b"
    shutil.copytree(a, b)
    located_a, portable_a = _identity.fingerprints([a])
    located_b, portable_b = _identity.fingerprints([b])
    assert located_a != located_b and portable_a == portable_b
    assert _identity.fingerprint([a]) == located_a
    (b / "cub" / "version.cuh").write_text("// CUB 3.7\n")  # same size, one byte
    _identity._reset_for_tests()
    assert _identity.fingerprints([b])[1] != portable_a


def _toolkit(root: str, nvjitlink: tuple[int, int] = (13, 5)) -> Toolkit:
    def lib(name: str, version: tuple[int, int]) -> Library:
        return Library(Path(root, name), version, "test", size=len(root), mtime_ns=len(root))

    include = CudaInclude(path=Path(root, "include"), origin="test", cuda_version=(13, 5))
    return Toolkit(lib("nvrtc", (13, 5)), lib("builtins", (13, 5)), lib("nvjitlink", nvjitlink), include)


def test_portable_toolkit_identity_is_the_versions() -> None:
    here, there = _toolkit("/opt/a"), _toolkit("/somewhere/else")
    assert here.identity != there.identity
    assert here.portable_identity == there.portable_identity
    assert _toolkit("/opt/a", nvjitlink=(13, 6)).portable_identity != here.portable_identity
    assert here.versions == {"nvrtc": "13.5", "nvrtc-builtins": "13.5", "nvJitLink": "13.5", "CUDA headers": "13.5"}


def _provider(toolchain: object = TOOLCHAIN, backend: str = "numba_mlir") -> Provider:
    return Provider([Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=4)], block_dim=(128,),
                    arch="sm_90", toolchain=toolchain, compiler=FakeCompiler(), cache=MemoryCache(),  # type: ignore[arg-type]
                    backend=backend)


def test_portable_key_names_include_roots_by_place() -> None:
    moved = dataclasses.replace(TOOLCHAIN, cccl_include_roots=(Path("/other/cccl"),), cuda_include=Path("/x/cuda"))
    places = ("--include-path=<root 0>", "--include-path=<root 1>")
    assert portable_options(_provider().options, TOOLCHAIN)[-2:] == places
    assert _provider().key.digest != _provider(moved).key.digest  # the persistent cache's key: located
    assert _provider().portable_key.digest == _provider(moved).portable_key.digest
    base = _provider().portable_key.digest
    for change in ({"portable_header_identity": "x" * 64}, {"portable_toolkit_identity": "y" * 64},
                   {"nvrtc_version": (13, 6)}):
        assert _provider(dataclasses.replace(TOOLCHAIN, **change)).portable_key.digest != base
    assert _provider().portable_key.digest != Provider(
        [Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=4)], block_dim=(128,), arch="sm_80",
        toolchain=TOOLCHAIN, compiler=FakeCompiler(), cache=MemoryCache()).portable_key.digest


# --- the pack format ------------------------------------------------------------------------------


def test_a_pack_reads_back_what_was_written(tmp_path: Path) -> None:
    pack = Pack(build(tmp_path / "p"), "test")
    assert pack.problem is None and pack.identity == IDENTITY
    assert pack.read("provider", KEY_A, "numba_mlir") == b"provider-" * 50
    assert pack.read("kernel", KEY_A, "numba_mlir") is None and pack.read("provider", "c" * 64, "numba_mlir") is None
    manifest = json.loads((tmp_path / "p" / MANIFEST).read_text())
    assert manifest["format"] == PACK_FORMAT and manifest["cuda_coop_version"] == __version__
    assert manifest["cccl"] == {"version": "3.6.0", "revision": "abc"}
    assert {e["file"] for e in manifest["entries"]} == {f"providers/aa/{KEY_A}.ltoir", f"providers/bb/{KEY_B}.ltoir"}


@pytest.mark.parametrize("damage", ["truncated", "forged", "other key", "missing"])
def test_a_damaged_entry_is_refused_with_its_reason(tmp_path: Path, damage: str) -> None:
    out = build(tmp_path / "p")
    path = out / "providers" / "aa" / f"{KEY_A}.ltoir"
    good = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(good[: len(good) - 10])
    elif damage == "forged":  # a whole entry for the key, with another payload: only the manifest knows
        path.write_bytes(encode_entry(KEY_A, b"evil-" * 90))
    elif damage == "other key":
        path.write_bytes(encode_entry(KEY_B, b"provider-" * 50))
    else:
        path.unlink()
    pack = Pack(out, "test")
    assert pack.read("provider", KEY_A, "numba_mlir") is None
    assert pack.refused.get(KEY_A)
    assert pack.read("provider", KEY_B, "numba_mlir") == b"other" * 9  # the rest of the pack still serves


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "damaged"),
        ('{"format": 2}', "no list of 'entries'"),
        ('{"format": 2, "entries": [], "cuda_coop_version": "0.1.0"}', "missing"),
        ('{"format": 1, "entries": []}', "pack format 1"),  # format 1 recorded no DSL: rebuilt, never guessed
        ('[]', "no integer 'format'"),
    ],
)
def test_a_bad_manifest_serves_nothing_and_says_why(tmp_path: Path, text: str, why: str) -> None:
    out = build(tmp_path / "p")
    (out / MANIFEST).write_text(text)
    pack = Pack(out, "test")
    assert pack.problem is not None and why in pack.problem
    assert pack.read("provider", KEY_A, "numba_mlir") is None


def test_a_manifest_cannot_point_out_of_the_pack(tmp_path: Path) -> None:
    out = build(tmp_path / "p")
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["entries"][0]["file"] = "../../etc/passwd"
    (out / MANIFEST).write_text(json.dumps(manifest))
    pack = Pack(out, "test")
    assert pack.problem is not None and "is not 'providers/" in pack.problem


def test_not_a_pack(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="does not exist"):
        Pack(tmp_path / "missing", "test")
    (tmp_path / "empty").mkdir()
    with pytest.raises(PackError, match=r"has no manifest\.json"):
        Pack(tmp_path / "empty", "test")


def test_a_pack_grows_only_with_entries_of_its_identity(tmp_path: Path) -> None:
    out = build(tmp_path / "p", entries={KEY_A: b"one"})
    build(out, entries={KEY_B: b"two"})
    assert {e.key for e in Pack(out, "test").entries} == {KEY_A, KEY_B}
    for other in (dataclasses.replace(IDENTITY, header_identity="x" * 64),
                  dataclasses.replace(IDENTITY, cuda_coop_version="9.9")):
        with pytest.raises(PackError, match="another identity"):
            PackWriter(out, other)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(PackError, match="not empty"):
        PackWriter(tmp_path / "busy", IDENTITY)
    with pytest.raises(PackError, match="is a file"):
        PackWriter(tmp_path / "busy" / "notes.txt", IDENTITY)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"cuda_coop_version": "0.0.1"}, "built by cuda-coop"),
        ({"toolkit_identity": "z" * 64, "toolkit": {"nvrtc": "13.0"}}, "built with toolkit nvrtc 13.0"),
        ({"header_identity": "z" * 64}, "built against other headers (CCCL 3.6.0, revision abc"),
    ],
)
def test_identity_mismatch_says_which(change: dict[str, object], why: str) -> None:
    theirs = dataclasses.replace(IDENTITY, **change)  # type: ignore[arg-type]
    assert IDENTITY.mismatch(IDENTITY) is None
    reason = theirs.mismatch(IDENTITY)
    assert reason is not None and why in reason


# --- where packs come from, and which one answers -----------------------------------------------


def test_path_list_rule(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", f"{tmp_path}/a::~/b:")
    assert _env.paths("CUDA_COOP_PACK_PATH") == [tmp_path / "a", Path.home() / "b"]
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", r"C:\packs\a;;D:\b")
    assert _env.paths("CUDA_COOP_PACK_PATH", platform="win32") == [Path(r"C:\packs\a"), Path(r"D:\b")]
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", f"{tmp_path}/a:relative/pack")
    with pytest.raises(ConfigurationError, match=r"CUDA_COOP_PACK_PATH=.* holds 'relative/pack', which is a relative"):
        _env.paths("CUDA_COOP_PACK_PATH")
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", "")
    assert _env.paths("CUDA_COOP_PACK_PATH") == []


def _entry_point_package(root: Path, name: str) -> EntryPoint:
    package = root / name
    build(package / "pack")
    (package / "__init__.py").write_text("")
    (package / "pack" / "__init__.py").write_text("")
    return EntryPoint(name=name, value=f"{name}.pack", group="cuda_coop.packs")


def test_sources_in_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    points = [_entry_point_package(tmp_path, "zlib_pack"), _entry_point_package(tmp_path, "alib_pack"),
              EntryPoint(name="by_path", value="tests.unit.test_packs:EXAMPLE_PATH", group="cuda_coop.packs")]
    monkeypatch.setattr("importlib.metadata.entry_points", lambda **kw: points)
    monkeypatch.setattr(sys.modules[__name__], "EXAMPLE_PATH", str(build(tmp_path / "by_path")), raising=False)
    env_a, env_b, added = build(tmp_path / "env_a"), build(tmp_path / "env_b"), build(tmp_path / "added")
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", f"{env_a}:{env_b}:{added}")
    coop.add_pack(added)
    coop.add_pack(str(added))  # twice: one place
    found = _pack_sources.sources()
    assert found == [
        (added, "cuda.coop.add_pack"),
        (env_a, "CUDA_COOP_PACK_PATH"),
        (env_b, "CUDA_COOP_PACK_PATH"),
        (tmp_path / "alib_pack" / "pack", "entry point 'alib_pack' of an unknown distribution"),
        (tmp_path / "by_path", "entry point 'by_path' of an unknown distribution"),
        (tmp_path / "zlib_pack" / "pack", "entry point 'zlib_pack' of an unknown distribution"),
    ]


def test_a_broken_entry_point_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint(name="broken", value="no_such_module_for_packs", group="cuda_coop.packs")
    monkeypatch.setattr("importlib.metadata.entry_points", lambda **kw: [point])
    with pytest.raises(PackError, match=r"entry point broken = 'no_such_module_for_packs'.*cannot be loaded"):
        _pack_sources.sources()


def test_add_pack_refuses_what_is_not_a_usable_pack(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="is not a cuda-coop pack"):
        coop.add_pack(tmp_path)
    out = build(tmp_path / "p")
    (out / MANIFEST).write_text("{")
    with pytest.raises(PackError, match="cannot be used"):
        coop.add_pack(out)
    with pytest.raises(TypeError, match=r"str or os\.PathLike"):
        coop.add_pack(b"/bytes")  # type: ignore[arg-type]


def test_the_first_pack_with_a_sound_entry_answers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    first = build(tmp_path / "first", entries={KEY_A: b"from first"})
    second = build(tmp_path / "second", entries={KEY_A: b"from second", KEY_B: b"only second"})
    other = build(tmp_path / "other", dataclasses.replace(IDENTITY, header_identity="x" * 64), {KEY_B: b"no"})
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", f"{other}:{first}:{second}")
    found = _packs.lookup("provider", KEY_A, IDENTITY, "numba_mlir")
    assert found is not None and found[0] == b"from first" and found[1].path == first
    found = _packs.lookup("provider", KEY_B, IDENTITY, "numba_mlir")
    assert found is not None and found[0] == b"only second"
    [not_used] = [p for p in _packs.packs() if p.path == other]
    why = _packs.why_not_used(not_used)
    assert why is not None and "other headers" in why
    (first / "providers" / "aa" / f"{KEY_A}.ltoir").write_bytes(b"garbage")
    with pytest.warns(PackWarning, match="damaged"):
        found = _packs.lookup("provider", KEY_A, IDENTITY, "numba_mlir")
    assert found is not None and found[0] == b"from second"  # the damaged entry is skipped, the next answers


def test_a_provider_takes_its_ltoir_from_a_pack(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    provider = _provider()
    out = build(tmp_path / "p", _packs.identity_of(TOOLCHAIN), {provider.portable_key.digest: b"packed"})
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", str(out))
    assert provider.ltoir() == b"packed" and provider.origin == "pack" and provider.pack is not None
    other = _provider(dataclasses.replace(TOOLCHAIN, portable_header_identity="q" * 64))
    compiler = FakeCompiler()
    other._compiler = compiler
    other.ltoir()
    assert other.origin == "nvrtc" and compiler.calls == 1


def test_a_pack_serves_only_the_dsl_its_entries_were_built_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cuda_only = build(tmp_path / "cuda", entries={KEY_A: b"for numba-cuda"}, dsl="numba_cuda")
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", str(cuda_only))
    assert _packs.lookup("provider", KEY_A, IDENTITY, "numba_mlir") is None
    found = _packs.lookup("provider", KEY_A, IDENTITY, "numba_cuda")
    assert found is not None and found[0] == b"for numba-cuda"
    assert Pack(cuda_only, "test").read("provider", KEY_A, "numba_mlir") is None

    mlir = build(tmp_path / "mlir", entries={KEY_A: b"for numba-cuda-mlir"})
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", f"{cuda_only}{os.pathsep}{mlir}")
    found = _packs.lookup("provider", KEY_A, IDENTITY, "numba_mlir")  # the first pack for this DSL answers
    assert found is not None and found[0] == b"for numba-cuda-mlir" and found[1].path == mlir


def test_a_provider_takes_ltoir_only_from_entries_of_its_dsl(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    digest = _provider().portable_key.digest
    out = build(tmp_path / "p", _packs.identity_of(TOOLCHAIN), {digest: b"packed"}, dsl="numba_cuda")
    monkeypatch.setenv("CUDA_COOP_PACK_PATH", str(out))
    mlir, compiler = _provider(), FakeCompiler()  # backend "numba_mlir"
    mlir._compiler = compiler
    mlir.ltoir()
    assert mlir.origin == "nvrtc" and compiler.calls == 1
    cuda = _provider(backend="numba_cuda")
    assert cuda.ltoir() == b"packed" and cuda.origin == "pack"


def test_a_provider_entry_serves_each_dsl_it_was_built_for_and_a_kernel_entry_one(tmp_path: Path) -> None:
    writer = PackWriter(tmp_path / "p", IDENTITY)
    writer.add("provider", KEY_A, b"ltoir", dsl="numba_mlir", **META)
    writer.add("provider", KEY_A, b"ltoir", dsl="numba_cuda", **META)
    writer.add("kernel", KEY_B, b"cubin", dsl="numba_mlir", **META)
    writer.add("kernel", KEY_B, b"cubin", dsl="numba_cuda", **META)  # the same key from another DSL: replaced
    writer.commit()
    pack = Pack(tmp_path / "p", "test")
    assert pack.entry("provider", KEY_A).dsls == ("numba_cuda", "numba_mlir")  # type: ignore[union-attr]
    assert pack.entry("kernel", KEY_B).dsls == ("numba_cuda",)  # type: ignore[union-attr]


@pytest.mark.parametrize("dsls", [None, [], ["numba_cuda", "numba_mlir"]], ids=["missing", "empty", "two for a kernel"])
def test_an_entry_without_one_dsl_is_a_damaged_manifest(tmp_path: Path, dsls: list[str] | None) -> None:
    writer = PackWriter(tmp_path / "p", IDENTITY)
    writer.add("kernel", KEY_B, b"cubin", dsl="numba_mlir", **META)
    writer.commit()
    manifest = json.loads((tmp_path / "p" / MANIFEST).read_text())
    if dsls is None:
        del manifest["entries"][0]["dsls"]
    else:
        manifest["entries"][0]["dsls"] = dsls
    (tmp_path / "p" / MANIFEST).write_text(json.dumps(manifest))
    pack = Pack(tmp_path / "p", "test")
    assert pack.problem is not None and "dsls" in pack.problem
