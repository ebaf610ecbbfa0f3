"""The call sites the planner found, by id, until their kernel's provider has produced its LTO-IR.

The planner adds sites (:class:`KernelPlan.add`); typing looks them up by the literal id the rewritten
call carries (:func:`site`); the kernel's provider removes them once its code exists (:func:`release`).

Module state: ``_SITES`` (site id -> (CallSite, KernelPlan)), guarded by ``_LOCK``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._dsl._primitive import Primitive
from .._specs import Space
from ..errors import UsageError

if TYPE_CHECKING:
    from ._frontend import Frontend

__all__ = ["ArrayOrigin", "CallSite", "KernelPlan", "release", "site"]


@dataclass(frozen=True, slots=True)
class ArrayOrigin:
    """Where a runtime argument comes from, as far as the kernel's IR shows (see ``_planner.origin``)."""

    space: Space | None = None
    """``"global"`` (a kernel argument), ``"shared"`` (a ``cuda.shared.array``) or ``"local"`` (a
    ``cuda.local.array``), also for an element or slice of one; None when the IR does not show it."""
    extent: int | None = None
    """Items of the whole ``cuda.local.array`` / ``cuda.shared.array`` (a constant shape); None otherwise."""
    root: object = None
    """The array it is, or is a slice of (a kernel argument, an allocation): equal roots are one array."""
    sliced: bool = False
    """An element or slice of the root array rather than the whole of it."""
    what: str = ""
    """What it is, for errors: ``"the kernel argument 'x' (global memory)"``..."""
    align: int | None = None
    """The declared alignment in bytes of a ``cuda.local.array`` / ``cuda.shared.array`` (its ``alignment=``, 8 when
    omitted); None for other arrays, or where it is not a compile-time integer."""

    @property
    def local_array(self) -> bool:
        """This thread's own ``cuda.local.array`` defined in the kernel, whole, of a known extent."""
        return self.space == "local" and not self.sliced and self.extent is not None


@dataclass(frozen=True, kw_only=True)
class CallSite:
    """One call of a primitive in one kernel specialisation."""

    frontend: Frontend
    """The DSL whose kernel makes the call (its numba types type the call)."""
    primitive: Primitive
    block: tuple[int, int, int]
    arch: str | None
    """The compile's target (``"sm_90"``) where the planner knows it; None: the DSL decides when it compiles."""
    static: dict[str, Any]
    """Compile-time arguments (given or defaulted), e.g. ``{"algorithm": "transpose"}``."""
    origins: dict[str, ArrayOrigin]
    """Where each runtime argument comes from (its definition in the kernel's IR)."""
    constants: dict[str, Any]
    """Runtime arguments whose value is a compile-time constant (checked for lossless conversion)."""
    runtime: tuple[str, ...]
    """Names of the runtime arguments passed to the intrinsic, in order."""
    where: str = field(default="")

    def error(self, message: str) -> UsageError:
        return UsageError(f"coop.{self.primitive.name}() at {self.where}: {message}")


class KernelPlan:
    """The call sites of one kernel compile; typing attaches each site's typed call to it."""

    def __init__(self, frontend: Frontend, block: tuple[int, int, int], arch: str | None = None) -> None:
        self.frontend = frontend
        self.block = block
        self.arch = arch
        self.site_ids: list[int] = []
        self.first_use: set[int] = set()
        """Block-scope sites in the kernel's entry block: their barrier depends only on the entry-block
        sites before them (see ``_provider._render``)."""
        self.typed: dict[int, Any] = {}
        self.provider: Any = None
        self.launch_bounds: int | None = None
        """Threads per block the kernel is bounded to (the block's, when the kernel set no ``launch_bounds``)."""

    def add(self, call_site: CallSite) -> int:
        with _LOCK:
            site_id = next(_IDS)
            _SITES[site_id] = (call_site, self)
        self.site_ids.append(site_id)
        return site_id


_SITES: dict[int, tuple[CallSite, KernelPlan]] = {}
_IDS = itertools.count(1)
_LOCK = threading.Lock()


def site(site_id: int) -> tuple[CallSite, KernelPlan]:
    """The call site with this id and the kernel compile it belongs to."""
    with _LOCK:
        return _SITES[site_id]


def release(site_ids: Iterable[int]) -> None:
    """Forget these sites (their kernel is lowered and its provider compiled)."""
    with _LOCK:
        for site_id in site_ids:
            _SITES.pop(site_id, None)
