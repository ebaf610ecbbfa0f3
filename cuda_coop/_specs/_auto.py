"""``algorithm="auto"``: the measured choice of an algorithm for one call site.

An ENUM template parameter with ``TemplateParam.auto`` accepts ``"auto"`` (its public default); ``bind``
calls :func:`resolve`, and the Binding holds the CUB enumerator chosen (so do the rendered C++ and the
cache key). The choice is keyed by (primitive, item size in bytes, items per thread, threads per block,
architecture) in ``auto_table.json``, which ``benchmarks/auto_table.py`` measures on a GPU and writes
with its raw timings.

Rules, in order:

1. **Architecture**: the table's measurements for the target (``sm_90``; ``sm_90a`` is ``sm_90``). A target
   the table has not measured gets CUB's default: a ranking measured on another GPU does not carry over.
   Without a target (a binding made only to validate a call) the highest measured architecture.
2. **Configuration**: the entry of the same primitive and item size with the same threads and items per
   thread; else the nearest entry of the same primitive and item size, by ``|log2 threads - log2 t| +
   |log2 items - log2 i|`` (ties: more threads, then more items). Items per thread is 1 for a call
   without an array; threads are the block's (warp primitives are measured with 32-lane logical warps,
   and a narrower logical warp uses the same entries). No entry of that item size: no ranking.
3. **Candidates**: the members of the entry's ranking (fastest first) that are clearly faster than CUB's
   default (a median at least :data:`MARGIN` below the default's, where the entry records both), then CUB's
   default, then the other members in CUB's order: where the measurement does not clearly beat CUB's default,
   auto is CUB's default. The first candidate that auto may pick wins: not in ``Auto.never`` (a striped
   arrangement, a non-deterministic reduction), not a commutative-only member unless every operator is
   known to be commutative for the item type (sums, products, bitwise operators; min/max of integers;
   never a user function), not a tile-staging member whose padded tile exceeds 24 KiB (half the 48 KiB of
   static shared memory a block may have: the rest stays for the kernel's own shared arrays and for
   warp-scope storage, which does not share the block-scope union), and accepted by every constraint of
   the spec, and not an unstable member (``Auto.unstable``, a sort that may order ties otherwise) unless the call
   cannot tell (``Auto.ties_unseen``). If none is, CUB's default is bound and its constraint's message says auto
   chose it.

For cuda-coop's own compositions (``cuda_coop::BlockTopK``, the warp sorts' ``cuda_coop::WarpSort``,
``WarpArgsort``, ``WarpTopK``) "CUB's default" above is the fallback their spec names (``TemplateParam.default``;
``"merge_sort"`` for the warp sorts: what they did before they had a choice): there is no CUB default to follow.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import SpecError
from ._model import ArgKind, Binding, CubEnum, TemplateParam
from ._operators import KnownOp, UserOp

__all__ = [
    "MAX_STAGED_BYTES",
    "TABLE_PATH",
    "AutoTable",
    "Entry",
    "auto_parameters",
    "candidates",
    "load_table",
    "padded_tile_bytes",
    "parse_table",
    "resolve",
]

TABLE_PATH = Path(__file__).with_name("auto_table.json")
SCHEMA = 1
MARGIN = 0.02
"""How much faster than CUB's default a measured algorithm must be for auto to prefer it (a fraction of the
default's median). Measured on the H200 with ``benchmarks/suite.py``, whose kernels are not the table's. Two runs
(2026-12-02 and 2026-12-03) agreed within 0.4% on the nvcc twins of the reduce and scan kernels, and within 0.3% on
each algorithm's time over CUB's default; a third (2026-12-03, another machine start) differed from the second by
up to 2.1% and 1.8%, so a smaller margin would rank noise. At 5%, int8 reductions kept CUB's default where another
algorithm ran 3-5% faster in two runs. The third run timed this margin's picks as ``"auto"``: at most 0.2% behind
CUB's default and 1.5% behind the fastest algorithm in every reduce and scan case."""
MAX_STAGED_BYTES = 24 * 1024
"""The largest padded tile auto stages in shared memory (an explicit algorithm may use up to the 48 KiB)."""
_ALWAYS_COMMUTATIVE = frozenset({KnownOp.PLUS, KnownOp.MULTIPLIES, KnownOp.BIT_AND, KnownOp.BIT_OR, KnownOp.BIT_XOR})
_ORDER_COMMUTATIVE = frozenset({KnownOp.MINIMUM, KnownOp.MAXIMUM, KnownOp.FMIN, KnownOp.FMAX})
"""min/max and fmin/fmax are commutative for integers; for floats which of -0.0 and +0.0 (or of two NaNs) is the
result depends on the order."""
_ARCH = re.compile(r"sm_(\d+)[a-z]?\Z")


@dataclass(frozen=True, slots=True)
class Entry:
    """One measured configuration: the algorithms fastest first (their ``short_name``)."""

    item_bytes: int
    threads: int
    items: int
    ranking: tuple[str, ...]
    medians: Mapping[str, float] = field(default_factory=dict)
    """Median time of each ranked algorithm (ms), where the table records it."""

    def clearly_faster(self, member: str, default: str) -> bool:
        """Whether ``member`` is at least :data:`MARGIN` faster than ``default`` here; True where either time is
        not recorded (the ranking alone speaks)."""
        if member == default or member not in self.medians or default not in self.medians:
            return True
        return self.medians[member] <= (1 - MARGIN) * self.medians[default]


@dataclass(frozen=True, slots=True)
class AutoTable:
    """The parsed ``auto_table.json``: ``entries[arch][primitive]``."""

    provisional: bool
    entries: Mapping[str, Mapping[str, tuple[Entry, ...]]]

    def arch_for(self, arch: str | None) -> str | None:
        """The measured architecture whose entries serve ``arch`` (rule 1): its own (``sm_90a`` -> ``sm_90``);
        the highest measured one without a target; None for an empty table or a target not measured."""
        measured = sorted(self.entries, key=_cc)
        if not measured:
            return None
        if arch is None or _ARCH.match(arch) is None:
            return measured[-1]
        return next((a for a in measured if _cc(a) == _cc(arch)), None)

    def lookup(
        self, table: str, arch: str | None, item_bytes: int, threads: int, items: int
    ) -> tuple[Entry, str] | None:
        """The entry serving a configuration (rules 1-2) and the architecture it was measured on."""
        served = self.arch_for(arch)
        if served is None:
            return None
        same = [e for e in self.entries[served].get(table, ()) if e.item_bytes == item_bytes]
        if not same:
            return None

        def distance(e: Entry) -> tuple[float, int, int]:
            d = abs(math.log2(e.threads) - math.log2(threads)) + abs(math.log2(e.items) - math.log2(items))
            return (d, -e.threads, -e.items)

        return min(same, key=distance), served


def _cc(arch: str) -> int:
    match = _ARCH.match(arch)
    return int(match[1]) if match else 0


def parse_table(data: Mapping[str, Any], where: str = "auto table") -> AutoTable:
    """Check and index a table's JSON (see ``benchmarks/auto_table.py`` for the format)."""
    if data.get("schema") != SCHEMA:
        raise SpecError(f"{where}: schema {data.get('schema')!r} is not {SCHEMA}; rerun benchmarks/auto_table.py")
    entries: dict[str, dict[str, tuple[Entry, ...]]] = {}
    for arch, prims in data["archs"].items():
        if _ARCH.match(arch) is None:
            raise SpecError(f"{where}: architecture {arch!r} is not of the form 'sm_90'")
        entries[arch] = {
            prim: tuple(
                Entry(int(r["item_bytes"]), int(r["threads"]), int(r["items"]), tuple(r["ranking"]),
                      {k: float(v) for k, v in r.get("median_ms", {}).items()})
                for r in rows
            )
            for prim, rows in prims.items()
        }
    return AutoTable(provisional=bool(data.get("provisional")), entries=entries)


@functools.cache
def load_table(path: Path = TABLE_PATH) -> AutoTable:
    """The committed table (read once per process)."""
    return parse_table(json.loads(path.read_text()), str(path))


def auto_parameters() -> dict[str, tuple[Any, TemplateParam]]:
    """Table name -> (spec, its ENUM parameter with an ``Auto``) of every primitive auto chooses for."""
    from ._registry import all_primitives

    return {tp.auto.table: (spec, tp) for spec in all_primitives() for tp in spec.tparams if tp.auto is not None}


def candidates(table: str) -> tuple[str, ...]:
    """The algorithms auto may pick for the primitive keyed ``table`` in the table (every member but
    ``Auto.never``, in CUB's order): what ``benchmarks/auto_table.py`` ranks and the suite times explicitly."""
    found = auto_parameters().get(table)
    if found is None or found[1].enum is None:
        raise KeyError(f"no primitive has an auto table entry named {table!r}")
    tp = found[1]
    assert tp.enum is not None and tp.auto is not None
    return tuple(m.short_name for m in tp.enum if m not in tp.auto.never)


def padded_tile_bytes(tile: int, item_bytes: int) -> int:
    """Shared memory of a tile staged with CUB's padding (one item per 32): what transposing algorithms take."""
    return (tile + tile // 32) * item_bytes


def _commutative(b: Binding) -> bool:
    item = b.values.get("dtype")
    for p in b.overload.all_params:
        if p.kind is not ArgKind.OPERATOR:
            continue
        op = b.values[p.name]
        if isinstance(op, UserOp) or not (
            op in _ALWAYS_COMMUTATIVE
            or (op in _ORDER_COMMUTATIVE and getattr(item, "kind", None) in ("int", "uint", "bool"))
        ):
            return False
    return True


def _fits(b: Binding) -> bool:
    item = b.values.get("dtype")
    tile = b.block_threads * int(b.values.get("items_per_thread", 1))
    return padded_tile_bytes(tile, int(getattr(item, "size", 0))) <= MAX_STAGED_BYTES


def allowed(b: Binding, tp: TemplateParam, member: CubEnum) -> bool:
    """Whether auto may bind ``member`` to ``tp`` in ``b`` (rule 3), the spec's constraints included."""
    policy = tp.auto
    assert policy is not None
    if member in policy.never:
        return False
    if member in policy.commutative and not _commutative(b):
        return False
    if member in policy.staged and not _fits(b):
        return False
    if member in policy.unstable and not (policy.ties_unseen is not None and policy.ties_unseen(b)):
        return False
    trial = replace(b, values={**b.values, tp.name: member})
    return all(c.check(trial) for c in b.spec.constraints)


def resolve(b: Binding, tp: TemplateParam, table: AutoTable | None = None) -> tuple[CubEnum, str]:
    """The member ``"auto"`` binds to ``tp`` for ``b`` (whose ``values`` hold every other parameter), and
    how it was chosen, in words."""
    policy, enum = tp.auto, tp.enum
    assert policy is not None and enum is not None and isinstance(tp.default, enum)
    table = load_table() if table is None else table
    item = b.values.get("dtype")
    items = int(b.values.get("items_per_thread", 1))
    found = None
    if item is not None:
        found = table.lookup(policy.table, b.arch, int(item.size), b.block_threads, items)
    ranking: list[CubEnum] = []
    served = table.arch_for(b.arch)
    source = "no measurement for this item size" if served or not table.entries else f"not measured on {b.arch}"
    if found is not None:
        entry, arch = found
        default = tp.default.short_name
        ranking = [enum.coerce(name) for name in entry.ranking if entry.clearly_faster(name, default)]
        exact = (entry.threads, entry.items) == (b.block_threads, items)
        source = (
            f"{'provisional ' if table.provisional else ''}table, {arch}, {entry.item_bytes}-byte items, "
            f"{entry.threads} threads x {entry.items} items" + ("" if exact else " (nearest measured)")
        )
    default = "CUB's default" if b.spec.cub_class.startswith("cub::") else "the fallback"  # a composition's is ours
    for member in dict.fromkeys([*ranking, tp.default, *enum]):
        if not allowed(b, tp, member):
            continue
        if member in ranking:
            return member, source if member is ranking[0] else f"{source}; the faster ones are not allowed here"
        if member is tp.default:
            if not ranking:
                return member, f"{default} ({source})"
            return member, f"{default}; the measured ones are not allowed here"
        return member, f"the first allowed algorithm in the enum's order; {default} is not allowed here"
    return tp.default, f"{default}; no algorithm is allowed here"
