"""``algorithm=`` of the warp sorts (``coop.warp.merge_sort``, ``argsort``, ``top_k``): ``"merge_sort"``,
``"bitonic"`` and what ``"auto"`` may pick (host only; the results are the GPU tier's, and the CCCL declarations
``"bitonic"`` relies on are pinned by tests/compile/test_warp_bitonic.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import cuda.coop as coop
from cuda.coop._specs import Request, UserOp, _auto, bind, get_primitive
from cuda.coop._specs._model import Auto
from cuda.coop._specs.warp_merge_sort import WarpSortAlgorithm
from tests.helpers.golden import render_requests
from tests.helpers.own_headers import header_text

MERGE, BITONIC = WarpSortAlgorithm.WARP_SORT_MERGE_SORT, WarpSortAlgorithm.WARP_SORT_BITONIC
SORTS = ("warp_merge_sort", "warp_argsort", "warp_top_k")


def _request(spec: str, overload: str | None = None, **kw: Any) -> Request:
    params: dict[str, Any] = {"dtype": "int32", "items_per_thread": 4, "threads": 32, **kw}
    if spec == "warp_merge_sort":
        params.setdefault("compare", "<")
        return Request(spec, "merge_sort", overload or "keys", **params)
    if spec == "warp_argsort":
        params.setdefault("index_type", "int32")
        return Request(spec, "argsort", overload or "pairs", **params)
    return Request(spec, "top_k", overload or "keys", **params)


@pytest.fixture
def bitonic_first(monkeypatch: pytest.MonkeyPatch) -> _auto.AutoTable:
    """A table in which "bitonic" ran clearly faster than "merge_sort" for every warp sort and item size."""
    rows = [{"item_bytes": size, "threads": 256, "items": 4, "ranking": ["bitonic", "merge_sort"],
             "median_ms": {"bitonic": 0.5, "merge_sort": 1.0}} for size in (1, 2, 4, 8)]
    parsed = _auto.parse_table({"schema": 1, "provisional": False, "archs": {"sm_90": dict.fromkeys(SORTS, rows)}})
    monkeypatch.setattr(_auto, "load_table", lambda path=_auto.TABLE_PATH: parsed)
    return parsed


def test_the_enum_is_the_headers() -> None:
    """The Python members render as the C++ enumerators of cuda_coop::WarpSortAlgorithm, CUB-style short names."""
    assert [m.short_name for m in WarpSortAlgorithm] == ["merge_sort", "bitonic"]
    assert [str(m) for m in WarpSortAlgorithm] == ["cuda_coop::WARP_SORT_MERGE_SORT", "cuda_coop::WARP_SORT_BITONIC"]
    header = header_text("cuda_coop/warp_merge_sort.cuh")
    body = re.search(r"enum WarpSortAlgorithm\n\{(.*?)\};", header, re.S)
    assert body is not None
    assert re.findall(r"^\s*(WARP_SORT_\w+),", body[1], re.M) == [m.name for m in WarpSortAlgorithm]
    for member in WarpSortAlgorithm:
        assert "Overview" in (member.__doc__ or "") and "Performance considerations" in (member.__doc__ or "")
    assert "no stability promise" in (BITONIC.__doc__ or "")  # the detail namespace, said where it is documented


@pytest.mark.parametrize("spec", SORTS)
def test_every_warp_sort_takes_the_algorithm(spec: str) -> None:
    s = get_primitive(spec)
    tp = s.tparams[-1]
    assert (tp.name, tp.cpp, tp.enum, tp.default, s.algorithm) == ("algorithm", "Algorithm", WarpSortAlgorithm,
                                                                  MERGE, WarpSortAlgorithm)
    assert tp.auto is not None and tp.auto.table == spec
    for member in WarpSortAlgorithm:
        b = bind(_request(spec, algorithm=member.short_name), (64,), arch="sm_90")
        assert b.values["algorithm"] is member and not b.auto
        assert f", {member}>;" in render_requests([_request(spec, algorithm=member.short_name)], (64,))
    with pytest.raises(coop.errors.SpecError, match=r"'bitonc' is not one of .*did you mean 'bitonic'"):
        bind(_request(spec, algorithm="bitonc"), (64,))


@pytest.mark.parametrize("spec", SORTS)
def test_auto_is_merge_sort_where_nothing_is_measured(spec: str) -> None:
    """Provisional: the committed table has no warp sort yet, so "auto" binds what the sorts did before they had a
    choice. Once a GPU run of benchmarks/auto_table.py adds a sort, its calls follow the measured entries instead."""
    measured = spec in _auto.load_table().entries.get("sm_90", {})
    for key in ("int8", "int16", "float32", "float64"):
        b = bind(_request(spec, dtype=key), (64,), arch="sm_90")
        if measured:
            assert "no measurement" not in b.auto["algorithm"], b.auto
        else:
            assert b.values["algorithm"] is MERGE
            assert "no measurement for this item size" in b.auto["algorithm"]


@pytest.mark.parametrize("spec", ["warp_argsort", "warp_top_k"])
@pytest.mark.parametrize("form", [{}, {"dtype": "float16"}, {"dtype": "float64"}, {"overload": "pairs_valid"}])
def test_auto_follows_a_measurement_where_the_results_are_the_same(bitonic_first, spec: str, form: dict) -> None:
    """argsort and top_k sort (key, position) pairs with "bitonic": the same result, so auto may always pick it."""
    form = dict(form)
    overload = form.pop("overload", None)
    if spec == "warp_top_k" and overload:
        form["value_type"] = "float64"
    b = bind(_request(spec, overload, **form), (64,), arch="sm_90")
    assert b.values["algorithm"] is BITONIC, b.auto


@pytest.mark.parametrize(
    ("overload", "kw", "picks"),
    [
        ("keys", {}, BITONIC),  # integer keys by "<": ties have equal bits
        ("keys", {"compare": ">", "dtype": "uint64"}, BITONIC),
        ("keys", {"dtype": "int8"}, BITONIC),
        ("keys", {"dtype": "float32"}, MERGE),  # -0.0 and +0.0 tie under "<"
        ("keys", {"compare": UserOp("by_abs")}, MERGE),  # a user order may tie keys that differ
        ("pairs", {"value_type": "int32"}, MERGE),  # equal keys' values would show the order
        ("keys", {"stable": True}, MERGE),  # the same result, but the positioned network is not what was measured
        ("keys_valid", {}, MERGE),  # likewise (partial tiles are positioned)
    ],
)
def test_merge_sort_auto_picks_the_unstable_network_only_where_ties_are_unseen(
    bitonic_first, overload: str, kw: dict, picks: WarpSortAlgorithm
) -> None:
    b = bind(_request("warp_merge_sort", overload, **kw), (64,), arch="sm_90")
    assert b.values["algorithm"] is picks, b.auto
    if picks is MERGE:
        assert "not allowed here" in b.auto["algorithm"]
    # an explicit "bitonic" is bound as given: the caller asked for the unstable network
    assert bind(_request("warp_merge_sort", overload, algorithm="bitonic", **kw), (64,)).values["algorithm"] is BITONIC


def test_unstable_members_need_the_rule_that_admits_them() -> None:
    with pytest.raises(ValueError, match="unstable= and ties_unseen= go together"):
        Auto(table="x", unstable=(BITONIC,))
    with pytest.raises(ValueError, match="unstable= and ties_unseen= go together"):
        Auto(table="x", ties_unseen=lambda b: True)


def test_docstrings_say_what_bitonic_promises() -> None:
    merge = coop.warp.merge_sort.__doc__ or ""
    assert '``"bitonic"``' in merge and "not stable without ``stable=True``" in merge
    assert "(its fallback, ``WARP_SORT_MERGE_SORT``)" in merge  # a composition's default: not CUB's
    for fn in (coop.warp.argsort, coop.warp.top_k):
        doc = fn.__doc__ or ""
        assert "bit for bit" in doc and "provisional" in doc, fn.__name__
    for spec in SORTS:
        assert "no stability promise" in get_primitive(spec).doc, spec  # the family page shows it
