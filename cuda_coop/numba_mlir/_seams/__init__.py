"""Every numba-cuda-mlir internal cuda-coop relies on, behind one version gate.

Supported: numba-cuda-mlir >=0.5.0,<0.6 (verified on 0.5.4). The gate runs when this package is
imported, before any of its modules touches numba-cuda-mlir. What is private here and why:

- ``compiler.ExternFunction`` + ``MLIRLower.lower_call_external_function``: emit a C-ABI call
  to a wrapper symbol and attach its link item.
- ``cudadrv.linkable_code.LTOIR``: the link plan compiles the kernel itself to LTO-IR only when
  a link item's class is *named* ``LTOIR``; our per-kernel provider subclasses it and produces
  its ``.data`` lazily, after the whole kernel body is lowered (one NVRTC call per kernel).
- ``lowering_utilities.memref_data_pointer`` / ``llvm_ptr_add_bytes`` / ``GEP_DYNAMIC_INDEX`` and
  ``lower_cast``: a tile's ``src[offset]`` is passed as the array's data pointer advanced by ``offset``
  items (``_numba._call.Advanced``).
- ``tools.get_gpu_compute_capability``: wrapped to answer a per-thread assumed compute capability.
- ``MLIRDispatcher._compile_launch_config_signature``: compile for a block shape without launching.
- ``_whole_function_planners._planner_registry``: registering any planner sends *every* launch
  through the dispatcher's Python pre-launch compile and repairs every kernel's IR; cuda-coop's
  planner is registered so that kernels without cuda-coop calls keep numba-cuda-mlir's own path
  (see :func:`register_isolated_planner` and docs/known_issues.rst).
- ``MLIRDispatcher.enable_caching`` is wrapped to warn once that ``cache=True`` has no effect
  while a planner is registered (numba-cuda-mlir 0.5.x skips its disk cache then).
- ``linker.Linker.recreate_with_lto``, ``complete`` and ``_object_codes`` (the kernel's link), in
  :mod:`._link`: a link holding a cuda-coop provider starts with a layout-only module that gives the
  linked kernel 32-bit shared-memory pointers; a failed link holding providers read from the disk cache
  is retried once with them compiled again; with the persistent cache on, the linked cubin is cached.
- numba-cuda-mlir's NumbaPerformanceWarning "Persistent disk cache is disabled for
  launch-config-specialized compiles" is filtered: every kernel that uses cuda-coop is
  launch-specialised by design, and the cache=True warning above says what matters.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numba_cuda_mlir
from numba_cuda_mlir import compiler as _compiler
from numba_cuda_mlir import extending, tools
from numba_cuda_mlir.numba_cuda import types as _types
from numba_cuda_mlir.numba_cuda.core import ir as _ir
from numba_cuda_mlir.numba_cuda.core.ir_utils import build_definitions, mk_unique_var
from numba_cuda_mlir.numba_cuda.cudadrv.linkable_code import LTOIR as _LTOIR
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

from ..._numba._call import Advanced
from ..._numba._kernel_provider import LazyData
from ..._registration import _BACKENDS
from ...errors import BackendError

_log = logging.getLogger("cuda.coop")
types: Any = _types  # numba's type system and untyped IR, re-exported as Any for type checkers
ir: Any = _ir

_backend = _BACKENDS["numba_mlir"]
VERSION: str = numba_cuda_mlir.__version__
if not _backend.supports(VERSION):
    raise BackendError(
        f"cuda.coop.numba_mlir needs numba-cuda-mlir{_backend.supported}, found {VERSION}; {_backend.install_hint}"
    )

__all__ = [
    "LTOIR",
    "VERSION",
    "WholeFunctionPlanner",
    "build_definitions",
    "compile_device_ltoir",
    "compile_for_launch",
    "from_dtype",
    "intrinsic",
    "ir",
    "link_with_short_shared_pointers",
    "lower_extern_call",
    "mk_unique_var",
    "register_isolated_planner",
    "require_launch_config",
    "target_chip",
    "type_callable",
    "types",
]

from ._link import link_with_short_shared_pointers  # noqa: E402  (after the gate)

WholeFunctionPlanner = extending.WholeFunctionPlanner
intrinsic = extending.intrinsic
refresh_registries = extending.refresh_registries


def type_callable(func: Callable[..., Any]) -> Any:
    return extending.type_callable(func)


class LTOIR(LazyData, _LTOIR):  # type: ignore[misc]  # the name is load-bearing: see the module docstring
    """A link item whose LTO-IR is produced by ``produce`` the first time ``.data`` is read."""


def target_chip(lower: Any) -> str:
    """The arch being compiled for, e.g. ``"sm_90"``."""
    return str(lower.metadata["gpu_target"]["chip"])


LAUNCH_OFFSET_IS_ZERO = True
"""numba-cuda-mlir 0.5.x's launcher passes every array argument of a kernel as a memref descriptor whose offset
field is 0 (``cext/launcher/kernel.cpp`` at v0.5.0: ``cuda_arg_i64(0)  // offset``, for both the CUDA array
interface and DLPack; the data pointer is the view's own): a whole kernel argument's data pointer is its aligned
pointer, with no offset to load and add. Slices made in the kernel have offsets of their own."""


def _scalar(element: Any) -> bool:
    """Whether a memref element type is an LLVM integer (of whole bytes) or floating-point type."""
    from numba_cuda_mlir._mlir import ir as _mir

    if isinstance(element, _mir.IntegerType):
        return bool(element.width % 8 == 0)
    return isinstance(element, _mir.F16Type | _mir.BF16Type | _mir.F32Type | _mir.F64Type)


def _advanced_pointer(lower: Any, arg: Advanced) -> Any:
    """The data pointer of ``arg.array`` advanced by ``arg.offset`` items, with the unit stride its C layout
    promises (a slice view would multiply by the memref's runtime stride: more SASS on every call); a whole
    kernel argument's data pointer is its aligned pointer (its launch offset is 0).

    A scalar item type is advanced by a ``getelementptr`` over that type, the form of CUB's own ``T*``
    arithmetic: after link-time inlining, LLVM folds the two into one index (``ptr + (offset + i)``), and
    the tile's address is formed from the uniform parameter (``ULDC``, ``IMAD.WIDE``, ``LEA``) as in nvcc's
    twin. Advanced by bytes (``llvm_ptr_add_bytes``, kept for other item types), it was formed with an
    ``LDC.64`` and two ``IMAD.WIDE`` at kernel entry, whose MIO stalls made 1024-thread reductions up to 4%
    slower than their twins (ncu, benchmarks/abi_gap.py; docs/performance.rst).
    """
    from numba_cuda_mlir._mlir import ir as _mir
    from numba_cuda_mlir._mlir.dialects import arith as _arith
    from numba_cuda_mlir._mlir.dialects import llvm as _llvm
    from numba_cuda_mlir._mlir.dialects._llvm_enum_gen import GEPNoWrapFlags
    from numba_cuda_mlir._mlir.extras import types as _t
    from numba_cuda_mlir.lowering_utilities import (
        GEP_DYNAMIC_INDEX,
        get_type_size_bytes,
        llvm_ptr_add_bytes,
        memref_data_pointer,
        memref_descriptor_type,
    )

    array, array_ty = lower.load_var(arg.array), lower.get_numba_type(arg.array.name)
    assert isinstance(array_ty, types.Array) and array_ty.ndim == 1 and array_ty.layout == "C", array_ty
    mr_type = _mir.MemRefType(array.type)
    if arg.argument and LAUNCH_OFFSET_IS_ZERO and mr_type.memory_space is None:
        from numba_cuda_mlir._mlir.dialects import builtin as _builtin

        desc = _builtin.unrealized_conversion_cast([memref_descriptor_type(mr_type.rank)], [array])
        base = _llvm.extractvalue(_llvm.PointerType.get(), desc, [1])  # the aligned pointer
    else:
        base = memref_data_pointer(array)
    if arg.offset is None:
        return base
    offset = lower.lower_cast(lower.get_numba_type(arg.offset.name), types.int64, lower.load_var(arg.offset))
    element = mr_type.element_type
    if _scalar(element):
        return _llvm.getelementptr(base.type, base, [offset], [GEP_DYNAMIC_INDEX], element, GEPNoWrapFlags.none)
    item_bytes = _arith.constant(_t.i64(), get_type_size_bytes(element))
    return llvm_ptr_add_bytes(base, _arith.muli(offset, item_bytes))


def lower_extern_call(
    lower: Any,
    target: Any,
    symbol: str,
    *,
    params: Sequence[tuple[Any, Any, int | None]],
    returns: Any,
    link: Sequence[Any],
) -> None:
    """Emit ``target = symbol(...)`` with the C ABI; some values cross by pointer to a stack slot (the
    pointer value ABI).

    ``params``: ``(var, numba type, align)`` per C parameter, in order. ``align`` None passes ``var`` by
    value (an array as its data pointer; an ``Advanced`` as ``&array[offset]``); an integer stores
    ``var`` in a stack slot of that alignment and passes the slot's address (``const T*``); ``var`` None
    passes an empty slot the callee writes (``T*``, a result). The results are loaded into ``target`` after
    the call (one: its value; several: a tuple); without any, the call returns ``returns`` by value (or
    nothing). After LTO inlining the slots are promoted to registers (no local memory: see
    tests/compile/test_dtypes_compile.py).

    A numba Record as the type is a C struct layout (records and tuples, see ``_lowering``): a record
    ``var`` is already a pointer to such bytes and is passed as it is; a tuple ``var`` is stored member by
    member at the record's field offsets. A result slot of a Record type is the result itself when the
    call's result is a record (numba keeps records as pointers to their bytes; the slot lives as long as
    the kernel and is reused by the next call at this site), else a tuple loaded from the fields.
    """
    from numba_cuda_mlir._mlir.dialects import func as _func
    from numba_cuda_mlir.lowering_utilities import get_or_insert_function

    outs = [(ty, align) for var, ty, align in params if var is None]
    if outs:
        returns = types.none
    sig = returns(*(types.CPointer(ty) if align is not None else ty for _, ty, align in params))
    lower._link_external_function(_compiler.ExternFunction(symbol, sig, link=tuple(link), abi="c"))

    operands: list[Any] = []
    slots: list[tuple[Any, Any, int]] = []
    for var, ty, align in params:
        if align is None:
            if isinstance(var, Advanced):
                operands.append(_advanced_pointer(lower, var))
            else:
                operands += lower._call_operands_from_vars([var], expected_types=[ty])
            continue
        if var is not None and isinstance(ty, types.Record) and isinstance(lower.get_numba_type(var), types.Record):
            operands.append(lower.load_var(var))  # a record is a pointer to its bytes already
            continue
        ptr = _aligned_slot(lower, ty, align)
        if var is None:
            slots.append((ptr, ty, align))
        elif isinstance(ty, types.Record):
            _record_store(lower, lower.load_var(var), ty, ptr)
        else:
            value = lower._coerce_value_to_numba_type(ty, lower.load_var(var))
            _slot_store(lower.as_storage(ty, value), ptr, align)
        operands.append(ptr)
    fty = lower._external_abi_function_type(sig)
    callee = get_or_insert_function(symbol, fty, lower.mlir_gpu_module)
    if slots:
        _func.call(result=[], callee=callee.name.value, operands_=operands)
        kernel = lower.get_numba_type(target)
        views = [kernel] if len(slots) == 1 else list(kernel)
        values = [
            _record_load(lower, ptr, ty, view)
            if isinstance(ty, types.Record)
            else lower.from_storage(ty, _slot_load(lower.get_storage_type(ty), ptr, a))
            for (ptr, ty, a), view in zip(slots, views, strict=True)
        ]
        lower.store_var(target, values[0] if len(values) == 1 else tuple(values))
    elif returns not in (types.none, types.void):
        raw = _func.call(result=list(fty.results), callee=callee.name.value, operands_=operands)
        lower.store_var(target, lower.from_return(returns, lower._call_results_tuple(raw)[0]))
    else:
        _func.call(result=[], callee=callee.name.value, operands_=operands)


def _is_complex(t: Any) -> bool:
    from numba_cuda_mlir._mlir import ir as _mir

    return isinstance(t, _mir.ComplexType) or t.typeid == _mir.ComplexType.static_typeid


def _slot_type(storage: Any) -> Any:
    """The LLVM type of a slot holding ``storage`` (an MLIR ``complex<f32>`` is laid out as two floats)."""
    from numba_cuda_mlir._mlir import ir as _mir
    from numba_cuda_mlir._mlir.dialects import llvm as _llvm

    if _is_complex(storage):
        return _llvm.ArrayType.get(_mir.ComplexType(storage).element_type, 2)
    return storage


def _aligned_slot(lower: Any, ty: Any, align: int) -> Any:
    """A stack slot for one ``ty`` with ``align`` (C++ may read it with a wider vector load, e.g. complex)."""
    from numba_cuda_mlir._mlir import ir as _mir
    from numba_cuda_mlir._mlir.dialects import llvm as _llvm
    from numba_cuda_mlir.lowering_utilities import i64_of

    with lower.alloca_insertion_point():
        if isinstance(ty, types.Record):  # a C struct: its bytes
            from numba_cuda_mlir._mlir.extras import types as _t

            elem = _llvm.ArrayType.get(_t.i8(), ty.size)
            return _mir.Value(_llvm.alloca(_llvm.PointerType.get(), i64_of(1), elem, alignment=align))
        elem = _slot_type(lower.get_storage_type(ty))
        return _mir.Value(_llvm.alloca(_llvm.PointerType.get(), i64_of(1), elem, alignment=align))


def _part(ptr: Any, part: Any, index: int) -> Any:
    from numba_cuda_mlir._mlir.dialects import llvm as _llvm
    from numba_cuda_mlir.lowering_utilities import i64_of

    return _llvm.getelementptr(_llvm.PointerType.get(), ptr, [i64_of(index)], [-(2**31)], part, None)


def _slot_store(value: Any, ptr: Any, align: int) -> None:
    from numba_cuda_mlir._mlir import ir as _mir
    from numba_cuda_mlir._mlir.dialects import complex as _complex
    from numba_cuda_mlir._mlir.dialects import llvm as _llvm

    if _is_complex(value.type):
        part = _mir.ComplexType(value.type).element_type
        _llvm.store(_complex.re(value), _part(ptr, part, 0), alignment=align)
        _llvm.store(_complex.im(value), _part(ptr, part, 1))
    else:
        _llvm.store(value, ptr, alignment=align)


def _field(ptr: Any, offset: int) -> Any:
    from numba_cuda_mlir._mlir.dialects import llvm as _llvm
    from numba_cuda_mlir._mlir.extras import types as _t
    from numba_cuda_mlir.lowering_utilities import i64_of

    return _llvm.getelementptr(_llvm.PointerType.get(), ptr, [i64_of(offset)], [-(2**31)], _t.i8(), None)


def _field_align(layout: Any, name: str) -> int:
    return int(layout.dtype.fields[name][0].alignment)


def _record_store(lower: Any, value: tuple[Any, ...], layout: Any, ptr: Any) -> None:
    """Store a tuple's members at the fields of ``layout`` (a Record named ``f0``, ``f1``...)."""
    for (name, ty), member in zip(layout.members, value, strict=True):
        coerced = lower._coerce_value_to_numba_type(ty, member)
        _slot_store(lower.as_storage(ty, coerced), _field(ptr, layout.offset(name)), _field_align(layout, name))


def _record_load(lower: Any, ptr: Any, layout: Any, view: Any) -> Any:
    """A result of the C layout ``layout`` as the kernel sees it (``view``): the record, or the tuple of its fields."""
    if isinstance(view, types.Record):
        return ptr
    return tuple(
        lower.from_storage(ty, _slot_load(lower.get_storage_type(ty), _field(ptr, layout.offset(name)),
                                          _field_align(layout, name)))
        for name, ty in layout.members
    )


def _slot_load(storage: Any, ptr: Any, align: int) -> Any:
    from numba_cuda_mlir._mlir import ir as _mir
    from numba_cuda_mlir._mlir.dialects import complex as _complex
    from numba_cuda_mlir._mlir.dialects import llvm as _llvm

    if _is_complex(storage):
        part = _mir.ComplexType(storage).element_type
        re = _llvm.load(res=part, addr=_part(ptr, part, 0), alignment=align)
        im = _llvm.load(res=part, addr=_part(ptr, part, 1))
        return _complex.create_(storage, re, im)
    return _llvm.load(res=storage, addr=ptr, alignment=align)


def compile_device_ltoir(pyfunc: Callable[..., Any], signature: Any, symbol: str) -> tuple[bytes, Any]:
    """Compile a Python function as an ``extern "C"`` device function named ``symbol`` to LTO-IR.

    ``signature`` is a full signature, or a tuple of argument types (the result type is inferred);
    returns the LTO-IR and the result type.
    """
    ltoir, restype = _compiler.compile(
        pyfunc, signature, device=True, abi="c", abi_info={"abi_name": symbol}, output="ltoir", forceinline=True
    )
    return bytes(ltoir), restype


# --- block-only specialisation (numba-cuda-mlir 0.5.x) ---------------------------------------------------
#
# numba-cuda-mlir keys a launch-specialised overload by the whole launch configuration (grid, block,
# dynamic shared memory, cluster), so a new grid recompiled the kernel (~0.2 s here, 0.07-0.12 s on
# an H200) although cuda-coop reads only the block shape. A compile whose launch configuration was
# read by cuda-coop alone is marked block-only, and the dispatcher's overload lookup
# (``MLIRDispatcher._find_launch_config_overload_locked``) falls back to a block-only overload that
# differs from the launch in the grid only. The launch itself still uses its own grid.

_BLOCK_ONLY = "cuda_coop_block_only"


def require_launch_config(state: Any) -> dict[str, Any]:
    """The launch's block shape, ``{"block": (x, y, z)}``: the only part of the launch cuda-coop reads.

    The compile is marked block-only (reused for any grid) unless another planner or an extension
    that uses the launch configuration may read it too.
    """
    launch = extending.require_launch_config(state)
    _install_block_only_reuse()
    from numba_cuda_mlir import _whole_function_planners as wfp
    from numba_cuda_mlir.descriptor import _extensions_use_launch_config

    options = state.metadata.get("targetoptions") or {}
    foreign = getattr(wfp._planner_registry, "_foreign", True)
    if not foreign and not _extensions_use_launch_config(options.get("extensions") or ()):
        state.metadata[_BLOCK_ONLY] = True
    return {"block": launch["block"]}


@functools.cache
def _install_block_only_reuse() -> None:
    from numba_cuda_mlir import descriptor
    from numba_cuda_mlir._launch_config import _is_launch_config_key_tuple

    cls: Any = descriptor.MLIRDispatcher
    original = getattr(cls, "_find_launch_config_overload_locked", None)
    if original is None or not hasattr(descriptor, "_extensions_use_launch_config"):
        raise BackendError(
            f"cuda.coop.numba_mlir cannot reuse kernels across grids in numba-cuda-mlir {VERSION}: its dispatcher "
            f"is not laid out as in 0.5.x; install numba-cuda-mlir{_backend.supported}"
        )

    def _find_launch_config_overload_locked(self: Any, argtypes: Any, launch_config_key: Any) -> Any:
        found = original(self, argtypes, launch_config_key)
        if found is not None or not _is_launch_config_key_tuple(launch_config_key):
            return found
        for (sig_args, key), cres in self._launch_config_overloads.items():  # the caller holds the lock
            if sig_args == argtypes and key[1:] == launch_config_key[1:] and cres.metadata.get(_BLOCK_ONLY):
                return cres  # the same block, dynamic shared memory and cluster: only the grid differs
        return None

    cls._find_launch_config_overload_locked = _find_launch_config_overload_locked


_ASSUMED_CC = threading.local()


@functools.cache
def _route_compute_capability_queries() -> None:
    """Make numba-cuda-mlir's ``get_gpu_compute_capability`` answer a per-thread override first (once).

    numba-cuda-mlir 0.5.x reads the compute capability from ``tools.get_gpu_compute_capability`` (a
    process-wide ``_cached_cc``); ``linker`` and ``runtime`` bound the function at import. Setting
    ``_cached_cc`` for one compile changed every thread's target (a cubin asked for sm_80 held sm_100
    code; other threads' launches failed). The function is wrapped in ``tools`` and in every loaded
    module that bound it, so that an override is seen only by the thread that set it.
    """
    module: Any = tools
    original = module.get_gpu_compute_capability

    def get_gpu_compute_capability(as_type: type = str) -> Any:
        cc = getattr(_ASSUMED_CC, "cc", None)
        if cc is None:
            return original(as_type)
        return cc if as_type is tuple else f"sm_{cc[0]}{cc[1]}"

    module.get_gpu_compute_capability = get_gpu_compute_capability
    for name, module in list(sys.modules.items()):
        if name.startswith("numba_cuda_mlir") and getattr(module, "get_gpu_compute_capability", None) is original:
            module.get_gpu_compute_capability = get_gpu_compute_capability


@contextlib.contextmanager
def assumed_compute_capability(cc: tuple[int, int]) -> Iterator[None]:
    """Compile in this thread as if the GPU had compute capability ``cc`` (no GPU needed; other threads unaffected)."""
    _route_compute_capability_queries()
    previous = getattr(_ASSUMED_CC, "cc", None)
    _ASSUMED_CC.cc = cc
    try:
        yield
    finally:
        _ASSUMED_CC.cc = previous


def compile_for_launch(
    dispatcher: Any, signature: Any, block: tuple[int, int, int], grid: tuple[int, int, int], chip: str | None = None
) -> Any:
    """Compile a kernel for ``signature`` as launched with ``grid`` x ``block``, without launching.

    Uses a fresh dispatcher for the same function, so the user's dispatcher (whose launch
    overloads are not keyed by arch) is left untouched. ``chip`` (e.g. ``"sm_90a"``) sets the target.
    """
    options = dict(dispatcher.targetoptions)
    if chip is not None:
        options["chip"] = chip
    fresh = type(dispatcher)(dispatcher.py_func, targetoptions=options)
    key = (("grid", tuple(grid)), ("block", tuple(block)), ("sharedmem", 0), ("cluster", None))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Persistent disk cache is disabled for launch-config")
        return fresh._compile_launch_config_signature(signature, key)


class CacheDisabledWarning(UserWarning):
    """``cache=True`` was requested but numba-cuda-mlir 0.5.x skips its disk cache under cuda-coop."""


@functools.cache
def install_cache_warning() -> None:
    """Warn once, when a kernel asks for ``cache=True``, that the disk cache is off in this process."""
    from numba_cuda_mlir.descriptor import MLIRDispatcher

    original = MLIRDispatcher.enable_caching
    warned = threading.Event()

    def enable_caching(self: Any) -> None:
        if not warned.is_set():
            warned.set()
            warnings.warn(
                "cuda.coop is active: numba-cuda-mlir 0.5.x skips its cache=True disk cache for every kernel "
                "in this process (kernels stay cached in memory; cuda-coop's provider cache is separate, "
                "see CUDA_COOP_ENABLE_CACHE)",
                CacheDisabledWarning,
                stacklevel=3,
            )
        original(self)

    MLIRDispatcher.enable_caching = enable_caching

    from numba_cuda_mlir.numba_cuda.core.errors import NumbaPerformanceWarning

    warnings.filterwarnings(
        "ignore", message="Persistent disk cache is disabled for launch-config", category=NumbaPerformanceWarning
    )


def launch_config_available(state: Any) -> bool:
    """Whether this compile attempt was started by a configured launch (so the block shape is known)."""
    from numba_cuda_mlir._whole_function_planners import _LAUNCH_CONFIG_TRACKER_METADATA_KEY

    metadata = getattr(state, "metadata", None) or {}
    options = metadata.get("targetoptions") or {}
    return isinstance(options.get("__launch_config__"), dict) or _LAUNCH_CONFIG_TRACKER_METADATA_KEY in metadata


def local_array_function() -> Any:
    """The object a kernel's ``cuda.local.array`` resolves to."""
    from numba_cuda_mlir import cuda as _cuda

    cuda: Any = _cuda
    return cuda.local.array


def shared_array_function() -> Any:
    """The object a kernel's ``cuda.shared.array`` resolves to."""
    from numba_cuda_mlir import cuda as _cuda

    cuda: Any = _cuda
    return cuda.shared.array


def bound_block_threads(state: Any, threads: int) -> int | None:
    """Compile the kernel for at most ``threads`` threads per block (``nvvm.maxntid``), as ``__launch_bounds__``.

    Without it ptxas may give a launch-specialised kernel more registers than a block of that size
    can have (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES at launch). Returns the user's own bound when the
    kernel set ``launch_bounds`` itself (the caller checks it), else None.
    """
    options = state.metadata["targetoptions"]
    current = options.get("launch_bounds")
    if current is None or options.get("_cuda_coop_launch_bounds"):
        options["launch_bounds"] = threads
        options["_cuda_coop_launch_bounds"] = True
        return None
    return int(current if isinstance(current, int) else current[0])


# --- planner isolation (numba-cuda-mlir 0.5.x; upstream report in docs/known_issues.rst) ---------------
#
# In 0.5.x a registered planner is not neutral for kernels it leaves alone:
# - ``_ArgMarshaller._launch`` sends every launch through ``MLIRDispatcher._prepare_for_launch`` while
#   ``_planner_registry.has_planners`` is true. That path compiles before the native launcher marshals
#   the arguments (so argument errors become compile errors, e.g. an Enum with tuple values) and then
#   looks the overload up under the launch's argument types: a ``*args`` kernel's overload is published
#   under its ``StarArgTuple`` signature, the lookup misses, and the launch fails with "kernel
#   precompilation completed without publishing a matching overload".
# - ``_planner_registry.apply`` repairs every kernel's IR (simplify_CFG, PostProcessor) before the first
#   planner runs, whether or not a planner then changes it.
# The native first launch still handles a kernel whose planner asks for the launch configuration: the
# compile's launch-config tracker marks the dispatcher launch-specialised, and later launches take the
# pre-launch path because of that mark.


def _isolating_registry_class(base: Any) -> Any:
    class IsolatingPlannerRegistry(base):  # type: ignore[misc]
        """The planner registry, with planners that stay out of kernels they do not want."""

        _isolated: dict[type, Callable[[Any], bool]]

        @property
        def _foreign(self) -> bool:
            """Whether a planner that is not isolated is registered now: computed from the registry's list on
            every read, so a planner another package removes (or a list changed any other way) counts at once."""
            with self._lock:
                return any(p not in self._isolated for p in self._planners)

        @property
        def has_planners(self) -> bool:
            # Read on every launch: only planners that are not isolated switch the pre-launch path on.
            return self._foreign

        def apply(self, state: Any) -> bool:
            with self._lock:
                planners = tuple(self._planners)
                isolated = dict(self._isolated)
            if planners and all(p in isolated for p in planners):
                try:
                    wanted = any(isolated[p](state.func_ir) for p in planners)
                except Exception:  # an IR the pre-scan does not understand: let the planners decide
                    wanted = True
                if not wanted:
                    return False  # exactly what an empty registry does: no IR repair, no planner
            return bool(super().apply(state))

    return IsolatingPlannerRegistry


_ISOLATION_LOCK = threading.Lock()


def register_isolated_planner(planner_cls: type, wants: Callable[[Any], bool]) -> None:
    """Register ``planner_cls``; kernels for which ``wants(func_ir)`` is false compile and launch as without it.

    ``wants`` sees the untyped IR after device-function inlining, before numba-cuda-mlir repairs it,
    and must be conservative: false only where the planner would change nothing. A kernel the
    planner does change is marked launch-specialised by numba-cuda-mlir at its first compile.
    Other planners registered by other packages keep numba-cuda-mlir's behaviour (pre-launch path
    and IR repair for every kernel).
    """
    from numba_cuda_mlir import _whole_function_planners as wfp
    from numba_cuda_mlir import descriptor
    from numba_cuda_mlir import numbair_transforms as transforms

    registry = wfp._planner_registry
    base = wfp._WholeFunctionPlannerRegistry
    layout_ok = (
        descriptor._planner_registry is registry
        and transforms._planner_registry is registry
        and isinstance(getattr(registry, "_planners", None), list)
        and hasattr(registry, "_lock")
        and isinstance(getattr(base, "has_planners", None), property)
    )
    if not layout_ok:
        raise BackendError(
            f"cuda.coop.numba_mlir cannot isolate its planner in numba-cuda-mlir {VERSION}: the planner "
            f"registry is not laid out as in 0.5.x; install numba-cuda-mlir{_backend.supported}"
        )
    with _ISOLATION_LOCK, registry._lock:
        if not hasattr(registry, "_isolated"):
            registry._isolated = {}
            registry.__class__ = _isolating_registry_class(type(registry))
        registry._isolated[planner_cls] = wants
    registry.register(planner_cls)


def kernel_module() -> Any:
    """The ``numba_cuda_mlir.cuda`` module that kernels use (``cuda.threadIdx``, ``cuda.grid``, ...)."""
    from numba_cuda_mlir import cuda as _cuda

    return _cuda


def thread_varying_stubs() -> tuple[Any, ...]:
    """The stubs whose value differs between the threads of a block: ``threadIdx`` and ``laneid``."""
    from numba_cuda_mlir.numba_cuda import stubs

    return (stubs.threadIdx, stubs.laneid)
