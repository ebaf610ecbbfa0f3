"""``coop.block.top_k``'s algorithms ("radix_sort", "air", "air_or_radix_sort", "auto"): the spec against its
header, the choice of "auto", the 1-D rule of AIR, storage, the rendered C++ (host only; tests/compile/ compiles
them, tests/gpu/test_block_top_k_algorithms.py runs them)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import cuda.coop as coop
from cuda.coop._specs import DEFAULT, Request, _auto, bind, get_primitive
from cuda.coop._specs.block_radix_sort import sort_storage_bytes
from cuda.coop._specs.block_top_k import AIR_MAX_K, BlockTopKAlgorithm, air_storage_bytes
from cuda.coop.errors import SpecError
from tests.gpu import test_block_top_k_algorithms as gpu
from tests.helpers.golden import render_requests
from tests.helpers.own_headers import header_text

SPEC = get_primitive("block_top_k")
HEADER = header_text(SPEC.header)


def _top_k(overload: str = "keys", **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float32", "items_per_thread": 4, **kw}
    if overload.startswith("pairs"):
        params.setdefault("value_type", "int64")
    return Request("block_top_k", "top_k", overload, **params)


def _algorithm(request: Request, block: tuple[int, ...]) -> BlockTopKAlgorithm:
    value = bind(request, block).values["algorithm"]
    assert isinstance(value, BlockTopKAlgorithm)
    return value


def test_the_enum_is_the_headers() -> None:
    body = re.search(r"enum BlockTopKAlgorithm\s*\{(.*?)\};", HEADER, re.S)
    assert body is not None
    assert re.findall(r"^\s*(BLOCK_TOP_K_\w+),", body.group(1), re.M) == [m.name for m in BlockTopKAlgorithm]
    assert [m.short_name for m in BlockTopKAlgorithm] == ["radix_sort", "air", "air_or_radix_sort"]
    assert str(BlockTopKAlgorithm.BLOCK_TOP_K_AIR) == "cuda_coop::BLOCK_TOP_K_AIR"
    for member in BlockTopKAlgorithm:
        assert "Overview" in (member.__doc__ or "") and "Performance considerations" in (member.__doc__ or "")


def test_the_threshold_is_the_headers() -> None:
    assert re.search(rf"static constexpr int AIR_MAX_K = {AIR_MAX_K};", HEADER)
    assert "provisional" in (SPEC.tparams[-1].doc + (BlockTopKAlgorithm.BLOCK_TOP_K_AIR_OR_RADIX_SORT.__doc__ or ""))


def test_the_air_specialization_uses_cccls_block_topk() -> None:
    assert "#include <cub/block/block_topk.cuh>" in HEADER
    assert "cub::detail::block_topk<KeyT, BlockThreads, ItemsPerThread>" in HEADER
    assert ".template max_keys<true>(copy, k, TILE)" in HEADER and ".template min_keys<true>(copy, k, TILE)" in HEADER


@pytest.mark.parametrize("block", [(32,), (33,), (1,), (16, 8), (4, 4, 4)])
def test_auto_is_the_radix_sort_without_a_measurement(block: tuple[int, ...]) -> None:
    """No measurement of top-k in the committed table: auto binds the fallback, the radix sort (provisional)."""
    assert not _auto.load_table().entries.get("sm_90", {}).get("block_top_k")
    b = bind(_top_k(), block, arch="sm_90")
    assert b.values["algorithm"] is BlockTopKAlgorithm.BLOCK_TOP_K_RADIX_SORT
    assert b.auto["algorithm"] == "the fallback (no measurement for this item size)"


def _measured(monkeypatch: pytest.MonkeyPatch, ranking: list[str]) -> None:
    """A table that measured 4-byte top-k keys on 128 threads x 4 items, ``ranking`` fastest first."""
    medians = {name: 1.0 + i for i, name in enumerate(ranking)}
    table = _auto.parse_table({"schema": 1, "archs": {"sm_90": {"block_top_k": [
        {"item_bytes": 4, "threads": 128, "items": 4, "ranking": ranking, "median_ms": medians}]}}})
    monkeypatch.setattr(_auto, "load_table", lambda path=_auto.TABLE_PATH: table)


@pytest.mark.parametrize("block", [(128,), (33,), (1024,)])
def test_auto_takes_air_or_radix_sort_where_measured_faster_on_1d_blocks(
    monkeypatch: pytest.MonkeyPatch, block: tuple[int, ...]
) -> None:
    _measured(monkeypatch, ["air", "air_or_radix_sort", "radix_sort"])  # "air" alone is never auto's
    b = bind(_top_k(), block, arch="sm_90")
    assert b.values["algorithm"] is BlockTopKAlgorithm.BLOCK_TOP_K_AIR_OR_RADIX_SORT
    assert b.auto["algorithm"].startswith("table, sm_90, 4-byte items")


@pytest.mark.parametrize("block", [(16, 8), (4, 4, 4), (32, 1, 2)])
def test_auto_never_takes_air_where_it_cannot_run(monkeypatch: pytest.MonkeyPatch, block: tuple[int, ...]) -> None:
    _measured(monkeypatch, ["air_or_radix_sort", "radix_sort"])
    b = bind(_top_k("pairs_valid"), block, arch="sm_90")
    assert b.values["algorithm"] is BlockTopKAlgorithm.BLOCK_TOP_K_RADIX_SORT
    assert b.auto["algorithm"].endswith("; the faster ones are not allowed here")


@pytest.mark.parametrize("algorithm", ["air", "air_or_radix_sort"])
@pytest.mark.parametrize("block", [(16, 8), (4, 4, 4)])
def test_air_on_a_multi_dimensional_block_is_refused(algorithm: str, block: tuple[int, ...]) -> None:
    with pytest.raises(SpecError, match=rf"algorithm='{algorithm}' needs a 1-D block: CCCL's AIR select .*threadIdx.x "
                       r"alone, but the block is \(.*\); use algorithm='radix_sort', or a 1-D block"):
        bind(_top_k(algorithm=algorithm), block)


def test_every_algorithm_binds_on_a_1d_block() -> None:
    for member in BlockTopKAlgorithm:
        for given in (member.short_name, member.name, str(member)):
            assert _algorithm(_top_k(algorithm=given), (128,)) is member
    with pytest.raises(SpecError, match=r"'aair' is not one of the algorithms .*did you mean 'air'"):
        bind(_top_k(algorithm="aair"), (128,))


def test_storage_is_the_algorithms() -> None:
    """"air": AIR's histograms or the tile of keys/values; "air_or_radix_sort": the larger of both."""
    air = bind(_top_k("pairs", algorithm="air", value_type="float64", items_per_thread=8), (256,))
    assert air_storage_bytes(air) == 256 * 8 * 8 + 20
    small = bind(_top_k(algorithm="air", items_per_thread=1), (32,))
    assert air_storage_bytes(small) == 2 * 256 * 4 + 20  # the double-buffered histograms win
    both = bind(_top_k("pairs", algorithm="air_or_radix_sort", value_type="float64", items_per_thread=8), (256,))
    assert max(air_storage_bytes(both), sort_storage_bytes(both)) <= 48 * 1024
    with pytest.raises(SpecError, match=r"needs more than the 48 KiB of shared memory .*algorithm='air'"):
        bind(_top_k("pairs", algorithm="air", dtype="float64", value_type="float64", items_per_thread=8), (1024,))


def test_air_needs_no_radix_sort_storage() -> None:
    """An AIR top-k is refused by its own storage only: a radix_bits the sort could not fit does not matter to it."""
    bind(_top_k(algorithm="air", radix_bits=14, items_per_thread=1), (1024,))
    with pytest.raises(SpecError, match=r"48 KiB"):
        bind(_top_k(algorithm="radix_sort", radix_bits=14, items_per_thread=1), (1024,))


@pytest.mark.parametrize(("algorithm", "cpp"), [(m.short_name, str(m)) for m in BlockTopKAlgorithm])
def test_the_algorithm_is_the_last_template_argument(algorithm: str, cpp: str) -> None:
    text = render_requests([_top_k("pairs_valid", algorithm=algorithm, offset=DEFAULT, valid_type="uint16")], (96,))
    assert f"cuda_coop::BlockTopK<float, 96, 4, long long, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 1, 1, {cpp}>;" in text
    # the same partial-tile handling as every radix sort: padded keys, k bounded by valid_items
    assert "cuda_coop_detail::pad_keys<true, false, 96>(keys_in" in text
    assert ("TopKLargest(keys_in, cuda_coop_detail::min_count(cuda_coop_detail::clamp_count<384>(k), "
            "cuda_coop_detail::clamp_count<384>(valid_items)), out_keys, values_in, out_values, 0);") in text


def test_the_public_function_takes_the_algorithm() -> None:
    params = inspect.signature(coop.block.top_k).parameters
    assert params["algorithm"].default == "auto"
    doc = coop.block.top_k.__doc__ or ""
    for name in ('"radix_sort"', '"air"', '"air_or_radix_sort"', '``"auto"`` (the default'):
        assert name in doc, name
    assert "(its fallback, ``BLOCK_TOP_K_RADIX_SORT``)" in doc


def test_the_spec_says_what_detail_promises() -> None:
    """CUB's detail namespace: the spec and its docs say the bundle is pinned and the tests pin the behaviour."""
    assert "no stability promise between CCCL releases" in SPEC.doc and "tests pin" in SPEC.doc
    module = inspect.getmodule(BlockTopKAlgorithm)
    assert module is not None and "tests/gpu/test_block_top_k_algorithms.py" in (module.__doc__ or "")


def test_the_gpu_tiers_model_is_numpys_stable_sort_where_they_agree(rng: np.random.Generator) -> None:
    """tests/gpu/test_block_top_k_algorithms.py's model against NumPy itself where NumPy's order is CUB's
    (integers; floats without NaN or -0.0), largest and smallest."""
    for dtype in ("int16", "uint32", "float32"):
        for largest in (True, False):
            case = gpu.Case(dtype, (32, 1, 1), 4, "air", "int32", largest, False, "int32")
            keys = rng.integers(0 if dtype == "uint32" else -60, 60, case.tile).astype(dtype)  # many ties
            bits = np.ascontiguousarray(keys).view(f"uint{8 * keys.itemsize}")
            got, positions = gpu.expected(case, bits, np.arange(case.tile), 40, case.tile)
            want = np.argsort(-keys.astype(np.float64) if largest else keys, kind="stable")[:40]
            np.testing.assert_array_equal(positions, want)
            np.testing.assert_array_equal(got, bits[want])
            assert gpu.expected(case, bits, np.arange(case.tile), 40, 7)[1].tolist() == \
                list(np.argsort(-keys[:7].astype(np.float64) if largest else keys[:7], kind="stable"))


def test_the_gpu_tier_covers_every_axis() -> None:
    """Every key type with every block and each algorithm; k from 0 to past the tile, AIR_MAX_K and its neighbours."""
    cases = gpu.CASES
    assert {(c.dtype, c.block) for c in cases} == {(d, b) for d in gpu.KEYS for b in gpu.BLOCKS}
    assert {(c.dtype, c.algorithm) for c in cases} == {(d, a) for d in gpu.KEYS for a in gpu.ALGORITHMS}
    assert {c.values for c in cases} == set(gpu.VALUES) and {c.ipt for c in cases} == set(gpu.ITEMS)
    assert {c.largest for c in cases} == {c.partial for c in cases} == {False, True}
    assert {c.count_type for c in cases if c.partial} == set(gpu.COUNT_TYPES)
    ks = gpu.ks_for(100)
    assert {0, 1, AIR_MAX_K, AIR_MAX_K + 1, 99, 100, 105, -3} <= set(ks.tolist()) and gpu.AIR_MAX_K == AIR_MAX_K
    for c in cases:  # every kernel fits the shared memory of a block
        assert gpu.shared_bytes(c.threads, c.ipt, c.key_bytes, np.dtype(c.values or "int32").itemsize) <= 48 * 1024
