"""``cub::WarpLoad`` / ``cub::WarpStore`` specs: shape against CUB's header, Request -> plan -> render, refusals,
public signatures (host only).

Regenerate the golden after an intended change with
``python -m pytest --update-goldens tests/unit/test_family_warp_load_store.py`` and review the diff.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import cuda.coop as coop
from cuda.coop import _specs
from cuda.coop._provider import plan
from cuda.coop._specs import ArgKind, Request, bind, get_primitive
from cuda.coop._specs.warp_load_store import WarpLoadAlgorithm, WarpStoreAlgorithm
from cuda.coop.errors import SpecError
from tests.helpers.golden import after_preamble, check_golden, render_requests

HEADERS = Path(coop.__file__).parent / "_headers" / "include" / "cub" / "warp"  # the bundled CCCL


def _cub_enumerators(header: str, enum: str) -> list[str]:
    text = (HEADERS / header).read_text(encoding="utf-8")
    body = re.search(rf"enum {enum}\s*\{{(.*?)\}};", text, re.S)
    assert body is not None, f"enum {enum} not found in {header}"
    return re.findall(r"^\s*(WARP_\w+)\s*,?\s*$", body.group(1), re.M)  # enumerators, not doc comments


@pytest.mark.parametrize(
    ("enum", "header", "cpp"),
    [
        (WarpLoadAlgorithm, "warp_load.cuh", "WarpLoadAlgorithm"),
        (WarpStoreAlgorithm, "warp_store.cuh", "WarpStoreAlgorithm"),
    ],
)
def test_algorithm_enum_is_cubs(enum: type[_specs.CubEnum], header: str, cpp: str) -> None:
    if not HEADERS.is_dir():
        pytest.skip(f"no bundled CUB headers at {HEADERS}")
    assert [m.name for m in enum] == _cub_enumerators(header, cpp)
    assert [m.short_name for m in enum] == ["direct", "striped", "vectorize", "transpose"]
    for member in enum:
        assert "Overview" in (member.__doc__ or "") and "Performance considerations" in (member.__doc__ or "")


@pytest.mark.parametrize("name", ["warp_load", "warp_store"])
def test_template_parameters_in_cubs_order(name: str) -> None:
    spec = get_primitive(name)
    assert [(t.name, t.cpp) for t in spec.tparams] == [
        ("dtype", "T"),
        ("items_per_thread", "ItemsPerThread"),
        ("algorithm", "ALGORITHM"),
        ("threads", "LogicalWarpThreads"),
    ]
    assert spec.scope is _specs.Scope.WARP and spec.example == "warp_load_store"


@pytest.mark.parametrize("algorithm", ["direct", "striped", "vectorize", "transpose"])
@pytest.mark.parametrize("threads", [1, 8, 32])
def test_every_algorithm_and_overload_renders(algorithm: str, threads: int) -> None:
    requests = [
        Request("warp_load", "load", "full", dtype="int32", items_per_thread=4, algorithm=algorithm, threads=threads),
        Request("warp_load", "load", "guarded", dtype="int32", items_per_thread=4, algorithm=algorithm,
                threads=threads, count_type="int64"),
        Request("warp_load", "load", "guarded_default", dtype="int32", items_per_thread=4, algorithm=algorithm,
                threads=threads),
        Request("warp_store", "store", "full", dtype="int32", items_per_thread=4, algorithm=algorithm,
                threads=threads),
        Request("warp_store", "store", "guarded", dtype="int32", items_per_thread=4, algorithm=algorithm,
                threads=threads, count_type="uint8"),
    ]
    text = render_requests(requests, (64,))
    upper = algorithm.upper()
    assert f"cub::WarpLoad<int, 4, cub::WARP_LOAD_{upper}, {threads}>" in text
    assert f"cub::WarpStore<int, 4, cub::WARP_STORE_{upper}, {threads}>" in text
    assert "Prim(temp).Load(src, reinterpret_cast<int(&)[4]>(*items));" in text
    items = "reinterpret_cast<int(&)[4]>(*items)"
    assert f"Prim(temp).Load(src, {items}, cuda_coop_detail::clamp_count<256>(valid_items));" in text
    assert ", cuda_coop_detail::clamp_count<256>(valid_items), oob_default);" in text
    assert "Prim(temp).Store(dst, items_in);" in text
    assert "Prim(temp).Store(dst, items_in, cuda_coop_detail::clamp_count<256>(valid_items));" in text
    # One TempStorage per logical warp, in the calling hardware warp's slot.
    assert f"storage.warp[tid / 32].w{threads}.s0[tid % 32 / {threads}]" in text


def test_wrapper_c_abi() -> None:
    p = plan(
        [
            Request("warp_load", "load", "guarded_default", dtype="float64", items_per_thread=2, threads=16,
                    count_type="uint32"),
            Request("warp_store", "store", "full", dtype="int8", items_per_thread=3, threads=4, algorithm="transpose"),
        ],
        (32,),
    )
    load, store = p.signatures
    assert load.declaration == (
        f'extern "C" __device__ void {load.symbol}(const double* src, double* items, unsigned int valid_items, '
        "double oob_default)"
    )
    assert store.declaration == f'extern "C" __device__ void {store.symbol}(signed char* dst, signed char* items)'
    roles = {c.name: (c.kind, c.role, c.extent) for c in store.params}
    assert roles["items"] == (ArgKind.ARRAY, "in", 3)  # a copy goes to CUB: the caller's items never change


def test_count_clamp_covers_the_warp_tile() -> None:
    """valid_items is clamped to [0, block tile] before CUB's int: the block tile is at or above every warp's tile,
    so a count at or above the warp tile still means the whole warp tile, and wide or negative counts are exact."""
    for threads, block in ((32, (32,)), (4, (33, 4)), (1, (7, 5, 3))):
        b = bind(Request("warp_load", "load", "guarded", dtype="int16", items_per_thread=5, threads=threads), block)
        valid = next(p for p in b.overload.params if p.name == "valid_items")
        limit = b.count_limit(valid)
        assert limit is not None and limit >= threads * 5


def test_golden_2d() -> None:
    """Everything after the include preamble, for a 2-D block with logical warps of 32, 16 and 8 threads."""
    text = render_requests(
        [
            Request("warp_load", "load", "guarded_default", dtype="float32", items_per_thread=4, algorithm="transpose",
                    threads=16, count_type="int64"),
            Request("warp_store", "store", "guarded", dtype="float32", items_per_thread=4, algorithm="transpose",
                    threads=16, count_type="int64"),
            Request("warp_load", "load", "full", dtype="float32", items_per_thread=4, algorithm="vectorize"),
            Request("warp_store", "store", "full", dtype="float32", items_per_thread=4, algorithm="striped", threads=8),
        ],
        (16, 8),
    )
    check_golden("warp_load_store_2d", after_preamble(text))  # the include preamble grows with every family


@pytest.mark.parametrize(
    ("threads", "block"),
    [(3, (64,)), (64, (64,)), (16, (24,)), (32, (33,)), (8, (2, 2, 1))],
)
@pytest.mark.parametrize("name", ["warp_load", "warp_store"])
def test_logical_warp_refusals(name: str, threads: int, block: tuple[int, ...]) -> None:
    method = "load" if name == "warp_load" else "store"
    with pytest.raises(SpecError) as info:
        bind(Request(name, method, "full", dtype="int32", items_per_thread=2, threads=threads), block)
    message = str(info.value)
    assert f"threads={threads} must be a power of two up to 32 that divides the block size" in message
    assert "LogicalWarpThreads" not in message


def test_unknown_algorithm_is_refused_with_a_suggestion() -> None:
    with pytest.raises(SpecError, match=r"'transpos'.*did you mean 'transpose'"):
        bind(Request("warp_load", "load", "full", dtype="int32", items_per_thread=2, algorithm="transpos"), (32,))
    with pytest.raises(SpecError, match="warp_transpose"):  # a BlockLoad algorithm, not a WarpLoad one
        bind(Request("warp_store", "store", "full", dtype="int32", items_per_thread=2, algorithm="warp_transpose"),
             (32,))


def _parameters(func: object) -> list[tuple[str, str, object]]:
    return [(p.name, p.kind.name, p.default) for p in inspect.signature(func).parameters.values()]  # type: ignore[arg-type]


def test_public_signatures() -> None:
    empty = inspect.Parameter.empty
    assert _parameters(coop.warp.load) == [
        ("src", "POSITIONAL_OR_KEYWORD", empty),
        ("items", "POSITIONAL_OR_KEYWORD", empty),
        ("offset", "KEYWORD_ONLY", 0),
        ("valid_items", "KEYWORD_ONLY", None),
        ("oob_default", "KEYWORD_ONLY", None),
        ("algorithm", "KEYWORD_ONLY", "auto"),
        ("threads", "KEYWORD_ONLY", 32),
        ("items_per_thread", "KEYWORD_ONLY", None),
    ]
    assert _parameters(coop.warp.store) == [
        ("dst", "POSITIONAL_OR_KEYWORD", empty),
        ("items", "POSITIONAL_OR_KEYWORD", empty),
        ("offset", "KEYWORD_ONLY", 0),
        ("valid_items", "KEYWORD_ONLY", None),
        ("algorithm", "KEYWORD_ONLY", "auto"),
        ("threads", "KEYWORD_ONLY", 32),
        ("items_per_thread", "KEYWORD_ONLY", None),
    ]
    doc = coop.warp.load.__doc__ or ""
    assert "every warp given the same ``offset`` loads the same tile" in doc
    assert "cub::WarpLoad::Load" in doc and '``"transpose"``' in doc


def test_host_call_is_a_usage_error() -> None:
    with pytest.raises(coop.errors.UsageError, match=r"coop\.warp\.store\(\) was called on the host"):
        coop.warp.store(None, None)


def _lane_by_lane(case, xf, xp, oob, fill, poison) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """What each lane of the GPU test's kernel does, item by item, as CUB documents it (a model independent of the
    GPU test's vectorised NumPy references)."""
    from tests.gpu import test_family_warp_load_store as gpu

    t, w, ipt, total = case.threads, case.width, case.ipt, case.total
    out = {k: np.full(len(gpu.ALGORITHMS) * total, poison, xf.dtype) for k in gpu.OUTPUTS}
    for a, algorithm in enumerate(gpu.ALGORITHMS):
        for block in range(gpu.GRID):
            for tid in range(t):
                lane, mine = tid % w, (block * t + tid) * ipt
                base = block * t * ipt + (tid // w) * w * ipt
                for k in range(ipt):
                    j = lane + k * w if algorithm == "striped" else lane * ipt + k  # tile position of item k
                    out["lf"][a * total + mine + k] = xf[base + j]
                    out["lp"][a * total + mine + k] = xp[base + j] if base + j < case.n else oob
                    out["lg"][a * total + mine + k] = xp[base + j] if base + j < case.n else fill
                    out["sf"][a * total + base + j] = xf[mine + k]
                    if base + j < case.n:
                        out["sp"][a * total + base + j] = xf[mine + k]
    return out


def test_gpu_references_match_a_lane_by_lane_model(rng: np.random.Generator) -> None:
    from tests.gpu import test_family_warp_load_store as gpu
    from tests.gpu._data import random_values, sentinels

    for case in gpu.CASES[::9]:
        dt = np.dtype(case.dtype)
        poison, oob = sentinels(case.dtype)
        xf = random_values(rng, case.dtype, case.total)
        xp = random_values(rng, case.dtype, case.total)
        xp[case.n :] = poison
        expected = gpu.expected_outputs(case, xf, xp, oob, dt.type(0), poison)
        model = _lane_by_lane(case, xf, xp, oob, dt.type(0), poison)
        bits = np.dtype(f"u{dt.itemsize}")
        for name in gpu.OUTPUTS:
            assert np.array_equal(expected[name].view(bits), model[name].view(bits)), (case.id, name)
