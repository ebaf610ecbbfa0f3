"""Specs of further CUB collectives, registered only inside tests.

They show that the spec format takes the rest of CUB without special cases in the renderer:
optional type parameters defaulting to ``cub::NullType``, bool and non-``cub::`` enum template
parameters, constructor arguments (one of them an output), operators returning ``bool``, pointers
to counters of another type, and method-level type parameters.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from cuda.coop._specs import (
    NONE_TYPE,
    ArgKind,
    BlockScanAlgorithm,
    Constraint,
    CubEnum,
    Method,
    Overload,
    Param,
    PrimitiveSpec,
    Request,
    Scope,
    TemplateParam,
    TParamKind,
    UserOp,
    register_primitive,
)
from cuda.coop._specs._common import BLOCK_DIMS, DTYPE, ITEMS_PER_THREAD, array, op, out_array, output, scalar
from cuda.coop._specs._registry import _REGISTRY, _registering_for_tests


class SharedMemConfig(CubEnum):
    """``cudaSharedMemConfig`` (a CUDA runtime enum, not in ``cub::``)."""

    cudaSharedMemBankSizeDefault = ("The device's default bank size.", "None.")
    cudaSharedMemBankSizeFourByte = ("Four-byte banks.", "None.")
    cudaSharedMemBankSizeEightByte = ("Eight-byte banks.", "None.")

    @classmethod
    def _cpp_scope(cls) -> str:
        return ""


class BlockHistogramAlgorithm(CubEnum):
    """``cub::BlockHistogramAlgorithm``."""

    BLOCK_HISTO_SORT = ("Sort, then count run lengths.", "Good for many bins.")
    BLOCK_HISTO_ATOMIC = ("Shared-memory atomics.", "Good for few bins and little contention.")


def _t(name: str, cpp: str, kind: TParamKind, doc: str = "", **kw: object) -> TemplateParam:
    return TemplateParam(name=name, cpp=cpp, kind=kind, doc=doc or name, **kw)  # type: ignore[arg-type]


KEY = _t("key_dtype", "KeyT", TParamKind.TYPE)
VALUE = _t("value_dtype", "ValueT", TParamKind.TYPE, optional=True, default=NONE_TYPE)


def _sort_overloads() -> tuple[Overload, ...]:
    keys = array("keys", "key_dtype", inout=True)
    return (
        Overload(name="keys", params=(keys,)),
        Overload(name="keys_bits", params=(keys, scalar("begin_bit", "int32"), scalar("end_bit", "int32"))),
        Overload(name="pairs", params=(keys, array("values", "value_dtype", inout=True))),
    )


def _pairs_need_values(b: object) -> bool:
    return b.overload.name != "pairs" or b.values["value_dtype"] is not NONE_TYPE  # type: ignore[attr-defined]


BLOCK_RADIX_SORT = PrimitiveSpec(
    name="extra_radix_sort",
    cub_class="cub::BlockRadixSort",
    header="cub/block/block_radix_sort.cuh",
    scope=Scope.BLOCK,
    tparams=(
        KEY,
        BLOCK_DIMS[0],
        ITEMS_PER_THREAD,
        VALUE,
        _t("radix_bits", "RadixBits", TParamKind.INT, optional=True, default=4),
        _t("memoize_outer_scan", "MemoizeOuterScan", TParamKind.BOOL, optional=True, default=True),
        _t(
            "inner_scan_algorithm",
            "InnerScanAlgorithm",
            TParamKind.ENUM,
            enum=BlockScanAlgorithm,
            optional=True,
            default=BlockScanAlgorithm.BLOCK_SCAN_WARP_SCANS,
        ),
        _t(
            "smem_config",
            "SMemConfig",
            TParamKind.ENUM,
            enum=SharedMemConfig,
            optional=True,
            default=SharedMemConfig.cudaSharedMemBankSizeFourByte,
        ),
        BLOCK_DIMS[1],
        BLOCK_DIMS[2],
    ),
    methods=(
        Method(name="sort", cpp="Sort", overloads=_sort_overloads()),
        Method(name="sort_descending", cpp="SortDescending", overloads=_sort_overloads()),
    ),
    constraints=(Constraint(check=_pairs_need_values, message="sorting pairs needs value_dtype"),),
)

BLOCK_RUN_LENGTH_DECODE = PrimitiveSpec(
    name="block_run_length_decode",
    cub_class="cub::BlockRunLengthDecode",
    header="cub/block/block_run_length_decode.cuh",
    scope=Scope.BLOCK,
    tparams=(
        DTYPE,
        BLOCK_DIMS[0],
        _t("runs_per_thread", "RunsPerThread", TParamKind.INT),
        _t("decoded_items_per_thread", "DecodedItemsPerThread", TParamKind.INT),
        _t("offset_dtype", "DecodedOffsetT", TParamKind.TYPE, optional=True, default="uint32"),
        BLOCK_DIMS[1],
        BLOCK_DIMS[2],
    ),
    methods=(
        Method(
            name="run_length_decode",
            cpp="RunLengthDecode",
            overloads=(
                Overload(
                    name="lengths",
                    ctor_params=(
                        array("run_values", extent="runs_per_thread"),
                        array("run_lengths", "uint32", extent="runs_per_thread"),
                        output("total_decoded_size", "uint32"),
                    ),
                    params=(
                        out_array("decoded_items", extent="decoded_items_per_thread"),
                        scalar("from_decoded_offset", "offset_dtype"),
                    ),
                ),
            ),
        ),
    ),
)

BLOCK_DISCONTINUITY = PrimitiveSpec(
    name="block_discontinuity",
    cub_class="cub::BlockDiscontinuity",
    header="cub/block/block_discontinuity.cuh",
    scope=Scope.BLOCK,
    tparams=(DTYPE, *BLOCK_DIMS),
    methods=(
        Method(
            name="flag_heads",
            cpp="FlagHeads",
            overloads=tuple(
                Overload(
                    name=name,
                    params=(
                        out_array("head_flags", "flag_dtype"),
                        array("input"),
                        op("flag_op", returns="bool"),
                        *extra,
                    ),
                    tparams=(
                        ITEMS_PER_THREAD,
                        _t("flag_dtype", "FlagT", TParamKind.TYPE, optional=True, default="int32"),
                    ),
                )
                for name, extra in (("tile", ()), ("predecessor", (scalar("tile_predecessor_item"),)))
            ),
        ),
    ),
)

_COUNTERS = Param(
    name="histogram", kind=ArgKind.POINTER, type="counter_dtype", min_extent="bins", doc="Bins counters."
)
_COUNTER_T = _t("counter_dtype", "CounterT", TParamKind.TYPE)

BLOCK_HISTOGRAM = PrimitiveSpec(
    name="block_histogram",
    cub_class="cub::BlockHistogram",
    header="cub/block/block_histogram.cuh",
    scope=Scope.BLOCK,
    tparams=(
        DTYPE,
        BLOCK_DIMS[0],
        ITEMS_PER_THREAD,
        _t("bins", "Bins", TParamKind.INT),
        _t(
            "algorithm",
            "Algorithm",
            TParamKind.ENUM,
            enum=BlockHistogramAlgorithm,
            optional=True,
            default=BlockHistogramAlgorithm.BLOCK_HISTO_SORT,
        ),
        BLOCK_DIMS[1],
        BLOCK_DIMS[2],
    ),
    algorithm=BlockHistogramAlgorithm,
    methods=(
        Method(
            name="init_histogram",
            cpp="InitHistogram",
            overloads=(Overload(name="default", params=(_COUNTERS,), tparams=(_COUNTER_T,)),),
        ),
        Method(
            name="histogram",
            cpp="Histogram",
            overloads=(Overload(name="default", params=(array("items"), _COUNTERS), tparams=(_COUNTER_T,)),),
        ),
    ),
)


def extra_requests() -> list[Request]:
    """One call site of each extra spec's methods (register them first)."""
    return [
        Request("extra_radix_sort", "sort", "keys_bits", key_dtype="uint32", items_per_thread=4),
        Request(
            "extra_radix_sort",
            "sort_descending",
            "pairs",
            key_dtype="float32",
            value_dtype="int32",
            items_per_thread=4,
            memoize_outer_scan=False,
            inner_scan_algorithm="raking",
        ),
        Request(
            "block_run_length_decode",
            "run_length_decode",
            "lengths",
            dtype="int16",
            runs_per_thread=2,
            decoded_items_per_thread=4,
        ),
        Request(
            "block_discontinuity",
            "flag_heads",
            "predecessor",
            dtype="int32",
            items_per_thread=4,
            flag_op="!=",
            flag_dtype="bool",
        ),
        Request(
            "block_discontinuity",
            "flag_heads",
            "tile",
            dtype="float32",
            items_per_thread=4,
            flag_op=UserOp("close_enough"),
        ),
        Request(
            "block_histogram",
            "init_histogram",
            "default",
            dtype="uint8",
            items_per_thread=4,
            bins=256,
            counter_dtype="uint32",
        ),
        Request(
            "block_histogram",
            "histogram",
            "default",
            dtype="uint8",
            items_per_thread=4,
            bins=256,
            counter_dtype="uint32",
            algorithm="BLOCK_HISTO_ATOMIC",
        ),
    ]


EXTRA_SPECS = (BLOCK_RADIX_SORT, BLOCK_RUN_LENGTH_DECODE, BLOCK_DISCONTINUITY, BLOCK_HISTOGRAM)


@contextlib.contextmanager
def registered_extra_specs() -> Iterator[None]:
    """The extra specs are registered inside the block and removed on exit (a shipped spec of the same name,
    e.g. ``block_discontinuity``, gives way to the test's inside the block and is back afterwards)."""
    with _registering_for_tests():
        for spec in EXTRA_SPECS:
            _REGISTRY.pop(spec.name, None)
            register_primitive(spec)
        yield
