"""The diagnostics command, ``python -m cuda.coop``.

Prints what cuda-coop is and where its CCCL header bundle is; ``--json`` for machines,
``--cmake-dir`` / ``--include-dir`` for build scripts. Exits 1 when something cannot be
resolved, with the fix in the message.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ._bundle import header_bundle
from ._version import __version__
from .errors import CoopError


def _report() -> tuple[dict[str, Any], list[str]]:
    report: dict[str, Any] = {"version": __version__}
    problems: list[str] = []
    try:
        bundle = header_bundle()
    except CoopError as exc:
        report["header_bundle"] = None
        problems.append(str(exc))
    else:
        report["header_bundle"] = {
            "root": str(bundle.root),
            "include_dir": str(bundle.include_dir),
            "cmake_dir": str(bundle.cmake_dir),
            "provenance": {
                "cccl_version": bundle.provenance.cccl_version,
                "source_kind": bundle.provenance.source_kind,
                "source_revision": bundle.provenance.source_revision,
                "revision_note": bundle.provenance.revision_note,
            },
        }
    return report, problems


def _print_text(report: dict[str, Any], problems: list[str]) -> None:
    print(f"cuda-coop {report['version']}")
    bundle = report["header_bundle"]
    if bundle:
        prov = bundle["provenance"]
        print("CCCL header bundle")
        print(f"  CCCL version     {prov['cccl_version']}")
        print(f"  source           {prov['source_kind']}, revision {prov['source_revision']}"
              f" ({prov['revision_note']})")
        print(f"  include dir      {bundle['include_dir']}")
        print(f"  CMake (CCCL_DIR) {bundle['cmake_dir']}")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuda.coop", description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", action="store_true", help="print the report as JSON")
    group.add_argument("--cmake-dir", action="store_true",
                       help="print the directory to pass to CMake as CCCL_DIR")
    group.add_argument("--include-dir", action="store_true",
                       help="print the bundle's CCCL include directory")
    args = parser.parse_args(argv)

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
