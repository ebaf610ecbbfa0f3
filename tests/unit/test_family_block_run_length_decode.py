"""``cub::BlockRunLengthDecode`` spec: shape against CUB's header, constructor arguments, Request -> plan ->
render, public signature (host only).

Regenerate the golden after an intended change with
``python -m pytest --update-goldens tests/unit/test_family_block_run_length_decode.py`` and review the diff.
"""

from __future__ import annotations

import inspect

import pytest

import cuda.coop as coop
from cuda.coop._provider import plan
from cuda.coop._specs import ArgKind, Request, bind, get_primitive
from cuda.coop.errors import SpecError, UsageError
from tests.helpers.golden import after_preamble, check_golden, render_requests

OVERLOADS = [
    f"{ctor}{rel}{win}" for ctor in ("lengths", "offsets") for rel in ("", "_relative") for win in ("", "_window")
]


def _request(overload: str = "lengths", **kw: object) -> Request:
    params: dict[str, object] = {"dtype": "int32", "runs_per_thread": 2, "decoded_items_per_thread": 4}
    params["run_length_type" if overload.startswith("lengths") else "run_offset_type"] = "uint32"
    if "relative" in overload:
        params["relative_offset_type"] = "uint16"
    params.update(kw)
    return Request("block_run_length_decode", "run_length_decode", overload, **params)


def test_template_parameters_in_cubs_order() -> None:
    spec = get_primitive("block_run_length_decode")
    assert [(t.name, t.cpp, t.default) for t in spec.tparams] == [
        ("dtype", "ItemT", None),
        ("block_dim_x", "BlockDimX", None),
        ("runs_per_thread", "RunsPerThread", None),
        ("decoded_items_per_thread", "DecodedItemsPerThread", None),
        ("decoded_offset_type", "DecodedOffsetT", "uint32"),
        ("block_dim_y", "BlockDimY", 1),
        ("block_dim_z", "BlockDimZ", 1),
    ]
    assert spec.tparams[4].default == "uint32" and spec.tparams[4].optional
    assert spec.example == "block_run_length_decode" and spec.algorithm is None


def test_overloads_follow_cubs_constructors_and_methods() -> None:
    (method,) = get_primitive("block_run_length_decode").methods
    assert method.cpp == "RunLengthDecode" and [o.name for o in method.overloads] == OVERLOADS
    for ov in method.overloads:
        ctor = [(p.name, p.kind) for p in ov.ctor_params]
        if ov.name.startswith("lengths"):  # BlockRunLengthDecode(temp, run_values, run_lengths, total_decoded_size)
            assert ctor == [("run_values", ArgKind.ARRAY), ("run_lengths", ArgKind.ARRAY),
                            ("total_decoded_size", ArgKind.AGGREGATE)]
        else:  # BlockRunLengthDecode(temp, run_values, run_offsets)
            assert ctor == [("run_values", ArgKind.ARRAY), ("run_offsets", ArgKind.ARRAY)]
        names = [p.name for p in ov.params]
        assert names[0] == "decoded_items" and ("relative_offsets" in names) == ("relative" in ov.name)
        assert (names[-1] == "window_offset") == ov.name.endswith("_window")


def test_every_overload_is_selected_by_its_arguments() -> None:
    (method,) = get_primitive("block_run_length_decode").methods
    for ov in method.overloads:
        given = {p.name: p.kind is ArgKind.ARRAY for p in ov.all_params if p.kind is not ArgKind.OUTPUT}
        assert method.match(given) is ov


@pytest.mark.parametrize("overload", OVERLOADS)
def test_every_overload_renders(overload: str) -> None:
    text = render_requests([_request(overload)], (128,))
    assert "cub::BlockRunLengthDecode<int, 128, 2, 4, unsigned int, 1, 1>;" in text
    second = "run_lengths_in, *total_decoded_size" if overload.startswith("lengths") else "run_offsets_in"
    args = ["reinterpret_cast<int(&)[4]>(*decoded_items)"]
    if "relative" in overload:
        args.append("reinterpret_cast<unsigned short(&)[4]>(*relative_offsets)")
    if overload.endswith("window"):
        args.append("window_offset")
    call = f"Prim(cuda_coop_{plan([_request(overload)], (128,)).prefix}::storage.block.s0, run_values_in, {second})"
    assert f"{call}.RunLengthDecode({', '.join(args)});" in text


def test_wrapper_c_abi() -> None:
    p = plan([_request("lengths_relative_window", decoded_offset_type="int64", run_length_type="int16")], (64,))
    sig = p.signatures[0]
    assert sig.declaration == (
        f'extern "C" __device__ void {sig.symbol}(int* run_values, short* run_lengths, long long* total_decoded_size, '
        "int* decoded_items, unsigned short* relative_offsets, long long window_offset)"
    )
    roles = {c.name: (c.role, c.extent) for c in sig.params}
    assert roles == {
        "run_values": ("in", 2),
        "run_lengths": ("in", 2),
        "total_decoded_size": ("out", None),
        "decoded_items": ("out", 4),
        "relative_offsets": ("inout", 4),
        "window_offset": ("in", None),
    }


def test_golden_3d() -> None:
    """Everything after the include preamble: both constructors in a 3-D block."""
    text = render_requests(
        [
            _request("lengths_relative_window", dtype="float64", decoded_offset_type="int64", run_length_type="int32"),
            _request("offsets_window", dtype="uint8", runs_per_thread=3, decoded_items_per_thread=1),
        ],
        (4, 4, 4),
    )
    check_golden("block_run_length_decode_3d", after_preamble(text))  # the include preamble grows with every family


@pytest.mark.parametrize("param", ["decoded_offset_type", "run_length_type"])
def test_non_integer_offsets_and_lengths_are_refused(param: str) -> None:
    with pytest.raises(SpecError, match=rf"{param} must be of kind int or uint, got float32"):
        bind(_request(**{param: "float32"}), (128,))


def test_extents_are_required() -> None:
    with pytest.raises(SpecError, match=r"missing template parameter decoded_items_per_thread"):
        bind(
            Request("block_run_length_decode", "run_length_decode", "lengths", dtype="int32", runs_per_thread=2,
                    run_length_type="uint32"),
            (128,),
        )


def test_public_signature() -> None:
    empty = inspect.Parameter.empty
    params = inspect.signature(coop.block.run_length_decode).parameters.values()
    assert [(p.name, p.kind.name, p.default) for p in params] == [
        ("run_values", "POSITIONAL_OR_KEYWORD", empty),
        ("decoded_items", "POSITIONAL_OR_KEYWORD", empty),
        ("run_lengths", "KEYWORD_ONLY", None),
        ("run_offsets", "KEYWORD_ONLY", None),
        ("total_decoded_size", "KEYWORD_ONLY", None),
        ("window_offset", "KEYWORD_ONLY", None),
        ("relative_offsets", "KEYWORD_ONLY", None),
        ("runs_per_thread", "KEYWORD_ONLY", None),
        ("decoded_items_per_thread", "KEYWORD_ONLY", None),
    ]
    doc = coop.block.run_length_decode.__doc__ or ""
    assert "cub::BlockRunLengthDecode::RunLengthDecode" in doc and "window_offset < total_decoded_size[0]" in doc


def test_host_call_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"coop\.block\.run_length_decode\(\) was called on the host"):
        coop.block.run_length_decode(None, None)
