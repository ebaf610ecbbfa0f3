"""What a DSL integration gives the shared core: its front end's modules and its seams.

Both DSLs front-end with Numba IR, but from different modules (``numba_cuda_mlir.numba_cuda.core.ir``,
``numba.cuda.core.ir``): every class test of the shared core goes through the DSL's own modules, held by
its :class:`Frontend`, which each integration builds once after its version gate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._user_types import UserTypes

__all__ = ["Frontend"]


@dataclass(frozen=True, kw_only=True, eq=False)
class Frontend:
    """One DSL integration, as the shared core sees it."""

    name: str
    """The backend's name (``"numba_mlir"``): registration, source dump names."""
    display: str
    """How messages name the compiler (``"numba-cuda-mlir 0.5"``)."""
    ir: Any
    """The module of the DSL's untyped IR classes (``ir.Assign``, ``ir.Expr``, ...)."""
    types: Any
    """The DSL's numba type system (``types.Array``, ``types.int32``, ...)."""
    mk_unique_var: Callable[[str], str]
    build_definitions: Callable[[Any], dict[str, list[Any]]]
    cuda: Any
    """The ``cuda`` module kernels use (``cuda.threadIdx``, ``cuda.local.array``, ``cuda.jit``)."""
    thread_varying: tuple[Any, ...]
    """The stubs whose value differs between the threads of a block (``threadIdx``, ``laneid``)."""
    pure_modules: tuple[str, ...]
    """Modules of the DSL's callables whose result varies only if an argument does (libdevice, fp16...)."""
    half_modules: tuple[str, ...]
    """Modules of half-precision intrinsics: pure, but for their shuffles and atomics."""
    types_modules: tuple[str, ...]
    """Module prefixes of numba types (``types.int32(n)`` is a conversion)."""
    packages: tuple[str, ...]
    """Module prefixes of the DSL: another callable of these may differ between threads (atomics, votes,
    device functions that were not inlined)."""
    from_dtype: Callable[[Any], Any]
    """NumPy dtype -> numba type (a structured dtype -> a Record)."""
    coop_call: Any
    """The intrinsic every planned call is rewritten into: ``coop_call(<site id>, *runtime arguments)``."""
    compile_device_ltoir: Callable[[Callable[..., Any], Any, str, str | None], tuple[tuple[bytes, ...], Any]]
    """``(function, signature or argument types, symbol, arch)`` -> (LTO-IR of an ``extern "C"`` device function
    named ``symbol``, then of the code it calls that the DSL links separately (numba-cuda's half-precision
    shims); its result type). ``arch`` None: the compile's own target."""
    device_jit: Callable[[Callable[..., Any]], Any]
    """A Python function as the DSL's device function (what the pointer-ABI shim calls)."""
    link_item: Callable[[Callable[[], bytes], str], Any]
    """``(produce, name)`` -> the DSL's LTO-IR link item whose bytes ``produce`` makes when the link reads them."""
    provider_ltoir: Callable[..., bytes]
    """Hands a provider's LTO-IR to the kernel's link: ``(data, *, toolkit, recompile, pack) -> data``."""
    array_align: Callable[[Any], int | None] = lambda dtype: 8
    """The alignment in bytes of a ``cuda.local.array`` / ``cuda.shared.array`` declared without one, from its dtype
    argument's static value (numba-cuda-mlir 0.5: 8 for any; numba-cuda: the dtype's, rounded up to a power of two);
    None when not known."""
    record_local_arrays: bool = False
    """The DSL makes a ``cuda.local.array`` of a record dtype."""
    signed_builtin_min_max: bool = False
    """The DSL compiles the builtin ``max``/``min`` of unsigned integers as signed comparisons."""
    users: UserTypes = field(init=False)
    """The records and tuples this DSL's kernels pass (their numba types are the DSL's own)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "users", UserTypes(self.types, self.from_dtype))
