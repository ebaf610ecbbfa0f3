"""The spec registry, the algorithm enums, and request validation (host only)."""

from __future__ import annotations

import ast
import operator
import re
from pathlib import Path

import pytest

from cuda.coop import _specs
from cuda.coop._bundle import header_bundle
from cuda.coop._specs import (
    ArgKind,
    BlockLoadAlgorithm,
    BlockReduceAlgorithm,
    BlockScanAlgorithm,
    BlockStoreAlgorithm,
    CubEnum,
    KnownOp,
    Request,
    Scope,
    TParamKind,
    UserCallback,
    UserOp,
    bind,
    get_primitive,
    user_type,
    value_type,
)
from cuda.coop.errors import SpecError
from tests.helpers.cub_extra_specs import EXTRA_SPECS, registered_extra_specs
from tests.helpers.own_headers import header_text

PACKAGE = Path(_specs.__file__).resolve().parents[1]
ENUMS = (BlockLoadAlgorithm, BlockStoreAlgorithm, BlockReduceAlgorithm, BlockScanAlgorithm)


def test_registry_holds_every_family_module() -> None:
    names = [s.name for s in _specs.all_primitives()]
    assert names == sorted(names)
    assert {"block_load", "block_reduce", "block_scan", "block_store", "warp_reduce", "warp_scan"} <= set(names)
    files = {p.stem for p in Path(_specs.__file__).parent.glob("*.py") if not p.stem.startswith("_")}
    assert set(_specs._FAMILIES) == files, "every family module is registered in _specs._FAMILIES"
    assert _specs.headers() == tuple(sorted({s.header for s in _specs.all_primitives() if s.preamble}))


def test_registry_is_frozen_after_import() -> None:
    with pytest.raises(RuntimeError, match="frozen"):
        _specs.register_primitive(get_primitive("block_reduce"))


def test_registering_for_tests_is_undone() -> None:
    with registered_extra_specs():
        assert get_primitive("extra_radix_sort") is EXTRA_SPECS[0]
        with pytest.raises(ValueError, match="already registered"):
            _specs.register_primitive(EXTRA_SPECS[0])
    with pytest.raises(ValueError, match="no primitive 'extra_radix_sort'"):
        get_primitive("extra_radix_sort")


def test_unknown_primitive_suggests() -> None:
    with pytest.raises(ValueError, match="did you mean 'block_reduce'"):
        get_primitive("block_reduc")


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_algorithm_enums_follow_cub(enum: type[CubEnum]) -> None:
    for member in enum:
        assert str(member) == f"cub::{member.name}"
        assert "Overview" in member.__doc__ and "Performance considerations" in member.__doc__
        assert enum.coerce(member.short_name) is member
        assert enum.coerce(member.name) is member
        assert enum.coerce(str(member)) is member
    with pytest.raises(SpecError, match="is not one of the algorithms"):
        enum.coerce("no_such_algorithm")
    first = next(iter(enum))
    with pytest.raises(SpecError, match=f"did you mean '{first.short_name}'"):
        enum.coerce(first.short_name[:-1] + "x")


def test_short_names_are_the_python_api_spellings() -> None:
    assert [m.short_name for m in BlockLoadAlgorithm] == [
        "direct",
        "striped",
        "vectorize",
        "transpose",
        "warp_transpose",
        "warp_transpose_timesliced",
    ]
    assert [m.short_name for m in BlockScanAlgorithm] == ["raking", "raking_memoize", "warp_scans"]


def _header_text(spec: _specs.PrimitiveSpec) -> str:
    """The spec's header and the block/warp collective headers it includes (a base class's members:
    WarpMergeSort inherits Sort/StableSort from BlockMergeSortStrategy in block_merge_sort.cuh); for cuda-coop's
    own compositions, their header and the cuda_coop/ headers it includes (its base classes)."""
    include = header_bundle().include_dir
    if spec.header.startswith("cuda_coop/"):
        return header_text(spec.header)
    text = (include / spec.header).read_text(encoding="utf-8")
    bases = re.findall(r"^#include <(cub/(?:block|warp)/\w+\.cuh)>", text, flags=re.M)
    return "\n".join([text, *((include / h).read_text(encoding="utf-8") for h in bases)])


@pytest.mark.parametrize("spec", _specs.all_primitives(), ids=lambda s: s.name)
def test_specs_match_the_bundled_headers(spec: _specs.PrimitiveSpec) -> None:
    """Class, template parameter, method and enumerator names exist in the CUB header the spec names (or,
    for cuda-coop's own compositions, in their cuda_coop/ header)."""
    text = _header_text(spec)
    assert re.search(rf"class {spec.cub_class.split('::')[-1]}\b", text)
    for tp in spec.tparams:
        assert re.search(rf"\b{tp.cpp}\b", text), tp.cpp
    for method in spec.methods:
        for name in method.cpp_names():
            assert re.search(rf"\b{name}\s*\(", text), name
    if spec.algorithm is not None:
        for member in spec.algorithm:
            assert re.search(rf"\b{member.name},", text), member.name


@pytest.mark.parametrize("spec", _specs.all_primitives(), ids=lambda s: s.name)
def test_spec_invariants(spec: _specs.PrimitiveSpec) -> None:
    for method in spec.methods:
        names = [ov.name for ov in method.overloads]
        assert len(set(names)) == len(names), f"{spec.name}.{method.name}: duplicate overload names"
        for ov in method.overloads:
            known = {t.name for t in (*spec.tparams, *ov.tparams)}
            for p in ov.all_params:
                if p.extent is not None:
                    assert p.extent in known
                for ref in (p.type, p.returns, *p.args):
                    assert ref is None or ref in known or ref in _specs.BUILTIN_TYPES, ref
    if spec.scope is Scope.BLOCK:
        assert [t.inferred for t in spec.tparams if t.inferred] == ["block_dim_x", "block_dim_y", "block_dim_z"]


def test_no_branching_on_primitive_names_outside_specs() -> None:
    """STYLE 3: nothing outside _specs compares a value with a primitive or method name."""
    names = {s.name for s in _specs.all_primitives()}
    names |= {m.name for s in _specs.all_primitives() for m in s.methods}
    names |= {n for s in _specs.all_primitives() for m in s.methods for n in m.cpp_names()}
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "_specs" in path.parts or "_headers" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                for const in [node.left, *node.comparators]:
                    if isinstance(const, ast.Constant) and const.value in names:
                        offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {const.value!r}")
    assert not offenders


def test_bind_fills_defaults_and_launch_dims() -> None:
    b = bind(Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16), (16, 8))
    assert b.block_dim == (16, 8, 1) and b.block_threads == 128
    # the default algorithm is "auto": a deterministic CUB algorithm from the measured table
    assert b.values["algorithm"] in set(BlockReduceAlgorithm) - {
        BlockReduceAlgorithm.BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC
    }
    explicit = Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16, algorithm="raking")
    assert bind(explicit, (16, 8)).values["algorithm"] is BlockReduceAlgorithm.BLOCK_REDUCE_RAKING
    assert (b.values["block_dim_x"], b.values["block_dim_y"], b.values["block_dim_z"]) == (16, 8, 1)
    assert b.values["dtype"] is value_type("float32")


def test_request_argument_order_does_not_matter() -> None:
    a = Request("block_scan", "exclusive_scan", "scalar_init", dtype="int32", op="+", algorithm="raking")
    b = Request("block_scan", "exclusive_scan", "scalar_init", algorithm="raking", op="+", dtype="int32")
    assert a == b and hash(a) == hash(b)
    assert bind(a, (128,)).canonical() == bind(b, (128,)).canonical()


@pytest.mark.parametrize(
    ("request_", "block", "message"),
    [
        (Request("block_reduc", "sum", "scalar", dtype="float32"), (128,), "did you mean 'block_reduce'"),
        (Request("block_reduce", "summ", "scalar", dtype="float32"), (128,), "has no method 'summ'"),
        (Request("block_reduce", "sum", "vector", dtype="float32"), (128,), "no overload 'vector'"),
        (
            Request("block_reduce", "sum", "scalar", dtype="float32", algoritm="raking"),
            (128,),
            "did you mean 'algorithm'",
        ),
        (Request("block_reduce", "sum", "scalar"), (128,), "missing template parameter dtype"),
        (Request("block_reduce", "sum", "scalar", dtype="float32", block_dim_x=64), (128,), "from the launch"),
        (Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=0), (128,), "between 1 and"),
        (Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=True), (128,), "integer, got True"),
        (Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=2.0), (128,), "integer, got 2.0"),
        (Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=2**31), (128,), "and 524288"),
        (Request("block_reduce", "sum", "scalar", dtype="float33"), (128,), "did you mean 'float32'"),
        (Request("block_reduce", "reduce", "scalar", dtype="float32"), (128,), "missing operator op"),
        (Request("block_reduce", "reduce", "scalar", dtype="float32", op="**"), (128,), "is not an operator"),
        (Request("block_reduce", "reduce", "scalar", dtype="float32", op="^"), (128,), "not defined for float32"),
        (Request("block_reduce", "reduce", "scalar", dtype=user_type(12, 4), op="+"), (128,), "user operator"),
        (Request("block_reduce", "sum", "scalar", dtype="float32"), (2048,), "at most 1024"),
        (Request("block_reduce", "sum", "scalar", dtype="float32"), (0,), "positive integers"),
        (
            Request("block_scan", "exclusive_sum", "scalar_prefix", dtype="int32", prefix_op="+"),
            (128,),
            "must be a UserCallback",
        ),
    ],
)
def test_bad_requests_name_the_problem(request_: Request, block: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bind(request_, block)


def test_compile_time_integers_and_bools_accept_numpy_scalars() -> None:
    """A template parameter takes Python and NumPy integers and bools alike (``threads=np.int32(16)``)."""
    np = pytest.importorskip("numpy")
    b = bind(Request("warp_reduce", "sum", "array", dtype="float32", items_per_thread=np.int64(4),
                     threads=np.int32(16), broadcast=np.True_), (64,))
    assert (b.values["items_per_thread"], b.values["threads"], b.values["broadcast"]) == (4, 16, True)
    assert type(b.values["threads"]) is int and b.values["broadcast"] is True
    with pytest.raises(SpecError, match=r"broadcast must be True or False, got (np.int64\()?1"):
        bind(Request("warp_reduce", "sum", "scalar", dtype="float32", broadcast=np.int64(1)), (64,))


def test_warp_scans_with_48_threads_raises() -> None:
    """STYLE 6: CUB would silently fall back to BLOCK_SCAN_RAKING."""
    with pytest.raises(ValueError, match="algorithm='warp_scans' needs a block size that is a multiple of 32"):
        bind(Request("block_scan", "exclusive_sum", "scalar", dtype="int32", algorithm="warp_scans"), (48,))
    bind(Request("block_scan", "exclusive_sum", "scalar", dtype="int32", algorithm="warp_scans"), (16, 4))


@pytest.mark.parametrize(
    ("request_", "block", "message"),
    [
        (
            Request("block_reduce", "sum", "scalar", dtype="float32", algorithm="raking_commutative_only"),
            (32,),
            "more than 32 threads",
        ),
        (
            Request("block_reduce", "sum", "scalar_valid", dtype="float32", algorithm="raking_commutative_only"),
            (128,),
            "every thread's input",
        ),
        (
            Request(
                "block_reduce",
                "reduce",
                "scalar",
                dtype="float32",
                op="max",
                algorithm="warp_reductions_nondeterministic",
            ),
            (128,),
            "sums of",
        ),
        (
            Request("block_reduce", "sum", "scalar", dtype="int8", algorithm="warp_reductions_nondeterministic"),
            (128,),
            "sums of",
        ),
        (
            Request("block_load", "load", "full", dtype="int32", items_per_thread=4, algorithm="warp_transpose"),
            (48,),
            "multiple of 32",
        ),
        (
            Request(
                "block_store", "store", "full", dtype="int32", items_per_thread=4, algorithm="warp_transpose_timesliced"
            ),
            (48,),
            "multiple of 32",
        ),
        (Request("warp_reduce", "sum", "scalar", dtype="int32", threads=24), (96,), "power of two"),
        (Request("warp_reduce", "sum", "scalar", dtype="int32", threads=64), (128,), "power of two"),
        (Request("warp_scan", "inclusive_sum", "scalar", dtype="int32"), (48,), "divides the block size"),
    ],
)
def test_configurations_cub_would_change_raise(request_: Request, block: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bind(request_, block)


def test_nondeterministic_sum_is_allowed() -> None:
    bind(
        Request("block_reduce", "sum", "scalar", dtype="float32", algorithm="warp_reductions_nondeterministic"), (128,)
    )
    bind(
        Request(
            "block_reduce", "reduce", "scalar", dtype="int64", op="+", algorithm="warp_reductions_nondeterministic"
        ),
        (128,),
    )


def test_method_match_selects_overloads_from_call_shapes() -> None:
    scan = get_primitive("block_scan").method("exclusive_scan")
    assert scan.match({"x": True, "op": False, "initial_value": False}).name == "array_init"
    assert scan.match({"x": False, "op": False, "initial_value": False}).name == "scalar_init"
    assert scan.match({"x": False, "op": False, "prefix_op": False}).name == "scalar_prefix"
    assert scan.match({"x": True, "op": False, "initial_value": False, "block_aggregate": False}).name == (
        "array_init_aggregate"
    )
    with pytest.raises(SpecError, match="takes no arguments"):
        scan.match({"x": True, "op": False})  # no seed: thread 0's output would be undefined
    with pytest.raises(SpecError, match="takes no arguments"):
        scan.match({"input": True})
    load = get_primitive("block_load").method("load")
    assert load.match({"src": False, "valid_items": False}).name == "guarded"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("+", KnownOp.PLUS),
        ("add", KnownOp.PLUS),
        (operator.add, KnownOp.PLUS),
        (min, KnownOp.MINIMUM),
        ("MAX", KnownOp.MAXIMUM),
        (operator.xor, KnownOp.BIT_XOR),
        ("bitwise_or", KnownOp.BIT_OR),
        (KnownOp.MULTIPLIES, KnownOp.MULTIPLIES),
        ("**", None),
        (lambda a, b: a, None),
        ([], None),
    ],
)
def test_coerce_operator(given: object, expected: KnownOp | None) -> None:
    assert _specs.coerce_operator(given) is expected


def test_numpy_ufuncs_map_to_known_operators() -> None:
    np = pytest.importorskip("numpy")
    assert _specs.coerce_operator(np.add) is KnownOp.PLUS
    assert _specs.coerce_operator(np.minimum) is KnownOp.MINIMUM
    assert _specs.coerce_operator(np.bitwise_and) is KnownOp.BIT_AND


def test_value_types() -> None:
    assert value_type("float32").cpp == "float" and value_type("int") is value_type("int32")
    np = pytest.importorskip("numpy")
    assert value_type(np.float64) is value_type("float64")
    assert value_type(np.dtype("uint16")) is value_type("uint16")
    assert value_type("float16").abi == "pointer" and value_type("int64").abi == "value"
    udt = user_type(12, 4)
    assert (udt.size, udt.align, udt.abi, udt.is_user) == (12, 4, "pointer", True)
    with pytest.raises(ValueError, match="storage ABI"):
        user_type(12, 8)
    with pytest.raises(ValueError, match="storage ABI"):
        user_type(12, 3)


def test_user_symbols_must_be_c_identifiers() -> None:
    with pytest.raises(ValueError, match="C identifier"):
        UserOp("not-valid")
    with pytest.raises(ValueError, match="C identifier"):
        UserCallback("9lives")


def test_spec_format_rejects_inconsistent_declarations() -> None:
    with pytest.raises(ValueError, match="snake_case"):
        _specs.Param(name="Input", kind=ArgKind.SCALAR, type="dtype")
    with pytest.raises(ValueError, match="needs an extent"):
        _specs.Param(name="items", kind=ArgKind.ARRAY, type="dtype")
    with pytest.raises(ValueError, match="returns= is required"):
        _specs.Param(name="op", kind=ArgKind.OPERATOR)
    with pytest.raises(ValueError, match="needs a default"):
        _specs.TemplateParam(name="x", cpp="X", kind=TParamKind.INT, doc="", optional=True)
    with pytest.raises(ValueError, match="'threads' template parameter"):
        _specs.PrimitiveSpec(
            name="warp_thing", cub_class="cub::WarpThing", header="h", scope=Scope.WARP, tparams=(), methods=()
        )
