"""``cuda_coop::WarpArgsort`` and ``cuda_coop::WarpTopK`` (compositions of cub::WarpMergeSort or
cub::detail::WarpBitonicSort): specs, constraints, wrapper ABI and rendered C++ (host only)."""

from __future__ import annotations

import inspect

import pytest

import cuda.coop as coop
from cuda.coop._own_headers import own_headers
from cuda.coop._specs import DEFAULT, Request, bind, get_primitive
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_requests
from tests.helpers.own_headers import header_text

ARGSORT = get_primitive("warp_argsort")
TOP_K = get_primitive("warp_top_k")


def _argsort(**kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float32", "items_per_thread": 3, "index_type": "int32", "threads": 16, **kw}
    return Request("warp_argsort", "argsort", "pairs", **params)


def _top_k(overload: str = "keys", **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float32", "items_per_thread": 3, "threads": 16, **kw}
    if overload == "pairs":
        params.setdefault("value_type", "int64")
    return Request("warp_top_k", "top_k", overload, **params)


def _render(*requests: Request, block: tuple[int, ...] = (64,)) -> str:
    return render_requests(requests, block)


def _call(text: str, method: str) -> str:
    line = next(ln for ln in text.splitlines() if f".{method}(" in ln and "Prim(" in ln)
    return line[line.index(f".{method}(") + len(method) + 2 : line.rindex(");")]


def test_specs_follow_cub() -> None:
    assert [t.cpp for t in ARGSORT.tparams] == ["KeyT", "ItemsPerThread", "LogicalWarpThreads", "IndexT", "Algorithm"]
    assert [t.cpp for t in TOP_K.tparams] == ["KeyT", "ItemsPerThread", "LogicalWarpThreads", "ValueT", "Algorithm"]
    assert ARGSORT.methods[0].cpp_names() == ("Argsort", "ArgsortDescending")
    assert TOP_K.methods[0].cpp_names() == ("TopKSmallest", "TopKLargest")
    for spec, header in ((ARGSORT, "cuda_coop/warp_argsort.cuh"), (TOP_K, "cuda_coop/warp_top_k.cuh")):
        assert spec.header == header
        text = header_text(header)
        assert "#include <cub/warp/warp_merge_sort.cuh>" in text
        assert "cub::WarpMergeSort<KeyT, ItemsPerThread, LogicalWarpThreads" in text
        own = (own_headers().root / header).read_text(encoding="utf-8")  # not the headers it includes
        assert ".StableSort(" in own and ".Sort(" not in own  # ties keep input order
        # "bitonic": keys packed with their positions (detail::RadixBitonic), never the bare (unstable) network
        assert "detail::RadixBitonic<KeyT, " in own and "SortT::Load(keys, items);" in own
        assert "WarpBitonicSort<" not in own


def test_argsort_renders_a_stable_merge_sort_in_radix_order() -> None:
    text = _render(_argsort(descending=True, index_type="uint32"))
    assert "using prim_0 = cuda_coop::WarpArgsort<float, 3, 16, unsigned int, cuda_coop::WARP_SORT_MERGE_SORT>;" in text
    assert _call(text, "ArgsortDescending") == ("reinterpret_cast<float(&)[3]>(*keys), "
                                                "reinterpret_cast<unsigned int(&)[3]>(*indices), base")
    assert "#include <cuda_coop/warp_argsort.cuh>" in text
    header = header_text("cuda_coop/warp_argsort.cuh")
    assert "StableSort(keys, indices, RadixOrder<KeyT, Descending>{})" in header and "Sort<true>(keys" in header
    assert "Traits::TwiddleIn(::cuda::std::bit_cast<UnsignedBits>(key))" in header
    assert "% LogicalWarpThreads" in header  # the lane in the logical warp, from the block's linear rank


@pytest.mark.parametrize(("overload", "largest"), [("keys", True), ("pairs", False)])
def test_top_k_clamps_k_to_the_warp_tile_and_keeps_the_callers_keys(overload: str, largest: bool) -> None:
    text = _render(_top_k(overload, largest=largest, count_type="int64"))
    method = "TopKLargest" if largest else "TopKSmallest"
    args = _call(text, method)
    assert args.startswith("keys_in, cuda_coop_detail::clamp_count<48>(k), out_keys")  # 16 lanes x 3 keys
    assert args.endswith("offset") and ("values_in, out_values" in args) == (overload == "pairs")
    value = "long long" if overload == "pairs" else "cub::NullType"
    assert f"cuda_coop::WarpTopK<float, 3, 16, {value}, cuda_coop::WARP_SORT_MERGE_SORT>" in text


def test_argsort_and_top_k_share_one_radix_order() -> None:
    text = _render(_argsort(base=DEFAULT), _top_k(offset=DEFAULT))
    assert _call(text, "Argsort").endswith("(*indices), 0") and _call(text, "TopKLargest").endswith("out_keys, 0")
    for header in ("cuda_coop/warp_argsort.cuh", "cuda_coop/warp_top_k.cuh"):
        assert text.count(f"#include <{header}>") == 1
        assert "#include <cuda_coop/detail/radix_order.cuh>" in header_text(header)


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float16", "bfloat16", "float32", "float64"])
def test_every_integer_and_float_key_binds(dtype: str) -> None:
    assert bind(_argsort(dtype=dtype), (64,)).cpp_method == "Argsort"
    assert bind(_top_k("pairs", dtype=dtype, largest=True), (64,)).cpp_method == "TopKLargest"


@pytest.mark.parametrize("dtype", ["complex64", "bool"])
def test_keys_without_a_radix_order_are_refused(dtype: str) -> None:
    with pytest.raises(SpecError, match=rf"{dtype}"):
        bind(_argsort(dtype=dtype), (64,))
    with pytest.raises(SpecError, match=rf"{dtype}"):
        bind(_top_k(dtype=dtype), (64,))


@pytest.mark.parametrize(("threads", "block"), [(3, (96,)), (64, (128,)), (12, (48,)), (16, (40,)), (32, (33,))])
def test_logical_warps_cub_refuses(threads: int, block: tuple[int, ...]) -> None:
    for request in (_argsort(threads=threads), _top_k(threads=threads)):
        with pytest.raises(SpecError, match=rf"threads={threads} must be a power of two up to 32 that divides"):
            bind(request, block)


@pytest.mark.parametrize("threads", [1, 2, 4, 8, 16, 32])
def test_every_logical_warp_cub_allows(threads: int) -> None:
    block = (33,) if threads == 1 else (64,)
    assert bind(_argsort(threads=threads), block) and bind(_top_k("pairs", threads=threads), block)


def test_float_indices_are_refused() -> None:
    with pytest.raises(SpecError, match=r"index_type"):
        bind(_argsort(index_type="float32"), (64,))


def test_public_stubs() -> None:
    assert list(inspect.signature(coop.warp.argsort).parameters) == [
        "keys", "indices", "descending", "base", "valid_items", "threads", "algorithm", "items_per_thread"]
    params = inspect.signature(coop.warp.top_k).parameters
    assert list(params) == ["keys", "out_keys", "k", "values", "out_values", "largest", "offset", "valid_items",
                            "threads", "algorithm", "items_per_thread"]
    assert params["algorithm"].default == "auto"
    assert params["threads"].default == 32 and params["largest"].default is True
    assert "cuda_coop::WarpArgsort::Argsort" in (coop.warp.argsort.__doc__ or "")
    assert "cuda_coop::WarpTopK::TopK" in (coop.warp.top_k.__doc__ or "")
    assert {"argsort", "top_k"} <= set(coop.warp.__all__)
    with pytest.raises(coop.errors.UsageError, match="called on the host"):
        coop.warp.argsort(None, None)
