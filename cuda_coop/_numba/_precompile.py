"""Ahead-of-time packs: compile kernels for arches once, keep their providers and linked cubins in a pack.

Shared by both DSLs: each integration's ``precompile`` passes the ``compile_kernel`` its kernels compile
with and its name (:data:`Compilers`), and ``python -m cuda.coop precompile`` picks the integration per kernel.
Every entry records the DSL of the kernel it was compiled for, and serves only that DSL's kernels.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._bundle import read_provenance
from .._cccl import resolve_cccl_root
from .._provider import _packs
from .._provider._pack import PackIdentity, PackWriter
from .._version import __version__
from ..errors import PackError, UsageError
from ._inspect import CompiledKernel, arch_of, dims_of

__all__ = ["Compilers", "PrecompiledKernel", "arches", "check_dsl", "dsl_of", "precompile"]

CompileFn = Callable[..., CompiledKernel]
"""An integration's ``compile_kernel(kernel, signature, *, block, grid, arch)``."""
Compilers = Callable[[Any, str], tuple[str, CompileFn]]
"""``(kernel, where)`` -> the name of the kernel's DSL (``"numba_mlir"``, ``"numba_cuda"``) and the function that
compiles its kernels as a launch on a GPU of an arch does (the DSL's ``compile_kernel``, or one that picks the arch
that DSL's launch links for); a UsageError (naming ``where``) for an object that is not a kernel it compiles."""


_DSL_NAMES = {"numba_mlir": "Numba-CUDA-MLIR", "numba_cuda": "numba-cuda"}


def dsl_of(kernel: object) -> str | None:
    """``"numba_mlir"`` or ``"numba_cuda"`` for a kernel (or device function) of that DSL, by its dispatcher's
    module; None for anything else. Imports nothing."""
    module = type(kernel).__module__
    if module.startswith("numba_cuda_mlir"):
        return "numba_mlir"
    if module.startswith(("numba.cuda", "numba_cuda")):
        return "numba_cuda"
    return None


def check_dsl(kernel: object, dsl: str, where: str) -> None:
    """A UsageError naming ``where`` if ``kernel`` is the other DSL's kernel: ``cuda.coop.<dsl>.precompile``
    compiles only ``dsl``'s, and the error names the call that compiles it."""
    found = dsl_of(kernel)
    if found is not None and found != dsl:
        raise UsageError(
            f"{where}: is a {_DSL_NAMES[found]} kernel, and cuda.coop.{dsl}.precompile compiles {_DSL_NAMES[dsl]} "
            f"kernels; precompile it with cuda.coop.{found}.precompile, or list it for python -m cuda.coop "
            "precompile, which picks each kernel's DSL"
        )


@dataclass(frozen=True, slots=True)
class PrecompiledKernel:
    """One kernel compiled into a pack, for one arch."""

    kernel: str
    """``module.qualname`` of the kernel's Python function."""
    signature: str
    block: tuple[int, int, int]
    arch: str
    """The arch its cubin is linked for. That is the arch asked for, or the arch-specific one (``sm_90a``) where
    the DSL's launches link for it (numba-cuda on compute capability 9.0 and later)."""
    dsl: str
    """The DSL that compiled it (``"numba_mlir"``, ``"numba_cuda"``)."""
    size: int
    """Bytes of the linked cubin."""
    seconds: float
    """How long its compile took."""


@dataclass(frozen=True, slots=True)
class _Target:
    kernel: Any
    signature: Any
    block: tuple[int, int, int]
    grid: tuple[int, int, int]
    dsl: str
    compile: CompileFn

    @property
    def name(self) -> str:
        func = self.kernel.py_func
        return f"{func.__module__}.{func.__qualname__}"

    @property
    def shown_signature(self) -> str:
        sig = self.signature
        return f"({', '.join(map(str, sig))})" if isinstance(sig, tuple | list) else str(sig)


def _targets(targets: Iterable[Any], compilers: Compilers) -> list[_Target]:
    if isinstance(targets, str | bytes) or not isinstance(targets, Iterable):
        raise UsageError(
            f"precompile(targets={targets!r}): give an iterable of (kernel, signature, block) or "
            "(kernel, signature, block, grid) tuples"
        )
    found = []
    for i, item in enumerate(targets):
        where = f"precompile targets[{i}]"
        if not isinstance(item, tuple | list) or len(item) not in (3, 4):
            raise UsageError(f"{where} = {item!r}: expected (kernel, signature, block) or (kernel, signature, block, "
                             "grid)")
        kernel, signature, block, *grid = item
        dsl, compile_kernel = compilers(kernel, f"{where}: the kernel {kernel!r}")
        grid3 = dims_of(grid[0] if grid else 1, "grid", where)
        found.append(_Target(kernel, signature, dims_of(block, "block", where), grid3, dsl, compile_kernel))
    if not found:
        raise UsageError("precompile(targets=...): the list is empty; give at least one (kernel, signature, block)")
    return found


def arches(arch: str | Iterable[str]) -> list[str]:
    """``["sm_80", "sm_90"]`` from ``"sm_80,sm_90"`` or ``("sm_80", "sm_90")``, each checked, in order, once."""
    items = arch.split(",") if isinstance(arch, str) else list(arch) if isinstance(arch, Iterable) else [arch]
    chips = [arch_of(a.strip() if isinstance(a, str) else a, "precompile")[0] for a in items]
    if not chips:
        raise UsageError("precompile(arch=...): give at least one arch, e.g. 'sm_90' or 'sm_80,sm_90'")
    return list(dict.fromkeys(chips))


def _cccl_revision() -> tuple[str, str]:
    """The selected CCCL's version and revision (a bundle's recorded revision; else where it is)."""
    root = resolve_cccl_root()
    if (root.path / "provenance.json").is_file():
        return root.version, read_provenance(root.path / "provenance.json").source_revision
    return root.version, f"unknown ({root.origin} {root.path})"


_CHANGED = (
    "precompile: the headers or the toolkit changed while the pack was being built ({}); build it again "
    "without changing them meanwhile"
)


def _identity(recording: _packs.Recording, expected: PackIdentity | None = None) -> PackIdentity:
    """The identity every provider of ``recording`` shares (and ``expected``'s, when given)."""
    found = [_packs.identity_of(toolchain) for _, toolchain, _ in recording.providers.values()]
    first = expected or found[0]
    for other in found:
        if (why := other.mismatch(first)) is not None:
            raise PackError(_CHANGED.format(why))
    return found[0]


ProgressFn = Callable[[int, int, PrecompiledKernel], None]


def precompile(
    targets: Iterable[Any],
    *,
    arch: str | Iterable[str],
    out: str | os.PathLike[str],
    progress: ProgressFn | None = None,
    compilers: Compilers,
) -> list[PrecompiledKernel]:
    """What each integration's public ``precompile`` (e.g. :func:`cuda.coop.numba_mlir.precompile`) does, with
    ``compilers`` giving each target's ``compile_kernel`` (:data:`Compilers`); its parameters, result and errors
    are documented there."""
    items, chips = _targets(targets, compilers), arches(arch)
    if not isinstance(out, str | os.PathLike):
        raise UsageError(f"precompile(out={out!r}): give the pack's directory as a str or os.PathLike")
    writer: PackWriter | None = None
    done: list[PrecompiledKernel] = []
    for chip in chips:
        for target in items:
            with _packs.recording() as recorded:
                start = time.perf_counter()
                compiled = target.compile(target.kernel, target.signature, block=target.block, grid=target.grid,
                                          arch=chip)
                seconds = time.perf_counter() - start
            if not recorded.providers:
                raise UsageError(
                    f"precompile: {target.name} calls no cuda-coop primitive, so a pack has nothing to keep for it "
                    "(it compiles as usual); take it out of the targets"
                )
            if len(recorded.kernels) != 1:
                raise PackError(
                    f"precompile: the link of {target.name} holds a module given by its path (a library), whose "
                    "contents a pack cannot key; take the kernel out of the targets"
                )
            if writer is None:
                writer = PackWriter(Path(out), _with_cccl(_identity(recorded)))
            row = _write(writer, recorded, target, compiled.arch, seconds)
            done.append(row)
            if progress is not None:
                progress(len(done), len(items) * len(chips), row)
    if writer is not None:  # always: targets and arches are not empty
        writer.commit()
    return done


def _with_cccl(identity: PackIdentity) -> PackIdentity:
    version, revision = _cccl_revision()
    return PackIdentity(cuda_coop_version=__version__, header_identity=identity.header_identity,
                        toolkit_identity=identity.toolkit_identity, toolkit=identity.toolkit,
                        cccl_version=version, cccl_revision=revision)


def _provider_arch(options: tuple[str, ...]) -> str:
    """The arch a provider was compiled for: its ``-arch=`` option."""
    return next(o.split("=", 1)[1] for o in options if o.startswith("-arch="))


def _write(
    writer: PackWriter, recorded: _packs.Recording, target: _Target, chip: str, seconds: float
) -> PrecompiledKernel:
    _identity(recorded, writer.identity)
    for key, (data, _, options) in recorded.providers.items():
        writer.add("provider", key, data, dsl=target.dsl, arch=_provider_arch(options), kernel=target.name,
                   block=target.block, options=options)
    [(key, (cubin, providers))] = recorded.kernels.items()
    writer.add("kernel", key, cubin, dsl=target.dsl, arch=chip, kernel=target.name, block=target.block,
               signature=target.shown_signature, grid=target.grid, providers=providers, seconds=round(seconds, 3))
    return PrecompiledKernel(kernel=target.name, signature=target.shown_signature, block=target.block, arch=chip,
                             dsl=target.dsl, size=len(cubin), seconds=seconds)
