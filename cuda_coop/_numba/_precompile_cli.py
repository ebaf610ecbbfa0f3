"""``python -m cuda.coop precompile FILE_OR_MODULE --arch sm_80,sm_90 --out DIR``.

Imports the module (a ``.py`` file is imported under its file name, with its folder first on
``sys.path``, as ``import <name>`` would from there), reads its module-level ``cuda_coop_precompile``
list of ``(kernel, signature, block)`` (or ``(..., grid)``) tuples, and runs
:func:`~cuda_coop._numba._precompile.precompile` over it, each kernel compiled by its DSL's integration
(:func:`compiler_for`): one line of progress per compile on stderr when there are more than
:data:`PROGRESS_FROM`, then a table (kernel, block, arch, size, time).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import CoopError, UsageError
from ._precompile import CompileFn, PrecompiledKernel, arches, dsl_of, precompile

__all__ = ["PROGRESS_FROM", "compiler_for", "load_targets", "run", "table"]

PROGRESS_FROM = 3
"""More compiles than this show progress."""
LIST = "cuda_coop_precompile"


def _import(source: str) -> ModuleType:
    path = Path(source)
    if path.suffix == ".py" or path.is_file():
        if not path.is_file():
            raise UsageError(f"precompile: {source} is not a file; give a .py file or a module name")
        folder = str(path.resolve().parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"precompile: cannot import {source} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(source)
    except ModuleNotFoundError as exc:
        if exc.name and source.startswith(exc.name):
            raise UsageError(f"precompile: no module named {source!r} (nor a file of that name)") from None
        raise


def compiler_for(kernel: Any, where: str) -> tuple[str, CompileFn]:
    """The DSL of ``kernel`` and how a pack compiles it (:data:`~._precompile.Compilers`), from the integration
    whose kernel it is (importing it activates it); a UsageError naming ``where`` for anything else."""
    dsl = dsl_of(kernel)
    if dsl == "numba_cuda":
        from ..numba_cuda import _precompile as numba_cuda

        return numba_cuda.compiler(kernel, where)
    if dsl == "numba_mlir":
        from ..numba_mlir import _precompile as numba_mlir

        return numba_mlir.compiler(kernel, where)
    kind = "a plain Python function" if callable(kernel) else f"a {type(kernel).__name__}"
    raise UsageError(
        f"{where}: got {kind}; list kernels decorated with @numba_cuda_mlir.cuda.jit or @numba.cuda.jit (the "
        "dispatcher, not the undecorated function)"
    )


def load_targets(source: str) -> list[object]:
    """The ``cuda_coop_precompile`` list of the file or module ``source``."""
    module = _import(source)
    targets = getattr(module, LIST, None)
    if not isinstance(targets, list | tuple):
        found = "has none" if targets is None else f"has a {type(targets).__name__}"
        raise UsageError(
            f"precompile: {source} {found}; define a module-level {LIST} = [(kernel, signature, block), ...] in it"
        )
    return list(targets)


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


def table(rows: list[PrecompiledKernel]) -> str:
    """The summary: one line per kernel and arch (the arch its cubin is linked for, and the DSL that compiled it)."""
    width = max([len("kernel"), *(len(r.kernel) for r in rows)])
    lines = [f"{'kernel':<{width}}  {'block':<13} {'arch':<8} {'dsl':<11}{'size':>10} {'time':>8}"]
    for r in rows:
        block = "x".join(map(str, r.block))
        lines.append(f"{r.kernel:<{width}}  {block:<13} {r.arch:<8} {r.dsl:<11}{_size(r.size):>10} "
                     f"{r.seconds:>7.2f}s")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run the ``precompile`` subcommand; 0 on success, 1 (after the error) otherwise."""
    start = time.perf_counter()
    try:
        chips = arches(args.arch)
        targets = load_targets(args.source)

        def progress(done: int, total: int, row: PrecompiledKernel) -> None:
            if total > PROGRESS_FROM:
                print(f"[{done}/{total}] {row.kernel} block {'x'.join(map(str, row.block))} {row.arch}: "
                      f"{row.seconds:.2f} s", file=sys.stderr, flush=True)

        rows = precompile(targets, arch=chips, out=args.out, progress=progress, compilers=compiler_for)
    except CoopError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(table(rows))
    total = sum(r.size for r in rows)
    print(f"{len(rows)} kernel(s) for {', '.join(chips)} in {time.perf_counter() - start:.1f} s; "
          f"pack {Path(args.out).absolute()} ({_size(total)} of linked kernels)")
    return 0
