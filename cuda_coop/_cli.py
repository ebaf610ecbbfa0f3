"""The diagnostics command, ``python -m cuda.coop``.

Prints what cuda-coop will compile with and why: the version, the header bundle's provenance, the
selected CCCL root, the CUDA include directory, NVRTC / nvrtc-builtins / nvJitLink with their
versions and compatibility, the cache directory, the precompiled packs and why an entry is not used,
the source dump directory, and every recognised environment variable that is set. ``--json`` for
machines; ``--cmake-dir`` / ``--include-dir`` for build scripts. Exits 1 when something cannot be
resolved, with the fix in the message. Subcommands: ``cache`` and ``precompile``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import _env
from ._bundle import header_bundle
from ._cccl import resolve_cccl_root
from ._cuda_headers import CudaInclude, resolve_cuda_include
from ._own_headers import own_headers
from ._provider import _cache_cli, _pack_cli
from ._provider._dump import dump_directory
from ._registration import backend_status
from ._toolkit import Library, resolve_toolkit
from ._version import __version__
from .errors import ConfigurationError, CoopError

_DUMP_VAR = "CUDA_COOP_SOURCE_DUMP_DIR"


def _lib(lib: Library) -> dict[str, Any]:
    return {"path": str(lib.path), "version": ".".join(map(str, lib.version)), "origin": lib.origin}


def _bundle_section(problems: list[str]) -> dict[str, Any] | None:
    try:
        bundle = header_bundle()
    except CoopError as exc:
        problems.append(str(exc))
        return None
    prov = bundle.provenance
    return {
        "root": str(bundle.root),
        "include_dir": str(bundle.include_dir),
        "cmake_dir": str(bundle.cmake_dir),
        "provenance": {
            "cccl_version": prov.cccl_version,
            "source_kind": prov.source_kind,
            "source_revision": prov.source_revision,
            "revision_note": prov.revision_note,
        },
    }


def _cccl_section(problems: list[str]) -> dict[str, Any] | None:
    try:
        root = resolve_cccl_root()
    except CoopError as exc:
        problems.append(str(exc))
        return None
    return {
        "path": str(root.path),
        "origin": root.origin,
        "include_roots": [str(p) for p in root.include_roots],
        "version": root.version,
        "version_number": root.version_number,
    }


def _own_section(problems: list[str]) -> dict[str, Any] | None:
    try:
        own = own_headers()
    except CoopError as exc:
        problems.append(str(exc))
        return None
    return {"include_root": str(own.root), "origin": own.origin}


def _toolkit_sections(problems: list[str]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    try:
        include: CudaInclude = resolve_cuda_include()
    except CoopError as exc:
        problems.append(str(exc))
        return None, None
    headers = {
        "path": str(include.path),
        "origin": include.origin,
        "cuda_version": ".".join(map(str, include.cuda_version)),
    }
    try:
        tk = resolve_toolkit(cuda_include=include)
    except CoopError as exc:
        problems.append(str(exc))
        return headers, {"compatible": False}
    toolkit = {
        "nvrtc": _lib(tk.nvrtc),
        "nvrtc_builtins": _lib(tk.nvrtc_builtins),
        "nvjitlink": _lib(tk.nvjitlink),
        "compatible": True,
        "identity": tk.identity,
        "notes": list(tk.notes),
    }
    return headers, toolkit


def _report() -> tuple[dict[str, Any], list[str]]:
    problems: list[str] = []
    report: dict[str, Any] = {"version": __version__}
    report["header_bundle"] = _bundle_section(problems)
    report["cccl_root"] = _cccl_section(problems)
    report["own_headers"] = _own_section(problems)
    report["cuda_include"], report["toolkit"] = _toolkit_sections(problems)
    report["cache"] = _cache_cli.diagnostics()
    report["packs"] = _pack_cli.diagnostics()
    if report["packs"]["problem"]:
        problems.append(report["packs"]["problem"])
    try:
        dump_dir = dump_directory()
        report["source_dump_dir"] = str(dump_dir) if dump_dir else None
    except ConfigurationError as exc:
        report["source_dump_dir"] = None
        problems.append(str(exc))
    report["environment"] = {v.name: value for v in _env.VARIABLES if (value := _env.get(v.name)) is not None}
    report["backends"] = {
        name: {"active": st.active, "version": st.version, "reason": st.reason} for name, st in backend_status().items()
    }
    return report, problems


def _print_roots(report: dict[str, Any], row: Callable[[str, object], str]) -> None:
    """The CCCL root and cuda-coop's own headers: what providers compile against."""
    if root := report["cccl_root"]:
        print("CCCL used for compiling")
        print(row("origin", root["origin"]))
        print(row("path", root["path"]))
        print(row("version", f"{root['version']} (CCCL_VERSION {root['version_number']})"))
        for i, path in enumerate(root["include_roots"]):
            print(row("include roots" if i == 0 else "", path))
    if own := report["own_headers"]:
        print("cuda-coop's own headers (cuda_coop/*.cuh, before CCCL)")
        print(row("include root", own["include_root"]))
        print(row("origin", own["origin"]))


def _print_text(report: dict[str, Any], problems: list[str]) -> None:
    row = "  {:<17}{}".format
    print(f"cuda-coop {report['version']}")
    if bundle := report["header_bundle"]:
        prov = bundle["provenance"]
        print("CCCL header bundle")
        print(row("CCCL version", prov["cccl_version"]))
        print(row("source", f"{prov['source_kind']}, revision {prov['source_revision']} ({prov['revision_note']})"))
        print(row("include dir", bundle["include_dir"]))
        print(row("CMake (CCCL_DIR)", bundle["cmake_dir"]))
    _print_roots(report, row)
    if headers := report["cuda_include"]:
        print("CUDA headers")
        print(row("include dir", headers["path"]))
        print(row("origin", headers["origin"]))
        print(row("CUDA version", headers["cuda_version"]))
    if (toolkit := report["toolkit"]) and toolkit["compatible"]:
        print("Toolkit libraries")
        for label, key in (("NVRTC", "nvrtc"), ("nvrtc-builtins", "nvrtc_builtins"), ("nvJitLink", "nvjitlink")):
            lib = toolkit[key]
            print(row(label, f"{lib['version']:<6} {lib['path']} ({lib['origin']})"))
        print(row("compatibility", "OK: builtins = NVRTC, nvJitLink >= NVRTC, headers <= NVRTC, one major"))
        for i, note in enumerate(toolkit["notes"]):
            print(row("where" if i == 0 else "", note))
        print(row("identity", toolkit["identity"]))
    elif toolkit is not None:
        print("Toolkit libraries")
        print(row("compatibility", "NOT compatible (see the error below)"))
    _cache_cli.print_section(report["cache"], row)
    _pack_cli.print_section(report["packs"], row)
    print("Source dumps")
    print(row("directory", report["source_dump_dir"] or f"off (set {_DUMP_VAR}=<dir> to enable)"))
    print("DSL integrations")
    for name, st in report["backends"].items():
        state = f"active ({st['version']})" if st["active"] else f"inactive: {st['reason']}"
        print(row(name, state))
    print("Environment variables set")
    for name, value in report["environment"].items():
        print(f"  {name}={value}")
    if not report["environment"]:
        print("  (none)")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)


def _precompile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Import FILE_OR_MODULE and compile every (kernel, signature, block) of its module-level "
        "cuda_coop_precompile list for each arch; write the providers and linked kernels to the pack OUT."
    )
    parser.add_argument("source", metavar="FILE_OR_MODULE", help="a .py file, or a module name to import")
    parser.add_argument("--arch", required=True, help="comma-separated arches, e.g. sm_80,sm_90")
    parser.add_argument("--out", required=True, help="the pack's directory (new, empty, or a pack to add to)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuda.coop", description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", action="store_true", help="print the report as JSON")
    group.add_argument("--cmake-dir", action="store_true", help="print the directory to pass to CMake as CCCL_DIR")
    group.add_argument("--include-dir", action="store_true", help="print the bundle's CCCL include directory")
    commands = parser.add_subparsers(dest="command", metavar="{cache,precompile}")
    cache_parser = commands.add_parser("cache", help="show or clear the persistent provider cache")
    _cache_cli.add_arguments(cache_parser)
    _precompile_arguments(commands.add_parser("precompile", help="build a pack of precompiled kernels"))
    args = parser.parse_args(argv)
    if args.command == "cache":
        return _cache_cli.run(args)
    if args.command == "precompile":
        from ._numba._precompile_cli import run

        return run(args)

    if args.cmake_dir or args.include_dir:
        try:
            bundle = header_bundle()
        except CoopError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(bundle.cmake_dir if args.cmake_dir else bundle.include_dir)
        return 0

    report, problems = _report()
    if args.json:
        report["problems"] = problems
        print(json.dumps(report, indent=2))
    else:
        _print_text(report, problems)
    return 1 if problems else 0
