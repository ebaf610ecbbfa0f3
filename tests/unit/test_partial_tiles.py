"""Partial tiles of the sorts and ranks, declared in the specs (``Param.pad``) and rendered from the declaration; the
known ``"-"`` and the operators that must be associative (host only).

Regenerate the golden after an intended change with
``python -m pytest --update-goldens tests/unit/test_partial_tiles.py`` and review the diff.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

from cuda.coop._specs import ArgKind, KnownOp, Method, Overload, Param, PrimitiveSpec, Request, Scope, bind
from cuda.coop._specs import get_primitive as spec
from cuda.coop._specs._common import BLOCK_DIMS, ITEMS_PER_THREAD, array, count
from cuda.coop._specs._model import Pad
from cuda.coop.errors import SpecError
from tests.helpers.golden import after_preamble, check_golden, render_requests

PADDED = ("block_radix_sort", "block_argsort", "block_top_k", "block_radix_rank", "warp_argsort", "warp_top_k")


@pytest.mark.parametrize("name", PADDED)
def test_every_sort_and_rank_declares_its_partial_tile(name: str) -> None:
    """Each method has a form with ``valid_items`` for each whole-tile form, and the count pads the keys."""
    method = spec(name).methods[0]
    counts = [p for ov in method.overloads for p in ov.all_params if p.name == "valid_items"]
    assert len(counts) * 2 == len(method.overloads)
    for p in counts:
        assert p.pad is not None and p.pad.array == "keys" and p.uniform
        assert p.count_limit == ("warp_tile" if name.startswith("warp") else "tile")
    forms = {ov.name for ov in method.overloads}
    assert {f"{f}_valid" for f in forms if not f.endswith("_valid")} == {f for f in forms if f.endswith("_valid")}


def test_a_pad_is_declared_on_a_count_of_an_array_the_form_has() -> None:
    keys = array("keys", inout=True)
    pad = Pad(array="keys", descending="descending")
    with pytest.raises(ValueError, match="only counts pad a tile"):
        Param(name="n", kind=ArgKind.SCALAR, type="int32", pad=pad)
    with pytest.raises(ValueError, match="which is not an array of it"):
        Overload(name="bad", params=(count("tile", "n", pad=Pad(array="values")), keys))
    with pytest.raises(ValueError, match="not all counts"):
        Overload(name="bad", params=(keys, count("tile", "n", pad=Pad(array="keys", limits=("keys",)))))
    with pytest.raises(ValueError, match="not a BOOL template parameter"):
        PrimitiveSpec(name="bad_sort", cub_class="cub::BlockRadixSort", header="cub/block/block_radix_sort.cuh",
                      scope=Scope.BLOCK, tparams=(BLOCK_DIMS[0], ITEMS_PER_THREAD),
                      methods=(Method(name="sort", overloads=(Overload(name="keys", params=(keys, count(
                          "tile", "n", pad=pad))),)),))


def test_golden() -> None:
    """A partial tile of each form: the keys padded before CUB runs (descending with the smallest key, "match" in
    warp-striped order, a warp by its lane), no count passed to CUB, top-k's k bounded by the count."""
    text = render_requests([
        Request("block_radix_sort", "radix_sort", "pairs_valid", dtype="float32", value_type="int64",
                items_per_thread=4, descending=True, count_type="uint64"),
        Request("block_argsort", "argsort", "pairs_valid", dtype="bfloat16", items_per_thread=2, index_type="int32",
                output="striped", count_type="int8"),
        Request("block_top_k", "top_k", "keys_valid", dtype="uint8", items_per_thread=2, count_type="int32",
                valid_type="int16", largest=False),
        Request("block_radix_rank", "radix_rank", "ranks_prefix_valid", dtype="int64", items_per_thread=2,
                bins_per_thread=1),
        Request("warp_top_k", "top_k", "pairs_valid", dtype="float16", value_type="float64", items_per_thread=3,
                threads=16, count_type="int64", valid_type="uint32"),
    ], (16, 8))
    check_golden("partial_tiles_2d", after_preamble(text))
    match = render_requests([Request("block_radix_rank", "radix_rank", "ranks_valid", dtype="float16",
                                     items_per_thread=3, algorithm="match")], (96,))
    assert "pad_keys<false, true, 96>(keys_in, cub::RowMajorTid(96, 1, 1), " in match


def test_the_default_radix_bits_sizes_digit_prefix() -> None:
    """radix_rank's radix_bits defaults to 4, as the sorts': 16 digits, one a thread from 16 threads on."""
    b = bind(Request("block_radix_rank", "radix_rank", "ranks_prefix", dtype="uint32", items_per_thread=2,
                     bins_per_thread=1), (16,))
    assert b.values["radix_bits"] == 4
    with pytest.raises(SpecError, match="digit_prefix= has 1 items"):
        bind(Request("block_radix_rank", "radix_rank", "ranks_prefix", dtype="uint32", items_per_thread=2,
                     bins_per_thread=1), (8,))


# --- "-" -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["-", "subtract", operator.sub, np.subtract])
def test_minus_is_known(op: object) -> None:
    b = bind(Request("block_adjacent_difference", "subtract_left", "array", dtype="int32", items_per_thread=2, op=op),
             (32,))
    assert b.values["op"] is KnownOp.MINUS and str(KnownOp.MINUS) == "::cuda::std::minus<>"


@pytest.mark.parametrize(("primitive", "method", "overload"), [
    ("block_reduce", "reduce", "scalar"), ("block_scan", "exclusive_scan", "scalar_init"),
    ("block_scan", "inclusive_scan", "scalar"), ("warp_reduce", "reduce", "scalar"),
    ("warp_scan", "inclusive_scan", "scalar"), ("warp_reduce", "head_segmented_reduce", "scalar"),
])
def test_minus_is_refused_where_the_operator_must_be_associative(primitive: str, method: str, overload: str) -> None:
    request = Request(primitive, method, overload, dtype="float32", op=operator.sub)
    with pytest.raises(SpecError, match=r"op='-' is not associative: \(a - b\) - c differs from a - \(b - c\)"):
        bind(request, (64,))
    assert bind(Request(primitive, method, overload, dtype="float32", op="max"), (64,)).values["op"] is KnownOp.MAXIMUM


def test_every_value_operator_but_minus_is_associative() -> None:
    assert [op for op in KnownOp if not op.is_comparison and not op.associative] == [KnownOp.MINUS]
    declared = {(s, m.name) for s in ("block_reduce", "block_scan", "warp_reduce", "warp_scan")
                for m in spec(s).methods for ov in m.overloads for p in ov.all_params if p.associative}
    assert ("block_reduce", "reduce") in declared and ("warp_scan", "exclusive_scan") in declared
    assert not [p for m in spec("block_adjacent_difference").methods for ov in m.overloads for p in ov.all_params
                if p.associative]
