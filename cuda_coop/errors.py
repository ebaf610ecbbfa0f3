"""The exceptions cuda-coop raises: one shallow hierarchy under :class:`CoopError`.

Every message names what was wrong (the variable, path, argument or value), what is
allowed, and how to fix it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "BackendError",
    "CompileError",
    "ConfigurationError",
    "CoopError",
    "HeaderBundleError",
    "HeaderResolutionError",
    "PackError",
    "SpecError",
    "ToolkitError",
    "ToolkitMismatchError",
    "ToolkitNotFoundError",
    "UsageError",
]


class CoopError(Exception):
    """Base class of every cuda-coop error."""


class ConfigurationError(CoopError, ValueError):
    """An environment variable or configured path has a value cuda-coop cannot use."""


class HeaderBundleError(CoopError):
    """The installed CCCL header bundle is missing or damaged."""


class HeaderResolutionError(CoopError):
    """No valid include directory was found; ``tried`` lists every candidate and why it failed."""

    def __init__(self, message: str, tried: Sequence[tuple[str, str]] = ()) -> None:
        self.tried = tuple(tried)
        lines = [message, *(f"  {origin}: {why}" for origin, why in self.tried)]
        super().__init__("\n".join(lines))


class ToolkitError(CoopError):
    """A CUDA toolkit library (NVRTC, nvrtc-builtins, nvJitLink) is missing or unusable."""


class ToolkitNotFoundError(ToolkitError):
    """A CUDA toolkit library could not be located."""


class ToolkitMismatchError(ToolkitError):
    """The CUDA headers and libraries do not belong to one compatible toolkit."""


class CompileError(CoopError):
    """NVRTC rejected generated CUDA C++.

    Attributes
    ----------
    log:
        NVRTC's program log.
    source_path:
        Where the rendered source was written (a temporary file unless
        ``CUDA_COOP_SOURCE_DUMP_DIR`` is set).
    options:
        The NVRTC options used.
    """

    def __init__(self, message: str, *, log: str, source_path: Path | None, options: Sequence[str]) -> None:
        self.log = log
        self.source_path = source_path
        self.options = tuple(options)
        where = f"\nsource: {source_path}" if source_path else ""
        super().__init__(f"{message}{where}\noptions: {' '.join(self.options)}\nNVRTC log:\n{log}")


class UsageError(CoopError, TypeError):
    """A cuda-coop primitive was called in a way it does not support (wrong place, type or argument)."""


class SpecError(CoopError, ValueError):
    """A specialisation request the primitive's spec rejects (parameter, value, overload or constraint).

    Raised by spec validation; a DSL integration turns it into a :class:`UsageError` naming the call. ``detail``
    is the message without the spec's own name in front (the call's name and place go there instead).
    """

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = message if detail is None else detail


class PackError(CoopError):
    """A precompiled pack cannot be used as asked: a path that is not a pack, or one that cannot be written."""


class BackendError(CoopError):
    """A DSL integration (backend) cannot be activated."""


def __dir__() -> list[str]:
    return sorted(__all__)
