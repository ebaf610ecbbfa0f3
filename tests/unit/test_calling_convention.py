"""One calling convention for every public function, read from each stub's signature and its spec (host only).

The rule (docs/calling-model.rst):

1. positional, in this order: the data the call reads (the first required argument it reads: ``x``, ``keys``,
   ``samples``, ``run_values``), the other required per-thread arrays it reads (a scatter's ``ranks``,
   ``valid_flags``), the required arrays it writes (``head_flags``, ``indices``, ``out_keys``, ``counters``...),
   then the required operator; ``load``/``store`` take their memory array first, as CUB's ``Load(ptr, items)``,
   and ``load_to_shared`` its two, ``(src, dst)``;
2. keyword-only: everything else (optional arrays, every other scalar, required or not, compile-time options);
3. names: ``x`` for the items read but where a domain name is used, ``items`` only for load/store's per-thread array;
4. related functions share their defaults; every sort and rank takes ``valid_items=``;
5. a warp function takes the positional parameters of its block twin, and names in its docs what it lacks; one
   without a block twin (CUB has no block class for it) says so in its module's docs.

Requiredness, kinds and directions come from the spec (``public_parameters``, ``Param.access``), never from the
stub, so a new family that breaks the rule fails here.
"""

from __future__ import annotations

import inspect
import sys

import pytest

import cuda.coop as coop
from cuda.coop._dsl._primitive import Primitive, all_public_primitives, public_parameters
from cuda.coop._specs import ArgKind, Param
from cuda.coop.errors import UsageError

PRIMITIVES = all_public_primitives()
KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY
DOMAIN_NAMES = {"keys", "samples", "run_values"}
"""The names of the data read where a family has a domain word for it (else ``x``)."""
SORTS_AND_RANKS = ("block.radix_sort", "block.argsort", "block.top_k", "block.radix_rank", "block.merge_sort",
                   "warp.argsort", "warp.top_k", "warp.merge_sort")


def _spec_params(prim: Primitive) -> list[Param]:
    """The spec's runtime parameters of the primitive, in the spec's order (array forms preferred)."""
    names = dict.fromkeys(p.name for ov in prim.method.overloads for p in ov.all_params)
    return [p for n in names if (p := prim.param(n, array=True)) is not None]


def _array(p: Param) -> bool:
    return p.kind in (ArgKind.ARRAY, ArgKind.POINTER, ArgKind.AGGREGATE) or (
        p.kind is ArgKind.OUTPUT and p.extent is not None
    )


def expected_positional(prim: Primitive) -> list[str]:
    """The positional parameters the rule gives ``prim``, from its spec alone."""
    defaults = public_parameters(prim.spec, prim.method)
    required = [p for p in _spec_params(prim) if defaults.get(p.name, None) is inspect.Parameter.empty]
    operators = [p.name for p in required if p.kind in (ArgKind.OPERATOR, ArgKind.CALLBACK)]
    data = next((p for p in required if p.name not in operators and p.access != "out"), None)
    reads = [p.name for p in required if p is not data and _array(p) and p.access == "in"]
    writes = [p.name for p in required if p is not data and _array(p) and p.access != "in"]
    order = ([data.name] if data else []) + reads + writes + operators
    memory = [p.name for p in required if p.kind is ArgKind.POINTER and p.offset]  # load/store: Load(ptr, items)
    return memory + [n for n in order if n not in memory]


@pytest.mark.parametrize("prim", PRIMITIVES, ids=lambda p: p.name)
def test_positional_parameters_follow_the_rule(prim: Primitive) -> None:
    params = prim.signature.parameters
    assert list(prim.positional) == expected_positional(prim)
    rest = [n for n in params if n not in prim.positional]
    assert all(params[n].kind is KEYWORD_ONLY for n in rest), [n for n in rest if params[n].kind is not KEYWORD_ONLY]
    assert all(params[n].default is inspect.Parameter.empty for n in prim.positional)


@pytest.mark.parametrize("prim", PRIMITIVES, ids=lambda p: p.name)
def test_the_data_read_is_x_or_a_domain_name(prim: Primitive) -> None:
    first = expected_positional(prim)[:1]
    if prim.name.endswith(("load", "store")):
        assert prim.positional == ("src" if prim.name.endswith("load") else "dst", "items")
    elif prim.name.endswith("load_to_shared"):  # memory to memory: the array read, then the one written
        assert prim.positional == ("src", "dst")
    elif first and prim.param(first[0]) is not None and prim.param(first[0]).access != "out":  # type: ignore[union-attr]
        assert first[0] in {"x", *DOMAIN_NAMES}, prim.name
    assert "items" not in prim.signature.parameters or prim.name.endswith(("load", "store")), prim.name


def test_related_defaults_agree() -> None:
    def default(name: str, param: str) -> object:
        scope, fn = name.split(".")
        return inspect.signature(getattr(getattr(coop, scope), fn)).parameters[param].default

    assert {default(n, "radix_bits") for n in ("block.radix_sort", "block.argsort", "block.top_k",
                                               "block.radix_rank")} == {4}
    for param in ("descending", "begin_bit", "end_bit", "valid_items"):
        values = {default(n, param) for n in ("block.radix_sort", "block.argsort", "block.radix_rank")}
        assert len(values) == 1, (param, values)


@pytest.mark.parametrize("name", SORTS_AND_RANKS)
def test_every_sort_and_rank_takes_valid_items(name: str) -> None:
    prim = next(p for p in PRIMITIVES if p.name == name)
    param = prim.signature.parameters["valid_items"]
    assert param.kind is KEYWORD_ONLY and param.default is None
    spec = prim.param("valid_items")
    assert spec is not None and spec.count_limit in ("tile", "warp_tile") and spec.uniform


def _block_twin(prim: Primitive) -> Primitive | None:
    return next((p for p in PRIMITIVES if p.name == "block." + prim.name.split(".")[1]), None)


@pytest.mark.parametrize("prim", [p for p in PRIMITIVES if p.name.startswith("warp.")], ids=lambda p: p.name)
def test_warp_forms_mirror_their_block_twins(prim: Primitive) -> None:
    """Same positional parameters; a keyword of the block form that the warp form lacks is named (``name=``) in the
    warp function's docs or its module's, which say that CUB has no warp equivalent."""
    twin = _block_twin(prim)
    stub = getattr(coop.warp, prim.name.split(".")[1])
    if twin is None:  # a warp-only CUB class (WarpReduceBatched) says so where it is documented
        assert "without a ``coop.block`` twin" in (sys.modules[stub.__module__].__doc__ or ""), prim.name
        return
    assert prim.positional == twin.positional
    extra = set(prim.signature.parameters) - set(twin.signature.parameters)
    assert extra <= {"threads", "warp_aggregate", "algorithm"}, extra
    docs = (stub.__doc__ or "") + (sys.modules[stub.__module__].__doc__ or "")
    missing = [n for n in twin.signature.parameters if n not in prim.signature.parameters and f"{n}=" not in docs]
    assert not missing, f"{prim.name} lacks {missing} of {twin.name} without saying why"


# --- earlier spellings: Primitive.bind says what changed ------------------------------------------------------

OLD_SPELLINGS = [
    ("block.exclusive_scan", ("x", "op", 0, "out"), {},
     "initial_value= is keyword-only: coop.block.exclusive_scan(x, op, initial_value=initial_value, output=output)"),
    ("block.radix_sort", ("keys", "values"), {}, "values= is keyword-only: coop.block.radix_sort(keys, values=values)"),
    ("block.top_k", ("keys", 4, "out", "vals", "out_vals"), {},
     "k= is keyword-only: coop.block.top_k(keys, out_keys, k=k, values=values, out_values=out_values)"),
    ("block.top_k", ("keys", 4), {"out_keys": "out"}, "k= is keyword-only: coop.block.top_k(keys, out_keys, k=k)"),
    ("block.striped_to_blocked", (), {"items": "a"}, "items= is x= now: coop.block.striped_to_blocked(x)"),
    ("warp.scatter_to_striped", (), {"items": "a", "ranks": "r"},
     "items= is x= now: coop.warp.scatter_to_striped(x, ranks)"),
    ("warp.exclusive_scan", ("x", "op", 0), {},
     "initial_value= is keyword-only: coop.warp.exclusive_scan(x, op, initial_value=initial_value)"),
    ("block.top_k", ("keys", "out"), {}, "k= is required and keyword-only: coop.block.top_k(keys, out_keys, k=k)"),
    ("block.reduce", ("x", "op", 4), {}, "3 positional arguments, but it takes 2 (x, op); pass the others by keyword"),
]


@pytest.mark.parametrize(("name", "args", "kwargs", "message"), OLD_SPELLINGS, ids=[f"{c[0]}-{len(c[1])}" for c in
                                                                                    OLD_SPELLINGS])
def test_an_earlier_spelling_is_told_the_new_one(name: str, args: tuple, kwargs: dict, message: str) -> None:
    prim = next(p for p in PRIMITIVES if p.name == name)
    with pytest.raises(UsageError) as info:
        prim.bind(args, kwargs, "kernel.py:7")
    assert str(info.value).startswith(f"coop.{name}() at kernel.py:7: ")
    assert message in str(info.value)


@pytest.mark.parametrize("prim", [p for p in PRIMITIVES if p.previous], ids=lambda p: p.name)
def test_today_s_spelling_binds(prim: Primitive) -> None:
    """A call in today's spelling (every required parameter, the positional ones by position) is never mistaken for
    an earlier one."""
    params = prim.signature.parameters
    args = tuple(prim.positional)
    kwargs = {n: n for n, p in params.items() if p.kind is KEYWORD_ONLY and p.default is p.empty}
    assert prim.bind(args, kwargs, "kernel.py:1").arguments == {**dict(zip(args, args, strict=True)), **kwargs}
