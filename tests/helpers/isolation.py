"""Ordinary numba-cuda-mlir kernels (no cuda-coop call), run in a fresh process with or without cuda.coop.

    python -m tests.helpers.isolation {plain|coop} {gpu|compile} [CASE ...]

prints one JSON line: for each case its ``outcome`` (``["ok", result]`` or ``["error", type, message]``),
the kernel compiles it caused (and the planner IR repairs), and the launch paths it took. ``coop`` activates cuda.coop's
numba-cuda-mlir integration before any kernel is defined; ``plain`` never imports cuda.coop.

``gpu`` launches for real. ``compile`` needs no GPU: it assumes an sm_90 device and replaces the
native launcher (numba-cuda-mlir's C++ ``LaunchConfiguration``) by a recorder that compiles through the
dispatcher's compile callback, as the native launcher does on a miss, and records the path the launch
took: ``native`` (the launcher was called directly) or ``prelaunch`` (the dispatcher compiled in Python
first, ``MLIRDispatcher._prepare_for_launch``). Arrays are then stand-ins with a CUDA array interface.
"""

from __future__ import annotations

import collections
import enum
import importlib
import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

if __name__ == "__main__":
    warnings.simplefilter("ignore")  # numba-cuda-mlir's import-time and occupancy warnings are not under test

MODE = sys.argv[1] if __name__ == "__main__" else "plain"
TARGET = sys.argv[2] if __name__ == "__main__" else "compile"

# Activates the integration (importlib: `import cuda.coop` would rebind the name `cuda` used below).
coop: Any = importlib.import_module("cuda.coop") if MODE == "coop" else None
if coop is not None:
    importlib.import_module("cuda.coop.numba_mlir")

from numba_cuda_mlir import cuda, descriptor, mlir_compiler, tools  # noqa: E402
from numba_cuda_mlir.numba_cuda.misc.literal import literal_unroll  # noqa: E402

N = 64
COMPILES: collections.Counter[str] = collections.Counter()
PATHS: list[str] = []
CURRENT: list[Any] = []  # compile mode: the dispatcher being launched


def _count_compiles() -> None:
    """Count kernel compiles per function, and planner IR repairs (key ``ir repairs``)."""
    from numba_cuda_mlir import _whole_function_planners as planners

    entry = mlir_compiler.mlir_compiler_entry
    repair = planners._WholeFunctionPlannerRegistry._repair_ir

    def counted(*args: Any, **kwargs: Any) -> Any:
        COMPILES[kwargs["pyfunc"].__name__] += 1
        return entry(*args, **kwargs)

    def counted_repair(func_ir: Any) -> None:
        COMPILES["ir repairs"] += 1
        repair(func_ir)

    mlir_compiler.mlir_compiler_entry = counted
    planners._WholeFunctionPlannerRegistry._repair_ir = staticmethod(counted_repair)


class _RecordingLauncher:
    """Stands in for the native launcher: compiles through the dispatcher's callback, launches nothing."""

    def __init__(self, kernel_dispatcher: Any, grid: Any, block: Any, *rest: Any) -> None:
        self.block = block

    def __call__(self, *args: Any) -> None:
        PATHS.append("native")
        result = CURRENT[-1]._compile(list(args))
        PATHS.append(f"callback {result[1]} cubin={len(result[0]) > 0}")


def _record_prelaunch() -> None:
    cls = descriptor.MLIRDispatcher
    original = cls._prepare_for_launch

    def prepare(self: Any, *args: Any, **kwargs: Any) -> Any:
        PATHS.append("prelaunch")
        return original(self, *args, **kwargs)

    cls._prepare_for_launch = prepare


class _StandIn:
    """A device array stand-in (compile mode): only its CUDA array interface is read."""

    def __init__(self, host: np.ndarray) -> None:
        self.__cuda_array_interface__ = {
            "shape": host.shape,
            "typestr": host.dtype.str,
            "descr": host.dtype.descr,
            "data": (0x10000, False),
            "strides": None,
            "version": 3,
        }


def device(host: np.ndarray) -> Any:
    return cuda.to_device(host) if TARGET == "gpu" else _StandIn(host)


def fetch(*arrays: Any) -> Any:
    if TARGET != "gpu":
        return None
    cuda.synchronize()
    return [a.copy_to_host().tolist() for a in arrays]


def launch(kernel: Any, config: tuple[Any, ...], *args: Any) -> None:
    CURRENT.append(kernel)
    kernel[config](*args)


# --- kernels ------------------------------------------------------------------------------------------


@cuda.jit
def varargs_sum(*args):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    out = args[0]
    if i < out.size:
        s = 0.0
        for a in literal_unroll(args):
            s += a[i]
        out[i] = s + len(args)


@cuda.jit
def varargs_to_device(*args):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    out = args[0]
    if i < out.size:
        out[i] = axpy(args[1][i], args[2][i], out[i])


@cuda.jit(device=True)
def axpy(a, x, y):  # type: ignore[no-untyped-def]
    return a * x + y


@cuda.jit(device=True)
def varargs_device(*xs):  # numba-cuda-mlir 0.5.4 cannot inline it: an error in both processes  # type: ignore[no-untyped-def]
    return xs[0] * 2 + xs[1] + xs[2]


@cuda.jit
def calls_varargs_device(a, b, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = varargs_device(a[i], b[i], 0.5)


@cuda.jit
def varargs_mixed(out, *rest):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        s = out[i]
        for r in literal_unroll(rest):
            s += r
        out[i] = s


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


class Level(enum.Enum):
    LOW = 3
    HIGH = 7


class Shape(enum.Enum):
    SQUARE = (1, 1)
    WIDE = (2, 1)


@cuda.jit
def enum_kernel(out, color, level):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        flags = (1 if color == Color.GREEN else 0) + (2 if level == Level.HIGH else 0)
        out[i] = color.value * 100 + level.value * 10 + flags


@cuda.jit
def tuple_enum_kernel(out, shape):  # type: ignore[no-untyped-def]
    out[0] = shape.value[0]


RECORD = np.dtype([("x", np.float32), ("n", np.int32)], align=True)


@cuda.jit
def record_kernel(recs, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        r = recs[i]
        out[i] = r.x * r.n
        recs[i].n = r.n + 1


@cuda.jit
def tuple_kernel(out, pair, mixed, nested):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = pair[0] * i + pair[1] + mixed[0] + mixed[1] + nested[1][0]


@cuda.jit
def device_fn_kernel(x, y, out, a):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = axpy(a, x[i], y[i])


@cuda.jit
def atomic_kernel(counters, hist, x):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(counters, 0, 1)
        cuda.atomic.max(counters, 1, x[i])
        cuda.atomic.add(hist, x[i] % 4, 1)


@cuda.jit
def shared_kernel(x, out):  # type: ignore[no-untyped-def]
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    cuda.syncthreads()
    out[i] = s[31 - t]


@cuda.jit
def dynamic_shared_kernel(x, out):  # type: ignore[no-untyped-def]
    s = cuda.shared.array(0, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] * 2
    cuda.syncthreads()
    out[i] = s[cuda.blockDim.x - 1 - t]


@cuda.jit
def local_kernel(out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    tmp = cuda.local.array(4, np.int32)
    for k in range(4):
        tmp[k] = i * (k + 1)
    if i < out.size:
        out[i] = tmp[0] + tmp[3]


@cuda.jit
def grid2_kernel(out):  # type: ignore[no-untyped-def]
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * 100 + y


@cuda.jit
def grid3_kernel(out):  # type: ignore[no-untyped-def]
    x, y, z = cuda.grid(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = x * 100 + y * 10 + z


@cuda.jit
def scalar_kernel(out, k, f):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * k + f


@cuda.jit
def trivial(out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i


@cuda.jit
def block_sums(x, out):  # type: ignore[no-untyped-def]  # the one kernel with a cuda-coop call (coop mode only)
    total = coop.block.sum(x[cuda.grid(1)])
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = total


@cuda.jit
def mistyped(out):  # type: ignore[no-untyped-def]
    out[0] = "not a number"


# --- cases --------------------------------------------------------------------------------------------


def _f32(n: int = N, start: float = 0.0) -> np.ndarray:
    return np.arange(start, start + n, dtype=np.float32)


def case_varargs_1() -> Any:
    a = device(_f32())
    launch(varargs_sum, (2, 32), a)
    return fetch(a)


def case_varargs_2() -> Any:
    a, b = device(_f32()), device(_f32(start=1.0))
    launch(varargs_sum, (2, 32), a, b)
    return fetch(a)


def case_varargs_4() -> Any:
    arrays = [device(_f32(start=float(k))) for k in range(4)]
    launch(varargs_sum, (2, 32), *arrays)
    return fetch(arrays[0])


def case_varargs_mixed() -> Any:
    out = device(_f32())
    launch(varargs_mixed, (2, 32), out, 1, 2.5, np.float32(0.25))
    return fetch(out)


def case_varargs_device() -> Any:
    a, b, out = device(_f32()), device(_f32(start=3.0)), device(np.zeros(N, np.float32))
    launch(calls_varargs_device, (2, 32), a, b, out)
    return fetch(out)


def case_varargs_to_device() -> Any:
    out, a, x = device(_f32()), device(_f32(start=2.0)), device(_f32(start=-1.0))
    launch(varargs_to_device, (2, 32), out, a, x)
    return fetch(out)


def case_varargs_forall() -> Any:
    a, b = device(_f32()), device(_f32(start=5.0))
    CURRENT.append(varargs_sum)
    varargs_sum.forall(N)(a, b)
    return fetch(a)


def case_enum() -> Any:
    out = device(np.zeros(N, np.int64))
    launch(enum_kernel, (2, 32), out, Color.GREEN, Level.HIGH)
    launch(enum_kernel, (2, 32), out, Color.RED, Level.LOW)
    return fetch(out)


def case_enum_tuple_values() -> Any:
    out = device(np.zeros(1, np.int64))
    launch(tuple_enum_kernel, (1, 1), out, Shape.WIDE)
    return fetch(out)


def case_record() -> Any:
    host = np.zeros(N, RECORD)
    host["x"] = np.linspace(0, 1, N)
    host["n"] = np.arange(N)
    recs, out = device(host), device(np.zeros(N, np.float32))
    launch(record_kernel, (2, 32), recs, out)
    if TARGET != "gpu":
        return None
    cuda.synchronize()
    return [out.copy_to_host().tolist(), recs.copy_to_host()["n"].tolist()]


def case_tuple() -> Any:
    out = device(np.zeros(N, np.float64))
    launch(tuple_kernel, (2, 32), out, (2.0, 3.0), (np.int32(1), 0.5), (1, (7.0, 8.0)))
    return fetch(out)


def case_device_function() -> Any:
    x, y, out = device(_f32()), device(_f32(start=1.0)), device(np.zeros(N, np.float32))
    launch(device_fn_kernel, (2, 32), x, y, out, np.float32(3.0))
    return fetch(out)


def case_atomics() -> Any:
    counters, hist = device(np.zeros(2, np.int32)), device(np.zeros(4, np.int32))
    x = device(np.arange(N, dtype=np.int32) * 7 % 23)
    launch(atomic_kernel, (4, 32), counters, hist, x)
    return fetch(counters, hist)


def case_shared() -> Any:
    x, out = device(_f32()), device(np.zeros(N, np.float32))
    launch(shared_kernel, (2, 32), x, out)
    return fetch(out)


def case_dynamic_shared() -> Any:
    x, out = device(_f32()), device(np.zeros(N, np.float32))
    launch(dynamic_shared_kernel, (2, 32, 0, 32 * 4), x, out)
    return fetch(out)


def case_local() -> Any:
    out = device(np.zeros(N, np.int32))
    launch(local_kernel, (2, 32), out)
    return fetch(out)


def case_stream() -> Any:
    stream = cuda.stream() if TARGET == "gpu" else 0
    out = device(np.zeros(N, np.int32))
    launch(local_kernel, (2, 32, stream), out)
    if TARGET == "gpu":
        stream.synchronize()
    return fetch(out)


def case_grids() -> Any:
    one, two, three = (
        device(np.zeros(N, np.int32)),
        device(np.zeros((8, 6), np.int32)),
        device(np.zeros((4, 3, 5), np.int32)),
    )
    for config in ((1, 64), (2, 32), (4, 16), (64, 1)):
        launch(trivial, config, one)
    for config in (((2, 2), (4, 3)), ((1, 3), (8, 2))):
        launch(grid2_kernel, config, two)
    for config in (((1, 1, 1), (4, 3, 5)), ((2, 3, 5), (2, 1, 1))):
        launch(grid3_kernel, config, three)
    return {"values": fetch(one, two, three), "trivial": _state(trivial)}


def _state(kernel: Any) -> dict[str, Any]:
    """How the dispatcher holds its compiles: generic overloads, or launch-specialised ones."""
    return {
        "overloads": len(kernel.overloads),
        "launch_specialised": len({id(c) for c in kernel._launch_config_overloads.values()}),
        "requires_launch_config": bool(kernel._requires_launch_config),
    }


def case_coop_kernel() -> Any:
    """Coop mode only: a kernel that calls a primitive is launch-specialised from its first launch on."""
    x, out = device(np.ones(256, np.int32)), device(np.zeros(4, np.int32))
    for config in ((2, 128), (2, 128), (4, 64)):
        launch(block_sums, config, x, out)
    return {"values": fetch(out), "block_sums": _state(block_sums)}


def case_scalars() -> Any:
    out = device(np.zeros(N, np.float64))
    launch(scalar_kernel, (2, 32), out, 3, 0.5)
    launch(scalar_kernel, (2, 32), out, np.int16(2), np.float32(0.25))
    return fetch(out)


def case_typing_error() -> Any:
    out = device(np.zeros(1, np.float32))
    launch(mistyped, (1, 1), out)
    return fetch(out)


CASES: dict[str, Callable[[], Any]] = {
    name.removeprefix("case_"): fn for name, fn in sorted(globals().items()) if name.startswith("case_")
}
GPU_ONLY = {"record", "stream"}  # compile mode: no stream without a GPU; record arrays have no stand-in
COOP_ONLY = {"coop_kernel"}


def default_cases(mode: str, target: str) -> list[str]:
    return [n for n in CASES if (target == "gpu" or n not in GPU_ONLY) and (mode == "coop" or n not in COOP_ONLY)]


def _normalise(message: str) -> str:
    message = re.sub(r"0x[0-9a-fA-F]+", "0x?", message)
    message = re.sub(r"numba_cuda_mlir_error_\w+\.log", "numba_cuda_mlir_error_?.log", message)
    return re.sub(r"\s+", " ", message).strip()


def run(names: list[str]) -> dict[str, Any]:
    if TARGET == "compile":
        tools._cached_cc = (9, 0)
        descriptor.LaunchConfiguration = _RecordingLauncher
        _record_prelaunch()
    _count_compiles()
    report: dict[str, Any] = {}
    for name in names:
        COMPILES.clear()
        PATHS.clear()
        try:
            outcome: list[Any] = ["ok", CASES[name]()]
        except Exception as exc:  # the outcome under test, compared across processes
            outcome = ["error", type(exc).__name__, _normalise(str(exc))]
        report[name] = {"outcome": outcome, "compiles": dict(COMPILES), "paths": list(PATHS)}
    return report


def report(mode: str, target: str, cases: list[str] | None = None) -> dict[str, Any]:
    """Run this module in a fresh process (``mode`` plain or coop, ``target`` gpu or compile); its report."""
    env = {k: v for k, v in os.environ.items() if k != "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"}
    cmd = [sys.executable, "-m", "tests.helpers.isolation", mode, target, *(cases or [])]
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


if __name__ == "__main__":
    selected = sys.argv[3:] or default_cases(MODE, TARGET)
    print(json.dumps(run(selected)))
