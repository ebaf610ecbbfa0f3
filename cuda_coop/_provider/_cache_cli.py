"""``python -m cuda.coop cache [--clear] [--json]``: show or clear the persistent cache.

The CLI module (``cuda_coop._cli``) adds the subcommand with :func:`add_arguments` and dispatches
to :func:`run`; its diagnostics report's cache section is :func:`diagnostics`, printed by
:func:`print_section`. Both name the directories the entries live in (providers in
``<cache dir>/cuda-coop/providers``, linked kernels in ``<cache dir>/cuda-coop/kernels``, precompiled
headers in ``<cache dir>/cuda-coop/pch``) and say when an enabled cache cannot be written.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from .._cache_dir import cache_dir
from ._cache import _FIX, DEFAULT_MAX_BYTES, DiskCache, kernel_disk_cache, settings
from ._pch_store import PchStore

__all__ = ["add_arguments", "diagnostics", "print_section", "run"]

_VAR = "CUDA_COOP_ENABLE_CACHE"


def _caches() -> tuple[DiskCache, DiskCache]:
    """The provider cache and the linked-kernel cache, as the settings read at import place them."""
    conf = settings()
    return DiskCache(conf.root, DEFAULT_MAX_BYTES), kernel_disk_cache(conf.kernels)


def diagnostics() -> dict[str, Any]:
    """The cache section of ``python -m cuda.coop``: where entries live, on or off, usable, contents."""
    conf = settings()
    providers, kernels = _caches()
    stats, kernel_stats, pch_stats = providers.stats(), kernels.stats(), PchStore(conf.pch).stats()
    return {
        "directory": str(conf.root),
        "base": str(cache_dir()),
        "enabled": conf.enabled,
        "problem": providers.problem() or kernels.problem(),
        "entries": stats.entries,
        "bytes": stats.total_bytes,
        "kernels": {"directory": str(conf.kernels), "entries": kernel_stats.entries, "bytes": kernel_stats.total_bytes},
        "pch": {"directory": str(conf.pch), "entries": pch_stats.entries, "bytes": pch_stats.total_bytes},
    }


def _state(report: dict[str, Any]) -> str:
    if not report["enabled"]:
        return f"no (set {_VAR}=1 to enable)"
    if report["problem"]:
        return f"yes, but NOTHING IS CACHED: {report['problem']}. {_FIX}"
    return "yes"


def print_section(report: dict[str, Any], row: Callable[[str, object], str]) -> None:
    """Print :func:`diagnostics`' ``report`` with the diagnostics' ``row`` formatter."""
    kernels = report["kernels"]
    print("Provider cache")
    print(row("directory", report["directory"]))
    print(row("enabled", _state(report)))
    print(row("entries", f"{report['entries']} ({_size(report['bytes'])})"))
    print(row("linked kernels", f"{kernels['entries']} ({_size(kernels['bytes'])}) in {kernels['directory']}"))
    pch = report["pch"]
    print(row("precompiled headers", f"{pch['entries']} ({_size(pch['bytes'])}) in {pch['directory']}"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``cache`` subcommand's options to ``parser``."""
    parser.add_argument("--clear", action="store_true",
                        help="remove every cached provider, linked kernel and precompiled header")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _report(cache: DiskCache | PchStore, clear: bool) -> dict[str, Any]:
    """A directory's entries and bytes, its bound (bytes, or entries for the precompiled headers), and what
    ``clear`` removed."""
    before = cache.stats()
    if clear:
        cache.clear()
    after = cache.stats()
    bound = {"max_bytes": cache.max_bytes} if isinstance(cache, DiskCache) else {"max_entries": cache.keep}
    return {
        "directory": str(cache.root),
        "entries": after.entries,
        "bytes": after.total_bytes,
        **bound,
        "cleared": before.entries - after.entries if clear else 0,
        "cleared_bytes": before.total_bytes - after.total_bytes if clear else 0,
    }


def run(args: argparse.Namespace) -> int:
    """Print where the cache is, whether it is enabled, its entries and size; clear it with ``--clear``."""
    conf = settings()
    providers, kernels = _caches()
    report: dict[str, Any] = {"enabled": conf.enabled, "problem": providers.problem() or kernels.problem()}
    report.update(_report(providers, args.clear))
    report["kernels"] = _report(kernels, args.clear)
    report["pch"] = _report(PchStore(conf.pch), args.clear)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    state = "enabled" if conf.enabled else f"disabled (set {_VAR}=1 to enable)"
    if conf.enabled and report["problem"]:
        state = f"enabled, but NOTHING IS CACHED: {report['problem']}. {_FIX}"
    print(f"cache           {state}")
    for title, part in (("providers", report), ("linked kernels", report["kernels"]),
                        ("precompiled headers", report["pch"])):
        bound = _size(part["max_bytes"]) if "max_bytes" in part else f"at most {part['max_entries']} entries"
        print(f"  {title}")
        print(f"    directory   {part['directory']}")
        print(f"    entries     {part['entries']}")
        print(f"    size        {_size(part['bytes'])} of {bound}")
        if args.clear:
            print(f"    cleared     {part['cleared']} entries ({_size(part['cleared_bytes'])})")
    return 0
