"""``cub::BlockRadixSort``: sort a tile of keys (and values) by their bits.

Key order (read from CUB 3.6: ``cub::Traits<T>::TwiddleIn`` in ``cub/util_type.cuh`` and
``BaseDigitExtractor::ProcessFloatMinusZero`` in ``cub/block/radix_rank_sort_operations.cuh``). Before the
passes CUB maps each key to an unsigned "bit-ordered" integer of the same width and sorts those:

- unsigned integers: the bits themselves (numeric order);
- signed integers: the sign bit flipped (numeric order, negatives first);
- float16/bfloat16/float32/float64: all bits flipped when the sign bit is set, else only the sign bit.
  Ascending, that is ``-NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN``: a NaN sorts by its sign
  bit and payload (a NaN with the sign bit set before -inf, one without after +inf; NaNs of one sign ordered by payload,
  the sign-set ones with the larger payload first). -0.0 and +0.0 are one key: the digit extractor reads
  -0.0 as +0.0, so the two keep their input order (the sort is stable) and each keeps its own sign.
  Descending is exactly the reverse order, ties still in input order.

``begin_bit``/``end_bit`` select bits ``[begin_bit, end_bit)`` of that bit-ordered form (for signed
integers and floats the top bit is the flipped sign bit; for a negative float every bit is flipped).
CUB runs ``ceil((end_bit - begin_bit) / radix_bits)`` passes and at least one: ``begin_bit == end_bit``
compares nothing and leaves the tile in input order (still rearranged to ``output``);
``begin_bit > end_bit`` is undefined in CUB (a negative digit width): constants are refused, runtime
values must not be passed.
float16/bfloat16 (``__half``/``__nv_bfloat16``) keys use the float rule above on their 16 bits
(``NumericTraits<__half>``/``NumericTraits<__nv_bfloat16>`` are ``BaseTraits<FLOATING_POINT, true, unsigned
short, T>``, and ``cuda::is_floating_point_v`` holds for both, so -0.0 is read as +0.0 too);
tests/gpu/test_radix_sort_half.py checks every class of bit pattern on the GPU.
"""

from __future__ import annotations

from ._common import BLOCK_DIMS, COUNT_TYPE, ITEMS_PER_THREAD, array, count
from ._model import (
    ArgKind,
    Binding,
    Constraint,
    CubEnum,
    Method,
    Overload,
    Pad,
    Param,
    PrimitiveSpec,
    Scope,
    TemplateParam,
    TParamKind,
)
from ._registry import register_primitive
from ._types import NONE_TYPE
from .block_scan import BlockScanAlgorithm

__all__ = [
    "BEGIN_BIT",
    "BIT_TYPE",
    "BLOCK_RADIX_SORT",
    "DESCENDING",
    "END_BIT",
    "INNER_SCAN_ALGORITHM",
    "KEY_ORDER_DOC",
    "KEY_TYPE",
    "MAX_RADIX_BITS",
    "MEMOIZE_OUTER_SCAN",
    "OUTPUT",
    "RADIX_BITS",
    "SHARED_BYTES",
    "SORT_CONSTRAINTS",
    "SortOutput",
    "partial_tile",
    "sort_storage_bytes",
    "storage_constraint",
]

KEY_ORDER_DOC = (
    "Keys sort in CUB's radix order: integers numerically; floats as -NaN < -inf < ... < -0.0 == +0.0 < ... < "
    "+inf < +NaN (a NaN goes by its sign bit; -0.0 and +0.0 tie and keep their input order and their signs). "
    "The sort is stable, descending too."
)


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
    name="dtype", cpp="KeyT", kind=TParamKind.TYPE, kinds=("int", "uint", "float"),
    doc="Type of the keys: any integer type, float16, bfloat16, float32 or float64.",
)
VALUE_TYPE = TemplateParam(
    name="value_type",
    cpp="ValueT",
    kind=TParamKind.TYPE,
    optional=True,
    default=NONE_TYPE,
    doc="Type of the values sorted with the keys (none for a keys-only sort).",
)
MAX_RADIX_BITS = 16
"""The widest digit a sort or rank takes: with more bits, CUB's digit counters alone (``2**radix_bits`` of them, per
thread or per warp) exceed any GPU's shared memory, so no configuration could compile; the storage constraints
refuse the narrower ones that do not fit either."""
RADIX_BITS = TemplateParam(
    name="radix_bits", cpp="RadixBits", kind=TParamKind.INT, optional=True, default=4, bounds=(1, MAX_RADIX_BITS),
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
    doc="This thread's values (a ``cuda.local.array(N, <type>)`` of any dtype), moved with their keys.",
)
BIT_TYPE = TemplateParam(
    name="bit_type", cpp="(int)", kind=TParamKind.TYPE, optional=True, default="int32", kinds=("int", "uint"),
    doc="Integer type of begin_bit/end_bit as the kernel passes them (CUB takes an int).",
)
BEGIN_BIT = Param(
    name="begin_bit", kind=ArgKind.SCALAR, type="bit_type", default=0, bounds=(0, "bits(dtype)"), uniform=True,
    doc="Least significant bit of the bit-ordered key that is compared (default 0); an integer.",
)
END_BIT = Param(
    name="end_bit", kind=ArgKind.SCALAR, type="bit_type", default="bits(dtype)", bounds=(0, "bits(dtype)"),
    at_least="begin_bit", uniform=True,
    doc="One past the most significant bit compared (default: all the key's bits); an integer of the same "
    "type as ``begin_bit`` when both are given, never below ``begin_bit`` (``begin_bit == end_bit`` leaves "
    "the tile in input order).",
)
_TPARAMS = (ITEMS_PER_THREAD, DESCENDING, OUTPUT, BIT_TYPE)

PARTIAL_DOC = (
    "Any value at or above the tile size means the whole tile, 0 or less none. CUB's class sorts whole tiles: "
    "before it runs, the keys past the count are replaced by the key that sorts after every valid one in CUB's "
    "order (all bits set in the bit-ordered form, all clear for a descending order), so the valid keys keep "
    "their order among equals."
)


def partial_tile(
    what: str,
    *,
    limit: str = "tile",
    descending: str | None = "descending",
    limits: tuple[str, ...] = (),
    warp_striped: tuple[CubEnum, ...] = (),
    type_: str = "count_type",
) -> Param:
    """``valid_items`` of a sort or rank of ``keys`` (``what`` says what it does): a count the wrapper honours by
    padding the keys (``Param.pad``, ``_pad``), clamped to [0, ``limit``]."""
    pad = Pad(array="keys", descending=descending, limits=limits, warp_striped=warp_striped)
    return count(limit, f"{what} {PARTIAL_DOC}", pad=pad, type_=type_)


_VALID = partial_tile(
    "Sort only the tile's first ``valid_items`` keys (blocked positions ``t*N + i``) into the first ``valid_items`` "
    "positions of the result (in the ``output`` arrangement); the later positions hold unspecified keys and values."
)

SHARED_BYTES = 48 * 1024


def sort_storage_bytes(b: Binding, value_ref: str = "value_type") -> int:
    """A lower bound of ``BlockRadixSort``'s TempStorage in bytes (exact for its exchange part).

    The storage is the union of BlockExchange of the keys and of the values (``(tile + padding) * size``,
    padding one item per 32 when N > 4 is a power of two) and BlockRadixRank (``(2**max(radix_bits-1, 0) + 1)``
    packed 4-byte counters per thread, plus a small block scan this bound leaves out).
    """
    n, threads = int(b.values["items_per_thread"]), b.block_threads
    tile = threads * n
    pad = tile >> 5 if n > 4 and n & (n - 1) == 0 else 0
    sizes = [b.type_of("dtype").size]
    value = b.values.get(value_ref)
    if value is not None and value is not NONE_TYPE:
        sizes.append(b.type_of(value_ref).size)
    lanes = 1 << max(int(b.values["radix_bits"]) - 1, 0)
    return max((tile + pad) * max(sizes), (lanes + 1) * threads * 4)


def storage_constraint(value_ref: str) -> Constraint:
    """The tile's sort storage (``sort_storage_bytes``) fits the 48 KiB a block may have."""

    def check(b: Binding) -> bool:
        return sort_storage_bytes(b, value_ref) <= SHARED_BYTES

    return Constraint(
        check=check,
        message="{primitive}: a tile of {block_threads} threads x items_per_thread={items_per_thread} keys of "
        "{dtype} and their values, with radix_bits={radix_bits}, needs more than the 48 KiB of shared "
        "memory a block may have for the sort's exchanges and digit counters; use fewer items per "
        "thread, a smaller block, narrower keys/values or fewer radix_bits",
    )


SORT_CONSTRAINTS: tuple[Constraint, ...] = ()
"""Constraints every radix-sort family shares on its keys: none (CUB sorts every integer and float type the
DSL has, float16 and bfloat16 included); kept so that the families still take one tuple."""

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
                    Overload(name="keys", params=(_KEYS, BEGIN_BIT, END_BIT), tparams=_TPARAMS),
                    Overload(name="pairs", params=(_KEYS, _VALUES, BEGIN_BIT, END_BIT), tparams=_TPARAMS),
                    Overload(
                        name="keys_valid", params=(_KEYS, BEGIN_BIT, END_BIT, _VALID), tparams=(*_TPARAMS, COUNT_TYPE)
                    ),
                    Overload(
                        name="pairs_valid",
                        params=(_KEYS, _VALUES, BEGIN_BIT, END_BIT, _VALID),
                        tparams=(*_TPARAMS, COUNT_TYPE),
                    ),
                ),
                doc="Sort the block's tile of keys (and values). " + KEY_ORDER_DOC,
            ),
        ),
        constraints=(*SORT_CONSTRAINTS, storage_constraint("value_type")),
        doc="Block-wide radix sort (``cub::BlockRadixSort``) of per-thread arrays. " + KEY_ORDER_DOC,
        example="block_radix_sort",
    )
)
