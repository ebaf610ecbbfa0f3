"""Provider cache keys: every key component changes the key, nothing else does (host only)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from cuda.coop._identity import fingerprint
from cuda.coop._provider import MemoryCache, Provider, compile_options, normalize_arch
from cuda.coop._provider._key import link_key
from cuda.coop._provider._nvrtc import CompileResult
from cuda.coop._specs import Request, UserOp, user_type
from tests.helpers.fakes import TOOLCHAIN
from tests.helpers.waits import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]


class NeverCompiler:
    def compile(self, source: str, options: Sequence[str], *, name: str, preamble: str | None = None,
                headers: object = None, identity: str = "") -> CompileResult:
        raise AssertionError("computing a key must not compile")


def _requests(dtype: object = "float32", items: int = 16, scan_dtype: object = "int32") -> list[Request]:
    return [
        Request("block_reduce", "sum", "array", dtype=dtype, items_per_thread=items),
        Request("block_scan", "exclusive_scan", "scalar_init", dtype=scan_dtype, op=UserOp("combine")),
    ]


def _key(requests: list[Request] | None = None, **kw: object) -> str:
    args: dict[str, object] = {"block_dim": (256,), "arch": "sm_90", "toolchain": TOOLCHAIN}
    args.update(kw)
    p = Provider(requests or _requests(), compiler=NeverCompiler(), cache=MemoryCache(), **args)  # type: ignore[arg-type]
    return p.key.digest


BASE = _key()


@pytest.mark.parametrize(
    ("component", "changed"),
    [
        ("arch", lambda: _key(arch="sm_100")),
        ("arch suffix", lambda: _key(arch="sm_90a")),
        ("an option", lambda: _key(extra_options=("-lineinfo",))),
        ("block dims", lambda: _key(block_dim=(128, 2))),
        ("block dims (same thread count)", lambda: _key(block_dim=(64, 4))),
        ("dtype", lambda: _key(_requests(dtype="float64"))),
        ("item extent", lambda: _key(_requests(items=8))),
        (
            "operator",
            lambda: _key(
                [_requests()[0], Request("block_scan", "exclusive_scan", "scalar_init", dtype="int32", op="+")]
            ),
        ),
        ("storage ABI size", lambda: _key(_requests(scan_dtype=user_type(12, 4)))),
        ("storage ABI alignment", lambda: _key(_requests(scan_dtype=user_type(12, 2)))),
        ("header identity", lambda: _key(toolchain=dataclasses.replace(TOOLCHAIN, header_identity="x" * 64))),
        (
            "header root order",
            lambda: _key(
                toolchain=dataclasses.replace(TOOLCHAIN, cccl_include_roots=(Path("/cccl/include"), Path("/other")))
            ),
        ),
        ("CCCL version", lambda: _key(toolchain=dataclasses.replace(TOOLCHAIN, cccl_version=3005000))),
        ("toolkit identity", lambda: _key(toolchain=dataclasses.replace(TOOLCHAIN, toolkit_identity="y" * 64))),
        ("NVRTC version", lambda: _key(toolchain=dataclasses.replace(TOOLCHAIN, nvrtc_version=(13, 4)))),
    ],
)
def test_each_component_changes_the_key(component: str, changed: object) -> None:
    assert changed() != BASE, component  # type: ignore[operator]


LAYOUT = "Record(a[type=int32;offset=0],b[type=float64;offset=4];12;True)"
SAME_KEY = """
import sys
from cuda.coop._specs import user_type
from tests.unit.test_key import LAYOUT, _key, _requests
print(_key(_requests(scan_dtype=user_type(12, 4, LAYOUT if sys.argv[1] == "layout" else None))))
"""


@pytest.mark.parametrize("layout", [None, LAYOUT], ids=["storage-abi", "layout"])
def test_a_user_types_key_is_a_function_of_its_storage_abi_and_layout(layout: str | None) -> None:
    """The same user type has the same key in another process (other string hashes, other objects): a cache
    entry serves every later process; its fields' layout, when given, is part of it."""
    here = _key(_requests(scan_dtype=user_type(12, 4, layout)))
    env = {**os.environ, "PYTHONHASHSEED": "12345", "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1"}
    there = subprocess.run([sys.executable, "-c", SAME_KEY, "layout" if layout else "-"], cwd=REPO, env=env,
                           capture_output=True, text=True, check=True, timeout=HANG_SECONDS).stdout.strip()
    assert there == here
    other = "Record(b[type=float64;offset=0],a[type=int32;offset=8];12;True)"  # the same storage ABI, other fields
    assert here != _key(_requests(scan_dtype=user_type(12, 4, other if layout else LAYOUT)))


def test_nothing_else_changes_the_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert _key() == BASE
    assert _key(backend="other_dsl") == BASE
    assert _key(arch=90) == BASE and _key(arch=(9, 0)) == BASE and _key(arch="compute_90") == BASE
    assert _key(block_dim=(256, 1, 1)) == BASE
    reordered = [
        Request("block_reduce", "sum", "array", items_per_thread=16, dtype="float32"),
        Request("block_scan", "exclusive_scan", "scalar_init", op=UserOp("combine"), dtype="int32"),
    ]
    assert _key(reordered) == BASE
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    monkeypatch.setenv("CUDA_COOP_ENABLE_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _key() == BASE


def test_options_put_cccl_first_and_exclude_pch() -> None:
    opts = compile_options(TOOLCHAIN, "sm_90")
    assert opts == (
        "-arch=sm_90",
        "-rdc=true",
        "-dlto",
        "-std=c++20",
        "--include-path=/cccl/include",
        "--include-path=/cuda/include",
    )
    assert not any("pch" in o for o in opts)


_SORT = {"dtype": "int32", "items_per_thread": 4, "threads": 16, "compare": "<"}
_GENERIC = {
    "reduce_batched": Request("warp_reduce_batched", "sum_batched", "one", dtype="float32", batches=16, threads=16),
    "bitonic": Request("warp_merge_sort", "merge_sort", "keys", algorithm="bitonic", **_SORT),
    "argsort": Request("warp_argsort", "argsort", "pairs", dtype="float32", index_type="int32", items_per_thread=4,
                       threads=16, algorithm="bitonic"),
    "top_k": Request("warp_top_k", "top_k", "keys", dtype="float32", items_per_thread=4, threads=16,
                     algorithm="bitonic"),
}
_PLAIN = {
    "merge_sort": Request("warp_merge_sort", "merge_sort", "keys", algorithm="merge_sort", **_SORT),
    "block_reduce": Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16),
}


@pytest.mark.parametrize("nvrtc", [(12, 8), (12, 9), (13, 0), (13, 1), (13, 2), (13, 5), (14, 0)])
@pytest.mark.parametrize("name", [*_GENERIC, *_PLAIN])
def test_default_device_for_generic_lambdas_on_nvrtc_before_13_2_only(name: str, nvrtc: tuple[int, int]) -> None:
    """NVRTC before 13.2 takes a generic lambda in device code for host code (docs/known_issues.rst): the providers
    whose CUB code has one get -default-device there, in the key; every other provider's options stay as they were."""
    toolchain = dataclasses.replace(TOOLCHAIN, nvrtc_version=nvrtc)
    plain = compile_options(toolchain, "sm_90")
    others = [r for n, r in {**_GENERIC, **_PLAIN}.items() if n != name and n in _PLAIN]
    p = Provider([_GENERIC.get(name) or _PLAIN[name], *others], block_dim=(64,), arch="sm_90", toolchain=toolchain,
                 compiler=NeverCompiler(), cache=MemoryCache())
    expected = (*plain, "-default-device") if name in _GENERIC and nvrtc < (13, 2) else plain
    assert p.options == expected
    assert p.key.options == expected


@pytest.mark.parametrize(
    ("arch", "expected"),
    [
        (90, "sm_90"),
        ("90", "sm_90"),
        ("sm_90", "sm_90"),
        ("SM_90A", "sm_90a"),
        ("compute_100f", "sm_100f"),
        ((8, 6), "sm_86"),
        ("sm_120", "sm_120"),
    ],
)
def test_normalize_arch(arch: object, expected: str) -> None:
    assert normalize_arch(arch) == expected


@pytest.mark.parametrize("arch", ["sm90", "gfx90a", 9, True, None, (9,)])
def test_bad_arch(arch: object) -> None:
    with pytest.raises(ValueError, match="compute capability"):
        normalize_arch(arch)


def test_a_byte_of_a_header_changes_the_key(tmp_path: Path) -> None:
    """Through the real header fingerprint: one byte of one header changes the key."""
    root = tmp_path / "include"
    header = root / "cub" / "block" / "block_reduce.cuh"
    header.parent.mkdir(parents=True)
    header.write_bytes(b"// CUB\n#pragma once\n")
    before = _key(
        toolchain=dataclasses.replace(
            TOOLCHAIN, cccl_include_roots=(root,), header_identity=fingerprint((root, TOOLCHAIN.cuda_include))
        )
    )
    stat = header.stat()
    header.write_bytes(b"// CUX\n#pragma once\n")  # same size
    os.utime(header, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # as a later edit would
    after = _key(
        toolchain=dataclasses.replace(
            TOOLCHAIN, cccl_include_roots=(root,), header_identity=fingerprint((root, TOOLCHAIN.cuda_include))
        )
    )
    assert before != after


LINK_INPUTS = [("ltoir", "kernel", b"kernel-bytes"), ("ltoir", "cuda_coop_provider", b"provider-bytes")]
SM90 = "LinkerOptions(arch='sm_90')"
LINK_BASE = link_key(LINK_INPUTS, SM90, "toolkit-a", dsl="numba_mlir")


@pytest.mark.parametrize(
    ("inputs", "options", "toolkit", "dsl"),
    [
        ([("ltoir", "kernel", b"kernel-bytez"), LINK_INPUTS[1]], SM90, "toolkit-a", "numba_mlir"),
        (LINK_INPUTS[::-1], SM90, "toolkit-a", "numba_mlir"),  # nvJitLink keeps the first module's data layout
        ([LINK_INPUTS[0], ("ptx", "cuda_coop_provider", b"provider-bytes")], SM90, "toolkit-a", "numba_mlir"),
        ([LINK_INPUTS[0], ("ltoir", "other", b"provider-bytes")], SM90, "toolkit-a", "numba_mlir"),
        (LINK_INPUTS[:1], SM90, "toolkit-a", "numba_mlir"),
        ([("ltoir", "kernel", b"kernel-"), ("ltoir", "bytes", b"provider-bytes")], SM90, "toolkit-a", "numba_mlir"),
        (LINK_INPUTS, "LinkerOptions(arch='sm_100')", "toolkit-a", "numba_mlir"),
        (LINK_INPUTS, SM90, "toolkit-b", "numba_mlir"),
        (LINK_INPUTS, SM90, "toolkit-a", "numba_cuda"),  # one source, two DSLs' code: never each other's cubin
    ],
    ids=["module bytes", "module order", "code type", "module name", "module count", "module boundary", "options",
         "toolkit", "dsl"],
)
def test_each_link_input_changes_the_link_key(
    inputs: list[tuple[str, str, bytes]], options: str, toolkit: str, dsl: str
) -> None:
    assert link_key(inputs, options, toolkit, dsl=dsl) != LINK_BASE


def test_the_link_key_is_a_function_of_its_inputs() -> None:
    again = [(t, n, bytes(bytearray(d))) for t, n, d in LINK_INPUTS]
    assert link_key(again, SM90, "toolkit-a", dsl="numba_mlir") == LINK_BASE
    assert len(LINK_BASE) == 64 and int(LINK_BASE, 16) >= 0
