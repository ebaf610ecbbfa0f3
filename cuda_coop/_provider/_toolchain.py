"""What a provider compiles with: include roots (cuda-coop's own headers, then CCCL, then CUDA), the CCCL
version, and identities.

A :class:`Toolchain` is resolved once per :class:`~cuda_coop._identity.CompileAttempt` (one per
kernel compile): the CCCL root is re-selected for every new provider, header contents are
fingerprinted once per ordered root selection in that attempt, and a later attempt sees edits.
Tests build a :class:`Toolchain` directly instead (the fake seam).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._identity import CompileAttempt

__all__ = ["Toolchain", "pch_identity", "resolve_include_roots", "resolve_toolchain"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Toolchain:
    """Resolved compile inputs that are not part of the rendered source."""

    cccl_include_roots: tuple[Path, ...]
    """The selected CCCL's include roots, in order; they come first on the include path."""
    cccl_version: int
    """``CCCL_VERSION`` of the selected CCCL (asserted in every provider)."""
    cuda_include: Path
    """The CUDA include directory, after the CCCL roots."""
    header_identity: str
    """Fingerprint of the ordered include roots and their contents."""
    toolkit_identity: str
    """Identity of NVRTC, nvrtc-builtins, nvJitLink and the CUDA headers."""
    nvrtc_version: tuple[int, int] = (0, 0)
    portable_header_identity: str = ""
    """:attr:`header_identity` with the roots named by their place, not their path (packs' keys)."""
    portable_toolkit_identity: str = ""
    """:attr:`toolkit_identity` of the versions alone, not the paths (packs' keys)."""
    toolkit_versions: tuple[tuple[str, str], ...] = ()
    """``(library, "major.minor")`` of NVRTC, nvrtc-builtins, nvJitLink and the CUDA headers."""
    own_include: Path | None = None
    """The include root of cuda-coop's own headers (``cuda_coop/*.cuh``, :mod:`cuda_coop._own_headers`); it holds
    nothing else, so it goes first. None only in tests' toolchains."""

    @property
    def include_roots(self) -> tuple[Path, ...]:
        """Every include directory, in search order: cuda-coop's own, CCCL's, CUDA's."""
        own = () if self.own_include is None else (self.own_include,)
        return (*own, *self.cccl_include_roots, self.cuda_include)

    @property
    def portable(self) -> tuple[str, str]:
        """``(header identity, toolkit identity)`` as precompiled packs key them; each falls back to the
        located identity where it was not resolved (a test's toolchain), which is stricter."""
        return (self.portable_header_identity or self.header_identity,
                self.portable_toolkit_identity or self.toolkit_identity)


def resolve_toolchain(attempt: CompileAttempt | None = None) -> Toolchain:
    """Select the CCCL root and the toolkit and fingerprint them, within ``attempt``.

    Parameters
    ----------
    attempt:
        The compile attempt sharing identities between the providers of one kernel compile;
        a new one when None.

    Raises
    ------
    ConfigurationError, HeaderBundleError, HeaderResolutionError, ToolkitError
        As the CCCL, CUDA-header and toolkit resolvers raise them.
    """
    from .._cccl import resolve_cccl_root
    from .._identity import CompileAttempt
    from .._own_headers import own_headers

    attempt = attempt or CompileAttempt()
    own = own_headers().root
    cccl = resolve_cccl_root()
    toolkit = attempt.toolkit()
    roots = (own, *cccl.include_roots, toolkit.cuda_include.path)  # as resolve_include_roots
    headers = attempt.header_identity(roots)
    return Toolchain(
        cccl_include_roots=tuple(cccl.include_roots),
        cccl_version=cccl.version_number,
        cuda_include=toolkit.cuda_include.path,
        header_identity=headers.digest,
        toolkit_identity=toolkit.identity,  # the same selection as the include path above
        nvrtc_version=toolkit.nvrtc.version,
        portable_header_identity=headers.portable,
        portable_toolkit_identity=toolkit.portable_identity,
        toolkit_versions=tuple(toolkit.versions.items()),
        own_include=own,
    )


def pch_identity(toolchain: Toolchain) -> str:
    """What a kept precompiled header is named by, besides its preamble and options: the header and toolkit identity."""
    return f"{toolchain.header_identity}\0{toolchain.toolkit_identity}"


def resolve_include_roots(attempt: CompileAttempt) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The CCCL include roots and every include root, in order (:attr:`Toolchain.include_roots`), that
    :func:`resolve_toolchain` selects in ``attempt``, without fingerprinting them (a few ms). Raises what
    :func:`resolve_toolchain` raises."""
    from .._cccl import resolve_cccl_root
    from .._own_headers import own_headers

    own = own_headers().root
    cccl = tuple(resolve_cccl_root().include_roots)
    return cccl, (own, *cccl, attempt.toolkit().cuda_include.path)
