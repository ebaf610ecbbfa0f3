"""The exceptions cuda-coop raises. Every message names what was wrong and how to fix it."""

from __future__ import annotations

__all__ = ["CoopError", "HeaderBundleError"]


class CoopError(Exception):
    """Base class of every cuda-coop error."""


class HeaderBundleError(CoopError):
    """The installed CCCL header bundle is missing or damaged."""


def __dir__() -> list[str]:
    return sorted(__all__)
