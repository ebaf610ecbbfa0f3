"""cub::BlockAdjacentDifference: spec, request validation, wrapper ABI and rendered C++ (host only)."""

from __future__ import annotations

import inspect
import operator

import numpy as np
import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import Request, UserOp, bind, get_primitive
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_requests

SPEC = get_primitive("block_adjacent_difference")
OVERLOADS = [(m.name, o.name) for m in SPEC.methods for o in m.overloads]


def _request(method: str, overload: str, **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "int32", "items_per_thread": 4, "op": UserOp("diff"), **kw}
    return Request("block_adjacent_difference", method, overload, **params)


def test_spec_follows_cub() -> None:
    assert SPEC.cub_class == "cub::BlockAdjacentDifference"
    assert [t.cpp for t in SPEC.tparams] == ["T", "BlockDimX", "BlockDimY", "BlockDimZ"]
    assert [m.cpp for m in SPEC.methods] == [
        "SubtractLeft",
        "SubtractLeftPartialTile",
        "SubtractRight",
        "SubtractRightPartialTile",
    ]
    assert OVERLOADS == [
        ("subtract_left", "array"),
        ("subtract_left", "array_predecessor"),
        ("subtract_left_partial_tile", "array_valid"),
        ("subtract_left_partial_tile", "array_valid_predecessor"),
        ("subtract_right", "array"),
        ("subtract_right", "array_successor"),
        ("subtract_right_partial_tile", "array_valid"),
    ]


@pytest.mark.parametrize(("method", "overload"), OVERLOADS)
def test_every_overload_renders_cubs_argument_order(method: str, overload: str) -> None:
    request = _request(method, overload, **({"count_type": "int64"} if "valid" in overload else {}))
    text = render_requests([request], (16, 8))
    cpp = SPEC.method(method).cpp
    args = ["x_in", "reinterpret_cast<int(&)[4]>(*output)", "cuda_coop_", "::op_0_op{}"]
    call = text[text.index(f".{cpp}(") :].split(";")[0]
    for arg in args:
        assert arg in call
    if "valid" in overload:
        assert "cuda_coop_detail::clamp_count<512>(valid_items)" in call  # [0, tile] of 16x8 threads x 4 items
        assert "long long valid_items" in text  # the kernel's integer width, never truncated
    if overload.endswith("predecessor"):
        assert call.endswith(", tile_predecessor_item)")
    if overload.endswith("successor"):
        assert call.endswith(", tile_successor_item)")


def test_wrapper_abi() -> None:
    sig = plan([_request("subtract_left", "array_predecessor", dtype="float64")], (64,)).signatures[0]
    assert sig.declaration.endswith("(double* x, double* output, double tile_predecessor_item)")
    by_name = {c.name: c for c in sig.params}
    assert (by_name["x"].role, by_name["output"].role, by_name["output"].extent) == ("in", "out", 4)
    assert sig.returns is None


def test_known_operators_and_user_functions() -> None:
    assert bind(_request("subtract_right", "array", op="+"), (32,)).values["op"].name == "PLUS"
    bind(_request("subtract_right", "array", op="max"), (32,))
    # "-", operator.sub and np.subtract are libcu++'s cuda::std::minus
    for op in ("-", operator.sub, np.subtract):
        assert bind(_request("subtract_left", "array", op=op), (32,)).values["op"].name == "MINUS"
    with pytest.raises(SpecError, match="is not a binary operator returning a value"):
        bind(_request("subtract_left", "array", op="<"), (32,))
    with pytest.raises(SpecError, match="not defined for float32"):
        bind(_request("subtract_left", "array", dtype="float32", op="^"), (32,))


def test_user_operator_extern() -> None:
    p = plan([_request("subtract_left", "array", dtype="int16")], (32,))
    assert [e.declaration for e in p.externs] == ['extern "C" __device__ short diff(short a0, short a1)']


def test_misuse_is_a_spec_error() -> None:
    with pytest.raises(SpecError, match="items_per_thread=0 is out of range; it must be between 1"):
        bind(_request("subtract_left", "array", items_per_thread=0), (32,))
    with pytest.raises(SpecError, match="count_type must be of kind int or uint"):
        bind(_request("subtract_left_partial_tile", "array_valid", count_type="float32"), (32,))
    with pytest.raises(SpecError, match="missing operator op"):
        bind(Request("block_adjacent_difference", "subtract_left", "array", dtype="int32", items_per_thread=1), (32,))


def test_public_stubs() -> None:
    sig = inspect.signature(coop.block.subtract_left)
    assert {n: p.default for n, p in sig.parameters.items()} == {
        "x": inspect.Parameter.empty, "op": inspect.Parameter.empty, "output": None, "tile_predecessor_item": None,
        "items_per_thread": None}
    assert sig.parameters["tile_predecessor_item"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(coop.block.subtract_left_partial_tile).parameters) == [
        "x", "op", "valid_items", "output", "tile_predecessor_item", "items_per_thread"]
    assert "tile_successor_item" not in inspect.signature(coop.block.subtract_right_partial_tile).parameters
    assert "cub::BlockAdjacentDifference::SubtractRightPartialTile" in (coop.block.subtract_right_partial_tile.__doc__
                                                                         or "")
    for name in ("subtract_left", "subtract_left_partial_tile", "subtract_right", "subtract_right_partial_tile"):
        with pytest.raises(coop.errors.UsageError, match=f"coop.block.{name}\\(\\) was called on the host"):
            getattr(coop.block, name)(None, None, None)
