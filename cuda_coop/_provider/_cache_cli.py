"""``python -m cuda.coop cache [--clear] [--json]``: show or clear the persistent provider cache.

The CLI module (``cuda_coop._cli``) adds the subcommand with :func:`add_arguments` and dispatches
to :func:`run`; its diagnostics report's cache section is :func:`diagnostics`, printed by
:func:`print_section`. Both name the directory the entries live in
(``<cache dir>/cuda-coop/providers``) and say when an enabled cache cannot be written.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from .._cache_dir import cache_dir
from ._cache import _FIX, DEFAULT_MAX_BYTES, DiskCache, settings

__all__ = ["add_arguments", "diagnostics", "print_section", "run"]

_VAR = "CUDA_COOP_ENABLE_CACHE"


def diagnostics() -> dict[str, Any]:
    """The cache section of ``python -m cuda.coop``: where entries live, on or off, usable, contents."""
    conf = settings()
    cache = DiskCache(conf.root, DEFAULT_MAX_BYTES)
    stats = cache.stats()
    return {
        "directory": str(conf.root),
        "base": str(cache_dir()),
        "enabled": conf.enabled,
        "problem": cache.problem(),
        "entries": stats.entries,
        "bytes": stats.total_bytes,
    }


def _state(report: dict[str, Any]) -> str:
    if not report["enabled"]:
        return f"no (set {_VAR}=1 to enable)"
    if report["problem"]:
        return f"yes, but NOTHING IS CACHED: {report['problem']}. {_FIX}"
    return "yes"


def print_section(report: dict[str, Any], row: Callable[[str, object], str]) -> None:
    """Print :func:`diagnostics`' ``report`` with the diagnostics' ``row`` formatter."""
    print("Provider cache")
    print(row("directory", report["directory"]))
    print(row("enabled", _state(report)))
    print(row("entries", f"{report['entries']} ({_size(report['bytes'])})"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``cache`` subcommand's options to ``parser``."""
    parser.add_argument("--clear", action="store_true", help="remove every cached provider")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def run(args: argparse.Namespace) -> int:
    """Print where the cache is, whether it is enabled, its entries and size; clear it with ``--clear``."""
    conf = settings()
    cache = DiskCache(conf.root, DEFAULT_MAX_BYTES)
    before = cache.stats()
    if args.clear:
        cache.clear()
    after = cache.stats()
    report = {
        "enabled": conf.enabled,
        "directory": str(conf.root),
        "problem": cache.problem(),
        "entries": after.entries,
        "bytes": after.total_bytes,
        "max_bytes": after.max_bytes,
        "cleared": before.entries - after.entries if args.clear else 0,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    state = "enabled" if conf.enabled else f"disabled (set {_VAR}=1 to enable)"
    if conf.enabled and report["problem"]:
        state = f"enabled, but NOTHING IS CACHED: {report['problem']}. {_FIX}"
    print(f"provider cache  {state}")
    print(f"  directory     {conf.root}")
    print(f"  entries       {after.entries}")
    print(f"  size          {_size(after.total_bytes)} of {_size(after.max_bytes)}")
    if args.clear:
        print(f"  cleared       {report['cleared']} entries ({_size(before.total_bytes - after.total_bytes)})")
    return 0
