"""``cub::BlockRadixSort``: sort a tile of keys (and values) by their bits.

Keys sort by CUB's radix order: integers numerically, floating-point keys by their bit pattern made
order-preserving (negative values before positive ones; -0.0 and +0.0 compare equal; NaNs after
+inf, or before -inf when the sign bit is set). The sort is stable. ``begin_bit``/``end_bit`` restrict
the bits that are compared (``[begin_bit, end_bit)``), e.g. to sort by a key's low byte only.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, ITEMS_PER_THREAD, array
from ._model import (
    ArgKind,
    CubEnum,
    Method,
    Overload,
    Param,
    PrimitiveSpec,
    Scope,
    TemplateParam,
    TParamKind,
)
from ._registry import register_primitive
from ._types import NONE_TYPE
from .block_scan import BlockScanAlgorithm

__all__ = ["BLOCK_RADIX_SORT", "SortOutput"]


class SortOutput(CubEnum):
    """The arrangement of the sorted tile in the threads' arrays."""

    SORT_OUTPUT_BLOCKED = (
        "Thread t holds sorted positions t*N .. t*N+N-1 (``Sort``/``SortDescending``).",
        "One more exchange through shared memory than striped output.",
    )
    SORT_OUTPUT_STRIPED = (
        "Thread t holds sorted positions t, t + block_threads, ... (``SortBlockedToStriped``), ready for a "
        "coalesced striped store.",
        "Saves the final exchange of blocked output; the store must be striped.",
    )

    @classmethod
    def _cpp_scope(cls) -> str:
        return "cuda_coop::"  # never rendered: it picks the member function


KEY_TYPE = TemplateParam(
    name="dtype", cpp="KeyT", kind=TParamKind.TYPE, kinds=("int", "uint", "float"), doc="Type of the keys."
)
VALUE_TYPE = TemplateParam(
    name="value_type",
    cpp="ValueT",
    kind=TParamKind.TYPE,
    optional=True,
    default=NONE_TYPE,
    doc="Type of the values sorted with the keys (none for a keys-only sort).",
)
RADIX_BITS = TemplateParam(
    name="radix_bits", cpp="RadixBits", kind=TParamKind.INT, optional=True, default=4,
    doc="Bits sorted per pass (CUB's default 4).",
)
DESCENDING = TemplateParam(
    name="descending", cpp="SortDescending", kind=TParamKind.BOOL, optional=True, default=False,
    doc="Sort from the largest key to the smallest.",
)
OUTPUT = TemplateParam(
    name="output", cpp="SortBlockedToStriped", kind=TParamKind.ENUM, enum=SortOutput, optional=True,
    default=SortOutput.SORT_OUTPUT_BLOCKED, doc="``\"blocked\"`` or ``\"striped\"`` arrangement of the result.",
)
MEMOIZE_OUTER_SCAN = TemplateParam(
    name="memoize_outer_scan", cpp="MemoizeOuterScan", kind=TParamKind.BOOL, optional=True, default=True,
    doc="Keep the outer scan's partials in registers between passes (CUB's default).",
)
INNER_SCAN_ALGORITHM = TemplateParam(
    name="inner_scan_algorithm", cpp="InnerScanAlgorithm", kind=TParamKind.ENUM, enum=BlockScanAlgorithm,
    optional=True, default=BlockScanAlgorithm.BLOCK_SCAN_WARP_SCANS,
    doc="The block scan that ranks the digits (see coop.block.exclusive_sum's algorithms).",
)


class SharedMemConfig(CubEnum):
    """``cudaSharedMemConfig``: CUDA's (deprecated) shared-memory bank size preference."""

    cudaSharedMemBankSizeFourByte = ("Four-byte banks (CUB's default).", "No effect since Volta.")

    @classmethod
    def _cpp_scope(cls) -> str:
        return ""


SMEM_CONFIG = TemplateParam(
    name="smem_config", cpp="SMemConfig", kind=TParamKind.ENUM, enum=SharedMemConfig, optional=True,
    default=SharedMemConfig.cudaSharedMemBankSizeFourByte, public=False, doc="Bank size preference (no effect).",
)
_KEYS = array("keys", inout=True, doc="This thread's keys, a ``cuda.local.array(N, dtype)``; sorted in place.")
_VALUES = array(
    "values", "value_type", inout=True,
    doc="This thread's values (a ``cuda.local.array(N, <type>)``), moved with their keys.",
)
_BEGIN = Param(
    name="begin_bit", kind=ArgKind.SCALAR, type="int32", default=0, bounds=(0, "bits(dtype)"),
    doc="Least significant key bit compared (default 0).",
)
_END = Param(
    name="end_bit", kind=ArgKind.SCALAR, type="int32", default="bits(dtype)", bounds=(0, "bits(dtype)"),
    doc="One past the most significant key bit compared (default: all the key's bits).",
)
_TPARAMS = (ITEMS_PER_THREAD, DESCENDING, OUTPUT)

BLOCK_RADIX_SORT = register_primitive(
    PrimitiveSpec(
        name="block_radix_sort",
        cub_class="cub::BlockRadixSort",
        header="cub/block/block_radix_sort.cuh",
        scope=Scope.BLOCK,
        tparams=(
            KEY_TYPE,
            BLOCK_DIMS[0],
            ITEMS_PER_THREAD,
            VALUE_TYPE,
            RADIX_BITS,
            MEMOIZE_OUTER_SCAN,
            INNER_SCAN_ALGORITHM,
            SMEM_CONFIG,
            BLOCK_DIMS[1],
            BLOCK_DIMS[2],
        ),
        methods=(
            Method(
                name="radix_sort",
                cpp="Sort{descending}{output}",
                choices={
                    "descending": {False: "", True: "Descending"},
                    "output": {SortOutput.SORT_OUTPUT_BLOCKED: "", SortOutput.SORT_OUTPUT_STRIPED: "BlockedToStriped"},
                },
                overloads=(
                    Overload(name="keys", params=(_KEYS, _BEGIN, _END), tparams=_TPARAMS),
                    Overload(name="pairs", params=(_KEYS, _VALUES, _BEGIN, _END), tparams=_TPARAMS),
                ),
                doc="Sort the block's tile of keys (and values).",
            ),
        ),
        doc="Block-wide radix sort (``cub::BlockRadixSort``) of per-thread arrays.",
        example="block_radix_sort",
    )
)
