"""cub::BlockMergeSort and cuda_coop::WarpSort (cub::WarpMergeSort or cub::detail::WarpBitonicSort): specs,
comparators, constraints, wrapper ABI, rendered C++ and what ``algorithm="auto"`` may pick (host only)."""

from __future__ import annotations

import inspect
import operator

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import KnownOp, Request, UserOp, bind, get_primitive
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_requests

BLOCK = get_primitive("block_merge_sort")
WARP = get_primitive("warp_merge_sort")
OVERLOADS = ["keys", "pairs", "keys_valid", "pairs_valid", "keys_valid_default", "pairs_valid_default"]


def _request(spec: str, overload: str, **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float32", "items_per_thread": 3, "compare": "<", **kw}
    if "pairs" in overload:
        params.setdefault("value_type", "float64")
    if spec == "warp_merge_sort":
        params.setdefault("threads", 16)
    return Request(spec, "merge_sort", overload, **params)


def _render(spec: str, overload: str, block: tuple[int, ...] = (16, 8), **kw: object) -> str:
    return render_requests([_request(spec, overload, **kw)], block)


def _call(text: str) -> tuple[str, str]:
    """The member function called and its argument list."""
    line = next(ln for ln in text.splitlines() if "Sort(" in ln and "Prim(" in ln)
    name = line[: line.index("(reinterpret_cast")].rsplit(".", 1)[1]
    return name, line[line.index("(reinterpret_cast") + 1 : line.rindex(");")]


def test_specs_follow_cub() -> None:
    assert [t.cpp for t in BLOCK.tparams] == ["KeyT", "BlockDimX", "ItemsPerThread", "ValueT", "BlockDimY",
                                              "BlockDimZ", "Unroll"]
    assert [t.cpp for t in WARP.tparams] == ["KeyT", "ItemsPerThread", "LogicalWarpThreads", "ValueT", "Algorithm"]
    for spec in (BLOCK, WARP):
        (method,) = spec.methods
        assert method.cpp_names() == ("Sort", "StableSort")
        assert [o.name for o in method.overloads] == OVERLOADS
        assert spec.example == spec.name


KEYS, VALUES = "reinterpret_cast<float(&)[3]>(*keys)", "reinterpret_cast<double(&)[3]>(*values)"
LESS = "::cuda::std::less<>{}"


@pytest.mark.parametrize(
    ("overload", "args"),
    [
        ("keys", [KEYS, LESS]),
        ("pairs", [KEYS, VALUES, LESS]),
        ("keys_valid", [KEYS, LESS, "cuda_coop_detail::clamp_count<384>(valid_items)"]),
        ("pairs_valid", [KEYS, VALUES, LESS, "cuda_coop_detail::clamp_count<384>(valid_items)"]),
        ("keys_valid_default", [KEYS, LESS, "cuda_coop_detail::clamp_count<384>(valid_items)", "oob_default"]),
        ("pairs_valid_default",
         [KEYS, VALUES, LESS, "cuda_coop_detail::clamp_count<384>(valid_items)", "oob_default"]),
    ],
)
@pytest.mark.parametrize("stable", [False, True])
def test_every_block_overload_renders_cubs_argument_order(overload: str, args: list[str], stable: bool) -> None:
    text = _render("block_merge_sort", overload, stable=stable)
    assert _call(text) == ("StableSort" if stable else "Sort", ", ".join(args))
    value = "double" if "pairs" in overload else "cub::NullType"
    assert f"cub::BlockMergeSort<float, 16, 3, {value}, 8, 1, true>" in text


@pytest.mark.parametrize("algorithm", ["merge_sort", "bitonic"])
@pytest.mark.parametrize("overload", OVERLOADS)
def test_every_warp_overload_counts_the_logical_warps_tile(overload: str, algorithm: str) -> None:
    """Both algorithms take CUB's WarpMergeSort calls (cuda_coop::WarpSort has its member functions)."""
    text = _render("warp_merge_sort", overload, block=(64,), stable=True, compare=">", algorithm=algorithm)
    name, args = _call(text)
    assert name == "StableSort"
    assert args.startswith(KEYS + (", " + VALUES if "pairs" in overload else "") + ", ::cuda::std::greater<>{}")
    assert ("clamp_count<48>(valid_items)" in args) == ("valid" in overload)  # 16 lanes x 3 items
    assert args.endswith("oob_default") == overload.endswith("default")
    value = "double" if "pairs" in overload else "cub::NullType"
    assert f"cuda_coop::WarpSort<float, 3, 16, {value}, cuda_coop::WARP_SORT_{algorithm.upper()}>" in text


def test_the_wrapper_abi() -> None:
    (sig,) = plan([_request("block_merge_sort", "pairs_valid_default", dtype="int16", value_type="uint8",
                            count_type="int64")], (32,)).signatures
    assert sig.declaration.endswith("(short* keys, unsigned char* values, long long valid_items, short oob_default)")
    roles = {c.name: (c.role, c.extent) for c in sig.params}
    assert roles["keys"][1] == roles["values"][1] == 3
    assert roles["keys"][0] == roles["values"][0]  # both sorted in place


def test_comparators() -> None:
    for compare, known in (("<", KnownOp.LESS), (">", KnownOp.GREATER), (operator.lt, KnownOp.LESS),
                           ("gt", KnownOp.GREATER)):
        assert bind(_request("block_merge_sort", "keys", compare=compare), (32,)).values["compare"] is known
    with pytest.raises(SpecError, match="compare='\\+' is not a comparison"):
        bind(_request("block_merge_sort", "keys", compare="+"), (32,))
    with pytest.raises(SpecError, match="compare='<' is not defined for complex64"):
        bind(_request("block_merge_sort", "keys", dtype="complex64"), (32,))
    p = plan([_request("warp_merge_sort", "pairs", dtype="int64", compare=UserOp("by_abs"))], (32,))
    assert [e.declaration for e in p.externs] == ['extern "C" __device__ bool by_abs(long long a0, long long a1)']


@pytest.mark.parametrize("spec", ["block_merge_sort", "warp_merge_sort"])
@pytest.mark.parametrize("compare", ["==", "!=", operator.eq, "<=", operator.ge])
def test_only_a_strict_weak_order_sorts(spec: str, compare: object) -> None:
    """``compare`` declares ``order="strict_weak"``: the known comparisons that are true for equal keys are refused."""
    with pytest.raises(SpecError, match=r"compare='.*' is not a strict weak order: it is true for two equal keys"):
        bind(_request(spec, "keys", compare=compare), (32,))
    for strict in ("<", ">", operator.lt, operator.gt):
        bind(_request(spec, "keys", compare=strict), (32,))


def test_a_user_comparator_orders_any_key_type() -> None:
    p = plan([_request("block_merge_sort", "keys", dtype="complex64", compare=UserOp("by_norm"))], (32,))
    assert p.externs[0].returns is not None and p.externs[0].returns.name == "bool"


@pytest.mark.parametrize("block", [(33,), (96,), (3, 4), (6, 2, 2)])
def test_a_block_that_is_not_a_power_of_two_is_refused(block: tuple[int, ...]) -> None:
    threads = 1
    for d in block:
        threads *= d
    with pytest.raises(SpecError, match=rf"merge_sort needs a block whose thread count is a power of two.*has "
                                        rf"{threads} threads; launch a power-of-two block"):
        bind(_request("block_merge_sort", "keys"), block)


@pytest.mark.parametrize("block", [(1,), (32,), (1024,), (16, 8), (4, 4, 4), (2, 1, 1)])
def test_power_of_two_blocks_bind(block: tuple[int, ...]) -> None:
    assert bind(_request("block_merge_sort", "pairs_valid"), block).cpp_method == "Sort"


@pytest.mark.parametrize(("threads", "block"), [(3, (96,)), (64, (128,)), (12, (48,)), (16, (40,))])
def test_logical_warps_cub_refuses(threads: int, block: tuple[int, ...]) -> None:
    with pytest.raises(SpecError, match=rf"threads={threads} must be a power of two up to 32 that divides"):
        bind(_request("warp_merge_sort", "keys", threads=threads), block)


@pytest.mark.parametrize("threads", [1, 2, 4, 8, 16, 32])
def test_every_logical_warp_cub_allows(threads: int) -> None:
    assert bind(_request("warp_merge_sort", "keys", threads=threads, stable=True), (33 if threads == 1 else 64,))


def test_stable_must_be_a_bool() -> None:
    with pytest.raises(SpecError, match="stable must be True or False, got 1"):
        bind(_request("block_merge_sort", "keys", stable=1), (32,))


def test_public_stubs() -> None:
    assert list(inspect.signature(coop.block.merge_sort).parameters) == [
        "keys", "compare", "values", "valid_items", "oob_default", "stable", "items_per_thread"]
    params = inspect.signature(coop.warp.merge_sort).parameters
    assert list(params) == ["keys", "compare", "values", "valid_items", "oob_default", "stable", "threads",
                            "algorithm", "items_per_thread"]
    assert params["threads"].default == 32 and params["stable"].default is False
    assert params["algorithm"].default == "auto"
    assert "cuda_coop::WarpSort::StableSort" in (coop.warp.merge_sort.__doc__ or "")
    with pytest.raises(coop.errors.UsageError, match="called on the host"):
        coop.block.merge_sort(None, "<")
