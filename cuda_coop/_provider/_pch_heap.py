"""NVRTC's precompiled-header heap at one address on every process of a machine (Linux), so that a PCH
built by one process loads in another.

NVRTC 13.0 maps its PCH heap with ``mmap(NULL, size)`` at the first compile that creates or uses a PCH,
and a PCH loads only into a heap at the address it was built in (:ref:`known-issue-nvrtc-pch-per-process`);
address-space randomisation gives every process another one. Linux places ``mmap(NULL, n)`` in the
highest free gap of at least ``n`` bytes below the mmap base. :func:`map_heap_at` therefore covers, for
the one compile that maps the heap, every free gap between the end of the chosen range and the top of the
mmap area with placeholders (``PROT_NONE``, ``MAP_NORESERVE``: address space only, no memory, no commit
charge), leaving free the range itself and, 2 MiB above it, a smaller *decoy* gap that takes NVRTC's
smaller mappings of the same compile (``libnvrtc-builtins``, loaded then); then it removes the
placeholders. The heap must then cover the range, which was free before: that is checked, and where it
failed (another thread mapped into the range meanwhile, a kernel without ``MAP_FIXED_NOREPLACE``, an
address-space limit) the process goes on as before. NVRTC checks the heap address of every PCH it loads,
so a misplaced heap costs a warning and a compile without the PCH, never a wrong result.

The address (:func:`canonical_address`) depends only on the size of the machine's user address space:
three quarters of it, between the executable's ``brk`` heap (at two thirds or below) and the mmap area
(near the top). Nothing of the process is moved: mappings made while the placeholders exist land lower
than they would have, which is as valid.

Module state: none.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import resource
import sys
from collections.abc import Callable, Iterable

__all__ = ["canonical_address", "free_gaps", "is_free", "map_heap_at", "mapped"]

_log = logging.getLogger("cuda.coop")

_PROT_NONE = 0
_MAP_PRIVATE = 0x02
_MAP_ANONYMOUS = 0x20
_MAP_NORESERVE = 0x4000
_MAP_FIXED_NOREPLACE = 0x100000  # Linux 4.17+; older kernels take the address as a hint (checked)
_FAILED = ctypes.c_void_p(-1).value

DECOY_BYTES = 256 << 20
"""The free gap left above the heap's range for NVRTC's smaller mappings of the same compile (less than the heap)."""
STACK_MARGIN = 1 << 30
"""Placeholders end this far below the stack's lowest address, beyond its size limit (its growth room)."""
_ALIGN = 2 << 20

Range = tuple[int, int]


def _maps(path: str = "/proc/self/maps") -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of every mapping of this process, sorted."""
    out = []
    with open(path, encoding="ascii", errors="replace") as fh:  # noqa: PTH123
        for line in fh:
            fields = line.split(maxsplit=5)
            start, end = fields[0].split("-")
            out.append((int(start, 16), int(end, 16), fields[5].strip() if len(fields) > 5 else ""))
    out.sort()
    return out


def free_gaps(maps: Iterable[tuple[int, int, str]], low: int, high: int) -> list[Range]:
    """The unmapped ranges within ``[low, high)`` given the sorted ``maps``."""
    gaps: list[Range] = []
    cursor = low
    for start, end, _ in maps:
        if end <= cursor:
            continue
        if start >= high:
            break
        if start > cursor:
            gaps.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < high:
        gaps.append((cursor, high))
    return gaps


def mapped(maps: Iterable[tuple[int, int, str]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` is covered by mappings (adjacent mappings may merge)."""
    return not free_gaps(maps, start, end)


def is_free(address: int, size: int, *, maps_path: str = "/proc/self/maps") -> bool:
    """Whether ``[address, address + size)`` is unmapped in this process now (False where the maps cannot be read)."""
    try:
        return free_gaps(_maps(maps_path), address, address + size) == [(address, address + size)]
    except (OSError, ValueError, IndexError):
        return False


def _stack_low(maps: Iterable[tuple[int, int, str]]) -> int | None:
    return next((start for start, _, name in maps if name == "[stack]"), None)


@functools.cache
def canonical_address(size: int) -> int | None:
    """Where every process of this machine puts a heap of ``size`` bytes: three quarters of the user
    address space (from the stack's address), 2 MiB aligned; None off Linux, with an unlimited stack
    (Linux then lays the mmap area out bottom-up), or where the maps cannot be read."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        low = _stack_low(_maps())
        soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    except (OSError, ValueError, IndexError):
        return None
    if low is None or soft == resource.RLIM_INFINITY:
        return None
    address = (3 << (low.bit_length() - 2)) & ~(_ALIGN - 1)
    return address if address + size < low else None


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return libc


def _place(libc: ctypes.CDLL, gaps: Iterable[Range]) -> list[Range]:
    """Map a placeholder over each gap; the ones that were placed exactly."""
    placed = []
    flags = _MAP_PRIVATE | _MAP_ANONYMOUS | _MAP_NORESERVE | _MAP_FIXED_NOREPLACE
    for start, end in gaps:
        got = libc.mmap(start, end - start, _PROT_NONE, flags, -1, 0)
        if got in (None, _FAILED):
            continue
        if got != start:  # an old kernel took the address as a hint
            libc.munmap(got, end - start)
            continue
        placed.append((start, end))
    return placed


def map_heap_at(address: int, size: int, map_heap: Callable[[], object], *, maps_path: str = "/proc/self/maps") -> bool:
    """Call ``map_heap`` (a compile that makes NVRTC map its PCH heap of ``size`` bytes) so that the heap
    lands at ``address``; whether ``[address, address + size)`` is mapped afterwards and was free before.

    ``map_heap`` is always called exactly once; where the range is not free, or the placeholders cannot
    be placed, it is called without them.
    """
    end = address + size
    placed: list[Range] = []
    libc = None
    try:
        maps = _maps(maps_path)
        low = _stack_low(maps)
        soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
        top = (low or 0) - max(soft, 0) - STACK_MARGIN
        if low is not None and soft != resource.RLIM_INFINITY and free_gaps(maps, address, end) == [(address, end)]:
            libc = _libc()
            decoy = end + _ALIGN  # a placeholder between the decoy and the range keeps them two gaps
            placed = _place(libc, [*free_gaps(maps, end, decoy), *free_gaps(maps, decoy + DECOY_BYTES, top)])
    except (OSError, ValueError, IndexError, AttributeError) as exc:
        _log.debug("cuda.coop: cannot place NVRTC's PCH heap at %#x: %s", address, exc)
    try:
        map_heap()
    finally:
        if libc is not None:
            for start, stop in placed:
                libc.munmap(start, stop - start)
    if not placed:
        return False
    with contextlib.suppress(OSError):
        if mapped(_maps(maps_path), address, end):
            return True
    _log.debug("cuda.coop: NVRTC's PCH heap did not land at %#x", address)
    return False

