"""The one checker of the spec's argument contracts (``_specs._model.Param``), for one typed call site.

Every family declares its parameters; nothing here names a primitive. What is checked, at compile time:

- **memory space** (``Param.memory``): an array the block or warp reads or writes together (a POINTER) is a
  global array or a ``cuda.shared.array``, never a ``cuda.local.array`` (each thread's private copy);
  per-thread arrays are this thread's ``cuda.local.array`` (``_lowering._check_per_thread``);
- **extent** (``Param.min_extent``): a ``cuda.shared.array`` or ``cuda.local.array`` of a constant shape holds
  every item the call may touch past a constant offset;
- **offsets**: a constant offset of a POINTER (``src[offset:]``) is not negative (scalar offsets declare
  ``Param.bounds``, checked with the other scalars);
- **alignment** (``Param.align``): a ``cuda.shared.array`` is a whole one declared with ``alignment=`` at least the
  alignment, and a constant offset into a global array keeps it;
- **empty counts** (``Param.empty``): a constant count of 0 where the result would be a user operator's
  identity, which it has none of;
- **aliasing**: two arguments are not one array when the call writes one of them and reads or writes the
  other, unless the read one is a per-thread input the wrapper copies first (so ``output=x`` of a scan is
  in place, while ``radix_sort(keys, keys)`` is refused);

What cannot be known at compile time (a runtime offset or count, the size of a global array, a slice of an
array, a user comparison) is the caller's precondition, documented with each parameter (``docs/contracts``).
"""

from __future__ import annotations

import numbers
from itertools import combinations

from .._specs import ArgKind, Binding, Param, UserOp
from .._specs._contracts import may_share, written
from .._specs._extent import evaluate
from ._sites import ArrayOrigin, CallSite

__all__ = ["check_call", "extent_names"]

_SHARED_BY = {"block": "the threads of the block", "warp": "the lanes of the logical warp"}


def check_call(cs: CallSite, binding: Binding) -> None:
    """Refuse the call when an argument breaks its parameter's contract (a UsageError naming it)."""
    params = {p.name: p for p in binding.overload.all_params if p.name in cs.runtime or p.name in binding.values}
    names = extent_names(cs, binding)
    for p in params.values():
        origin = cs.origins.get(p.name)
        if p.kind is ArgKind.POINTER and origin is not None:
            _check_space(cs, binding, p, origin)
            _check_offset(cs, p)
            _check_extent(cs, p, origin, names)
            _check_align(cs, binding, p, origin)
        if p.empty is not None and names.get(p.name) == 0 and isinstance(binding.values.get(p.empty), UserOp):
            raise cs.error(
                f"{p.name}={cs.constants[p.name]} leaves no item, and {p.empty}= is a user function, which has no "
                f"identity to return for none: pass {p.name} >= 1, or a known operator (an empty sum is 0)"
            )
    _check_aliases(cs, [p for p in params.values() if p.memory and p.name in cs.runtime])


def extent_names(cs: CallSite, binding: Binding) -> dict[str, int | None]:
    """The names an extent expression may read, with their values at this call (None: known only at run time).

    Integer template parameters; ``block_threads``, ``tile`` (the block's items) and ``warp_tile`` (a logical
    warp's); each scalar argument given as a constant (a count clamped as the wrapper clamps it), an omitted one
    as its default, and a count the overload does not take as its whole range.
    """
    values: dict[str, int | None] = {
        k: int(v) for k, v in binding.values.items() if isinstance(v, int) and not isinstance(v, bool)
    }
    values["block_threads"] = binding.block_threads
    ipt, threads = values.get("items_per_thread"), values.get("threads")
    if ipt is not None:
        values["tile"] = binding.block_threads * ipt
        if threads is not None:
            values["warp_tile"] = threads * ipt
    in_overload = {p.name for p in binding.overload.all_params}
    for p in (p for ov in binding.method.overloads for p in ov.all_params if p.kind is ArgKind.SCALAR):
        try:
            limit = binding.count_limit(p)
        except KeyError:  # a limit of template parameters this primitive does not have
            limit = None
        if p.name not in in_overload:
            if limit is not None:
                values.setdefault(p.name, limit)  # a count the overload does not take: all of it
        elif binding.omitted(p):
            values[p.name] = binding.scalar_value(p.default)  # type: ignore[arg-type]
        elif (value := _int(cs.constants.get(p.name))) is not None:
            values[p.name] = value if limit is None else min(max(value, 0), limit)
        else:
            values[p.name] = None
    return values


def _int(value: object) -> int | None:
    """An integer constant as an int; None for anything else (a float, a bool, no constant)."""
    return int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None


_SPACES = {"global": "a global array (a kernel argument)", "shared": "a cuda.shared.array(n, dtype)"}


def _check_space(cs: CallSite, binding: Binding, p: Param, origin: ArrayOrigin) -> None:
    if origin.space is None or origin.space in p.memory:
        return
    together = _SHARED_BY[binding.spec.scope.value]
    verb = {"in": "reads", "out": "writes", "inout": "updates"}[p.access]
    allowed = " or ".join(_SPACES.get(s, s) for s in p.memory)
    if origin.space == "local":
        raise cs.error(
            f"{p.name}= is {origin.what}, but the call {verb} {p.name} as one array shared by {together}: a "
            f"cuda.local.array is each thread's private copy. Pass {allowed}"
        )
    raise cs.error(f"{p.name}= is {origin.what}, but the call {verb} {p.name} only as {allowed}; pass one")


def _check_align(cs: CallSite, binding: Binding, p: Param, origin: ArrayOrigin) -> None:
    if not p.align:
        return
    if origin.space in ("shared", "local"):
        if origin.sliced or origin.align is None or origin.align < p.align:
            known = origin.align is not None and not origin.sliced
            declared = f" declared with alignment={origin.align}" if known else ""
            raise cs.error(
                f"{p.name}= is {origin.what}{declared}, but the call needs its first item at an address that is a "
                f"multiple of {p.align} bytes; pass a whole cuda.{origin.space}.array(n, dtype, alignment={p.align})"
            )
        return
    offset = _int(cs.constants.get(p.offset)) if p.offset is not None and p.offset in cs.runtime else None
    size = binding.type_of(p.type or "dtype").size
    if offset is not None and offset * size % p.align:
        raise cs.error(
            f"{p.offset}={offset} puts {p.name}[{offset}] {offset * size} bytes past the array's start, not a multiple "
            f"of {p.align}: the call needs {p.name}[{p.offset}] at an address that is one (an array of the device "
            f"allocator starts at one); pass an {p.offset}= that is a multiple of {max(p.align // size, 1)}"
        )


def _check_offset(cs: CallSite, p: Param) -> None:
    if p.offset is None:
        return
    value = _int(cs.constants.get(p.offset))
    if value is not None and value < 0:
        raise cs.error(
            f"{p.offset}={value} is negative: the tile would start before {p.name}[0]. {p.offset}= is an index "
            f"into {p.name}, from 0 on"
        )


def _check_extent(cs: CallSite, p: Param, origin: ArrayOrigin, names: dict[str, int | None]) -> None:
    if p.min_extent is None or origin.extent is None or origin.sliced:
        return
    offset: int | None = 0
    if p.offset is not None and p.offset in cs.runtime:
        offset = _int(cs.constants.get(p.offset))
    need = evaluate(p.min_extent, names)
    if need is None or offset is None or offset + need <= origin.extent:
        return
    at = f" from {p.offset}={offset} on" if offset else ""
    verb = {"in": "reads", "out": "writes", "inout": "updates"}[p.access]
    raise cs.error(
        f"{p.name}= is {origin.what}: {origin.extent} items, but the call {verb} {need} items{at} "
        f"({p.min_extent} = {need}); pass an array of at least {offset + need} items"
    )


def _check_aliases(cs: CallSite, params: list[Param]) -> None:
    for a, b in combinations(params, 2):
        if may_share(a, b):
            continue  # neither is written, or the one read is copied first: in place is fine (a scan's output=x)
        oa, ob = cs.origins.get(a.name), cs.origins.get(b.name)
        if oa is None or ob is None or oa.root is None or oa.root != ob.root or oa.sliced or ob.sliced:
            continue
        raise cs.error(
            f"{a.name}= and {b.name}= are the same array ({oa.what}), but the call "
            f"{'writes both' if written(a) and written(b) else 'writes one while it reads the other'}: "
            f"pass two different arrays"
        )
