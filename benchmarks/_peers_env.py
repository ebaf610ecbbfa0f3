"""What the tasks ``peers.py`` times share: the environment (stream, installed peers, zero-copy views), the
:class:`Setup` a task builds, and the helpers of their checks (the tasks themselves are in ``_peers_tasks.py``).

A task's ``build(env, rng)`` returns a :class:`Setup`: every implementation as a launch and a fetch of its outputs, the
peers that have none for this task and why, the check every implementation passes before it is timed, and the
bytes the task must move at least. The cuda-coop implementations are the recipes of ``examples/recipes/``, imported
(never copied): the shape ``coop.row_shape`` picks with ``load="auto"`` (the row's figure), the same shape with the
loads ``"vectorize"`` and ``"transpose"``, and the neighbouring shapes (half and twice the threads), which tell
whether the rule picked well. Data lives in numba-cuda-mlir device arrays; the peers see the same memory through
zero-copy views (``__cuda_array_interface__``; bfloat16 as int16 reinterpreted by torch). Peer calls run on the
benchmark's one stream (torch's and CuPy's current stream is set inside each call, so a call works from any thread).

Importing this module needs numba-cuda-mlir but no GPU.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba_cuda_mlir import cuda

import cuda.coop as coop

COOP = "cuda-coop"
"""The name of the recipe's implementation at the shape ``row_shape`` picks with ``load="auto"``."""
SEED = 41
"""Base of every task's seed (the task's id hashed in): the same data in every run."""


@dataclass
class Impl:
    launch: Callable[[], None]
    fetch: Callable[[], tuple[np.ndarray, ...]]
    """Host copies of its outputs after a launch (float results as float32 or wider)."""


@dataclass
class Setup:
    impls: dict[str, Impl]
    missing: dict[str, str]
    """Peer -> why it has no implementation here: ``absent: ...`` (not installed) or ``n/a: ...``."""
    check: Callable[[tuple[np.ndarray, ...]], str]
    """``"ok"`` or ``"wrong: <what>"``."""
    bytes: int
    shape: Any
    """The shape ``coop.row_shape`` picked (``coop.RowShape``)."""
    alternatives: list[Any] = field(default_factory=list)
    auto: dict[str, str] = field(default_factory=dict)
    """What ``algorithm="auto"`` picked for the recipe's loads and stores at the picked shape."""


@dataclass(frozen=True)
class Task:
    task: str
    size: str
    build: Callable[[Env, np.random.Generator], Setup]
    quick: bool = False
    """In the ``--quick`` subset."""

    @property
    def id(self) -> str:
        return f"{self.task} {self.size}"

    @property
    def seed(self) -> int:
        return SEED + zlib.crc32(self.id.encode())


class Env:
    """The stream, the peers that are installed (or why not), and zero-copy views of device arrays."""

    def __init__(self, stream: Any) -> None:
        self.handle = int(stream.handle)
        self.numba_stream = cuda.external_stream(self.handle)
        self.torch, self.torch_absent = _optional("torch")
        self.triton, self.triton_absent = _optional("_peers_triton") if self.torch else (None, self.torch_absent)
        self.cupy, self.cupy_absent = _optional("cupy")
        self.sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
        self.torch_stream = self.cupy_stream = None
        if self.torch is not None:
            get = getattr(self.torch.cuda, "get_stream_from_external", None) or self.torch.cuda.ExternalStream
            self.torch_stream = get(self.handle)
        if self.cupy is not None:
            self.cupy_stream = self.cupy.cuda.ExternalStream(self.handle)

    def on_torch(self, call: Callable[[], Any], out: dict[str, Any]) -> Callable[[], None]:
        """``call`` on the benchmark's stream as torch's current stream; its result kept in ``out["result"]``."""
        torch, stream = self.torch, self.torch_stream

        def launch() -> None:
            with torch.cuda.stream(stream):
                out["result"] = call()

        return launch

    def on_cupy(self, call: Callable[[], Any], out: dict[str, Any]) -> Callable[[], None]:
        stream = self.cupy_stream

        def launch() -> None:
            with stream:
                out["result"] = call()

        return launch

    def torch_view(self, d: Any, shape: tuple[int, ...]) -> Any:
        """The torch tensor over the device array ``d`` (no copy; bfloat16 through an int16 view)."""
        torch = self.torch
        bf16 = d.dtype.name == "bfloat16"
        t = torch.as_tensor(d.view(np.int16) if bf16 else d, device="cuda")
        t = t.view(torch.bfloat16) if bf16 else t
        if t.data_ptr() != d.__cuda_array_interface__["data"][0]:
            raise RuntimeError("torch copied the array instead of viewing it")
        return t.view(shape)

    def cupy_view(self, d: Any, shape: tuple[int, ...]) -> Any:
        a = self.cupy.asarray(d)
        if a.data.ptr != d.__cuda_array_interface__["data"][0]:
            raise RuntimeError("CuPy copied the array instead of viewing it")
        return a.reshape(shape)


def _optional(name: str) -> tuple[Any, str]:
    import importlib

    try:
        return importlib.import_module(name), ""
    except Exception as exc:  # any failure to import makes the peer absent, with the reason
        return None, f"absent: {name} does not import ({type(exc).__name__}: {str(exc)[:200]})"


# --- shared pieces ------------------------------------------------------------------------------------------------


def dtype_of(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def to_device(a: np.ndarray) -> Any:
    """``cuda.to_device(a)``, bfloat16 too: Numba-CUDA-MLIR copies a host array through its buffer, which NumPy does
    not export for ``ml_dtypes.bfloat16`` ("cannot include dtype 'E' in a buffer"), so bfloat16 goes as its bits
    (uint16) and the device array is viewed as bfloat16 again (docs/known_issues.rst)."""
    a = np.ascontiguousarray(a)
    if a.dtype.name == "bfloat16":
        return cuda.to_device(a.view(np.uint16)).view(a.dtype)
    return cuda.to_device(a)


def poisoned(n: int, dtype: Any, value: Any) -> Any:
    return to_device(np.full(n, value, dtype))


def host(a: Any) -> np.ndarray:
    """A torch tensor, CuPy array or numba device array on the host; 2-byte floats as float32."""
    if hasattr(a, "detach"):
        a = a.detach()
        if a.dtype.is_floating_point and a.element_size() == 2:
            a = a.float()
        return a.cpu().numpy()
    if hasattr(a, "get"):
        return np.asarray(a.get())
    out = a.copy_to_host()
    return out.astype(np.float32) if out.dtype.kind not in "iub" and out.dtype.itemsize == 2 else out


def neighbours(shape: Any, valid: Callable[[Any], bool] = lambda s: True) -> list[Any]:
    """Half and twice the threads (the tile kept: twice and half the items), and half the threads with the same
    items (twice the tiles): the shapes around ``row_shape``'s pick that peers.py times with it."""
    t, i = shape.threads, shape.items_per_thread
    out = []
    for threads, items in ((t // 2, i * 2), (t * 2, i // 2), (t // 2, i)):
        if 32 <= threads <= 1024 and items >= 1:
            s = coop.RowShape(threads=threads, items_per_thread=items)
            if s != shape and s not in out and valid(s):
                out.append(s)
    return out


def auto_picks(shape: Any, dtypes: dict[str, str]) -> dict[str, str]:
    """What ``algorithm="auto"`` binds for block loads and stores of each of ``dtypes`` (role -> dtype) at
    ``shape`` on sm_90: the recipe's choice when it leaves the load to its default."""
    from cuda.coop._specs import Request, bind

    out = {}
    for role, dtype in dtypes.items():
        for prim, method in (("block_load", "load"), ("block_store", "store")):
            request = Request(prim, method, "full", dtype=dtype, items_per_thread=shape.items_per_thread)
            out[f"{method} {role}"] = bind(request, (shape.threads,), arch="sm_90").values["algorithm"].short_name
    return out


def coop_impls(shape: Any, alternatives: list[Any], make: Callable[[Any, str], Impl]) -> dict[str, Impl]:
    """The recipe at ``shape`` (load auto, vectorize, transpose) and at each alternative shape (load auto)."""
    impls = {COOP: make(shape, "auto"), f"{COOP} load=vectorize": make(shape, "vectorize"),
             f"{COOP} load=transpose": make(shape, "transpose")}
    impls |= {f"{COOP} {s}": make(s, "auto") for s in alternatives}
    return impls


def missing_peers(env: Env, **reasons: str) -> dict[str, str]:
    """The peers without an implementation of a task: ``reasons`` (peer -> why not) and the absent libraries."""
    out = {name: f"n/a: {why}" for name, why in reasons.items()}
    for name, absent in (("torch", env.torch_absent), ("triton", env.triton_absent), ("cupy", env.cupy_absent)):
        if absent and name not in out:
            out[name] = absent
    return out


def _wrong(what: str) -> str:
    return f"wrong: {what}"


def close(got: np.ndarray, want: np.ndarray, atol: float, rtol: float = 0.0) -> str:
    if got.shape != want.shape:
        return _wrong(f"shape {got.shape}, expected {want.shape}")
    err = np.abs(got.astype(np.float64) - want)
    bad = ~(err <= atol + rtol * np.abs(want))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        return _wrong(f"{int(bad.sum())} items off, first at {i}: {got.ravel()[i]!r}, expected {want.ravel()[i]!r}")
    return "ok"


def equal(got: np.ndarray, want: np.ndarray) -> str:
    if got.shape != want.shape:
        return _wrong(f"shape {got.shape}, expected {want.shape}")
    bad = got != want
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        return _wrong(f"{int(bad.sum())} items differ, first at {i}: {got.ravel()[i]!r}, expected {want.ravel()[i]!r}")
    return "ok"


def first_failure(*results: str) -> str:
    return next((r for r in results if r != "ok"), "ok")
