"""``broadcast=True`` on block and warp reductions: spec, stub and rendered wrapper (host only)."""

from __future__ import annotations

import inspect

import pytest

import cuda.coop as coop
from cuda.coop._specs import Request, bind
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_requests


def _source(*requests: Request, block: tuple[int, ...] = (128,)) -> str:
    return render_requests(requests, block, headers=())


@pytest.mark.parametrize("stub", [coop.block.sum, coop.block.reduce, coop.warp.sum, coop.warp.reduce])
def test_stubs_take_broadcast(stub) -> None:
    assert inspect.signature(stub).parameters["broadcast"].default is False


def test_block_broadcast_goes_through_a_shared_slot_and_a_barrier() -> None:
    text = _source(Request("block_reduce", "sum", "scalar", dtype="float16", broadcast=True))
    wrapper = text[text.index('extern "C" __device__ void'):]
    assert "__shared__ cub::Uninitialized<__half> broadcast_slot;" in wrapper
    assert wrapper.index("broadcast_slot.Alias() = r;") < wrapper.rindex("__syncthreads();")
    assert "*result = r;" in wrapper  # a pointer-ABI result


def test_warp_broadcast_is_one_shuffle() -> None:
    text = _source(Request("warp_reduce", "reduce", "scalar", dtype="int32", op="max", threads=8, broadcast=True))
    assert "r = cub::ShuffleIndex<8>(r, 0, cuda_coop_detail::logical_warp_mask<8>(tid));" in text
    assert "return r;" in text and "broadcast_slot" not in text


def test_no_broadcast_is_the_plain_call() -> None:
    text = _source(Request("block_reduce", "sum", "scalar", dtype="int32"))
    assert "broadcast_slot" not in text and "return Prim(" in text


def test_broadcast_is_only_for_reductions() -> None:
    with pytest.raises(SpecError, match="broadcast"):
        bind(Request("block_scan", "exclusive_sum", "scalar", dtype="int32", broadcast=True), (128,))
