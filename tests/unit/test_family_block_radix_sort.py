"""Radix sorting specs (``cub::BlockRadixSort``; cuda-coop's ``BlockArgsort`` and ``BlockTopK``): shape against
CUB's header, Request -> plan -> render, refusals, public signatures (host only).

Regenerate the golden after an intended change with
``python -m pytest --update-goldens tests/unit/test_family_block_radix_sort.py`` and review the diff.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import DEFAULT, ArgKind, Request, bind, get_primitive
from cuda.coop._specs.block_radix_sort import sort_storage_bytes
from cuda.coop.errors import SpecError
from tests.helpers.golden import after_preamble, check_golden, render_requests
from tests.helpers.own_headers import header_text

HEADERS = Path(coop.__file__).parent / "_headers" / "include" / "cub"


def _sort(overload: str = "keys", **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "uint32", "items_per_thread": 4}
    if overload == "pairs":
        params["value_type"] = "int32"
    params.update(kw)
    return Request("block_radix_sort", "radix_sort", overload, **params)


def _argsort(**kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float32", "items_per_thread": 4, "index_type": "int64"}
    params.update(kw)
    return Request("block_argsort", "argsort", "pairs", **params)


def _top_k(overload: str = "keys", **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float64", "items_per_thread": 4, "count_type": "int32"}
    if overload == "pairs":
        params["value_type"] = "int32"
    params.update(kw)
    return Request("block_top_k", "top_k", overload, **params)


def _declared(params: str) -> list[str]:
    """The names of a C++ template parameter list (``typename KeyT, int RadixBits = 4, ...``)."""
    return [re.split(r"\s*=", part)[0].split()[-1] for part in params.split(",")]


def test_template_parameters_in_cubs_order() -> None:
    text = (HEADERS / "block" / "block_radix_sort.cuh").read_text(encoding="utf-8")
    head = re.search(r"template <(typename KeyT,.*?)>\s*class BlockRadixSort\b", text, re.S)
    assert head is not None
    cub_names = _declared(head.group(1))
    spec = get_primitive("block_radix_sort")
    assert [t.cpp for t in spec.tparams] == cub_names
    assert [t.name for t in spec.tparams if t.public and not t.inferred] == [
        "dtype", "items_per_thread", "value_type", "radix_bits", "memoize_outer_scan", "inner_scan_algorithm",
    ]
    (method,) = spec.methods
    assert method.cpp_names() == ("Sort", "SortBlockedToStriped", "SortDescending", "SortDescendingBlockedToStriped")
    assert [(p.name, p.kind, p.inout) for p in method.overload("pairs").params] == [
        ("keys", ArgKind.ARRAY, True), ("values", ArgKind.ARRAY, True), ("begin_bit", ArgKind.SCALAR, False),
        ("end_bit", ArgKind.SCALAR, False),
    ]


@pytest.mark.parametrize("name", ["block_argsort", "block_top_k"])
def test_compositions_follow_block_radix_sorts_parameters(name: str) -> None:
    """The support classes take BlockRadixSort's parameters in its order (SMemConfig left out: no effect), and
    declare them in that order."""
    spec = get_primitive(name)
    sort = [t.cpp for t in get_primitive("block_radix_sort").tparams if t.cpp != "SMemConfig"]
    third = "IndexT" if name == "block_argsort" else "ValueT"
    last = [] if name == "block_argsort" else ["Algorithm"]  # top-k's algorithm, after the sort's parameters
    assert [t.cpp for t in spec.tparams] == [*sort[:3], third, *sort[4:], *last]
    declared = re.search(r"template <(.*?)>\s*class " + spec.cub_class.split("::")[1], header_text(spec.header), re.S)
    assert declared is not None
    assert _declared(declared.group(1)) == [t.cpp for t in spec.tparams]


def test_method_names() -> None:
    assert get_primitive("block_argsort").methods[0].cpp_names() == (
        "Argsort", "ArgsortBlockedToStriped", "ArgsortDescending", "ArgsortDescendingBlockedToStriped")
    assert get_primitive("block_top_k").methods[0].cpp_names() == ("TopKSmallest", "TopKLargest")


@pytest.mark.parametrize(("descending", "output", "method"), [
    (False, "blocked", "Sort"), (True, "blocked", "SortDescending"), (False, "striped", "SortBlockedToStriped"),
    (True, "striped", "SortDescendingBlockedToStriped"),
])
def test_sort_member_function_and_default_bits(descending: bool, output: str, method: str) -> None:
    text = render_requests([_sort("pairs", dtype="int16", descending=descending, output=output, begin_bit=DEFAULT,
                          end_bit=DEFAULT)], (64,))
    assert "cub::BlockRadixSort<short, 64, 4, int, 4, true, cub::BLOCK_SCAN_WARP_SCANS, " \
           "cudaSharedMemBankSizeFourByte, 1, 1>;" in text
    assert re.search(rf"\.{method}\(reinterpret_cast<short\(&\)\[4\]>\(\*keys\), reinterpret_cast<int\(&\)\[4\]>"
                     r"\(\*values\), 0, 16\);", text)


def test_runtime_bits_are_wrapper_arguments() -> None:
    p = plan([_sort(dtype="float64")], (128,))
    sig = p.signatures[0]
    assert sig.declaration == f'extern "C" __device__ void {sig.symbol}(double* keys, int begin_bit, int end_bit)'


def test_argsort_and_top_k_wrappers() -> None:
    p = plan([_argsort(), _top_k("pairs"), _top_k(offset=DEFAULT, count_type="uint64")], (32, 4))
    a, t, t2 = p.signatures
    assert a.declaration.endswith(f"{a.symbol}(float* keys, long long* indices, long long base, int begin_bit, "
                                  "int end_bit)")
    assert t.declaration.endswith(f"{t.symbol}(double* keys, int k, double* out_keys, int* values, int* out_values, "
                                  "long long offset)")
    assert t2.declaration.endswith(f"{t2.symbol}(double* keys, unsigned long long k, double* out_keys)")
    text = render_requests([_argsort(base=DEFAULT), _top_k("pairs"), _top_k(offset=DEFAULT, count_type="uint64")],
                           (32, 4))
    assert "cuda_coop::BlockArgsort<float, 32, 4, long long, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 4, 1>;" in text
    assert "cuda_coop::BlockTopK<double, 32, 4, int, 4, true, cub::BLOCK_SCAN_WARP_SCANS, 4, 1, " \
           "cuda_coop::BLOCK_TOP_K_RADIX_SORT>;" in text  # auto on a 2-D block: AIR needs a 1-D one
    assert ".Argsort(reinterpret_cast<float(&)[4]>(*keys), reinterpret_cast<long long(&)[4]>(*indices), 0, " \
           "begin_bit, end_bit);" in text  # base omitted: the wrapper passes its default
    assert ".TopKLargest(keys_in, cuda_coop_detail::clamp_count<512>(k), out_keys, values_in, out_values, offset);" \
           in text  # top_k sorts copies: the caller's keys and values stay as they were
    assert ".TopKLargest(keys_in, cuda_coop_detail::clamp_count<512>(k), out_keys, 0);" in text
    assert text.count("#include <cuda_coop/block_top_k.cuh>") == 1  # the preamble's, never C++ of its own
    assert text.count("#include <cuda_coop/block_argsort.cuh>") == 1 and "class Block" not in after_preamble(text)


def test_golden_2d() -> None:
    """Everything after the include preamble: radix_sort, argsort and top_k sharing a 2-D block's storage."""
    text = render_requests(
        [
            _sort("pairs", dtype="float32", value_type="float64", descending=True, output="striped"),
            _sort(dtype="int8", items_per_thread=16, begin_bit=DEFAULT, end_bit=DEFAULT, radix_bits=6,
                  inner_scan_algorithm="raking", memoize_outer_scan=False),
            _argsort(output="striped", base=DEFAULT, begin_bit=DEFAULT),
            _top_k("pairs", largest=False),
        ],
        (16, 8),
    )
    check_golden("block_radix_sort_2d", after_preamble(text))  # the include preamble grows with every family


@pytest.mark.parametrize("request_", [
    _sort(dtype="float16"), _sort("pairs", dtype="bfloat16"), _argsort(dtype="float16"), _top_k(dtype="bfloat16"),
], ids=["sort-f16", "pairs-bf16", "argsort-f16", "top_k-bf16"])
def test_half_precision_keys_are_sorted_by_cub(request_: Request) -> None:
    """CUB's NumericTraits<__half>/<__nv_bfloat16> are floating-point traits (tests/gpu/test_radix_sort_half.py
    checks their order on the GPU)."""
    assert bind(request_, (128,)).type_of("dtype").name in ("float16", "bfloat16")


@pytest.mark.parametrize(("request_", "block"), [
    (_sort("pairs", dtype="uint64", value_type="float64", items_per_thread=16), (1024,)),
    (_sort(dtype="uint8", items_per_thread=16, radix_bits=8), (1024,)),
    (_argsort(dtype="float64", items_per_thread=8), (32, 32)),
    (_top_k("pairs", items_per_thread=16), (16, 16, 4)),
], ids=["pairs-u64-f64", "radix-bits-8", "argsort-f64-i64", "top_k-f64"])
def test_a_sort_over_48_kib_is_refused_before_compiling(request_: Request, block: tuple[int, ...]) -> None:
    with pytest.raises(SpecError, match=r"needs more than the 48 KiB of shared memory a block may have"):
        bind(request_, block)


def test_storage_estimate() -> None:
    """BlockExchange's buffer (one padding item per 32 for 8 and 16 items) or BlockRadixRank's counters."""
    assert sort_storage_bytes(bind(_sort(items_per_thread=4), (128,))) == 128 * 9 * 4  # the counters win
    assert sort_storage_bytes(bind(_sort(items_per_thread=16), (128,))) == (2048 + 64) * 4
    assert sort_storage_bytes(bind(_sort("pairs", value_type="float64", items_per_thread=7), (100,))) == 700 * 8
    assert sort_storage_bytes(bind(_argsort(items_per_thread=8), (256,)), "index_type") == (2048 + 64) * 8
    assert sort_storage_bytes(bind(_sort(items_per_thread=1, radix_bits=8), (32,))) == 32 * 129 * 4
    bind(_sort("pairs", dtype="uint64", value_type="float64", items_per_thread=4), (1024,))  # 32 KiB: allowed


def test_public_signatures() -> None:
    sig = inspect.signature(coop.block.radix_sort)
    assert list(sig.parameters) == ["keys", "values", "descending", "begin_bit", "end_bit", "valid_items", "output",
                                    "radix_bits", "memoize_outer_scan", "inner_scan_algorithm", "items_per_thread"]
    assert sig.parameters["values"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["end_bit"].default is None and sig.parameters["begin_bit"].default == 0
    sig = inspect.signature(coop.block.argsort)
    assert list(sig.parameters)[:4] == ["keys", "indices", "descending", "base"]
    assert sig.parameters["indices"].default is inspect.Parameter.empty
    sig = inspect.signature(coop.block.top_k)
    assert list(sig.parameters)[:7] == ["keys", "out_keys", "k", "values", "out_values", "largest", "offset"]
    assert sig.parameters["k"].kind is inspect.Parameter.KEYWORD_ONLY and sig.parameters["k"].default is sig.empty
    assert sig.parameters["largest"].default is True and sig.parameters["offset"].default == 0
    for name in ("radix_sort", "argsort", "top_k"):
        assert name in coop.block.__all__
        doc = getattr(coop.block, name).__doc__ or ""
        assert "-0.0 and +0.0 tie" in doc or "-0.0 == +0.0" in doc, name
    assert "cub::detail::block_topk" in (coop.block.top_k.__doc__ or "")


# --- radix_rank --------------------------------------------------------------------------------------------------


def _rank(overload: str = "ranks", **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float32", "items_per_thread": 4, "radix_bits": 4}
    if overload == "ranks_prefix":
        params["bins_per_thread"] = 1
    params.update(kw)
    return Request("block_radix_rank", "radix_rank", overload, **params)


def test_rank_algorithms_are_cubs() -> None:
    from cuda.coop._specs.block_radix_rank import RadixRankAlgorithm

    text = (HEADERS / "block" / "block_radix_rank.cuh").read_text(encoding="utf-8")
    body = re.search(r"enum RadixRankAlgorithm\s*\{(.*?)\};", text, re.S)
    assert body is not None
    cub = re.findall(r"^\s*(RADIX_RANK_\w+)\s*,?\s*$", body.group(1), re.M)
    assert [m.name for m in RadixRankAlgorithm] == cub[:3]  # the early-counts members are left out (documented)
    assert [m.short_name for m in RadixRankAlgorithm] == ["basic", "memoize", "match"]


def test_rank_renders_cubs_classes() -> None:
    spec = get_primitive("block_radix_rank")
    declared = re.search(r"template <(.*?)>\s*class BlockRadixRankBits", header_text(spec.header), re.S)
    assert declared is not None and _declared(declared.group(1)) == [t.cpp for t in spec.tparams]
    p = plan([_rank(), _rank("ranks_prefix", algorithm="match", radix_bits=8, bins_per_thread=2, descending=True,
                             begin_bit=DEFAULT)], (128,))
    a, b = p.signatures
    assert a.declaration.endswith(f"{a.symbol}(float* keys, int* ranks, int begin_bit, int end_bit)")
    assert b.declaration.endswith(f"{b.symbol}(float* keys, int* ranks, int* digit_prefix, int end_bit)")
    text = render_requests([_rank(), _rank("ranks_prefix", algorithm="match", radix_bits=8, bins_per_thread=2,
                                   descending=True, begin_bit=DEFAULT)], (128,))
    assert "cuda_coop::BlockRadixRankBits<float, 128, 4, 4, false, cub::RADIX_RANK_BASIC, " \
           "cub::BLOCK_SCAN_WARP_SCANS, 1, 1>;" in text
    assert "cuda_coop::BlockRadixRankBits<float, 128, 4, 8, true, cub::RADIX_RANK_MATCH, " \
           "cub::BLOCK_SCAN_WARP_SCANS, 1, 1>;" in text
    assert ".RankKeys(keys_in, reinterpret_cast<int(&)[4]>(*ranks), reinterpret_cast<int(&)[2]>(*digit_prefix), " \
           "0, end_bit);" in text  # the keys are a copy: radix_rank never changes them


@pytest.mark.parametrize(("request_", "block", "pattern"), [
    (_rank(algorithm="match"), (16, 8), r"algorithm='match' needs a 1-D block"),
    (_rank("ranks_prefix", radix_bits=8, bins_per_thread=1), (128,), r"digit_prefix= has 1 items, but with "
     r"radix_bits=8 on 128 threads"),
    (_rank(items_per_thread=64), (1024,), r"counts digits in 16 bits: a tile of 1024 x items_per_thread=64"),
    (_rank(radix_bits=5), (1024,), r"radix_bits=5 with algorithm='basic' on 1024 threads needs more than the 48 KiB"),
], ids=["match-2d", "prefix-size", "tile-65535", "counters-48k"])
def test_rank_refusals(request_: Request, block: tuple[int, ...], pattern: str) -> None:
    with pytest.raises(SpecError, match=pattern):
        bind(request_, block)


def test_rank_allowed_configurations() -> None:
    bind(_rank(algorithm="match", radix_bits=8, items_per_thread=64), (1024,))  # 65536 keys: match counts in 32 bits
    bind(_rank(radix_bits=4), (1024,))  # 36 KiB of counters
    bind(_rank(dtype="bfloat16", algorithm="match"), (128,))  # half keys: CUB's float traits
    bind(_rank("ranks_prefix", radix_bits=7, bins_per_thread=2), (4, 4, 4))
    sig = inspect.signature(coop.block.radix_rank)
    assert sig.parameters["radix_bits"].default == 4 == inspect.signature(coop.block.radix_sort).parameters[
        "radix_bits"].default
    assert sig.parameters["algorithm"].default == "basic" and sig.parameters["digit_prefix"].default is None
