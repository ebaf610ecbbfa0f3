"""The precompiled packs section of ``python -m cuda.coop``: each pack, its entries, and why one is not used.

:func:`diagnostics` opens every configured pack (in lookup order) and checks each entry against what
this process would compile with: the pack's identity (cuda-coop version, toolkit versions, headers),
the entry's file (whole, and what the manifest records), a provider's NVRTC options for its arch, and
that a kernel's providers are in the pack. :func:`print_section` prints it with the report's row format.
A kernel entry is also keyed by the kernel's own code (its DSL's output), which only a compile
can check: an entry listed as usable is used when that code is the same too, and only for a kernel of the DSL it
records (``dsls``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import CoopError
from ._key import compile_options, generic_lambda_options, portable_options
from ._pack import Pack, PackEntry
from ._packs import identity_of, packs
from ._toolchain import Toolchain, resolve_toolchain

__all__ = ["diagnostics", "print_section"]

_ORDER = "cuda.coop.add_pack, then CUDA_COOP_PACK_PATH, then entry points of group cuda_coop.packs"
_NONE = "none (see CUDA_COOP_PACK_PATH, cuda.coop.add_pack and the cuda_coop.packs entry point group)"


def _entry_problem(pack: Pack, entry: PackEntry, toolchain: Toolchain | None) -> str | None:
    """Why ``entry`` would not be used by this process (pack-level reasons aside)."""
    if entry.key in pack.refused:
        return pack.refused[entry.key]
    _, why = pack.verify(entry)
    if why is not None:
        return why
    if entry.kind == "provider" and toolchain is not None:
        # A provider whose CUB code has a generic lambda was compiled with what this NVRTC needs for it too.
        allowed = [portable_options(compile_options(toolchain, entry.arch, extra), toolchain)
                   for extra in ((), generic_lambda_options(toolchain.nvrtc_version))]
        ours = allowed[0]
        if tuple(entry.options) not in allowed:
            return f"compiled with NVRTC options {' '.join(entry.options)}; this process uses {' '.join(ours)}"
    missing = [k[:16] for k in entry.providers if pack.entry("provider", k) is None]
    if missing:
        return f"its provider(s) {', '.join(missing)} are not in the pack"
    return None


def _pack_report(pack: Pack, toolchain: Toolchain | None, unchecked: str | None) -> dict[str, Any]:
    ident = pack.identity
    why = pack.problem
    if why is None and ident is not None and toolchain is not None:
        why = ident.mismatch(identity_of(toolchain))
    entries = []
    for entry in pack.entries:
        problem = why or _entry_problem(pack, entry, toolchain)
        state = f"not used: {problem}" if problem else "usable" if unchecked is None else "not checked"
        entries.append({"kind": entry.kind, "kernel": entry.kernel, "block": list(entry.block), "arch": entry.arch,
                        "dsls": list(entry.dsls), "size": entry.size, "key": entry.key, "state": state})
    built = None
    if ident is not None:
        toolkit = ", ".join(f"{name} {version}" for name, version in ident.toolkit.items())
        built = (f"cuda-coop {ident.cuda_coop_version}, CCCL {ident.cccl_version} (revision {ident.cccl_revision}), "
                 f"{toolkit}")
    state = f"NOT USED: {why}" if why else (f"not checked: {unchecked}" if unchecked else "usable")
    return {"path": str(pack.path), "origin": pack.origin, "built_with": built, "state": state, "entries": entries}


def diagnostics() -> dict[str, Any]:
    """Every configured pack in lookup order, with its state and its entries' (``problem`` if the list fails)."""
    report: dict[str, Any] = {"order": _ORDER, "packs": [], "problem": None}
    try:
        found = packs()
    except CoopError as exc:
        report["problem"] = str(exc)
        return report
    toolchain: Toolchain | None = None
    unchecked = None
    if found:
        try:
            toolchain = resolve_toolchain()
        except CoopError as exc:
            unchecked = f"this process cannot resolve what it would compile with ({exc})"
    report["packs"] = [_pack_report(p, toolchain, unchecked) for p in found]
    return report


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


def print_section(report: dict[str, Any], row: Callable[[str, object], str]) -> None:
    """Print :func:`diagnostics`' ``report`` with the diagnostics' ``row`` formatter."""
    print("Precompiled packs")
    print(row("search order", report["order"]))
    if report["problem"]:
        print(row("packs", "CANNOT BE LISTED (see the error below)"))
        return
    if not report["packs"]:
        print(row("packs", _NONE))
    for pack in report["packs"]:
        print(row("pack", f"{pack['path']} ({pack['origin']})"))
        if pack["built_with"]:
            print(row("  built with", pack["built_with"]))
        print(row("  state", pack["state"]))
        for e in pack["entries"]:
            block = "x".join(map(str, e["block"]))
            print(row(f"  {e['kind']}", f"{e['kernel']} block {block} {e['arch']} {'+'.join(e['dsls'])} "
                                         f"{_size(e['size'])} [{e['key'][:16]}]: {e['state']}"))
