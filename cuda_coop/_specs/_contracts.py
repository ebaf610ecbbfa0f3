"""What the argument contracts of a spec mean, in one place: the rule of which arguments may share one array, and
the words the docs use for each contract (``Param.access``, ``memory``, ``min_extent``, ``offset``, ``order``,
``associative``, ``commutative``, ``empty``, ``pad``, ``bounds``, ``align``).

The DSL's checker (``_numba._contracts``), the generated docs (``docs/_ext/coop_docs.py``) and the generated
misuse cases (``tests/helpers/contracts.py``) all read the declarations through these functions.
"""

from __future__ import annotations

from itertools import combinations

from ._model import ArgKind, Method, Param

__all__ = ["copied", "describe", "may_share", "must_differ", "written"]

_SPACE_WORDS = {"global": "a global array", "shared": "a ``cuda.shared.array``", "local": "this thread's own "
                "``cuda.local.array``"}
_ACCESS_WORDS = {"in": "read", "out": "written", "inout": "read and written (in place)"}


def written(p: Param) -> bool:
    """Whether the call writes the argument's memory."""
    return p.access != "in"


def copied(p: Param) -> bool:
    """Whether the argument is a per-thread input the wrapper copies before CUB runs (``_render._input_copies``)."""
    return p.kind is ArgKind.ARRAY and p.access == "in"


def may_share(a: Param, b: Param) -> bool:
    """Whether one array may be passed for both ``a`` and ``b``: when neither is written, or when the one read is a
    per-thread input the wrapper copies first (a scan's ``output=x`` is in place)."""
    if not (written(a) or written(b)):
        return True
    return (not written(a) and copied(a)) or (not written(b) and copied(b))


def must_differ(method: Method) -> list[tuple[str, str]]:
    """The pairs of array parameters of any form of ``method`` that may not be one array (``may_share``)."""
    pairs: dict[tuple[str, str], None] = {}
    for ov in method.overloads:
        arrays = [p for p in ov.all_params if p.memory]
        for a, b in combinations(arrays, 2):
            if not may_share(a, b) and set(a.memory) & set(b.memory):
                pairs[(a.name, b.name)] = None
    return list(pairs)


def _bound(value: int | str) -> str:
    """A ``Param.bounds`` end in words; empty for the int64 maximum (no upper bound worth stating)."""
    if isinstance(value, str):
        return f"the bit width of ``{value[5:-1]}``"
    return "" if value == 2**63 - 1 else str(value)


def describe(p: Param) -> str:
    """One sentence of what an argument must be, from its declarations (empty for one with none to state)."""
    parts: list[str] = []
    if p.memory:
        where = " or ".join(_SPACE_WORDS[s] for s in p.memory)
        size = (f" of ``{p.extent}`` items" if p.extent else " of at least one item" if p.kind is ArgKind.AGGREGATE
                else "")
        parts.append(f"{where}{size}, {_ACCESS_WORDS[p.access]}")
    if p.min_extent:
        start = f" from ``{p.offset}`` on (``{p.offset}`` >= 0)" if p.offset else ""
        parts.append(f"holding at least ``{p.min_extent}`` items{start}")
    if p.align:
        first = f"``{p.name}[{p.offset}]``" if p.offset else "its first item"
        shared = "shared" in p.memory
        declared = f" (a whole ``cuda.shared.array`` declared with ``alignment={p.align}``)" if shared else ""
        parts.append(f"{first} at an address that is a multiple of {p.align} bytes{declared}")
    if p.bounds is not None:
        low, high = (_bound(b) for b in p.bounds)
        parts.append(f"between {low} and {high}" if high else f"at least {low}")
    if p.order == "strict_weak":
        parts.append("a strict weak order: ``'<'``, ``'>'`` or a function false for equal items (not ``'<='``)")
    if p.associative or p.commutative:
        what = " and ".join(w for w, on in (("associative", p.associative), ("commutative", p.commutative)) if on)
        parts.append(f"{what}: ``'-'`` is refused, a function is trusted to be")
    if p.pad is not None:
        parts.append(f"the ``{p.pad.array}`` past it are given the key that sorts last, and the positions past it of "
                     "the result are unspecified")
    if p.empty is not None:
        parts.append(f"0 gives the identity of ``{p.empty}`` (a user function has none: a constant 0 is refused)")
    return "; ".join(parts)
