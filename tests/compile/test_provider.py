"""Providers through real NVRTC to LTO-IR for sm_90 (no GPU), linked with nvJitLink where it tells more."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from cuda.coop import _specs
from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, Toolchain
from cuda.coop._provider._nvrtc import _compile
from cuda.coop._specs import ArgKind, Request, TParamKind, UserCallback, UserOp, user_type
from cuda.coop.errors import CompileError
from tests.helpers.cub_extra_specs import extra_requests, registered_extra_specs
from tests.helpers.nvrtc import LTOIR_MAGIC

TOOLKIT_CCCL = Path("/usr/local/cuda/include/cccl")
REDUCE = Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16)
SCAN = Request("block_scan", "exclusive_sum", "array", dtype="int32", items_per_thread=4)


def _provider(
    requests: list[Request], toolchain: Toolchain, compiler: NvrtcCompiler, block: tuple[int, ...] = (256,)
) -> Provider:
    return Provider(
        requests, block_dim=block, arch="sm_90", toolchain=toolchain, compiler=compiler, cache=MemoryCache()
    )


@pytest.fixture(scope="session")
def reduce_scan(toolchain: Toolchain, compiler: NvrtcCompiler) -> Provider:
    p = _provider([REDUCE, SCAN], toolchain, compiler)
    p.ltoir()
    return p


def test_block_reduce_and_scan_compile_to_ltoir(reduce_scan: Provider) -> None:
    data = reduce_scan.ltoir()
    assert data.startswith(LTOIR_MAGIC) and len(data) > 10_000
    assert reduce_scan.origin == "nvrtc"


def test_toolkit_cccl_first_fires_the_static_assert(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    if not (TOOLKIT_CCCL / "cub" / "version.cuh").is_file():
        pytest.skip(f"no toolkit CCCL at {TOOLKIT_CCCL}")
    wrong = dataclasses.replace(toolchain, cccl_include_roots=(TOOLKIT_CCCL,))
    p = _provider([REDUCE, SCAN], wrong, compiler)
    with pytest.raises(CompileError) as info:
        p.ltoir()
    err = info.value
    assert "cuda-coop selected CCCL 3.6.0, but another CCCL" in err.log
    assert "static assertion failed" in err.log
    assert err.source_path is not None and err.source_path.read_text() == p.source
    assert f"--include-path={TOOLKIT_CCCL}" in err.options


def test_the_preamble_sets_the_meta_unroll_limit_before_cccl_does(reduce_scan: Provider) -> None:
    # CCCL defines _CCCL_META_UNROLL_LIMIT (16 under NVRTC) only when it is not defined yet: defined
    # after the first CCCL include, ours would be a redefinition (a warning) and the parse as slow.
    check = '\nstatic_assert(_CCCL_META_UNROLL_LIMIT == 10, "unroll limit");\n'
    ltoir, log, _ = _compile(reduce_scan.source + check, list(reduce_scan.options), "limit.cu")
    assert ltoir is not None, log
    assert "redefin" not in log.lower(), log


# -- linking: storage is the max over call sites, wrappers inline, no local memory ----------------------------


def _nvjitlink() -> object:
    return pytest.importorskip("cuda.bindings.nvjitlink")


def _kernel(p: Provider) -> str:
    """A CUDA C++ kernel calling every wrapper of ``p`` (for reduce/scan providers)."""
    body = []
    for s in p.symbols:
        if s.binding.spec.name == "block_reduce":
            body.append(f"  out[blockIdx.x] = {s.symbol}(f);")
        else:
            body.append(f"  {s.symbol}(v, v);")
    return (
        "\n".join(s.declaration + ";" for s in p.symbols)
        + """
extern "C" __global__ void k(const float* x, int* y, float* out)
{
  float f[16];
  int v[4];
  for (int i = 0; i < 16; ++i) f[i] = x[threadIdx.x * 16 + i];
  for (int i = 0; i < 4; ++i) v[i] = y[threadIdx.x * 4 + i];
"""
        + "\n".join(body)
        + """
  for (int i = 0; i < 4; ++i) y[threadIdx.x * 4 + i] = v[i];
}
"""
    )


def _link(p: Provider) -> tuple[str, str]:
    """Link the provider with a kernel calling it: (ptxas info log, PTX)."""
    nvjitlink = _nvjitlink()
    kernel, log, _ = _compile(_kernel(p), p.options, "kernel.cu")
    assert kernel is not None, log
    results = []
    for option in ("-verbose", "-ptx"):
        h = nvjitlink.create(3, ["-arch=sm_90", "-lto", option])  # type: ignore[attr-defined]
        try:
            for name, data in (("kernel", kernel), ("provider", p.ltoir())):
                nvjitlink.add_data(h, nvjitlink.InputType.LTOIR, data, len(data), name)  # type: ignore[attr-defined]
            nvjitlink.complete(h)  # type: ignore[attr-defined]
            if option == "-verbose":
                buf = bytearray(nvjitlink.get_info_log_size(h))  # type: ignore[attr-defined]
                nvjitlink.get_info_log(h, buf)  # type: ignore[attr-defined]
            else:
                buf = bytearray(nvjitlink.get_linked_ptx_size(h))  # type: ignore[attr-defined]
                nvjitlink.get_linked_ptx(h, buf)  # type: ignore[attr-defined]
            results.append(buf.decode(errors="replace"))
        finally:
            nvjitlink.destroy(h)  # type: ignore[attr-defined]
    return results[0], results[1]


def _smem(info: str) -> int:
    match = re.search(r"(\d+) bytes smem", info)
    assert match, info
    return int(match.group(1))


def test_linked_kernel_shares_storage_inlines_and_uses_no_local_memory(
    reduce_scan: Provider, toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    info, ptx = _link(reduce_scan)
    assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in info
    assert not re.search(r"\.local\b", ptx), "per-thread arrays went to local memory"
    assert not re.search(r"\bcall(\.uni)?\b", ptx), "a wrapper was not inlined"
    assert len(re.findall(r"\.shared .*storageE\[", ptx)) == 1
    alone = [_smem(_link(_provider([r], toolchain, compiler))[0]) for r in (REDUCE, SCAN)]
    assert _smem(info) == max(alone), f"storage is not the max of the call sites: {_smem(info)} vs {alone}"


# -- coverage: every algorithm, every overload, every dtype, further CUB collectives ----------------------


def _required(tparams) -> dict[str, object]:
    """A value for every template parameter a request must give: float32 items (int32 where the type is
    restricted to integers), 4 for counts and extents (items, bins, runs), False for flags."""
    values: dict[str, object] = {}
    for tp in tparams:
        if tp.inferred or (tp.optional and tp.name != "dtype"):
            continue
        if tp.kind is TParamKind.TYPE:
            values[tp.name] = "int32" if tp.kinds and "float" not in tp.kinds else "float32"
        elif tp.kind is TParamKind.INT:
            values[tp.name] = 4
        elif tp.kind is TParamKind.BOOL:
            values[tp.name] = False
    return values


def _all_overloads() -> list[Request]:
    requests = []
    for spec in _specs.all_primitives():
        for method in spec.methods:
            for ov in method.overloads:
                params = _required((*spec.tparams, *ov.tparams))
                if "bins_per_thread" in params:  # BlockRadixRank's digit prefix: 2**radix_bits / 128 threads
                    params["bins_per_thread"] = 1
                if "outputs_per_thread" in params:  # WarpReduceBatched: ceil(batches / 32 lanes) results
                    params["outputs_per_thread"] = 1
                for p in ov.all_params:
                    if p.kind is ArgKind.OPERATOR:  # one extern per signature: predicates return bool
                        params[p.name] = UserOp("user_pred" if p.returns == "bool" else "user_max")
                    elif p.kind is ArgKind.CALLBACK:
                        params[p.name] = UserCallback("user_prefix")
                requests.append(Request(spec.name, method.name, ov.name, **params))
    return requests


def _all_algorithms() -> list[Request]:
    requests = []
    for spec in _specs.all_primitives():
        if spec.algorithm is None:
            continue
        method = spec.methods[-1]
        ov = method.overloads[0]
        for member in spec.algorithm:
            params = {**_required((*spec.tparams, *ov.tparams)), "algorithm": member}
            names = {t.name for t in (*spec.tparams, *ov.tparams)}
            if {"items_per_thread", "threads"} <= names:
                params["threads"] = 4  # WarpExchange's shuffle needs items_per_thread == threads
            # a known operator of the kind the parameter takes: a comparison for a sort's order, else a sum
            params.update({p.name: "<" if p.returns == "bool" else "+" for p in ov.all_params
                           if p.kind is ArgKind.OPERATOR})
            requests.append(Request(spec.name, method.name, ov.name, **params))
    return requests


def test_every_overload_and_every_algorithm_compiles(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    """STYLE 5: every enum member renders and compiles; every spec overload matches a CUB overload."""
    requests = _all_overloads() + _all_algorithms()
    assert {r.params for r in requests if r.primitive == "block_load"}  # sanity
    p = _provider(requests, toolchain, compiler, block=(128,))
    assert p.ltoir().startswith(LTOIR_MAGIC)
    overloads = sum(len(m.overloads) for s in _specs.all_primitives() for m in s.methods)
    algorithms = sum(len(s.algorithm) for s in _specs.all_primitives() if s.algorithm is not None)
    assert len(p.symbols) == len(requests) == overloads + algorithms
    assert [e.symbol for e in p.externs] == ["user_max", "user_pred", "user_prefix"]


def test_every_dtype_compiles_with_its_storage_abi(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests: list[Request] = []
    for name, vt in _specs.BUILTIN_TYPES.items():
        requests.append(Request("warp_scan", "exclusive_scan", "scalar_init", dtype=name, op=UserOp(f"op_{name}")))
        if vt.kind in ("int", "uint", "float"):
            requests.append(Request("block_reduce", "sum", "array", dtype=name, items_per_thread=2))
            requests.append(Request("block_load", "load", "guarded_default", dtype=name, items_per_thread=2))
    for size, align in ((3, 1), (12, 4), (16, 16), (24, 8)):
        requests.append(
            Request(
                "block_scan",
                "inclusive_scan",
                "array",
                dtype=user_type(size, align),
                items_per_thread=2,
                op=UserOp(f"udt_{size}_{align}"),
            )
        )
    p = _provider(requests, toolchain, compiler, block=(64,))
    assert p.ltoir().startswith(LTOIR_MAGIC)
    assert "#include <cuda/std/complex>" in p.source


def test_further_cub_collectives_compile(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    """The spec format takes BlockRadixSort, BlockRunLengthDecode, BlockDiscontinuity, BlockHistogram."""
    with registered_extra_specs():
        p = _provider(extra_requests(), toolchain, compiler, block=(128,))
        assert p.ltoir().startswith(LTOIR_MAGIC)


# -- precompiled headers ----------------------------------------------------------------------------------------


def test_precompiled_header_gives_identical_ltoir(
    reduce_scan: Provider, toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """PCH options stay out of the key: with or without a PCH, the bytes are the same."""
    pch = NvrtcCompiler(pch=True, pch_after=1, background=False)
    first = _provider([REDUCE], toolchain, pch)
    first.ltoir()  # builds the PCH after compiling (inline: background=False)
    assert (pch.calls, pch.pch_builds, pch.pch_hits) == (1, 1, 0) and pch.wait_for_pch(0)
    second = _provider([REDUCE, SCAN], toolchain, pch)
    assert second.ltoir() == reduce_scan.ltoir()
    assert (pch.calls, pch.pch_builds, pch.pch_hits) == (2, 1, 1)
