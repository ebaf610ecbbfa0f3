"""``cuda_coop::BlockLoadToShared``: a block copies a tile from global to shared memory, waits for it, and is done; a
cuda-coop composition of ``cub::detail::BlockLoadToShared``.

The tile is ``block_threads * items_per_thread`` items (``coop.block.load``'s tile), ``src[offset:]`` into ``dst[0:]``;
with ``valid_items`` only its first that many items (``dst`` past them is not written). One call copies, commits and
waits (CUB's ``CopyAsync``, ``CommitAndWait``), then invalidates CUB's barrier so that the temporary storage is free
for the next call (``Invalidate``). When it returns, every thread of the block sees the items in ``dst``.

``cub::detail`` is CUB's internal namespace: CCCL gives it no stability promise between releases. cuda-coop ships the
CCCL it was tested with (3.6), and the compile tier pins what this composition uses (the declarations and their
signatures, ``bulk_copy_min_align`` of 16, the buffer size and alignment rules), so a CCCL that changes them turns it
red. What the bundled 3.6 does (``cub/block/block_load_to_shared.cuh``):

- sm_90 and later: one elected thread of the block's last warp issues one ``cp.async.bulk`` (the TMA unit's bulk copy,
  no tensor map) of the whole aligned part into shared memory, tracked by an ``mbarrier`` in the temporary storage
  (8 bytes); the block waits on the barrier;
- sm_80 to sm_89: every thread issues 16-byte ``cp.async`` copies (LDGSTS), then ``cp.async.wait_group 0`` and a
  block barrier;
- before sm_80: 16-byte vector loads and stores through registers, then a block barrier.

Every path copies whole 16-byte chunks from 16-byte-aligned addresses (``bulk_copy_min_align``): this composition
hands CUB the tile's largest prefix of whole chunks with ``GmemAlign`` = 16, so ``dst`` needs no room past the tile and
the items land at ``dst[0]``; the last ``tile_bytes % 16`` bytes (fewer than 16 / item size items) are copied by as
many threads, one item each, before the commit's barrier. Hence the contracts: ``src[offset]`` and ``dst[0]`` at
16-byte-aligned addresses, and a block of whole warps (CUB elects its copying thread in the last warp with a full
mask).
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, ITEMS_PER_THREAD, count
from ._model import (
    ArgKind,
    Binding,
    Constraint,
    Method,
    Overload,
    Param,
    PrimitiveSpec,
    Scope,
    TemplateParam,
    TParamKind,
)
from ._registry import register_primitive

__all__ = ["ALIGN", "BLOCK_LOAD_TO_SHARED"]

ALIGN = 16
"""``cub::detail::bulk_copy_min_align``: the alignment of the chunks every path copies (the compile tier pins it)."""
MAX_TILE_BYTES = 227 * 1024
"""The most shared memory one block can have (sm_90's 227 KiB): a larger tile cannot fit any ``dst``."""

ITEM_TYPE = TemplateParam(
    name="dtype", cpp="T", kind=TParamKind.TYPE, kinds=("int", "uint", "float", "complex"),
    doc="Type of the items: any integer, float or complex type (1, 2, 4, 8 or 16 bytes: a divisor of the 16-byte "
    "chunks CUB copies).",
)

_SRC = Param(
    name="src", kind=ArgKind.POINTER, type="dtype", const=True, offset="offset", spaces=("global",), align=ALIGN,
    min_extent="min(valid_items, tile)", uniform=True,
    doc="A 1-D C-contiguous global array (a kernel argument, or a slice of one); the tile starts at ``src[offset]``, "
    "whose address must be a multiple of 16 bytes: an array from the device allocator starts at one, so ``offset`` a "
    "multiple of 16 / item size items (a constant offset that is not is refused; a runtime one is your precondition).",
)
_DST = Param(
    name="dst", kind=ArgKind.POINTER, type="dtype", spaces=("shared",), align=ALIGN, min_extent="tile",
    uniform=True,
    doc="The ``cuda.shared.array(n, dtype, alignment=16)`` receiving the tile in ``dst[0 : tile]``: a whole one, of at "
    "least ``tile`` items, declared with ``alignment=16`` (or more).",
)
_VALID = count(
    "tile",
    "Copy only the tile's first ``valid_items`` items (``dst`` past them is not written); any value at or above the "
    "tile size means the whole tile, 0 or less none.",
)


def _whole_warps(b: Binding) -> bool:
    return b.block_threads % 32 == 0


def _fits(b: Binding) -> bool:
    return b.block_threads * int(b.values["items_per_thread"]) * b.type_of("dtype").size <= MAX_TILE_BYTES



BLOCK_LOAD_TO_SHARED = register_primitive(
    PrimitiveSpec(
        name="block_load_to_shared",
        cub_class="cuda_coop::BlockLoadToShared",
        header="cuda_coop/block_load_to_shared.cuh",
        scope=Scope.BLOCK,
        tparams=(ITEM_TYPE, BLOCK_DIMS[0], ITEMS_PER_THREAD, BLOCK_DIMS[1], BLOCK_DIMS[2]),
        methods=(
            Method(
                name="load_to_shared",
                cpp="LoadToShared",
                overloads=(
                    Overload(name="full", params=(_SRC, _DST)),
                    Overload(name="guarded", params=(_SRC, _DST, _VALID), tparams=(COUNT_TYPE,)),
                ),
                doc="Copy the block's tile from global memory into a shared array and wait for it.",
            ),
        ),
        constraints=(
            Constraint(
                check=_whole_warps,
                message="{primitive}: the block {block_dim} has {block_threads} threads, but CUB's copy to shared "
                "memory needs whole warps (it elects its copying thread in the last warp); use a block of a multiple "
                "of 32 threads, or coop.block.load and coop.block.store into the shared array",
            ),
            Constraint(
                check=_fits,
                message="{primitive}: a tile of {block_threads} threads x items_per_thread={items_per_thread} items of "
                "{dtype} is more than the 227 KiB of shared memory a block can have; use fewer items per thread",
            ),
        ),
        preamble=False,  # CCCL 3.6's cub/block/block_load_to_shared.cuh: after the version check, where used
        doc="Block-wide copy of a tile from global to shared memory (``cub::detail::BlockLoadToShared``: bulk copy on "
        "sm_90, ``cp.async`` on sm_80, 16-byte loads and stores before). ``cub::detail`` is CUB's internal namespace, "
        "with no stability promise between CCCL releases: cuda-coop ships the CCCL it was tested with (3.6), and its "
        "tests pin the declarations and behaviour this family uses.",
        example="block_load_to_shared",
    )
)
