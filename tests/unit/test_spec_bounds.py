"""Every bound is checked before it is used: a property of the spec model, walked over every registered spec.

For each spec, method and overload, a request that binds is made; then each integer template parameter (extents,
radix bits, logical warps, bins...) is given zero, negative and huge values, and each compile-time constant with
declared bounds its out-of-range values. Every one must end in a ``cuda.coop.errors`` exception naming the
parameter: never Python's OverflowError, ZeroDivisionError or MemoryError from a constraint, a storage estimate or
an extent computed with an unchecked value (``coop.block.radix_rank(radix_bits=1100)`` once raised OverflowError
from ``(1 << radix_bits) / block_threads``). The ends of each declared range must bind or be refused the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cuda.coop import _specs
from cuda.coop._specs import ArgKind, PrimitiveSpec, Request, TemplateParam, TParamKind, UserCallback, UserOp, bind
from cuda.coop._specs._model import INT_MAX, MAX_ITEMS_PER_THREAD, Overload, Param
from cuda.coop.errors import CoopError, SpecError

BLOCKS = [(1,), (128,), (1024,), (7, 5, 3)]
HUGE = [1100, 2**31, 2**63, 2**64 + 1, 10**30]
NOT_POSITIVE = [0, -1, -(2**31), -(2**63)]


def _baseline(spec: PrimitiveSpec, ov: Overload) -> dict[str, Any]:
    """Values that bind at every block of BLOCKS: int32/float32 items, 4 items, 1 digit bin, 1-lane warps."""
    values: dict[str, Any] = {}
    for tp in (*spec.tparams, *ov.tparams):
        if tp.inferred or (tp.optional and tp.name not in ("dtype", "threads")):
            continue
        if tp.kind is TParamKind.TYPE:
            values[tp.name] = "int32" if tp.kinds and "float" not in tp.kinds else "float32"
        elif tp.kind is TParamKind.INT:
            # a batched reduce returns one value per lane while batches <= threads, else it fills output= (4 each)
            values[tp.name] = {"bins_per_thread": 16, "threads": 1, "batches": 1 if ov.returns else 4}.get(tp.name, 4)
        elif tp.kind is TParamKind.BOOL:
            values[tp.name] = False
    if "radix_bits" in {t.name for t in spec.tparams}:
        values["radix_bits"] = 4  # 16 digits: bins_per_thread is 16 on a 1-thread block
    for p in ov.all_params:
        if p.kind is ArgKind.OPERATOR:
            values[p.name] = UserOp("user_pred" if p.returns == "bool" else "user_op")
        elif p.kind is ArgKind.CALLBACK:
            values[p.name] = UserCallback("user_prefix")
    return values


def _cases() -> Iterator[tuple[PrimitiveSpec, str, Overload, TemplateParam]]:
    for spec in _specs.all_primitives():
        for method in spec.methods:
            for ov in method.overloads:
                bound = {tp.name: tp for tp in (*spec.tparams, *ov.tparams)}  # an overload's wins, as in bind
                for tp in bound.values():
                    if tp.kind is TParamKind.INT and not tp.inferred and tp.public:
                        yield spec, method.name, ov, tp


CASES = list(_cases())


def _bind(spec: PrimitiveSpec, method: str, ov: Overload, block: tuple[int, ...], **change: Any) -> Any:
    params = {**_baseline(spec, ov), **change}
    bits = params.get("radix_bits", 4)
    if "bins_per_thread" in params and "bins_per_thread" not in change and 1 <= bits <= 16:
        params["bins_per_thread"] = max(1, -(-(1 << bits) // _threads(block)))  # what the rank's digit prefix needs
    return bind(Request(spec.name, method, ov.name, **params), block)


def _threads(block: tuple[int, ...]) -> int:
    n = 1
    for d in block:
        n *= d
    return n


def _blocks(spec: PrimitiveSpec, method: str, ov: Overload) -> list[tuple[int, ...]]:
    """The blocks of BLOCKS the baseline binds on (a warp-exchange needs whole warps...)."""
    found = []
    for block in BLOCKS:
        try:
            _bind(spec, method, ov, block)
        except CoopError:
            continue
        found.append(block)
    return found


def _refused_naming(name: str, call: Any) -> str:
    """The message of the cuda.coop.errors exception ``call()`` raises; it names ``name``."""
    with pytest.raises(CoopError) as info:
        call()
    assert f"{name}" in str(info.value), str(info.value)
    return str(info.value)


def test_every_integer_template_parameter_is_walked() -> None:
    walked = {tp.name for _, _, _, tp in CASES}
    assert {"items_per_thread", "radix_bits", "threads", "bins", "bins_per_thread", "runs_per_thread",
            "decoded_items_per_thread"} <= walked
    assert len({spec.name for spec, *_ in CASES}) == len(_specs.all_primitives())  # every spec has one


def test_every_baseline_binds() -> None:
    for spec, method, ov, _ in CASES:
        assert (128,) in _blocks(spec, method, ov), (spec.name, method, ov.name)


@pytest.mark.parametrize(("spec", "method", "ov", "tp"), CASES,
                         ids=[f"{s.name}.{m}.{o.name}.{t.name}" for s, m, o, t in CASES])
def test_values_outside_the_declared_bounds_are_refused_by_name(
    spec: PrimitiveSpec, method: str, ov: Overload, tp: TemplateParam
) -> None:
    low, high = tp.bounds
    for value in (*NOT_POSITIVE, low - 1, high + 1, *HUGE):
        if low <= value <= high:
            continue
        for block in _blocks(spec, method, ov):
            message = _refused_naming(tp.name, lambda v=value, b=block: _bind(spec, method, ov, b, **{tp.name: v}))
            assert f"{tp.name}={value} is out of range" in message


@pytest.mark.parametrize(("spec", "method", "ov", "tp"), CASES,
                         ids=[f"{s.name}.{m}.{o.name}.{t.name}" for s, m, o, t in CASES])
def test_the_ends_of_the_bounds_bind_or_are_refused_by_name(
    spec: PrimitiveSpec, method: str, ov: Overload, tp: TemplateParam
) -> None:
    """The largest and smallest declared values reach every constraint, storage estimate and auto choice: those
    must compute with them (no Python arithmetic error), and a refusal names the parameter."""
    for value in tp.bounds:
        for block in _blocks(spec, method, ov):
            try:
                _bind(spec, method, ov, block, **{tp.name: value})
            except CoopError as exc:  # the parameter, or the argument whose extent it is (digit_prefix=)
                names = [tp.name, *(f"{p.name}=" for p in ov.all_params if p.extent == tp.name)]
                assert any(name in str(exc) for name in names), str(exc)


def test_declared_bounds_keep_derived_extents_within_cubs_int() -> None:
    """A tile (block_threads x items_per_thread) or a logical warp's tile is a CUB ``int``: the declared bounds of
    the extents keep it there (1024 threads x MAX_ITEMS_PER_THREAD)."""
    for spec, _, _, tp in CASES:
        if tp.name in ("items_per_thread", "runs_per_thread", "decoded_items_per_thread"):
            assert tp.bounds[1] <= MAX_ITEMS_PER_THREAD, (spec.name, tp.name)
    assert 1024 * MAX_ITEMS_PER_THREAD <= INT_MAX


def _constants() -> Iterator[tuple[PrimitiveSpec, Param]]:
    seen = set()
    for spec in _specs.all_primitives():
        for method in spec.methods:
            for ov in method.overloads:
                for p in ov.all_params:
                    if p.kind is ArgKind.SCALAR and p.bounds is not None and (spec.name, p.name) not in seen:
                        seen.add((spec.name, p.name))
                        yield spec, p


CONSTANTS = list(_constants())


@pytest.mark.parametrize(("spec", "p"), CONSTANTS, ids=[f"{s.name}.{p.name}" for s, p in CONSTANTS])
def test_constants_outside_the_declared_bounds_are_refused_by_name(spec: PrimitiveSpec, p: Param) -> None:
    """What the DSL checks a compile-time constant argument with (``Param.refusal``), before it is used."""
    for width in (8, 16, 32, 64):
        low, high = (b if isinstance(b, int) else width for b in p.bounds or ())
        for value in (*NOT_POSITIVE, low - 1, high + 1, *HUGE):
            message = p.refusal(value, lambda ref, w=width: w)
            assert (message is None) == (low <= value <= high), (value, message)
            if message is not None:
                assert message.startswith(f"{p.name}={value} is out of range"), message
        assert p.refusal(low, lambda ref, w=width: w) is None and p.refusal(high, lambda ref, w=width: w) is None


def test_radix_rank_with_1100_radix_bits_is_a_spec_error() -> None:
    """The issue's call: refused by name before ``1 << radix_bits`` is computed."""
    request = Request("block_radix_rank", "radix_rank", "ranks", dtype="float32", items_per_thread=4, radix_bits=1100)
    with pytest.raises(SpecError, match=r"radix_bits=1100 is out of range; it must be between 1 and 16"):
        bind(request, (128,))
