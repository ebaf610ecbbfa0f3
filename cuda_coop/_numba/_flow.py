"""Control flow of numba's untyped IR: successors, post-dominators, control dependence and the
definitions that reach each block (the facts the uniformity check is built on)."""

from __future__ import annotations

from typing import Any

__all__ = ["EXIT", "cfg", "control_dependence", "post_dominators", "predecessors", "reachable", "reaching_definitions"]

EXIT = "<exit>"
"""The kernel's exit, a node of the post-dominator sets."""


def cfg(blocks: dict[int, Any]) -> dict[int, list[int]]:
    """Each block's successors."""
    succs: dict[int, list[int]] = {}
    for label, block in blocks.items():
        get_targets = getattr(block.body[-1], "get_targets", None) if block.body else None
        succs[label] = sorted(set(get_targets() if get_targets is not None else ()) & set(blocks))
    return succs


def predecessors(succs: dict[int, list[int]]) -> dict[int, list[int]]:
    preds: dict[int, list[int]] = {n: [] for n in succs}
    for n, targets in succs.items():
        for t in targets:
            preds[t].append(n)
    return preds


def post_dominators(succs: dict[int, list[int]]) -> dict[Any, set[Any]]:
    """``pdom[n]``: the blocks every path from ``n`` to the kernel's exit goes through (with ``EXIT``)."""
    nodes, preds = list(succs), predecessors(succs)
    exits = {n for n in nodes if not succs[n]}
    reach, work = set(exits), list(exits)
    while work:
        for p in preds[work.pop()]:
            if p not in reach:
                reach.add(p)
                work.append(p)
    exits |= set(nodes) - reach  # blocks of an endless loop count as exits
    out = {n: [*succs[n], *((EXIT,) if n in exits else ())] for n in nodes}
    pdom: dict[Any, set[Any]] = {n: {*nodes, EXIT} for n in nodes}
    pdom[EXIT] = {EXIT}
    changed = True
    while changed:
        changed = False
        for n in reversed(nodes):
            new = {n} | set.intersection(*(pdom[s] for s in out[n]))
            if new != pdom[n]:
                pdom[n], changed = new, True
    return pdom


def reachable(succs: dict[int, list[int]]) -> dict[int, set[int]]:
    """``later[n]``: the blocks reachable from ``n`` over one or more edges."""
    later: dict[int, set[int]] = {}
    for n, targets in succs.items():
        seen: set[int] = set()
        work = list(targets)
        while work:
            m = work.pop()
            if m not in seen:
                seen.add(m)
                work.extend(succs[m])
        later[n] = seen
    return later


def control_dependence(succs: dict[int, list[int]]) -> dict[int, set[int]]:
    """``cd[b]``: the branch blocks whose outcome decides whether ``b`` runs.

    ``b`` depends on branch ``a`` when it post-dominates a successor of ``a`` but not ``a`` itself
    (a loop's exit test depends on itself).
    """
    pdom = post_dominators(succs)
    cd: dict[int, set[int]] = {n: set() for n in succs}
    for a, targets in succs.items():
        for s in targets if len(targets) > 1 else ():
            for b in pdom[s] - {EXIT}:
                if b == a or b not in pdom[a]:
                    cd[b].add(a)
    return cd


def reaching_definitions(
    ir: Any, blocks: dict[int, Any], def_ids: dict[int, int]
) -> dict[int, dict[str, frozenset[int]]]:
    """For each block, the definitions of each variable that may reach its start (``ir``: the DSL's IR module)."""
    preds = predecessors(cfg(blocks))
    gen = {label: {s.target.name: frozenset({def_ids[id(s)]}) for s in block.body if isinstance(s, ir.Assign)}
           for label, block in blocks.items()}
    ins: dict[int, dict[str, frozenset[int]]] = {label: {} for label in blocks}
    out = {label: dict(gen[label]) for label in blocks}
    changed = True
    while changed:
        changed = False
        for label in blocks:
            merged: dict[str, frozenset[int]] = {}
            for p in preds[label]:
                for name, ids in out[p].items():
                    merged[name] = merged.get(name, frozenset()) | ids
            if merged != ins[label]:
                ins[label], out[label], changed = merged, {**merged, **gen[label]}, True
    return ins
