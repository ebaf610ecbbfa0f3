"""``algorithm="auto"``: the resolution rules of ``_specs._auto`` and the committed table's consistency."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

import cuda.coop as coop
from cuda.coop._dsl._primitive import all_public_primitives
from cuda.coop._provider import plan
from cuda.coop._specs import Request, UserOp, _auto, all_primitives, bind
from cuda.coop._specs.block_histogram import BlockHistogramAlgorithm
from cuda.coop._specs.block_load_store import BlockLoadAlgorithm, BlockStoreAlgorithm
from cuda.coop._specs.block_reduce import BlockReduceAlgorithm
from cuda.coop._specs.block_scan import BlockScanAlgorithm
from cuda.coop._specs.warp_load_store import WarpLoadAlgorithm
from cuda.coop.errors import SpecError
from tests.helpers.scripts import load_script

AUTO_SPECS = {tp.auto.table: (spec, tp) for spec in all_primitives() for tp in spec.tparams if tp.auto is not None}


def _table(rows: dict[str, list[tuple[int, int, int, list[str]]]], arch: str = "sm_90") -> dict[str, Any]:
    return {
        "schema": 1,
        "provisional": False,
        "archs": {
            arch: {
                prim: [{"item_bytes": s, "threads": t, "items": i, "ranking": r} for s, t, i, r in entries]
                for prim, entries in rows.items()
            }
        },
    }


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch):
    """Install a synthetic table: ``table({"block_load": [(4, 256, 4, ["transpose", ...])]})``."""

    def install(rows: dict[str, list[tuple[int, int, int, list[str]]]], arch: str = "sm_90") -> _auto.AutoTable:
        parsed = _auto.parse_table(_table(rows, arch))
        monkeypatch.setattr(_auto, "load_table", lambda path=_auto.TABLE_PATH: parsed)
        return parsed

    return install


def _load(ipt: int = 4, dtype: str = "int32", **kw: Any) -> Request:
    return Request("block_load", "load", "full", dtype=dtype, items_per_thread=ipt, **kw)


# -- lookup ------------------------------------------------------------------------------------------------------


def test_exact_entry_picks_the_fastest(table) -> None:
    table({"block_load": [(4, 256, 4, ["transpose", "vectorize", "direct"])]})
    b = bind(_load(), (256,), arch="sm_90")
    assert b.values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_TRANSPOSE
    assert "sm_90, 4-byte items, 256 threads x 4 items" in b.auto["algorithm"]
    assert "nearest" not in b.auto["algorithm"]


def test_given_auto_is_the_omitted_default(table) -> None:
    table({"block_load": [(4, 256, 4, ["vectorize"])]})
    assert bind(_load(algorithm="auto"), (256,)).values == bind(_load(), (256,)).values
    assert bind(_load(algorithm=" AUTO "), (256,)).values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_VECTORIZE


@pytest.mark.parametrize(
    ("threads", "ipt", "want"),
    [
        (256, 4, "a"),  # exact
        (128, 4, "a"),  # (256, 4): distance 1; (64, 16): 1 + 2
        (512, 8, "c"),  # (1024, 8): 1; (256, 4): 2
        (64, 8, "b"),  # (64, 16): 1; (256, 4): 3
        (32, 4, "a"),  # (256, 4): 3; (64, 16): 1 + 2 = 3: a tie, and the entry with more threads wins
    ],
)
def test_nearest_neighbour_in_log2_threads_and_items(table, threads: int, ipt: int, want: str) -> None:
    names = {"a": "transpose", "b": "vectorize", "c": "warp_transpose"}
    table({"block_load": [(4, 256, 4, [names["a"]]), (4, 64, 16, [names["b"]]), (4, 1024, 8, [names["c"]])]})
    b = bind(_load(ipt), (threads,))
    assert b.values["algorithm"].short_name == names[want]
    assert ("nearest measured" in b.auto["algorithm"]) == ((threads, ipt) != (256, 4))


def test_nearest_needs_the_same_item_size(table) -> None:
    table({"block_load": [(8, 256, 4, ["transpose"])]})
    b = bind(_load(dtype="int32"), (256,))
    assert b.values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_DIRECT  # CUB's default
    assert b.auto["algorithm"] == "CUB's default (no measurement for this item size)"
    assert bind(_load(dtype="float64"), (256,)).values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_TRANSPOSE


def test_scalar_calls_count_as_one_item_per_thread(table) -> None:
    table({"block_reduce": [(4, 128, 1, ["raking"]), (4, 128, 16, ["raking_commutative_only"])]})
    b = bind(Request("block_reduce", "sum", "scalar", dtype="int32"), (128,))
    assert b.values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_RAKING


@pytest.mark.parametrize(
    ("arch", "measured"),
    [
        ("sm_90", "sm_90"),
        ("sm_90a", "sm_90"),
        ("sm_80", "sm_80"),
        ("sm_100", None),  # not measured: CUB's default, not another GPU's ranking
        ("sm_89", None),
        ("sm_75", None),
        (None, "sm_90"),  # no target: a binding that only validates a call
    ],
)
def test_architecture_rule(arch: str | None, measured: str | None) -> None:
    data = _table({"block_scan": [(4, 128, 4, ["warp_scans"])]}, "sm_90")
    data["archs"]["sm_80"] = {"block_scan": [{"item_bytes": 4, "threads": 128, "items": 4, "ranking": ["raking"]}]}
    parsed = _auto.parse_table(data)
    assert parsed.arch_for(arch) == measured


def test_binding_for_an_architecture_uses_its_measurements(table, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _table({"block_scan": [(4, 128, 4, ["warp_scans"])]}, "sm_90")
    row = {"item_bytes": 4, "threads": 128, "items": 4, "ranking": ["raking_memoize"]}
    data["archs"]["sm_80"] = {"block_scan": [row]}
    parsed = _auto.parse_table(data)
    monkeypatch.setattr(_auto, "load_table", lambda path=_auto.TABLE_PATH: parsed)
    req = Request("block_scan", "inclusive_sum", "array", dtype="float32", items_per_thread=4)
    assert bind(req, (128,), arch="sm_90").values["algorithm"] is BlockScanAlgorithm.BLOCK_SCAN_WARP_SCANS
    assert bind(req, (128,), arch="sm_80").values["algorithm"] is BlockScanAlgorithm.BLOCK_SCAN_RAKING_MEMOIZE
    unmeasured = bind(req, (128,), arch="sm_86")
    assert unmeasured.values["algorithm"] is BlockScanAlgorithm.BLOCK_SCAN_RAKING  # CUB's default
    assert unmeasured.auto["algorithm"] == "CUB's default (not measured on sm_86)" and unmeasured.arch == "sm_86"


@pytest.mark.parametrize(("transpose_ms", "want"), [(0.97, "transpose"), (0.99, "direct"), (1.2, "direct")])
def test_auto_prefers_only_what_clearly_beats_cubs_default(transpose_ms: float, want: str) -> None:
    """A measured algorithm wins over CUB's default (``"direct"`` for loads) only when it is at least
    ``MARGIN`` (2%) faster in the table; otherwise auto is CUB's default."""
    data = _table({"block_load": [(4, 256, 4, ["transpose", "direct"])]})
    row = data["archs"]["sm_90"]["block_load"][0]
    row["median_ms"] = {"transpose": transpose_ms, "direct": 1.0}
    row["ranking"] = sorted(row["median_ms"], key=row["median_ms"].get)
    parsed = _auto.parse_table(data)
    tp = AUTO_SPECS["block_load"][1]
    b = bind(_load(algorithm="direct"), (256,), arch="sm_90")
    member, why = _auto.resolve(b, tp, parsed)
    assert member.short_name == want, why


# -- what auto never picks ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("prim", "method"), [("block_load", "load"), ("block_store", "store")])
def test_never_striped(table, prim: str, method: str) -> None:
    table({prim: [(4, 256, 4, ["striped", "vectorize"])]})
    b = bind(Request(prim, method, "full", dtype="int32", items_per_thread=4), (256,))
    assert b.values["algorithm"].short_name == "vectorize"
    assert "the faster ones are not allowed here" in b.auto["algorithm"]
    explicit = bind(Request(prim, method, "full", dtype="int32", items_per_thread=4, algorithm="striped"), (256,))
    assert explicit.values["algorithm"].short_name == "striped" and not explicit.auto


def test_never_striped_for_warps(table) -> None:
    table({"warp_load": [(4, 256, 4, ["striped"])]})
    b = bind(Request("warp_load", "load", "full", dtype="int32", items_per_thread=4), (256,))
    assert b.values["algorithm"] is WarpLoadAlgorithm.WARP_LOAD_DIRECT  # CUB's default, after the refused one
    assert b.auto["algorithm"] == "CUB's default; the measured ones are not allowed here"


def test_never_nondeterministic(table) -> None:
    table({"block_reduce": [(4, 256, 4, ["warp_reductions_nondeterministic", "raking"])]})
    b = bind(Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=4), (256,))
    assert b.values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_RAKING
    asked = Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=4,
                    algorithm="warp_reductions_nondeterministic")
    assert bind(asked, (256,)).values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC


@pytest.mark.parametrize(
    ("op", "dtype", "commutative"),
    [
        ("+", "float32", True),
        ("*", "float64", True),
        ("^", "int32", True),
        ("min", "int32", True),
        ("max", "uint8", True),
        ("min", "float32", False),  # a NaN makes the order matter
        (UserOp("my_add"), "int32", False),
    ],
)
def test_commutative_only_needs_a_known_commutative_operator(table, op: object, dtype: str, commutative: bool) -> None:
    size = {"float32": 4, "float64": 8, "int32": 4, "uint8": 1}[dtype]
    table({"block_reduce": [(size, 256, 4, ["raking_commutative_only", "raking"])]})
    b = bind(Request("block_reduce", "reduce", "array", dtype=dtype, items_per_thread=4, op=op), (256,))
    want = "raking_commutative_only" if commutative else "raking"
    assert b.values["algorithm"].short_name == want


def test_sum_counts_as_commutative(table) -> None:
    table({"block_reduce": [(4, 256, 4, ["raking_commutative_only"])]})
    b = bind(Request("block_reduce", "sum", "array", dtype="int32", items_per_thread=4), (256,))
    assert b.values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY


def test_user_operator_falls_back_to_cub_default(table) -> None:
    table({"block_reduce": [(4, 256, 4, ["raking_commutative_only"])]})
    b = bind(Request("block_reduce", "reduce", "array", dtype="int32", items_per_thread=4, op=UserOp("f")), (256,))
    assert b.values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS


# -- the spec's constraints ------------------------------------------------------------------------------------


def test_warp_transpose_only_for_multiples_of_32(table) -> None:
    table({"block_load": [(4, 64, 4, ["warp_transpose", "warp_transpose_timesliced", "transpose"])]})
    assert bind(_load(), (64,)).values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_WARP_TRANSPOSE
    assert bind(_load(), (48,)).values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_TRANSPOSE


def test_commutative_only_refused_for_partial_and_small_blocks(table) -> None:
    table(
        {"block_reduce": [(4, 32, 1, ["raking_commutative_only", "raking"]), (4, 64, 1, ["raking_commutative_only"])]}
    )
    small = bind(Request("block_reduce", "sum", "scalar", dtype="int32"), (32,))
    assert small.values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_RAKING
    partial = bind(Request("block_reduce", "sum", "scalar_valid", dtype="int32"), (64,))
    assert partial.values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS


def test_scan_warp_scans_needs_multiples_of_32(table) -> None:
    table({"block_scan": [(4, 128, 4, ["warp_scans", "raking_memoize"])]})
    req = Request("block_scan", "exclusive_sum", "array", dtype="int32", items_per_thread=4)
    assert bind(req, (128,)).values["algorithm"] is BlockScanAlgorithm.BLOCK_SCAN_WARP_SCANS
    assert bind(req, (100,)).values["algorithm"] is BlockScanAlgorithm.BLOCK_SCAN_RAKING_MEMOIZE


def test_a_tile_too_large_for_shared_memory_is_never_staged(table) -> None:
    table({"block_store": [(8, 1024, 16, ["transpose", "warp_transpose", "warp_transpose_timesliced"])]})
    req = Request("block_store", "store", "full", dtype="float64", items_per_thread=16)
    assert bind(req, (1024,)).values["algorithm"] is BlockStoreAlgorithm.BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
    timesliced = BlockStoreAlgorithm.BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
    assert bind(req, (192,)).values["algorithm"] is timesliced  # 24 KiB + 1/32 of padding: more than half
    assert bind(req, (160,)).values["algorithm"] is BlockStoreAlgorithm.BLOCK_STORE_TRANSPOSE  # 20.6 KiB: fits


def test_histogram_auto_avoids_what_the_constraints_refuse(table) -> None:
    table({"block_histogram": [(1, 256, 4, ["atomic", "sort"])]})
    req = {"dtype": "uint8", "items_per_thread": 4, "bins": 256}
    atomic = bind(Request("block_histogram", "histogram", "array", counter_type="uint32", **req), (256,))
    assert atomic.values["algorithm"] is BlockHistogramAlgorithm.BLOCK_HISTO_ATOMIC
    wide = bind(Request("block_histogram", "histogram", "array", counter_type="int64", **req), (256,))
    assert wide.values["algorithm"] is BlockHistogramAlgorithm.BLOCK_HISTO_SORT  # atomicAdd_block takes no int64


def test_nothing_allowed_names_auto_in_the_error(table) -> None:
    table({"block_histogram": []})
    req = Request("block_histogram", "histogram", "array", dtype="uint8", items_per_thread=4, bins=100_000,
                  counter_type="int64")
    with pytest.raises(SpecError, match=r"algorithm='auto' \(which chose 'sort'\) keeps 8 bytes"):
        bind(req, (256,))


def test_an_unknown_algorithm_lists_auto_too() -> None:
    with pytest.raises(SpecError, match=r"'trnspose' is not one of .*did you mean 'transpose'\? \(or 'auto'"):
        bind(_load(algorithm="trnspose"), (256,))


# -- explicit algorithms and the cache key --------------------------------------------------------------------


@pytest.mark.parametrize("member", list(BlockLoadAlgorithm), ids=lambda m: m.short_name)
def test_explicit_algorithms_are_bound_as_given(table, member: BlockLoadAlgorithm) -> None:
    table({"block_load": [(4, 256, 4, ["transpose"])]})
    b = bind(_load(algorithm=member.short_name), (256,))
    assert b.values["algorithm"] is member and not b.auto


def test_auto_and_the_same_explicit_algorithm_render_and_key_alike(table) -> None:
    table({"block_load": [(4, 256, 4, ["vectorize"])]})
    auto, explicit = bind(_load(), (256,)), bind(_load(algorithm="vectorize"), (256,))
    assert auto.canonical() == explicit.canonical()
    assert plan([_load()], (256,), arch="sm_90").prefix == plan([_load(algorithm="vectorize")], (256,)).prefix
    assert "cub::BLOCK_LOAD_VECTORIZE" in auto.canonical()


def test_plan_resolves_for_its_arch(table) -> None:
    table({"block_load": [(4, 256, 4, ["transpose"])]}, arch="sm_100")
    p = plan([_load()], (256,), arch="sm_100")
    assert p.signatures[0].binding.values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_TRANSPOSE
    assert p.signatures[0].binding.arch == "sm_100"


# -- public surface --------------------------------------------------------------------------------------------


def test_every_auto_primitive_defaults_to_auto() -> None:
    auto_specs = {spec.name for spec, _ in AUTO_SPECS.values()}
    assert auto_specs == {"block_load", "block_store", "block_reduce", "block_scan", "warp_load", "warp_store",
                          "block_histogram", "block_top_k", "warp_merge_sort", "warp_argsort", "warp_top_k"}
    stubs = [p for p in all_public_primitives() if p.spec.name in auto_specs]
    assert stubs
    for prim in stubs:
        module, name = prim.name.split(".")
        stub = getattr(getattr(coop, module), name)
        if prim.name == "block.histogram_init":  # zeroing the counters involves no algorithm: none to choose
            assert "algorithm" not in inspect.signature(stub).parameters and "auto" not in (stub.__doc__ or "")
            continue
        assert inspect.signature(stub).parameters["algorithm"].default == "auto", prim.name
        fallback = "(CUB's own default" if prim.spec.cub_class.startswith("cub::") else "(its fallback"
        assert '``"auto"`` (the default' in (stub.__doc__ or "") and fallback in (stub.__doc__ or ""), prim.name


# -- the committed table ---------------------------------------------------------------------------------------


def test_committed_table_is_consistent() -> None:
    """Every entry names an existing algorithm of its primitive, is not one auto must never pick, and carries
    its raw medians; a provisional table is marked so and holds CUB's defaults only."""
    data = json.loads(_auto.TABLE_PATH.read_text())
    parsed = _auto.load_table()
    assert data["schema"] == _auto.SCHEMA and parsed.entries
    for arch, prims in data["archs"].items():
        assert set(prims) <= set(AUTO_SPECS), arch
        for prim, rows in prims.items():
            _, tp = AUTO_SPECS[prim]
            assert rows, (arch, prim)
            for row in rows:
                members = [tp.enum.coerce(name) for name in row["ranking"]]
                assert members, row
                assert not set(members) & set(tp.auto.never), row
                if data["provisional"]:
                    assert members == [tp.default], row
                else:
                    assert set(row["ranking"]) == set(row["median_ms"]), row
                    assert [row["median_ms"][n] for n in row["ranking"]] == sorted(row["median_ms"].values()), row
    if data["provisional"]:
        assert "PROVISIONAL" in data["note"] and data["device"] is None
    else:
        assert data["device"] and data["date"]


def test_a_table_of_another_schema_is_refused() -> None:
    with pytest.raises(SpecError, match="schema 2 is not 1"):
        _auto.parse_table({"schema": 2, "archs": {}})
    with pytest.raises(SpecError, match="'gfx90' is not of the form"):
        _auto.parse_table({"schema": 1, "archs": {"gfx90": {}}})


# -- the measuring command's table (benchmarks/auto_table.py, host side) -----------------------------------------


def _bench() -> Any:
    return load_script(Path(__file__).resolve().parents[2] / "benchmarks" / "auto_table.py", "auto_table_bench")


def test_benchmark_writes_a_table_bind_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _bench()
    row = {"item_bytes": 4, "threads": 256, "items": 4, "dtype": "float32", "kernel": "global memory", "failed": {},
           "wrong": [], "compile_s": {}}
    rows = [
        {**row, "prim": "block_load", "median_ms": {"direct": 0.545, "transpose": 0.237, "vectorize": 0.239}},
        {**row, "prim": "block_load", "item_bytes": 8, "median_ms": {}, "failed": {"transpose": "CompileError"}},
    ]
    table = bench.build_table(json.loads(_auto.TABLE_PATH.read_text()), "sm_90", rows, {"device": "X", "date": "d"})
    assert table["archs"]["sm_90"]["block_load"][0]["ranking"] == ["transpose", "vectorize", "direct"]
    assert [u["item_bytes"] for u in table["unmeasured"]] == [8]  # nothing ran: kept, but never looked up
    parsed = _auto.parse_table(table)
    monkeypatch.setattr(_auto, "load_table", lambda path=_auto.TABLE_PATH: parsed)
    assert bind(_load(), (256,)).values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_TRANSPOSE
    assert bind(_load(dtype="float64"), (256,)).values["algorithm"] is BlockLoadAlgorithm.BLOCK_LOAD_DIRECT


def test_a_merged_table_says_which_run_measured_each_primitive() -> None:
    bench = _bench()
    row = {"item_bytes": 4, "threads": 256, "items": 4, "dtype": "float32", "kernel": "tile loaded from global memory",
           "failed": {}, "wrong": [], "compile_s": {}}
    first = bench.build_table(None, "sm_90", [
        {**row, "prim": "block_load", "median_ms": {"direct": 0.5}},
        {**row, "prim": "block_store", "median_ms": {}, "failed": {"direct": "CompileError"}},
    ], {"date": "d1", "device": "X", "command": "all"})
    second = bench.build_table(first, "sm_90", [{**row, "prim": "block_reduce", "median_ms": {"raking": 0.1}}],
                               {"date": "d2", "device": "X", "command": "--only block_reduce", "grid": {"t": [1]}})
    assert second["runs"] == {
        "sm_90/block_load": {"date": "d1", "device": "X", "command": "all"},
        "sm_90/block_store": {"date": "d1", "device": "X", "command": "all"},
        "sm_90/block_reduce": {"date": "d2", "device": "X", "command": "--only block_reduce", "grid": {"t": [1]}},
    }
    assert [u["prim"] for u in second["unmeasured"]] == ["block_store"]  # a run of other primitives keeps it
    assert second["archs"]["sm_90"]["block_load"] == first["archs"]["sm_90"]["block_load"]


def test_committed_reduce_and_scan_rankings_come_from_loaded_tiles() -> None:
    """The table ranks block reduce and scan in the kernels they are used in: after a load from global memory
    (on items generated in registers the kernel is compute-bound and the ranking can differ)."""
    data = json.loads(_auto.TABLE_PATH.read_text())
    assert not data["provisional"], "the committed table is provisional: auto would choose from nothing measured"
    for arch, prims in data["archs"].items():
        for prim in ("block_reduce", "block_scan"):
            kinds = {e.get("kernel") for e in prims.get(prim, [])}
            assert kinds <= {"tile loaded from global memory"}, (arch, prim, kinds)


def test_benchmark_grid_covers_every_auto_primitive() -> None:
    bench = _bench()
    assert {c.prim for c in bench.configs(bench.GRID, [], 26)} == set(AUTO_SPECS)
    for prim, (_, tp) in AUTO_SPECS.items():
        assert set(bench.candidates(prim)) == {m.short_name for m in tp.enum} - {m.short_name for m in tp.auto.never}


def test_the_provisional_command_writes_cubs_defaults() -> None:
    """``auto_table.py --provisional`` (a table for a machine without a GPU) parses, and picks CUB's default for
    every primitive it holds."""
    bench = _bench()
    table = _auto.parse_table(json.loads(json.dumps(bench.provisional(bench.GRID, "sm_90"))))
    assert table.provisional and set(table.entries["sm_90"]) == set(AUTO_SPECS)
    for prim, entries in table.entries["sm_90"].items():
        default = AUTO_SPECS[prim][1].default.short_name
        assert {e.ranking for e in entries} == {(default,)}, prim
