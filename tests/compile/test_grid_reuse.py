"""A new grid with the same block shape reuses the compiled kernel (compile tier, no GPU).

cuda-coop reads only the launch's block shape, so its compiles are marked block-only and the
dispatcher's launch-config overload lookup reuses one for a launch that differs in the grid only
(``_seams.require_launch_config``). Compiled here through the dispatcher's own launch-config path
(``_compile_launch_config_signature``, what a launch with a new configuration runs) on one
dispatcher. The GPU tier (tests/gpu/test_grid_reuse.py) launches it with two grids.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.numba_mlir import _seams

SIG = (types.float32[::1], types.float32[::1])


@cuda.jit
def block_sums(x, partial):
    items = cuda.local.array(4, np.float32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * cuda.blockDim.x * 4)
    total = coop.block.sum(items)
    if cuda.threadIdx.x == 0:
        partial[cuda.blockIdx.x] = total


def _key(grid: int, block: int) -> tuple[tuple[str, Any], ...]:
    return (("grid", (grid, 1, 1)), ("block", (block, 1, 1)), ("sharedmem", 0), ("cluster", None))


def _dispatcher() -> Any:
    """A fresh dispatcher of ``block_sums`` for sm_90 (nothing compiled yet)."""
    return type(block_sums)(block_sums.py_func, targetoptions={**block_sums.targetoptions, "chip": "sm_90"})


def _compile(dispatcher: Any, grid: int, block: int) -> Any:
    with _seams.assumed_compute_capability((9, 0)):
        return dispatcher._compile_launch_config_signature(SIG, _key(grid, block))


def _compiles(dispatcher: Any) -> int:
    return sum(dispatcher.launch_config_stats.cache_misses.values())


def test_new_grid_same_block_is_not_recompiled() -> None:
    dispatcher = _dispatcher()
    first = _compile(dispatcher, grid=1, block=128)
    again = _compile(dispatcher, grid=4096, block=128)
    assert again is first, "a new grid with the same block recompiled the kernel"
    assert _compiles(dispatcher) == 1
    assert sum(dispatcher.launch_config_stats.cache_hits.values()) >= 1


def test_new_block_is_compiled() -> None:
    """The block shape specialises every primitive: a new block is a new kernel."""
    dispatcher = _dispatcher()
    first = _compile(dispatcher, grid=2, block=128)
    other = _compile(dispatcher, grid=2, block=256)
    assert other is not first and _compiles(dispatcher) == 2
    assert bytes(other.metadata["cubin"]) != bytes(first.metadata["cubin"])


def test_another_planner_keeps_grid_specialisation(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a planner of another package registered the launch may be read by it: grids stay separate."""
    from numba_cuda_mlir import _whole_function_planners as wfp

    class Foreign(wfp.WholeFunctionPlanner):  # another package's planner, not isolated
        def run(self) -> bool:
            return False

    monkeypatch.setattr(wfp._planner_registry, "_planners", [*wfp._planner_registry._planners, Foreign])
    assert wfp._planner_registry.has_planners
    dispatcher = _dispatcher()
    first = _compile(dispatcher, grid=1, block=128)
    monkeypatch.undo()  # launches must not take the pre-launch path for the rest of the session
    assert not wfp._planner_registry.has_planners  # the list is the registry's state: the flag follows it
    assert not first.metadata.get(_seams._BLOCK_ONLY)
    again = _compile(dispatcher, grid=3, block=128)
    assert again is not first and _compiles(dispatcher) == 2


def test_planner_sees_only_the_block() -> None:
    """cuda-coop specialises on the block shape alone: the grid is not even handed to the planner."""

    state = SimpleNamespace(metadata={"targetoptions": {"__launch_config__": dict(_key(8, 64))}})
    assert _seams.require_launch_config(state) == {"block": (64, 1, 1)}
