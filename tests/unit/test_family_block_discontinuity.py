"""cub::BlockDiscontinuity: spec, flag types, predicates, wrapper ABI and rendered C++ (host only)."""

from __future__ import annotations

import inspect
import operator

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import KnownOp, Request, UserOp, bind, coerce_operator, get_primitive
from cuda.coop.errors import SpecError
from tests.helpers.golden import render_requests

SPEC = get_primitive("block_discontinuity")
OVERLOADS = [(m.name, o.name) for m in SPEC.methods for o in m.overloads]


def _request(method: str, overload: str, **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "float32", "items_per_thread": 3, "flag_type": "int32", "op": "!=", **kw}
    return Request("block_discontinuity", method, overload, **params)


def _call(method: str, overload: str, **kw: object) -> str:
    text = render_requests([_request(method, overload, **kw)], (4, 4, 4))
    cpp = SPEC.method(method).cpp
    return text[text.index(f".{cpp}(") + len(cpp) + 2 :].split(");")[0]


def test_spec_follows_cub() -> None:
    assert [t.cpp for t in SPEC.tparams] == ["T", "BlockDimX", "BlockDimY", "BlockDimZ"]
    assert [m.cpp for m in SPEC.methods] == ["FlagHeads", "FlagTails", "FlagHeadsAndTails"]
    assert [(method, overload) for method, overload, _ in CUB_ORDER] == OVERLOADS  # each in CUB's argument order


HEADS = "reinterpret_cast<int(&)[3]>(*head_flags)"
TAILS = "reinterpret_cast<int(&)[3]>(*tail_flags)"
NE = "::cuda::std::not_equal_to<>{}"


CUB_ORDER = [
    ("flag_heads", "array", [HEADS, "x_in", NE]),
    ("flag_heads", "array_predecessor", [HEADS, "x_in", NE, "tile_predecessor_item"]),
    ("flag_tails", "array", [TAILS, "x_in", NE]),
    ("flag_tails", "array_successor", [TAILS, "x_in", NE, "tile_successor_item"]),
    ("flag_heads_and_tails", "array", [HEADS, TAILS, "x_in", NE]),
    ("flag_heads_and_tails", "array_successor", [HEADS, TAILS, "tile_successor_item", "x_in", NE]),
    ("flag_heads_and_tails", "array_predecessor", [HEADS, "tile_predecessor_item", TAILS, "x_in", NE]),
    (
        "flag_heads_and_tails",
        "array_predecessor_successor",
        [HEADS, "tile_predecessor_item", TAILS, "tile_successor_item", "x_in", NE],
    ),
]
"""Each overload and the arguments of its CUB member, in CUB's order."""


@pytest.mark.parametrize(("method", "overload", "args"), CUB_ORDER)
def test_every_overload_renders_cubs_argument_order(method: str, overload: str, args: list[str]) -> None:
    assert _call(method, overload) == ", ".join(args)


@pytest.mark.parametrize(("flag_type", "cpp"), [("int32", "int"), ("uint8", "unsigned char"), ("bool", "bool"),
                                                 ("int64", "long long")])
def test_the_flags_dtype_is_cubs_flag_type(flag_type: str, cpp: str) -> None:
    sig = plan([_request("flag_tails", "array", flag_type=flag_type)], (32,)).signatures[0]
    assert sig.declaration.endswith(f"({cpp}* tail_flags, float* x)")
    assert {c.name: (c.role, c.extent) for c in sig.params}["tail_flags"] == ("out", 3)


def test_floating_point_flags_are_refused() -> None:
    with pytest.raises(SpecError, match="flag_type must be of kind int or uint or bool, got float32"):
        bind(_request("flag_heads", "array", flag_type="float32"), (32,))


def test_the_flag_type_is_a_method_level_type_parameter() -> None:
    """Bound per call from the flag arrays (never a class template argument); int32 for hand-built requests."""
    b = bind(Request("block_discontinuity", "flag_heads", "array", dtype="int32", items_per_thread=1, op="!="), (32,))
    assert b.values["flag_type"].name == "int32"
    assert "flag_type" not in {t.name for t in SPEC.tparams}


def test_predicates() -> None:
    for op in ("!=", "==", "<", ">", operator.ne, operator.lt):
        assert bind(_request("flag_heads", "array", op=op), (32,)).values["op"] is coerce_operator(op)
    with pytest.raises(SpecError, match="is not a comparison"):
        bind(_request("flag_heads", "array", op="+"), (32,))
    p = plan([_request("flag_heads", "array", dtype="int16", op=UserOp("differs"))], (32,))
    assert [e.declaration for e in p.externs] == ['extern "C" __device__ bool differs(short a0, short a1)']
    assert KnownOp.NOT_EQUAL_TO.is_comparison


def test_public_stubs() -> None:
    params = inspect.signature(coop.block.flag_heads_and_tails).parameters
    assert list(params) == ["x", "head_flags", "tail_flags", "op", "tile_predecessor_item", "tile_successor_item",
                            "items_per_thread"]
    assert params["head_flags"].default is inspect.Parameter.empty  # flags are never in place
    assert list(inspect.signature(coop.block.flag_heads).parameters) == [
        "x", "head_flags", "op", "tile_predecessor_item", "items_per_thread"]
    assert list(inspect.signature(coop.block.flag_tails).parameters) == [
        "x", "tail_flags", "op", "tile_successor_item", "items_per_thread"]
    with pytest.raises(coop.errors.UsageError, match="called on the host"):
        coop.block.flag_heads(None, None, "!=")
