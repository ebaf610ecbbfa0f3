"""CCCL's light prologue (cuda_coop/_provider/_prologue.py) with real NVRTC: same bytes, for the checked CCCL only."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, Toolchain, _prologue
from cuda.coop._specs import Request
from tests.helpers.nvrtc import LTOIR_MAGIC

# One request of every registered primitive, in two providers (one NVRTC compile each, per pair).
EVERY_PRIMITIVE = [
    Request("block_adjacent_difference", "subtract_left", "array", dtype="int32", items_per_thread=4, op="-"),
    Request("block_arg_reduce", "argmax", "scalar", dtype="float32"),
    Request("block_argsort", "argsort", "pairs", dtype="uint32", index_type="int32", items_per_thread=4),
    Request("block_discontinuity", "flag_heads", "array", dtype="int16", items_per_thread=4, op="!="),
    Request("block_exchange", "striped_to_blocked", "array", dtype="float64", items_per_thread=4),
    Request("block_histogram", "histogram", "array", dtype="uint8", counter_type="uint32", items_per_thread=4,
            bins=256),
    Request("block_load_to_shared", "load_to_shared", "guarded", dtype="float32", items_per_thread=4),
    Request("block_load", "load", "guarded_default", dtype="int64", items_per_thread=4, algorithm="transpose"),
    Request("block_merge_sort", "merge_sort", "keys", dtype="float32", items_per_thread=4, compare="<"),
    Request("block_radix_rank", "radix_rank", "ranks", dtype="uint32", items_per_thread=4),
    Request("block_radix_sort", "radix_sort", "pairs", dtype="int64", value_type="float32", items_per_thread=4),
    Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=4),
    Request("block_run_length_decode", "run_length_decode", "lengths", dtype="int32", run_length_type="int32",
            runs_per_thread=2, decoded_items_per_thread=4),
    Request("block_scan", "exclusive_sum", "scalar_aggregate", dtype="int32"),
    Request("block_shuffle", "offset", "scalar", dtype="int32"),
    Request("block_store", "store", "guarded", dtype="int8", items_per_thread=4, algorithm="warp_transpose"),
    Request("block_top_k", "top_k", "keys", dtype="float32", items_per_thread=4),
    Request("warp_arg_reduce", "argmin", "scalar", dtype="int32"),
    Request("warp_argsort", "argsort", "pairs", dtype="int32", index_type="int32", items_per_thread=4),
    Request("warp_exchange", "blocked_to_striped", "array", dtype="int32", items_per_thread=4, threads=16),
    Request("warp_load", "load", "full", dtype="float32", items_per_thread=4),
    Request("warp_merge_sort", "merge_sort", "keys", dtype="int32", items_per_thread=4, compare="<"),
    Request("warp_reduce", "sum", "scalar", dtype="float64"),
    Request("warp_reduce_batched", "sum_batched", "array", dtype="float32", batches=40, outputs_per_thread=2),
    Request("warp_scan", "inclusive_sum", "scalar", dtype="uint64"),
    Request("warp_store", "store", "full", dtype="float32", items_per_thread=4),
    Request("warp_top_k", "top_k", "keys", dtype="float32", items_per_thread=4),
]


STATIC_FOR = frozenset({"warp_reduce_batched"})
"""Primitives whose CUB code instantiates libcu++'s ``cuda::static_for`` (``warp_reduce_batched_wspro``). With the
light pair its LTO-IR is not byte-identical to the one CCCL's own pair gives (measured with NVRTC 13.5: a minimal
``static_for`` call alone differs; every other header of the table is identical), while the PTX is the same: the
byte check leaves these out and compares their PTX (:func:`test_static_for_users_compile_to_the_same_ptx`)."""


def test_every_primitive_is_in_the_table() -> None:
    from cuda.coop import _specs

    assert {r.primitive for r in EVERY_PRIMITIVE} == {s.name for s in _specs.all_primitives()}


def test_the_bundled_cccl_has_the_checked_pair(toolchain: Toolchain) -> None:
    # Fails when the bundle's CCCL changes its prologue or epilogue: compare the new pair with _prologue._LIGHT (the
    # include protocol, the macros it saves, the warnings it suppresses), then record the new digests in CHECKED.
    root = next(r for r in toolchain.cccl_include_roots if (r / _prologue.PROLOGUE).is_file())
    for name, digest in _prologue.CHECKED.items():
        assert hashlib.sha256((root / name).read_bytes()).hexdigest() == digest, name
    light = _prologue.light_prologue(toolchain.cccl_include_roots)
    assert set(light.headers) == {_prologue.PROLOGUE, _prologue.EPILOGUE} and light.options


@pytest.mark.parametrize("half", [0, 1], ids=["block", "warp"])
def test_the_light_pair_compiles_every_primitive_to_the_same_bytes(
    half: int, toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    requests = [r for r in EVERY_PRIMITIVE
                if r.primitive.startswith("warp_") == bool(half) and r.primitive not in STATIC_FOR]
    p = Provider(requests, block_dim=(128,), arch="sm_90", toolchain=toolchain, compiler=compiler, cache=MemoryCache())
    light = p.ltoir()  # the provider's own compile: with the light pair
    assert light.startswith(LTOIR_MAGIC) and p.origin == "nvrtc"
    own = compiler.compile(p.source, p.options, name=f"cuda_coop_{p.key.digest[:16]}.cu")  # CCCL's pair
    assert own.ok, own.log
    assert own.ltoir == light


def _ptx(source: str, options: tuple[str, ...], headers: dict[str, str]) -> str:
    from cuda.bindings import nvrtc

    names, texts = [n.encode() for n in headers], [t.encode() for t in headers.values()]
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"provider.cu", len(names), texts, names)
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    opts = [o.encode() for o in options if o != "-dlto"]  # PTX instead of LTO-IR
    assert nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    size = nvrtc.nvrtcGetPTXSize(prog)[1]
    ptx = b" " * size
    nvrtc.nvrtcGetPTX(prog, ptx)
    nvrtc.nvrtcDestroyProgram(prog)
    return ptx.decode()


def test_static_for_users_compile_to_the_same_ptx(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests = [r for r in EVERY_PRIMITIVE if r.primitive in STATIC_FOR]
    assert {r.primitive for r in requests} == STATIC_FOR
    p = Provider(requests, block_dim=(128,), arch="sm_90", toolchain=toolchain, compiler=compiler, cache=MemoryCache())
    light = _prologue.light_prologue(toolchain.cccl_include_roots)
    assert _ptx(p.source, (*p.options, *light.options), dict(light.headers)) == _ptx(p.source, p.options, {})


def test_another_cccl_keeps_its_own_pair(toolchain: Toolchain, tmp_path: Path) -> None:
    root = next(r for r in toolchain.cccl_include_roots if (r / _prologue.PROLOGUE).is_file())
    other = tmp_path / "include"
    for name in _prologue.CHECKED:
        (other / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / name, other / name)
    assert _prologue.light_prologue([other]).headers
    with (other / _prologue.EPILOGUE).open("a") as f:
        f.write("// a later CCCL\n")
    assert _prologue.light_prologue([other]) == _prologue.NONE
    assert _prologue.light_prologue([tmp_path / "nothing"]) == _prologue.NONE
