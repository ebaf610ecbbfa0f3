"""``cub::BlockRunLengthDecode``: a block expands runs (value, length) into windows of decoded items.

CUB's collective is constructed from the runs (its constructor scans their lengths into offsets and
stages the runs in shared memory) and then decodes one window per ``RunLengthDecode`` call. Here one call
does both: it takes the runs and a window offset and returns that window, so a loop over windows
re-stages the runs each time (a block scan and a barrier) but needs no object that outlives a call.
"""

from __future__ import annotations

from itertools import product

from ._common import BLOCK_DIMS, array, out_array, scalar
from ._model import (
    MAX_ITEMS_PER_THREAD,
    ArgKind,
    Method,
    Overload,
    Param,
    PrimitiveSpec,
    Scope,
    TemplateParam,
    TParamKind,
)
from ._registry import register_primitive

__all__ = ["BLOCK_RUN_LENGTH_DECODE"]


def _type(name: str, cpp: str, doc: str, **kw: object) -> TemplateParam:
    return TemplateParam(name=name, cpp=cpp, kind=TParamKind.TYPE, kinds=("int", "uint"), doc=doc, **kw)  # type: ignore[arg-type]


ITEM_TYPE = TemplateParam(name="dtype", cpp="ItemT", kind=TParamKind.TYPE, doc="Data type of the run values.")
RUNS_PER_THREAD = TemplateParam(
    name="runs_per_thread",
    cpp="RunsPerThread",
    kind=TParamKind.INT,
    bounds=(1, MAX_ITEMS_PER_THREAD),
    doc="Number of consecutive runs each thread contributes (the extent of ``run_values``).",
)
DECODED_ITEMS_PER_THREAD = TemplateParam(
    name="decoded_items_per_thread",
    cpp="DecodedItemsPerThread",
    kind=TParamKind.INT,
    bounds=(1, MAX_ITEMS_PER_THREAD),
    doc="Number of decoded items each thread receives per window (the extent of ``decoded_items``); a "
    "window holds block_threads * decoded_items_per_thread items.",
)
DECODED_OFFSET_TYPE = _type(
    "decoded_offset_type",
    "DecodedOffsetT",
    "Integer type of positions in the decoded sequence (``total_decoded_size``, ``window_offset``); it must "
    "hold the sum of all run lengths. Taken from ``total_decoded_size`` (else ``window_offset``); default uint32.",
    optional=True,
    default="uint32",
)
RUN_LENGTH_TYPE = _type("run_length_type", "RunLengthT", "Integer type of the run lengths, taken from ``run_lengths``.")
RUN_OFFSET_TYPE = _type(
    "run_offset_type", "UserRunOffsetT", "Integer type of the run offsets, taken from ``run_offsets``."
)
RELATIVE_OFFSET_TYPE = _type(
    "relative_offset_type", "RelativeOffsetT", "Integer type of ``relative_offsets``, taken from that array."
)

_RUN_VALUES = array(
    "run_values", extent="runs_per_thread", doc="This thread's run values (a ``cuda.local.array``), blocked order."
)
_RUN_LENGTHS = array(
    "run_lengths",
    "run_length_type",
    extent="runs_per_thread",
    doc="The lengths of this thread's runs (a ``cuda.local.array`` of integers). Runs of length 0 may only "
    "come last in the block (after them, every run must have length 0).",
)
_RUN_OFFSETS = array(
    "run_offsets",
    "run_offset_type",
    extent="runs_per_thread",
    doc="Instead of ``run_lengths``: where each of this thread's runs starts in the decoded sequence "
    "(the exclusive prefix sum of the lengths; non-decreasing across the block).",
)
_TOTAL = Param(
    name="total_decoded_size",
    kind=ArgKind.AGGREGATE,
    type="decoded_offset_type",
    doc="With ``run_lengths``: a ``cuda.local.array(1, int type)`` that receives the sum of all the block's "
    "run lengths, the same in every thread (loop over windows while ``window_offset < total_decoded_size[0]``).",
)
_DECODED = out_array(
    "decoded_items",
    extent="decoded_items_per_thread",
    doc="Receives this thread's decoded items of the window, blocked order: item ``i`` is position "
    "``window_offset + linear_thread_id * decoded_items_per_thread + i`` of the decoded sequence. Positions "
    "at or past the total size are not valid (they repeat the last run).",
)
_RELATIVE = array(
    "relative_offsets",
    "relative_offset_type",
    extent="decoded_items_per_thread",
    inout=True,
    doc="Optional: a ``cuda.local.array`` that receives each decoded item's index within its run.",
)
_WINDOW = scalar(
    "window_offset",
    "decoded_offset_type",
    uniform=True,
    bounds=(0, 2**63 - 1),
    doc="Position in the decoded sequence where the window starts (default 0): 0, then steps of "
    "block_threads * decoded_items_per_thread; it must not exceed the total size.",
)


def _overloads() -> tuple[Overload, ...]:
    ctors = {"lengths": (_RUN_VALUES, _RUN_LENGTHS, _TOTAL), "offsets": (_RUN_VALUES, _RUN_OFFSETS)}
    tparams = {"lengths": (RUN_LENGTH_TYPE,), "offsets": (RUN_OFFSET_TYPE,)}
    result = []
    for (ctor, ctor_params), relative, window in product(ctors.items(), (False, True), (False, True)):
        params = (_DECODED, *((_RELATIVE,) if relative else ()), *((_WINDOW,) if window else ()))
        name = ctor + ("_relative" if relative else "") + ("_window" if window else "")
        extra = (RELATIVE_OFFSET_TYPE,) if relative else ()
        result.append(Overload(name=name, ctor_params=ctor_params, params=params, tparams=tparams[ctor] + extra))
    return tuple(result)


BLOCK_RUN_LENGTH_DECODE = register_primitive(
    PrimitiveSpec(
        name="block_run_length_decode",
        cub_class="cub::BlockRunLengthDecode",
        header="cub/block/block_run_length_decode.cuh",
        scope=Scope.BLOCK,
        tparams=(
            ITEM_TYPE,
            BLOCK_DIMS[0],
            RUNS_PER_THREAD,
            DECODED_ITEMS_PER_THREAD,
            DECODED_OFFSET_TYPE,
            BLOCK_DIMS[1],
            BLOCK_DIMS[2],
        ),
        methods=(
            Method(
                name="run_length_decode",
                cpp="RunLengthDecode",
                overloads=_overloads(),
                doc="Stage the block's runs, then decode the window of block_threads * decoded_items_per_thread "
                "items starting at ``window_offset``.",
            ),
        ),
        doc="Block-wide run-length decoding (``cub::BlockRunLengthDecode``): runs in, one window of decoded "
        "items (and optionally their offsets within their runs) out per call.",
        example="block_run_length_decode",
    )
)
