"""cub::WarpReduceBatched: spec, forms, arrangement, wrapper ABI, rendered C++ and refusals (host only)."""

from __future__ import annotations

import inspect

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import ArgKind, Method, Overload, Param, Request, bind, get_primitive, headers
from cuda.coop._specs._contracts import describe
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_plan

SPEC = get_primitive("warp_reduce_batched")


def _request(method: str, overload: str, **kw: object) -> Request:
    return Request("warp_reduce_batched", method, overload, **{"dtype": "float32", **kw})


def test_spec_follows_cub() -> None:
    assert [t.cpp for t in SPEC.tparams] == ["T", "Batches", "LogicalWarpThreads", "SyncPhysicalWarp"]
    reduce, total = SPEC.methods
    assert reduce.cpp_names() == ("Reduce", "ReduceToBlocked", "ReduceToStriped")
    assert total.cpp_names() == ("Sum", "SumToBlocked", "SumToStriped")
    op = reduce.overload("one").params[-1]
    assert op.kind is ArgKind.OPERATOR and op.associative and op.commutative


def test_the_public_functions() -> None:
    sig = inspect.signature(coop.warp.reduce_batched)
    assert list(sig.parameters) == ["x", "op", "output", "arrangement", "sync_physical_warp", "threads", "batches",
                                    "outputs_per_thread"]
    assert sig.parameters["arrangement"].default == "blocked" and sig.parameters["threads"].default == 32
    assert sig.parameters["sync_physical_warp"].default is False
    assert list(inspect.signature(coop.warp.sum_batched).parameters) == [
        n for n in sig.parameters if n != "op"
    ]


@pytest.mark.parametrize(("method", "call"), [("reduce_batched", "Reduce(x_in, ::cuda::std::plus<>{})"),
                                              ("sum_batched", "Sum(x_in)")])
def test_one_result_per_lane_is_returned(method: str, call: str) -> None:
    op = {"op": "+"} if method == "reduce_batched" else {}
    p = plan([_request(method, "one", batches=8, threads=8, **op)], (64,))
    sig = p.signatures[0]
    assert sig.returns is not None and sig.returns.name == "float32"
    assert sig.declaration.endswith("(float* x)")
    assert f"return Prim(temp).{call};" in render_plan(p)
    assert "cub::WarpReduceBatched<float, 8, 8, false>" in render_plan(p)


@pytest.mark.parametrize("arrangement", ["blocked", "striped"])
def test_more_batches_than_lanes_write_the_output_in_the_arrangement(arrangement: str) -> None:
    p = plan([_request("reduce_batched", "array", batches=9, threads=4, outputs_per_thread=3, op="max",
                       arrangement=arrangement, sync_physical_warp=True)], (128,))
    sig = p.signatures[0]
    assert sig.returns is None
    assert [(c.name, c.extent, c.role) for c in sig.params] == [("x", 9, "in"), ("output", 3, "inout")]
    text = render_plan(p)
    assert (f".ReduceTo{arrangement.capitalize()}(x_in, reinterpret_cast<float(&)[3]>(*output), "
            "::cuda_coop_detail::maximum{});") in text
    assert "cub::WarpReduceBatched<float, 9, 4, true>" in text


def test_the_shuffles_need_no_storage_and_no_barrier() -> None:
    """CUB's TempStorage is empty (``NullType``): the wrapper's ``__syncwarp`` is compiled out (``uses_storage``)."""
    text = render_plan(plan([_request("sum_batched", "one", batches=2, threads=2)], (64,)))
    assert "if constexpr (cuda_coop_detail::uses_storage<Prim>)" in text


@pytest.mark.parametrize(
    ("method", "overload", "kw", "block", "needle"),
    [
        ("sum_batched", "one", {"batches": 9, "threads": 8}, (64,),
         "x= holds batches=9 items, more than the threads=8 lanes of a logical warp, so each lane gets "
         "ceil(batches / threads) results: pass output="),
        ("sum_batched", "array", {"batches": 9, "threads": 8, "outputs_per_thread": 1}, (64,),
         "output= has outputs_per_thread=1 items, but batches=9 over threads=8 lanes give each lane "
         "ceil(batches / threads) results"),
        ("sum_batched", "array", {"batches": 9, "threads": 8, "outputs_per_thread": 3}, (64,), "outputs_per_thread=3"),
        ("sum_batched", "one", {"batches": 4, "threads": 16, "sync_physical_warp": True}, (48,),
         "sync_physical_warp=True syncs whole 32-lane hardware warps, but the block (48, 1, 1) has 48 threads"),
        ("sum_batched", "one", {"batches": 4, "threads": 32}, (48,), "threads=32 must be a power of two up to 32"),
        ("reduce_batched", "one", {"batches": 4, "op": "-"}, (64,), "op='-' is not associative"),
        ("reduce_batched", "one", {"batches": 4, "op": "<"}, (64,), "op='<' is not a binary operator returning"),
        ("sum_batched", "one", {"batches": 4, "arrangement": "diagonal"}, (64,), "'blocked', 'striped'"),
        ("sum_batched", "one", {"batches": 0}, (64,), "batches=0 is out of range"),
    ],
)
def test_refusals_name_the_parameter_and_the_fix(method: str, overload: str, kw: dict, block: tuple[int, ...],
                                                 needle: str) -> None:
    with pytest.raises(SpecError) as info:
        bind(_request(method, overload, **kw), block, public=f"coop.warp.{method}")
    assert needle in str(info.value)


def test_accepted_shapes() -> None:
    """A logical warp of one lane gets every batch (M = B); ``sync_physical_warp`` in whole hardware warps; B = threads
    is one result per lane in either form."""
    bind(_request("sum_batched", "array", batches=5, threads=1, outputs_per_thread=5), (33,))
    bind(_request("sum_batched", "one", batches=16, threads=16, sync_physical_warp=True), (16, 4))
    bind(_request("sum_batched", "array", batches=16, threads=16, outputs_per_thread=1), (48,))


def test_overload_own_member_function_and_result_are_checked() -> None:
    x = Param(name="x", kind=ArgKind.ARRAY, type="dtype", extent="n")
    with pytest.raises(ValueError, match="names one member function"):
        Overload(name="one", params=(x,), cpp="Reduce{arrangement}")
    with pytest.raises(ValueError, match="returns where the method does already"):
        Method(name="m", returns="dtype", overloads=(Overload(name="one", params=(x,), returns="dtype"),))


def test_commutative_is_declared_and_described() -> None:
    with pytest.raises(ValueError, match="associative or commutative"):
        Param(name="compare", kind=ArgKind.OPERATOR, returns="bool", args=("dtype", "dtype"), commutative=True)
    op = SPEC.methods[0].overload("array").params[-1]
    assert describe(op).startswith("associative and commutative: ``'-'`` is refused")


def test_the_header_is_included_after_the_cccl_version_check() -> None:
    """``cub/warp/warp_reduce_batched.cuh`` is new in CCCL 3.4: it stays out of every provider's preamble (and its
    precompiled header) and comes after the version check in the providers that use it, so an older CCCL first on the
    include path fails with the check's message, not a missing file (tests/compile/test_provider.py)."""
    assert SPEC.header not in headers() and get_primitive("block_load_to_shared").header not in headers()
    text = render_plan(plan([_request("sum_batched", "one", batches=2, threads=2)], (64,)))
    assert text.index("static_assert(CCCL_VERSION == 3006000") < text.index(f"#include <{SPEC.header}>")
    assert f"#include <{SPEC.header}>" not in render_plan(plan([Request("warp_reduce", "sum", "scalar",
                                                                        dtype="float32")], (64,)))
    late = render_plan(plan([_request("sum_batched", "one", batches=2, threads=2)], (64,)), headers=headers())
    assert late.count(f"#include <{SPEC.header}>") == 1, "included once, after the check"
