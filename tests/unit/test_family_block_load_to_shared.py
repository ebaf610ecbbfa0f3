"""cuda_coop::BlockLoadToShared (over cub::detail::BlockLoadToShared): spec, contracts, wrapper ABI, rendered C++ and
refusals (host only)."""

from __future__ import annotations

import inspect

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import ArgKind, Param, Request, bind, get_primitive
from cuda.coop._specs._contracts import describe, must_differ
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_plan

SPEC = get_primitive("block_load_to_shared")
METHOD = SPEC.methods[0]


def _request(overload: str = "full", **kw: object) -> Request:
    return Request("block_load_to_shared", "load_to_shared", overload, **{"dtype": "float32", "items_per_thread": 4,
                                                                          **kw})


def test_the_public_function() -> None:
    sig = inspect.signature(coop.block.load_to_shared)
    assert list(sig.parameters) == ["src", "dst", "offset", "valid_items", "items_per_thread"]
    assert sig.parameters["items_per_thread"].default is inspect.Parameter.empty  # no array gives the tile size
    assert sig.parameters["offset"].default == 0 and sig.parameters["valid_items"].default is None


def test_contracts_say_where_each_array_lives() -> None:
    src, dst = METHOD.overload("full").params
    assert (src.memory, src.access, src.align, src.offset) == (("global",), "in", 16, "offset")
    assert (dst.memory, dst.access, dst.align, dst.min_extent) == (("shared",), "out", 16, "tile")
    assert src.uniform and dst.uniform
    assert "a multiple of 16 bytes" in describe(src) and "``alignment=16``" in describe(dst)
    assert must_differ(METHOD) == []  # a global and a shared array are never one array


def test_full_and_partial_tiles_render() -> None:
    full = render_plan(plan([_request()], (32, 2, 2)))
    assert "using prim_0 = cuda_coop::BlockLoadToShared<float, 32, 4, 2, 2>;" in full
    assert ".LoadToShared(src, dst);" in full
    assert "cub::detail::BlockLoadToShared<BlockDimX, BlockDimY, BlockDimZ>" in full  # the composition, once
    partial = plan([_request("guarded", count_type="uint8")], (128,))
    assert partial.signatures[0].declaration.endswith("(const float* src, float* dst, unsigned char valid_items)")
    assert ".LoadToShared(src, dst, cuda_coop_detail::clamp_count<512>(valid_items));" in render_plan(partial)


def test_the_copy_uses_the_block_storage_and_its_barrier() -> None:
    """CUB's mbarrier lives in the block's shared storage union: the wrapper's leading barrier (after the kernel's
    first use) keeps an earlier call's storage from being overwritten, and the invalidation frees it for later ones."""
    text = render_plan(plan([_request(), _request()], (128,)))
    assert "prim_0::TempStorage s0;" in text and "prim_1::TempStorage s1;" in text
    assert text.count("__syncthreads();") >= 2 and "copy.Invalidate();" in text


@pytest.mark.parametrize(
    ("kw", "block", "needle"),
    [
        ({}, (48,), "the block (48, 1, 1) has 48 threads, but CUB's copy to shared memory needs whole warps"),
        ({}, (16, 3), "has 48 threads"),
        ({"items_per_thread": 64, "dtype": "complex128"}, (1024,), "more than the 227 KiB of shared memory"),
        ({"dtype": "bool"}, (128,), "dtype must be of kind int or uint or float or complex"),
        ({"items_per_thread": 0}, (128,), "items_per_thread=0 is out of range"),
    ],
)
def test_refusals_name_the_parameter_and_the_fix(kw: dict, block: tuple[int, ...], needle: str) -> None:
    with pytest.raises(SpecError) as info:
        bind(_request(**kw), block, public="coop.block.load_to_shared")
    assert needle in str(info.value)


def test_accepted_blocks_and_types() -> None:
    for dtype in ("int8", "uint16", "bfloat16", "float16", "int64", "complex128"):
        bind(_request(dtype=dtype), (32, 2, 2))
    bind(_request(items_per_thread=14, dtype="complex128"), (1024,))  # 224 KiB: fits an sm_90 block


def test_alignment_is_a_pointer_contract_of_a_power_of_two() -> None:
    with pytest.raises(ValueError, match="only POINTER parameters have an alignment"):
        Param(name="x", kind=ArgKind.ARRAY, type="dtype", extent="n", align=16)
    with pytest.raises(ValueError, match="a power of two"):
        Param(name="p", kind=ArgKind.POINTER, type="dtype", min_extent="tile", align=12)
