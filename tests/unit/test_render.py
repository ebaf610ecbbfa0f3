"""The pure renderer and the wrappers' C ABI: golden C++ under tests/data/render/ (host only).

Regenerate the goldens after an intended change with ``python -m pytest --update-goldens tests/unit/test_render.py``
and review the diff.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cuda.coop import _specs
from cuda.coop._provider import plan
from cuda.coop._provider._abi import Plan
from cuda.coop._specs import ArgKind, Request, UserCallback, UserOp, user_type
from tests.helpers.cub_extra_specs import extra_requests, registered_extra_specs
from tests.helpers.golden import check_golden, fixed_blocks, render_plan, render_requests
from tests.helpers.own_headers import header_text

UDT = user_type(12, 4)

CASES: dict[str, tuple[list[Request], tuple[int, ...]]] = {
    "reduce_scan": (
        [
            Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16),
            Request("block_scan", "exclusive_sum", "array", dtype="int32", items_per_thread=4),
        ],
        (256,),
    ),
    "load_store_2d": (
        [
            Request("block_load", "load", "guarded_default", dtype="int64", items_per_thread=4, algorithm="transpose"),
            Request(
                "block_scan",
                "inclusive_scan",
                "array_init_aggregate",
                dtype="int64",
                items_per_thread=4,
                op="max",
                algorithm="warp_scans",
            ),
            Request("block_store", "store", "guarded", dtype="int64", items_per_thread=4, algorithm="warp_transpose"),
        ],
        (16, 8),
    ),
    "warp_mixed_3d": (
        [
            Request("warp_reduce", "sum", "scalar", dtype="float64"),
            Request("warp_scan", "scan", "scalar_init", dtype="int32", threads=16, op="+"),
            Request("warp_reduce", "reduce", "scalar_valid", dtype="uint8", threads=8, op="min"),
            Request("block_reduce", "sum", "scalar", dtype="float64", algorithm="raking"),
        ],
        (4, 4, 4),
    ),
    "user_types": (
        [
            Request(
                "block_scan",
                "exclusive_scan",
                "array_prefix",
                dtype=UDT,
                items_per_thread=2,
                op=UserOp("udt_combine"),
                prefix_op=UserCallback("udt_running_total"),
            ),
            Request("block_reduce", "reduce", "scalar", dtype="float16", op=UserOp("half_max")),
            Request("warp_reduce", "sum", "array", dtype="complex64", items_per_thread=3),
            Request(
                "block_scan",
                "exclusive_sum",
                "scalar_prefix",
                dtype="int32",
                prefix_op=UserCallback("int_running_total"),
            ),
        ],
        (128,),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    check_golden(name, render_requests(*CASES[name]))


def test_goldens_fold_only_what_the_source_holds_verbatim() -> None:
    """The folded detail block is rendered as written, once in every provider; a composition's C++ is its header,
    which the preamble includes: a call site adds no C++ of it."""
    requests, block = CASES["reduce_scan"]
    assert render_requests(requests, block).count(fixed_blocks()["cuda_coop/_provider/_render.py _DETAIL"]) == 1
    text = render_requests([Request("block_argsort", "argsort", "pairs", dtype="int32", items_per_thread=2,
                                    index_type="int32")], (32,))
    assert text.count("#include <cuda_coop/block_argsort.cuh>") == 1
    assert "class BlockArgsort" not in text and "__device__ __forceinline__ explicit" not in text


@pytest.mark.parametrize("spec", [s for s in _specs.all_primitives() if s.cub_class.startswith("cuda_coop::")],
                         ids=lambda s: s.name)
def test_compositions_are_headers_not_python_strings(spec: _specs.PrimitiveSpec) -> None:
    """A cuda-coop composition names its own header (include/cuda_coop), which defines its class; its spec module
    holds no C++."""
    assert spec.header == f"cuda_coop/{spec.name}.cuh"
    assert re.search(rf"^class {spec.cub_class.split('::')[1]}\b", header_text(spec.header), re.M)
    module = sys.modules[f"cuda.coop._specs.{spec.name}"]
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    assert "__device__" not in source and "namespace cuda_coop" not in source


def test_golden_extra_specs() -> None:
    """Further CUB collectives render through the same code, without special cases."""
    with registered_extra_specs():
        text = render_requests(extra_requests(), (128,))
    check_golden("extra_specs", text)


def test_render_is_pure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    requests, block = CASES["reduce_scan"]
    first = render_requests(requests, block)
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    monkeypatch.setenv("CUDA_COOP_ENABLE_CACHE", "1")
    assert render_requests(list(requests), block) == first
    assert not list(tmp_path.iterdir())


def test_source_layout() -> None:
    text = render_requests(*CASES["reduce_scan"])
    assert text.startswith("#define _CCCL_META_UNROLL_LIMIT 10\n#include <")  # before CCCL picks its own
    includes = [line for line in text.splitlines() if line.startswith("#include")]
    assert includes[: len(_specs.headers())] == [f"#include <{h}>" for h in _specs.headers()]
    first_code = next(i for i, line in enumerate(text.splitlines()) if line and not line.startswith("#"))
    assert text.splitlines()[first_code].startswith("static_assert(CCCL_VERSION == 3006000")
    assert text.count("static __shared__") == 1


def test_preamble_is_the_same_for_every_provider() -> None:
    texts = [render_requests(*case) for case in CASES.values()]
    preambles = {t[: t.index("\nstatic_assert")] for t in texts}
    # Only providers using complex types add <cuda/std/complex> after the common preamble.
    assert len({p.replace("#include <cuda/std/complex>\n", "") for p in preambles}) == 1


def _sig(requests: list[Request], block: tuple[int, ...] = (128,), i: int = 0) -> tuple[Plan, str]:
    p = plan(requests, block)
    return p, p.signatures[i].declaration


@pytest.mark.parametrize(
    ("request_", "declaration"),
    [
        (Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16), "float {s}(float* x)"),
        (Request("block_reduce", "sum", "scalar_valid", dtype="int32"), "int {s}(int x, int valid_items)"),
        (
            Request("block_reduce", "reduce", "scalar", dtype="float16", op="max"),
            "void {s}(const __half* x, __half* result)",
        ),
        (Request("block_scan", "exclusive_sum", "scalar", dtype="int32"), "int {s}(int x)"),
        (
            Request("block_scan", "exclusive_sum", "scalar_aggregate", dtype="int32"),
            "int {s}(int x, int* block_aggregate)",
        ),
        (
            Request(
                "block_scan",
                "inclusive_sum",
                "array_prefix",
                dtype="uint64",
                items_per_thread=2,
                prefix_op=UserCallback("cb"),
            ),
            "void {s}(unsigned long long* x, unsigned long long* output, void* prefix_op)",
        ),
        (
            Request("block_scan", "exclusive_scan", "scalar_init", dtype="float64", op=UserOp("f")),
            "double {s}(double x, double initial_value)",
        ),
        (
            Request("block_load", "load", "guarded", dtype="int8", items_per_thread=4),
            "void {s}(const signed char* src, signed char* items, int valid_items)",
        ),
        (
            Request("block_store", "store", "full", dtype="float32", items_per_thread=4),
            "void {s}(float* dst, float* items)",
        ),
        (
            Request("warp_scan", "scan", "scalar", dtype="int32", op="+"),
            "void {s}(int x, int* inclusive_output, int* exclusive_output)",
        ),
        (Request("warp_scan", "broadcast", "scalar", dtype="int16"), "short {s}(short x, unsigned int src_lane)"),
        (
            Request("warp_reduce", "head_segmented_reduce", "scalar", dtype=user_type(8, 8), op=UserOp("g")),
            "void {s}(const cuda_coop_storage_8_8* x, int head_flag, cuda_coop_storage_8_8* result)",
        ),
    ],
)
def test_wrapper_c_abi(request_: Request, declaration: str) -> None:
    p, decl = _sig([request_])
    sig = p.signatures[0]
    assert decl == 'extern "C" __device__ ' + declaration.format(s=sig.symbol)


def test_signature_details_for_the_dsl() -> None:
    p = plan([Request("block_scan", "exclusive_sum", "array_aggregate", dtype="int32", items_per_thread=4)], (64,))
    sig = p.signatures[0]
    assert sig.returns is None and sig.returned_output is None
    by_name = {c.name: c for c in sig.params}
    assert (by_name["x"].extent, by_name["x"].role, by_name["x"].kind) == (4, "in", ArgKind.ARRAY)
    assert (by_name["output"].extent, by_name["output"].role) == (4, "out")
    assert (by_name["block_aggregate"].extent, by_name["block_aggregate"].pointer) == (None, True)
    assert sig.binding.spec.name == "block_scan"
    scalar = plan([Request("block_scan", "exclusive_sum", "scalar", dtype="int32")], (64,)).signatures[0]
    assert scalar.returned_output == "output" and scalar.returns is not None and scalar.returns.name == "int32"


@pytest.mark.parametrize(
    ("request_", "block", "limit"),
    [
        (
            Request("block_load", "load", "guarded", dtype="float32", items_per_thread=4, count_type="int64"),
            (100,),
            400,
        ),
        (
            Request("block_store", "store", "guarded", dtype="int8", items_per_thread=3, count_type="uint64"),
            (7, 5, 3),
            315,
        ),
        (Request("block_reduce", "sum", "scalar_valid", dtype="int32", count_type="int16"), (33,), 33),
        (Request("warp_reduce", "sum", "scalar_valid", dtype="int32", count_type="uint8", threads=8), (64,), 8),
    ],
)
def test_counts_keep_their_width_and_are_clamped_to_the_tile(
    request_: Request, block: tuple[int, ...], limit: int
) -> None:
    """valid_items reaches the wrapper in the kernel's own integer type (never truncated to 32 bits) and CUB
    gets it clamped to [0, tile]: any value at or above the tile means the whole tile."""
    p = plan([request_], block)
    sig = p.signatures[0]
    count_type = dict(request_.params)["count_type"]
    assert {c.name: c.value_type.name for c in sig.params if c.value_type}["valid_items"] == count_type
    text = render_plan(p)
    assert f"cuda_coop_detail::clamp_count<{limit}>(valid_items)" in text


def test_externs_for_user_functions() -> None:
    p = plan(CASES["user_types"][0], (128,))
    decls = [e.declaration for e in p.externs]
    assert decls == [
        'extern "C" __device__ void half_max(__half* out, const __half* a0, const __half* a1)',
        'extern "C" __device__ int int_running_total(void* state, int a0)',
        'extern "C" __device__ void udt_combine(cuda_coop_storage_12_4* out, const cuda_coop_storage_12_4* a0, '
        "const cuda_coop_storage_12_4* a1)",
        'extern "C" __device__ void udt_running_total(void* state, cuda_coop_storage_12_4* out, '
        "const cuda_coop_storage_12_4* a0)",
    ]
    assert [e.purpose for e in p.externs] == ["operator", "callback", "operator", "callback"]


def test_one_user_function_with_two_signatures_is_an_error() -> None:
    with pytest.raises(ValueError, match="two signatures"):
        plan(
            [
                Request("block_reduce", "reduce", "scalar", dtype="float32", op=UserOp("f")),
                Request("block_reduce", "reduce", "scalar", dtype="int32", op=UserOp("f")),
            ],
            (128,),
        )


def test_same_user_function_twice_is_declared_once() -> None:
    p = plan(
        [
            Request("block_reduce", "reduce", "scalar", dtype="float32", op=UserOp("f")),
            Request("warp_reduce", "reduce", "scalar", dtype="float32", op=UserOp("f")),
        ],
        (128,),
    )
    assert [e.symbol for e in p.externs] == ["f"]


def test_symbols_are_unique_and_name_the_provider() -> None:
    requests, block = CASES["warp_mixed_3d"]
    p = plan(requests, block)
    symbols = [s.symbol for s in p.signatures]
    assert len(set(symbols)) == len(symbols)
    assert all(s.startswith(f"cuda_coop_{p.prefix}_") for s in symbols)
    assert p.signatures[1].symbol.endswith("_1_warp_scan_scan")


@pytest.mark.parametrize(
    "change",
    [
        lambda r, b: (r, (128, 2)),
        lambda r, b: ([Request("block_reduce", "sum", "array", dtype="float64", items_per_thread=16), r[1]], b),
        lambda r, b: ([Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=8), r[1]], b),
        lambda r, b: ([r[1], r[0]], b),
    ],
)
def test_prefix_follows_the_render_inputs(change: Callable[..., tuple[list[Request], tuple[int, ...]]]) -> None:
    requests, block = CASES["reduce_scan"]
    assert plan(*change(requests, block)).prefix != plan(requests, block).prefix
    assert plan(list(requests), block).prefix == plan(requests, block).prefix


def test_storage_is_the_max_over_block_sites_and_per_warp_for_warp_sites() -> None:
    text = render_requests(*CASES["warp_mixed_3d"])
    assert "union block_storage_t\n{\n  prim_3::TempStorage s3;\n};" in text
    assert "union warp_storage_32_t\n{\n  prim_0::TempStorage s0[1];\n};" in text
    assert "union warp_storage_16_t\n{\n  prim_1::TempStorage s1[2];\n};" in text
    assert "union warp_storage_8_t\n{\n  prim_2::TempStorage s2[4];\n};" in text
    assert "warp_storage_t warp[2];" in text  # 64 threads: two hardware warps
    assert "threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z)" in text
    assert "__syncwarp(cuda_coop_detail::logical_warp_mask<16>(tid))" in text
    assert text.count("__syncthreads()") == 1


def test_inputs_are_copied_and_in_place_arrays_are_not() -> None:
    """CUB's transposing BlockStore rearranges the array it is given: a caller's input must not change."""
    text = render_requests(
        [Request("block_store", "store", "full", dtype="int32", items_per_thread=4, algorithm="transpose")], (128,)
    )
    assert "int items_in[4];" in text and ".Store(dst, items_in)" in text
    with registered_extra_specs():
        p = plan([Request("extra_radix_sort", "sort", "keys", key_dtype="uint32", items_per_thread=4)], (128,))
        text = render_plan(p)
    assert p.signatures[0].params[0].role == "inout"
    assert ".Sort(reinterpret_cast<unsigned int(&)[4]>(*keys))" in text and "keys_in" not in text


def test_empty_plan_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one request"):
        plan([], (128,))
