"""Block copy to shared memory (``cub::detail::BlockLoadToShared``): public stub; spec in
``_specs/block_load_to_shared``."""

from __future__ import annotations

from typing import Any

from .._dsl._primitive import primitive

__all__ = ["load_to_shared"]


@primitive("block_load_to_shared", "load_to_shared", module="block")
def load_to_shared(
    src: Any, dst: Any, *, offset: int = 0, valid_items: Any = None, items_per_thread: int
) -> None:
    """Copy the block's tile, ``src[offset : offset + tile]`` (``tile = block_threads * items_per_thread``, as for
    :func:`cuda.coop.block.load`), into the shared array ``dst[0 : tile]``, and wait for it: after the call every
    thread of the block reads the items in ``dst``, with no ``cuda.syncthreads()`` of yours.

    With ``valid_items`` only the tile's first ``valid_items`` items are copied; ``dst`` past them keeps what it
    held. ``dst`` is a whole ``cuda.shared.array(n, dtype, alignment=16)`` of at least ``tile`` items; ``src[offset]``
    is at an address that is a multiple of 16 bytes. Before the call, no thread may still read ``dst``'s earlier
    contents: a ``cuda.syncthreads()`` between those reads and the call (a loop over tiles needs one).
    ``cub::detail`` has no stability promise between CCCL releases: the bundled CCCL 3.6 is pinned by the tests.

    The copy and the wait are one call. A form that starts the copy and waits later, computing meanwhile, is not
    offered: CUB's copy keeps a barrier in the temporary storage until the wait, and that storage is the one the
    kernel's other block calls share, so nothing could run in between; and the wait must come exactly once, on every
    path, before any thread reads ``dst`` (CUB enforces it in C++ with a move-only token), which cuda-coop cannot check
    in a Python kernel.
    """
