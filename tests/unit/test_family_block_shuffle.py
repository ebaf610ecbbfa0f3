"""cub::BlockShuffle: spec, distances, wrapper ABI and rendered C++ (host only)."""

from __future__ import annotations

import inspect

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import Request, bind, get_primitive
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_plan

SPEC = get_primitive("block_shuffle")


def _plan(overload_method: tuple[str, str], block: tuple[int, ...] = (128,), **kw: object):  # type: ignore[no-untyped-def]
    method, overload = overload_method
    return plan([Request("block_shuffle", method, overload, **{"dtype": "int32", **kw})], block)


def test_spec_follows_cub() -> None:
    assert [t.cpp for t in SPEC.tparams] == ["T", "BlockDimX", "BlockDimY", "BlockDimZ"]
    assert [m.cpp for m in SPEC.methods] == ["Offset", "Rotate", "Up", "Down"]


def test_offset_returns_the_value_and_takes_an_int32_distance() -> None:
    p = _plan(("offset", "scalar_distance"), dtype="float64")
    sig = p.signatures[0]
    assert sig.returned_output == "output" and sig.returns is not None and sig.returns.name == "float64"
    assert sig.declaration.endswith("(double x, int distance)")
    assert ".Offset(x, output, distance);" in render_plan(p)
    assert ".Offset(x, output);" in render_plan(_plan(("offset", "scalar")))  # CUB's default distance, 1


@pytest.mark.parametrize(("distance_type", "cpp"), [("int64", "long long"), ("uint8", "unsigned char")])
def test_rotate_distance_keeps_its_width_and_is_clamped_to_the_block(distance_type: str, cpp: str) -> None:
    p = _plan(("rotate", "scalar_distance"), (7, 5, 3), distance_type=distance_type)
    assert p.signatures[0].declaration.endswith(f"(int x, {cpp} distance)")
    # CUB subtracts block_threads once: a distance past it would read outside the storage.
    assert ".Rotate(x, output, cuda_coop_detail::clamp_count<105>(distance));" in render_plan(p)
    with pytest.raises(SpecError, match="distance_type must be of kind int or uint"):
        _plan(("rotate", "scalar_distance"), distance_type="float32")


@pytest.mark.parametrize(
    ("method", "overload", "tail"),
    [
        ("up", "array", ""),
        ("up", "array_suffix", ", *block_suffix"),
        ("down", "array", ""),
        ("down", "array_prefix", ", *block_prefix"),
    ],
)
def test_up_and_down(method: str, overload: str, tail: str) -> None:
    p = _plan((method, overload), (16, 8), dtype="uint16", items_per_thread=4)
    call = f".{method.capitalize()}(x_in, reinterpret_cast<unsigned short(&)[4]>(*output){tail});"
    assert call in render_plan(p)
    by_name = {c.name: c for c in p.signatures[0].params}
    assert by_name["output"].role == "out" and by_name["x"].role == "in"
    if tail:
        assert by_name[tail[3:]].role == "out" and by_name[tail[3:]].extent is None


def test_misuse_is_a_spec_error() -> None:
    with pytest.raises(SpecError, match="has no overload 'array'"):
        bind(Request("block_shuffle", "offset", "array", dtype="int32"), (32,))
    with pytest.raises(SpecError, match="has no parameter 'distance_type'"):
        bind(Request("block_shuffle", "offset", "scalar_distance", dtype="int32", distance_type="int64"), (32,))


def test_public_stubs() -> None:
    assert list(inspect.signature(coop.block.shuffle_offset).parameters) == ["x", "distance"]
    assert inspect.signature(coop.block.shuffle_rotate).parameters["distance"].default is None
    assert list(inspect.signature(coop.block.shuffle_up).parameters) == ["x", "output", "block_suffix",
                                                                          "items_per_thread"]
    assert list(inspect.signature(coop.block.shuffle_down).parameters) == ["x", "output", "block_prefix",
                                                                            "items_per_thread"]
    assert "cub::BlockShuffle::Rotate" in (coop.block.shuffle_rotate.__doc__ or "")
    with pytest.raises(coop.errors.UsageError, match=r"coop\.block\.shuffle_up\(\) was called on the host"):
        coop.block.shuffle_up(None)
