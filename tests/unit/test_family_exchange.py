"""BlockExchange and WarpExchange specs: requests, rendered C++, constraints and public stubs (host only).

Regenerate the golden after an intended change with
``python -m pytest --update-goldens tests/unit/test_family_exchange.py`` and review the diff.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import Request, bind, get_primitive
from cuda.coop._specs.warp_exchange import WarpExchangeAlgorithm
from cuda.coop.errors import SpecError, UsageError
from tests.gpu import test_family_exchange as gpu
from tests.helpers.golden import check_golden, render_requests

HEADERS = ("cub/block/block_exchange.cuh", "cub/warp/warp_exchange.cuh")  # fixed: families added later change nothing

BLOCK_METHODS = (
    "striped_to_blocked",
    "blocked_to_striped",
    "warp_striped_to_blocked",
    "blocked_to_warp_striped",
    "scatter_to_blocked",
    "scatter_to_striped",
    "scatter_to_striped_guarded",
    "scatter_to_striped_flagged",
)
WARP_METHODS = ("scatter_to_striped", "blocked_to_striped", "striped_to_blocked")
CPP = {
    "striped_to_blocked": "StripedToBlocked",
    "blocked_to_striped": "BlockedToStriped",
    "warp_striped_to_blocked": "WarpStripedToBlocked",
    "blocked_to_warp_striped": "BlockedToWarpStriped",
    "scatter_to_blocked": "ScatterToBlocked",
    "scatter_to_striped": "ScatterToStriped",
    "scatter_to_striped_guarded": "ScatterToStripedGuarded",
    "scatter_to_striped_flagged": "ScatterToStripedFlagged",
}


def _block(method: str, block: tuple[int, ...] = (128,), **params: object) -> Request:
    params.setdefault("dtype", "float32")
    params.setdefault("items_per_thread", 4)
    return Request("block_exchange", method, "array", **params)


def _warp(method: str, **params: object) -> Request:
    params.setdefault("dtype", "int32")
    params.setdefault("items_per_thread", 4)
    return Request("warp_exchange", method, "array", **params)


def _source(requests: list[Request], block: tuple[int, ...]) -> str:
    return render_requests(requests, block, headers=HEADERS)


def test_golden_2d() -> None:
    requests = [
        _block("blocked_to_warp_striped", dtype="int64", warp_time_slicing=True),
        _block("scatter_to_blocked", rank_type="uint16"),
        _block("scatter_to_striped_flagged", dtype="float64", items_per_thread=2, rank_type="int64", flag_type="bool"),
        _warp("striped_to_blocked", threads=8, items_per_thread=8, algorithm="shuffle"),
        _warp("scatter_to_striped", threads=16, rank_type="int8"),
    ]
    check_golden("exchange_2d", _source(requests, (32, 4)))


@pytest.mark.parametrize("method", BLOCK_METHODS)
def test_block_method_renders_cub_two_array_form(method: str) -> None:
    text = _source([_block(method, dtype="int16", items_per_thread=3)], (64,))
    assert "cub::BlockExchange<short, 64, 3, false, 1, 1>" in text
    args = "x_in, reinterpret_cast<short(&)[3]>(*output)"
    if "scatter" in method:
        args += ", ranks_in"
    if method.endswith("flagged"):
        args += ", valid_flags_in"
    assert f".{CPP[method]}({args});" in text
    assert "__syncthreads();" in text  # before the shared storage is written


def test_block_template_arguments_in_cub_order() -> None:
    text = _source([_block("blocked_to_striped", dtype="uint8", items_per_thread=5, warp_time_slicing=True)], (8, 4, 2))
    assert "cub::BlockExchange<unsigned char, 8, 5, true, 4, 2>" in text


def test_ranks_and_flags_take_their_own_types() -> None:
    sig = plan([_block("scatter_to_striped_flagged", rank_type="int64", flag_type="uint8")], (128,)).signatures[0]
    types = {p.name: p.ctype for p in sig.params}
    assert types == {"x": "float*", "output": "float*", "ranks": "long long*", "valid_flags": "unsigned char*"}
    roles = {p.name: p.role for p in sig.params}
    assert roles == {"x": "in", "output": "out", "ranks": "in", "valid_flags": "in"}  # ranks never modified


def test_rank_and_flag_types_default() -> None:
    b = bind(_block("scatter_to_striped_flagged"), (128,))
    assert (b.values["rank_type"].name, b.values["flag_type"].name) == ("int32", "bool")


@pytest.mark.parametrize(
    ("request_", "match"),
    [
        (_block("scatter_to_striped", rank_type="float32"), "rank_type must be of kind int or uint"),
        (_block("scatter_to_striped_guarded", rank_type="uint32"), "rank_type must be of kind int, got uint32"),
        (_block("scatter_to_striped_flagged", flag_type="float64"), "flag_type must be of kind bool or int or uint"),
        (_block("blocked_to_striped", warp_time_slicing=1), "warp_time_slicing must be True or False"),
    ],
)
def test_bad_types_are_refused(request_: Request, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        bind(request_, (128,))


@pytest.mark.parametrize("method", ["warp_striped_to_blocked", "blocked_to_warp_striped"])
@pytest.mark.parametrize("block", [(33,), (16,), (100,), (7, 5, 3)])
def test_warp_striped_needs_whole_warps(method: str, block: tuple[int, ...]) -> None:
    with pytest.raises(SpecError, match=rf"{method} needs whole warps: .* multiple of 32 threads, but the block"):
        bind(_block(method), block)


@pytest.mark.parametrize("method", ["warp_striped_to_blocked", "blocked_to_warp_striped"])
@pytest.mark.parametrize("block", [(32,), (16, 8), (4, 4, 4), (1024,)])
@pytest.mark.parametrize("slicing", [False, True])
def test_warp_striped_takes_multiples_of_32(method: str, block: tuple[int, ...], slicing: bool) -> None:
    bind(_block(method, warp_time_slicing=slicing), block)


@pytest.mark.parametrize("method", ["striped_to_blocked", "blocked_to_striped", "scatter_to_blocked",
                                    "scatter_to_striped"])
@pytest.mark.parametrize("block", [(1,), (33,), (100,), (7, 5, 3)])
def test_blocked_and_striped_take_any_block(method: str, block: tuple[int, ...]) -> None:
    for slicing in (False, True):
        bind(_block(method, warp_time_slicing=slicing), block)


@pytest.mark.parametrize("method", ["scatter_to_striped_guarded", "scatter_to_striped_flagged"])
def test_guarded_scatters_refuse_time_slicing(method: str) -> None:
    with pytest.raises(SpecError, match=rf"{method} does not time-slice: .*use warp_time_slicing=False"):
        bind(_block(method, warp_time_slicing=True), (64,))
    bind(_block(method, warp_time_slicing=True), (32,))  # one warp: the sliced storage is the whole tile
    bind(_block(method), (64,))


@pytest.mark.parametrize("method", WARP_METHODS)
def test_warp_method_renders(method: str) -> None:
    text = _source([_warp(method, threads=8, dtype="uint64")], (64,))
    assert "cub::WarpExchange<unsigned long long, 4, 8, cub::WARP_EXCHANGE_SMEM>" in text
    args = "x_in, reinterpret_cast<unsigned long long(&)[4]>(*output)" + (", ranks_in" if "scatter" in method
                                                                              else "")
    assert f".{CPP[method]}({args});" in text
    assert "__syncwarp(cuda_coop_detail::logical_warp_mask<8>(tid));" in text


@pytest.mark.parametrize("threads", [1, 2, 4, 8, 16, 32])
def test_shuffle_needs_items_equal_to_threads(threads: int) -> None:
    bind(_warp("blocked_to_striped", threads=threads, items_per_thread=threads, algorithm="shuffle"), (64,))
    other = 2 * threads if threads < 32 else 16
    with pytest.raises(SpecError, match=rf"algorithm='shuffle' needs items_per_thread equal to threads "
                                        rf"\(got items_per_thread={other}, threads={threads}\); use algorithm='smem'"):
        bind(_warp("striped_to_blocked", threads=threads, items_per_thread=other, algorithm="shuffle"), (64,))


def test_shuffle_refuses_scatter_and_non_builtin_types() -> None:
    with pytest.raises(SpecError, match="algorithm='shuffle' cannot scatter by rank; use algorithm='smem'"):
        bind(_warp("scatter_to_striped", threads=4, algorithm="shuffle"), (64,))
    with pytest.raises(SpecError, match="shuffles built-in integers and floats only \\(got complex64\\)"):
        bind(_warp("blocked_to_striped", threads=4, dtype="complex64", algorithm="shuffle"), (64,))
    bind(_warp("blocked_to_striped", threads=4, dtype="complex64"), (64,))  # smem moves any type


@pytest.mark.parametrize(("threads", "block"), [(3, (64,)), (64, (64,)), (32, (48,)), (16, (8,))])
def test_logical_warp_must_divide_the_block(threads: int, block: tuple[int, ...]) -> None:
    with pytest.raises(SpecError, match=rf"threads={threads} must be a power of two up to 32 that divides"):
        bind(_warp("blocked_to_striped", threads=threads), block)


def test_algorithm_enum() -> None:
    assert [m.short_name for m in WarpExchangeAlgorithm] == ["smem", "shuffle"]
    assert str(WarpExchangeAlgorithm.WARP_EXCHANGE_SHUFFLE) == "cub::WARP_EXCHANGE_SHUFFLE"
    for member in WarpExchangeAlgorithm:
        assert "Overview" in (member.__doc__ or "") and "Performance considerations" in (member.__doc__ or "")
    with pytest.raises(SpecError, match="did you mean 'shuffle'"):
        bind(_warp("blocked_to_striped", algorithm="shufle"), (64,))


def test_specs_are_registered() -> None:
    assert [m.name for m in get_primitive("block_exchange").methods] == list(BLOCK_METHODS)
    assert [m.name for m in get_primitive("warp_exchange").methods] == list(WARP_METHODS)


@pytest.mark.parametrize("name", BLOCK_METHODS)
def test_block_stub_signature(name: str) -> None:
    params = inspect.signature(getattr(coop.block, name)).parameters
    assert params["output"].default is None  # in place by default
    assert params["output"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["warp_time_slicing"].default is False
    assert params["warp_time_slicing"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["x"].default is inspect.Parameter.empty
    if "scatter" in name:
        assert params["ranks"].default is inspect.Parameter.empty
    if name.endswith("flagged"):
        assert params["valid_flags"].default is inspect.Parameter.empty


@pytest.mark.parametrize("name", WARP_METHODS)
def test_warp_stub_signature(name: str) -> None:
    params = inspect.signature(getattr(coop.warp, name)).parameters
    assert (params["threads"].default, params["algorithm"].default, params["output"].default) == (32, "smem", None)


def test_block_and_warp_names_are_distinct_primitives() -> None:
    assert coop.block.striped_to_blocked is not coop.warp.striped_to_blocked
    assert coop.block.striped_to_blocked.__coop_primitive__.target == ("block_exchange", "striped_to_blocked")
    assert coop.warp.striped_to_blocked.__coop_primitive__.target == ("warp_exchange", "striped_to_blocked")


def test_host_call_is_refused() -> None:
    with pytest.raises(UsageError, match=r"coop.warp.scatter_to_striped\(\) was called on the host"):
        coop.warp.scatter_to_striped([1], [0])


# -- the GPU test's references against a thread-by-thread model of CUB's arrangements -----------------------


def _model_block_case(case, x, perm, keep) -> dict[str, np.ndarray]:
    """What the GPU test's block kernel stores, computed from CUB's definitions of the arrangements."""
    t_, ipt = case.threads, case.ipt
    n = len(x)
    got = {name: np.full(n, -1, dtype=x.dtype) for name in gpu.BLOCK_OUTPUTS}
    for base in range(0, n, case.tile):
        tile = x[base:base + case.tile]
        blocked = tile.reshape(t_, ipt)  # thread t holds tile[t*ipt + i]
        ranks = perm[base:base + case.tile].reshape(t_, ipt)
        valid = keep[base:base + case.tile].reshape(t_, ipt) != 0
        buf = np.empty_like(tile)
        buf[ranks.ravel()] = blocked.ravel()
        masked = np.full_like(tile, -1)
        masked[ranks[valid]] = blocked[valid]
        for t in range(t_):
            for i in range(ipt):
                got["b2s"][base + i * t_ + t] = tile[i * t_ + t]  # blocked_to_striped: out[i] = tile[i*T + t]
                got["s2b"][base + t * ipt + i] = tile[t * ipt + i]  # striped_to_blocked: out[i] = tile[t*N + i]
                got["sc_b"][base + t * ipt + i] = buf[t * ipt + i]
                got["sc_s"][base + i * t_ + t] = buf[i * t_ + t]
                got["sc_g"][base + i * t_ + t] = masked[i * t_ + t]
                got["sc_f"][base + i * t_ + t] = masked[i * t_ + t]
                if case.whole_warps:
                    w, lane, wt = t // 32, t % 32, 32 * ipt
                    got["b2ws"][base + w * wt + i * 32 + lane] = tile[w * wt + i * 32 + lane]
                    got["ws2b"][base + t * ipt + i] = tile[t * ipt + i]
    return got


@pytest.mark.parametrize("case", gpu.BLOCK_CASES[:6], ids=lambda c: c.id)
def test_gpu_block_references_match_the_model(case, rng: np.random.Generator) -> None:
    n = gpu.GRID * case.tile
    x = np.arange(n, dtype=np.int64) * 7 + 1
    perm = gpu._permutations(rng, gpu.GRID, case.tile)
    keep = (rng.random(n) < 0.7).astype(np.uint8)
    got = _model_block_case(case, x, perm, keep)
    for name in ("b2s", "s2b", *(("b2ws", "ws2b") if case.whole_warps else ())):
        np.testing.assert_array_equal(got[name], x, err_msg=name)
    scattered = gpu._scattered(x, perm, case.tile)
    np.testing.assert_array_equal(got["sc_b"], scattered)
    np.testing.assert_array_equal(got["sc_s"], scattered)
    offsets = np.repeat(np.arange(gpu.GRID) * case.tile, case.tile)
    kept = offsets[keep != 0] + perm[keep != 0]
    np.testing.assert_array_equal(got["sc_g"][kept], scattered[kept])
    assert (np.delete(got["sc_g"], kept) == -1).all()  # the model leaves the rest undefined (-1 here)
