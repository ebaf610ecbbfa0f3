"""Every numba-cuda internal cuda-coop relies on, behind one version gate.

Supported: numba-cuda >=0.30.0,<0.31 (verified on 0.30.4, whose wheel this reads; 0.30.0 introduced the
launch-configuration API, 0.29 has none). What numba-cuda offers, and what cuda-coop uses of it:

- **Its own front end.** numba-cuda 0.30 vendors numba's front end as ``numba.cuda.core``: the untyped IR
  classes are ``numba.cuda.core.ir`` (neither ``numba.core.ir`` nor numba-cuda-mlir's); its numba types are
  ``numba.core.types`` re-exported as ``numba.cuda.types``. The shared core reads the IR through
  :data:`ir`. numba-cuda and numba-cuda-mlir install side by side in one environment (0.30.4 and 0.5.4:
  ``numba.cuda`` is numba-cuda's, ``numba_cuda_mlir`` vendors its own copy) and both DSLs work in one process.
- **The launch configuration** (public, ``numba.cuda.launchconfig``): while a launch compiles its kernel,
  ``current_launch_config()`` is the ``_LaunchConfiguration`` of the launch (``griddim``, ``blockdim``,
  ``sharedmem``, ``dispatcher``), thread-local; ``capture_compile_config(dispatcher)`` records it for tests.
  A compile that reads it calls ``dispatcher.mark_launch_config_sensitive()``: the kernel's compile
  result is marked ``launch_config_sensitive`` (``CUDABackend``) and the dispatcher then keeps one
  specialisation per (grid, block, dynamic shared memory). A new grid therefore compiles the kernel again
  (numba-cuda keys the whole launch; cuda-coop's provider cache makes that compile cost no NVRTC call).
- **Where the planner runs.** numba-cuda has no whole-function planner; its rewrite registry
  (``numba.cuda.core.rewrites.register_rewrite``, which numba-cuda's own test of the launch-config API
  uses) works block by block and runs in ``GenericRewrites``, *before* ``InlineInlinables``, so calls in
  ``inline="always"`` device functions would be missed. cuda-coop instead adds one pass, :class:`CoopPlanPass`,
  to the untyped pipeline of ``numba.cuda.compiler.CUDACompiler`` (``define_pipelines`` is wrapped once; the
  pass goes right after ``InlineInlinables`` with ``PassManager.add_pass_after``): it sees the untyped IR
  after inlining, as numba-cuda-mlir's planner does. It plans only the kernel the launch compiles
  (``dispatcher.py_func is state.func_id.func``); other compiles (device functions that are not inlined, user
  operators, kernels without cuda-coop calls) pass through unchanged.
- **No GPU** (``compile_for_arch``): a launch needs a device, but ``numba.cuda.compiler.compile_cuda``
  (what ``_Kernel`` calls) takes the compute capability as an argument, and the kernel's code library links
  LTO-IR for any ``cc`` with nvJitLink (``CUDACodeLibrary.get_cubin(cc)``): no driver. The block shape then
  comes from :func:`planned_block`, a thread-local of cuda-coop's.
- **LTO and link items**: a kernel compiles to LTO-IR when ``state.flags.lto`` is set before
  ``CreateLibrary`` (the pass sets it for a kernel it plans); link items are added during lowering with
  ``context.active_code_library.add_linking_file(obj)`` (numba-cuda's own fp16/bf16 shims do the same), and
  an ``numba.cuda.cudadrv.linkable_code.LTOIR`` item's ``.data`` is read only when the kernel is linked
  (:class:`LTOIR` produces it then: one NVRTC call per kernel, after the whole body is lowered).
- **Typing and lowering extensions**: ``numba.cuda.extending.intrinsic`` (codegen ``(context, builder,
  sig, args)`` with llvmlite) and ``type_callable``; the call is emitted with
  ``numba.cuda.core.callconv.CUDACABICallConv``, the C ABI that ``cuda.declare_device(..., abi="c")`` uses
  (``_emit``).
- **cache=True**: a kernel with link items cannot be pickled (``CUDACodeLibrary._reduce_states`` raises
  "Cannot pickle CUDACodeLibrary with linking files", so ``save_overload`` would fail the launch).
  ``CUDACacheImpl.check_cachable`` is wrapped: a kernel that holds cuda-coop code is not written to the
  disk cache (and warned about once); every other kernel is cached as without cuda-coop.
- **Launch bounds**: ``nvvm.set_launch_bounds`` on the kernel's LLVM function while it is lowered
  (numba-cuda reads ``launch_bounds`` from the dispatcher's options, shared by its launch specialisations).
- **The link** (``CUDACodeLibrary._link_all`` and ``get_cubin``, in :mod:`._link`): a library holding a cuda-coop
  provider links a layout-only module first, so that shared-memory pointers are 32-bit in the kernel, as nvcc's;
  its names are made independent of the process's compile counter (:mod:`._names`), and its link goes through
  cuda-coop's persistent cache of linked kernels and the precompiled packs (``_numba._link``). The cubin is put
  in ``_cubin_cache`` by compute capability, where numba-cuda's own ``get_cubin`` and its ``cache=True`` loader
  put theirs; ``get_cufunc`` loads it from there at a launch.
- **The launch's arch**: a launch on a GPU of compute capability 9.0 or later links arch-specific code
  (``CUDACodeLibrary._ensure_cc``: ``(9, 0, "a")``, so ``sm_90a``), while the kernel and its providers compile for
  ``(9, 0)``; :func:`launch_arch` says which arch a precompiled pack must hold for a launch on an arch.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numba_cuda
from numba import cuda as _cuda
from numba.cuda import compiler as _compiler
from numba.cuda import launchconfig as _launchconfig
from numba.cuda import stubs as _stubs
from numba.cuda import types as _types
from numba.cuda.core import ir as _ir
from numba.cuda.core.compiler_machinery import FunctionPass, register_pass
from numba.cuda.core.ir_utils import build_definitions, mk_unique_var
from numba.cuda.core.untyped_passes import InlineInlinables
from numba.cuda.cudadrv import nvvm
from numba.cuda.cudadrv.linkable_code import LTOIR as _LTOIR
from numba.cuda.extending import intrinsic, overload, type_callable
from numba.cuda.np.numpy_support import from_dtype

from ..._numba._kernel_provider import LazyData
from ..._registration import _BACKENDS
from ...errors import BackendError, UsageError

types: Any = _types  # numba's type system and untyped IR, as Any for type checkers
ir: Any = _ir
cuda: Any = _cuda

_backend = _BACKENDS["numba_cuda"]
VERSION: str = str(numba_cuda.__version__)
if not _backend.supports(VERSION):
    raise BackendError(
        f"cuda.coop.numba_cuda needs numba-cuda{_backend.supported}, found {VERSION}; {_backend.install_hint}"
    )
if not callable(getattr(_launchconfig, "current_launch_config", None)):
    raise BackendError(
        f"cuda.coop.numba_cuda needs numba-cuda's launch-configuration API (numba.cuda.launchconfig, numba-cuda "
        f"0.30 and later), which numba-cuda {VERSION} does not have; {_backend.install_hint}"
    )

__all__ = [
    "LTOIR",
    "VERSION",
    "build_definitions",
    "compile_device_ltoir",
    "cuda",
    "from_dtype",
    "inline_device_functions",
    "install_pass",
    "intrinsic",
    "ir",
    "launch_arch",
    "link_cc",
    "mk_unique_var",
    "overload",
    "planned_block",
    "repair",
    "set_launch_bounds",
    "thread_varying_stubs",
    "type_callable",
    "types",
]


def thread_varying_stubs() -> tuple[Any, ...]:
    """The stubs whose value differs between the threads of a block: ``threadIdx`` and ``laneid``."""
    return (_stubs.threadIdx, _stubs.laneid)


class LTOIR(LazyData, _LTOIR):  # type: ignore[misc]  # numba-cuda links it as LTO-IR (isinstance)
    """A link item whose LTO-IR is produced by ``produce`` the first time ``.data`` is read (at the link)."""


def compile_device_ltoir(
    pyfunc: Callable[..., Any], signature: Any, symbol: str, arch: str | None
) -> tuple[tuple[bytes, ...], Any]:
    """Compile a Python function as an ``extern "C"`` device function named ``symbol`` to LTO-IR for ``arch``.

    ``signature`` is a full signature, or a tuple of argument types (the result type is inferred); returns the
    LTO-IR of the function and of the code it links (numba-cuda's float16/bfloat16 arithmetic calls C++ shims,
    ``compile_all`` compiles them with NVRTC), and the result type.
    """
    codes, restype = _compiler.compile_all(
        pyfunc, signature, device=True, abi="c", abi_info={"abi_name": symbol}, output="ltoir", forceinline=True,
        cc=cc_of(arch) if arch is not None else None,
    )
    blobs = []
    for code in codes:  # LTO-IR bytes, cuda.core ObjectCode (compiled shims) or LinkableCode
        kind = getattr(code, "code_type", None) or getattr(code, "kind", None) or "ltoir"
        if kind != "ltoir":
            raise BackendError(
                f"cuda.coop.numba_cuda: numba-cuda {VERSION} compiled {symbol} with {kind} code to link, which "
                "cuda-coop does not link into a kernel; use a known operator or plain arithmetic"
            )
        data: Any = code.code if hasattr(code, "code_type") else getattr(code, "data", code)
        blobs.append(bytes(data))
    return tuple(blobs), restype


def cc_of(arch: str) -> tuple[int, int]:
    """``(9, 0)`` from ``"sm_90"`` or ``"sm_90a"``."""
    digits = arch.removeprefix("sm_").rstrip("af")
    return int(digits[:-1]), int(digits[-1])


def arch_of(cc: Any) -> str:
    """``"sm_90"`` from numba-cuda's compute capability ``(9, 0)`` (or ``(9, 0, "a")``)."""
    return f"sm_{cc[0]}{cc[1]}{cc[2] if len(cc) > 2 else ''}"


# --- the block shape of the compile ----------------------------------------------------------------------

_PLANNED = threading.local()


@contextmanager
def planned_block(py_func: Any, block: tuple[int, int, int]) -> Iterator[None]:
    """Compile ``py_func`` in this thread as if launched with ``block`` (``compile_kernel``: no launch, no GPU)."""
    previous = getattr(_PLANNED, "target", None)
    _PLANNED.target = (py_func, block)
    try:
        yield
    finally:
        _PLANNED.target = previous


def launch_block(state: Any) -> Callable[[], tuple[int, ...]] | None:
    """How to read the block shape of the kernel ``state`` compiles (None: it is not compiled for a launch).

    The kernel a configured launch (or :func:`planned_block`) compiles: not a device function or a user
    operator compiled meanwhile. Reading a launch's block marks the compile launch-config sensitive.
    """
    func = getattr(state.func_id, "func", None)
    planned = getattr(_PLANNED, "target", None)
    if planned is not None and planned[0] is func:
        block: tuple[int, ...] = planned[1]
        return lambda: block
    config = _launchconfig.current_launch_config()
    dispatcher: Any = getattr(config, "dispatcher", None)
    if config is None or getattr(dispatcher, "py_func", None) is not func:
        return None

    def read() -> tuple[int, ...]:
        dispatcher.mark_launch_config_sensitive()  # one kernel per (grid, block, sharedmem)
        return tuple(int(d) for d in config.blockdim)

    return read


def user_launch_bounds(state: Any) -> int | None:
    """The maximum threads per block the kernel's own ``launch_bounds=`` allows, or None."""
    planned = getattr(_PLANNED, "options", None)
    config = _launchconfig.current_launch_config()
    options = planned if planned is not None else getattr(getattr(config, "dispatcher", None), "targetoptions", {})
    bound = (options or {}).get("launch_bounds")
    if bound is None:
        return None
    return int(bound if isinstance(bound, int) else bound[0])


@contextmanager
def planned_options(options: dict[str, Any]) -> Iterator[None]:
    """The kernel options (``launch_bounds``) :func:`user_launch_bounds` reads while ``compile_kernel`` compiles."""
    previous = getattr(_PLANNED, "options", None)
    _PLANNED.options = options
    try:
        yield
    finally:
        _PLANNED.options = previous


def set_launch_bounds(function: Any, threads: int) -> None:
    """``__launch_bounds__(threads)`` on the kernel's LLVM function (``nvvm.maxntid``), as ptxas must know it."""
    nvvm.set_launch_bounds(function, threads)


# --- the pass --------------------------------------------------------------------------------------------

_PLAN: list[Callable[[Any], bool]] = []
"""The planner the pass runs (set once by :func:`install_pass`)."""


@register_pass(mutates_CFG=True, analysis_only=False)
class CoopPlanPass(FunctionPass):  # type: ignore[misc]
    """cuda-coop's planner in numba-cuda's untyped pipeline, right after ``InlineInlinables``."""

    _name = "cuda_coop_plan"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        return bool(_PLAN and _PLAN[0](state))


@functools.cache
def install_pass(plan: Callable[[Any], bool]) -> None:
    """Run ``plan(state)`` in every numba-cuda compile, after inlining and before typing (once per process)."""
    cls: Any = _compiler.CUDACompiler
    original = cls.define_pipelines
    _PLAN.append(plan)

    def define_pipelines(self: Any) -> Any:
        pipelines = original(self)
        for pm in pipelines:
            if any(p is InlineInlinables for p, _ in pm.passes) and not any(p is CoopPlanPass for p, _ in pm.passes):
                pm.add_pass_after(CoopPlanPass, InlineInlinables)
                pm.finalize()
        return pipelines

    cls.define_pipelines = define_pipelines


def _device_function(func_ir: Any, var: Any) -> Any:
    """The numba-cuda device function (a dispatcher compiled separately, ``inline="never"``) a callee names, or None."""
    from numba.cuda.core.ir_utils import resolve_func_from_module
    from numba.cuda.dispatcher import CUDADispatcher

    try:
        d = func_ir.get_definition(var)
        value = resolve_func_from_module(func_ir, d) if getattr(d, "op", None) == "getattr" else d.value
    except Exception:  # several definitions, none, or not a global: not a device function we can inline
        return None
    options = getattr(value, "targetoptions", None) or {}
    separate = options.get("inline") in (None, "never")
    return value if isinstance(value, CUDADispatcher) and options.get("device") and separate else None


def inline_device_functions(state: Any, wanted: Callable[[Any], bool]) -> bool:
    """Inline into ``state``'s function the device functions ``wanted(py_func)`` picks (as ``InlineInlinables`` inlines
    ``inline="always"`` ones), repeatedly, so that the device functions they call are considered too; whether any was.

    numba-cuda compiles a device function separately unless it is ``inline="always"``; numba-cuda-mlir inlines them.
    cuda-coop inlines those that call its primitives, so that a kernel's source works under both DSLs.
    """
    from numba.cuda.core import inline_closurecall, postproc
    from numba.cuda.core.analysis import compute_cfg_from_blocks
    from numba.cuda.core.ir_utils import simplify_CFG

    worker = inline_closurecall.InlineWorker(
        state.typingctx, state.targetctx, state.locals, state.pipeline, state.flags,
        validator=inline_closurecall.callee_ir_validator,
    )
    func_ir, changed, work = state.func_ir, False, list(state.func_ir.blocks.items())
    while work:
        _, block = work.pop()
        for i, stmt in enumerate(block.body):
            value = getattr(stmt, "value", None)
            if not (isinstance(stmt, ir.Assign) and isinstance(value, ir.Expr) and value.op == "call"):
                continue
            device = _device_function(func_ir, value.func)
            if device is not None and wanted(device.py_func):
                _, _, _, new_blocks = worker.inline_function(func_ir, block, i, device.py_func)
                work.extend(new_blocks)
                changed = True
                break  # the block changed: its rest is among the new blocks
    if changed:
        cfg = compute_cfg_from_blocks(func_ir.blocks)
        for dead in cfg.dead_nodes():
            del func_ir.blocks[dead]
        postproc.PostProcessor(func_ir).run()
        func_ir.blocks = simplify_CFG(func_ir.blocks)
    return changed


def device_function_ir(py_func: Any) -> Any:
    """The untyped IR of a device function's Python function (numba-cuda's front end, no pipeline)."""
    return _compiler.run_frontend(py_func)


def repair(func_ir: Any) -> None:
    """Rebuild the definitions and variable lifetimes of ``func_ir`` after the planner rewrote calls (as numba-cuda's
    ``InlineInlinables`` does after inlining)."""
    from numba.cuda.core import postproc

    func_ir._definitions = build_definitions(func_ir.blocks)
    postproc.PostProcessor(func_ir).run()


def enable_lto(state: Any) -> None:
    """Compile this kernel to LTO-IR, so that the wrappers it calls are inlined when it is linked."""
    state.flags.lto = True


def compute_capability(state: Any) -> Any:
    """The compute capability the compile targets (``flags.compute_capability``, set by ``compile_cuda``)."""
    return state.flags.compute_capability


# --- cache=True ----------------------------------------------------------------------------------------


class CacheSkippedWarning(UserWarning):
    """A kernel that calls cuda-coop primitives asked for ``cache=True``: numba-cuda cannot keep it on disk."""


@functools.cache
def install_cache_rule() -> None:
    """Kernels holding cuda-coop code are not written to numba-cuda's disk cache (warned once); others are."""
    from numba.cuda.dispatcher import CUDACacheImpl

    cls: Any = CUDACacheImpl
    original = cls.check_cachable
    warned = threading.Event()

    def check_cachable(self: Any, cres: Any) -> bool:
        files = getattr(getattr(cres, "library", None), "_linking_files", ())
        if any(isinstance(f, LTOIR) for f in files):
            if not warned.is_set():
                warned.set()
                warnings.warn(
                    "cuda.coop: a kernel that calls cuda-coop primitives is not kept in numba-cuda's cache=True "
                    "disk cache (numba-cuda cannot store a kernel with linked code); it compiles again in a new "
                    "process, with its CUB code from cuda-coop's provider cache (CUDA_COOP_ENABLE_CACHE). Kernels "
                    "without cuda-coop calls are cached as usual",
                    CacheSkippedWarning,
                    stacklevel=2,
                )
            return False
        return bool(original(self, cres))

    cls.check_cachable = check_cachable


# --- compile without a launch ------------------------------------------------------------------------------


def compile_for_arch(
    dispatcher: Any, argtypes: tuple[Any, ...], block: tuple[int, int, int], arch: str
) -> tuple[bytes, Any, Any]:
    """Compile a kernel for ``argtypes`` as launched with ``block``, for ``arch``, without a GPU.

    What ``numba.cuda.dispatcher._Kernel`` does for a launch, with the compute capability given: returns
    (the linked cubin, its code library, the kernel's function name).
    """
    options = dict(dispatcher.targetoptions)
    debug, opt = bool(options.get("debug")), options.get("opt") is not False
    nvvm_options: dict[str, Any] = {"fastmath": bool(options.get("fastmath")), "opt": 3 if opt else 0}
    if debug:
        nvvm_options["g"] = None
    cc = cc_of(arch)
    from numba.cuda.cudadrv.error import CudaSupportError

    try:
        with planned_block(dispatcher.py_func, block), planned_options(options):
            cres = _compiler.compile_cuda(
                dispatcher.py_func, types.void, argtypes, debug=debug, lineinfo=bool(options.get("lineinfo")),
                forceinline=bool(options.get("forceinline")), fastmath=bool(options.get("fastmath")),
                nvvm_options=nvvm_options, cc=cc, max_registers=options.get("max_registers"), lto=options.get("lto"),
            )
    except CudaSupportError as exc:  # numba-cuda compiles a device function a kernel calls for the current GPU
        raise UsageError(
            f"compile_kernel: compiling {dispatcher.py_func.__qualname__} for {arch} needs a GPU here: numba-cuda "
            f"{VERSION} compiles the device functions a kernel calls for the current device ({exc}). Without a "
            'GPU, compile kernels whose device functions are inlined: @cuda.jit(device=True, inline="always")'
        ) from None
    library = cres.library
    name = cres.fndesc.llvm_func_name
    kernel = library.get_function(name)
    library._entry_name = name
    _compiler.kernel_fixup(kernel, debug)
    nvvm.set_launch_bounds(kernel, options.get("launch_bounds"))
    for item in options.get("link") or ():
        library.add_linking_file(item)
    cubin = library.get_cubin(cc=link_cc(arch))
    return bytes(getattr(cubin, "code", cubin)), library, str(library._entry_name or name)


def launch_arch(arch: str) -> str:
    """The arch a numba-cuda launch on a GPU of ``arch`` links its kernel for: ``sm_90a`` for ``sm_90`` (and every
    compute capability from 9.0 on, as ``CUDACodeLibrary._ensure_cc``), else ``arch`` itself."""
    cc = cc_of(arch)
    return f"{arch}a" if arch[-1] not in "af" and cc >= (9, 0) else arch


def link_cc(arch: str) -> tuple[Any, ...]:
    """The compute capability numba-cuda links ``arch`` for: ``(9, 0)``, or ``(9, 0, "a")`` for ``"sm_90a"``."""
    cc = cc_of(arch)
    return (*cc, arch[-1]) if arch[-1] in "af" else cc


def natural_array_align(dtype: Any) -> int | None:
    """numba-cuda's alignment of an array declared without ``alignment=``: its item type's ABI alignment rounded up
    to a power of two (``cudaimpl._generic_array``); None when the dtype is not a static NumPy or numba type."""
    import numpy as np

    try:
        item = np.dtype(str(dtype) if isinstance(dtype, _types.Type) else dtype)
    except TypeError:
        return None
    return 1 << (item.alignment - 1).bit_length()


def inlined_device_function(fn: Callable[..., Any]) -> Any:
    """``fn`` as a numba-cuda device function inlined where it is called (so it compiles without a GPU).

    Made when it is needed: numba-cuda's ``cuda.jit(...)`` loads nvJitLink, which ``import cuda.coop`` must not do
    (cuda-coop resolves the toolkit, a conda environment's nvJitLink first, when it first compiles).
    """
    return cuda.jit(device=True, inline="always")(fn)
