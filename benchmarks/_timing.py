"""GPU time of a batch of launches, taken with the stream held while the launches are queued.

A launch call from Python costs tens of microseconds (numba-cuda-mlir's dispatcher more than cuda.core's
``launch``). Timed as "event, BATCH launches, event", that cost shows up as GPU idle time between the
first event and the first kernel, more for one launcher than the other. :class:`HeldTimer` queues a
spin kernel first (as nvbench's blocking kernel does), then the events and the launches behind it, and
releases the spin kernel once everything is queued: the events time the GPU's work only. The host time
of the launch calls is measured on the way, and reported on its own.

A launch that waits for the GPU itself (``torch.bincount`` reads the largest item back before it allocates its
output) would wait for the spin kernel to time out: :meth:`HeldTimer.holds_host` finds such a launch, and
:meth:`HeldTimer.sample_unheld` times it with events around the batch and no hold (its launch calls are then in the
figure).

Used by suite.py, run.py, auto_table.py and peers.py. Importing this module needs no GPU.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

BATCH = 10
"""Launches per sample."""

_SPIN = r"""
extern "C" __global__ void cuda_coop_bench_hold(volatile int* release)
{  // holds the stream until the host sets *release, or about ten seconds pass
  const long long start = clock64();
  while (*release == 0 && clock64() - start < 20000000000LL) {}
}
"""


class HeldTimer:
    """Times ``BATCH`` launches on ``stream`` (a cuda.core Stream) with the stream held while they are queued."""

    def __init__(self, stream) -> None:
        from cuda.core import Device, EventOptions, LaunchConfig, Program, ProgramOptions
        from numba_cuda_mlir import cuda

        cc = Device().compute_capability
        program = Program(_SPIN, "c++", ProgramOptions(arch=f"sm_{cc.major}{cc.minor}"))
        self._kernel = program.compile("cubin").get_kernel("cuda_coop_bench_hold")
        self._stream, self._config = stream, LaunchConfig(grid=1, block=1)
        self._timing = EventOptions(timing_enabled=True)
        self._release = cuda.mapped_array(1, np.int32)  # host memory the spin kernel reads

    def _hold(self) -> None:
        """Queue the spin kernel: the stream waits until :meth:`_free`."""
        from cuda.core import launch as core_launch

        self._release[0] = 0
        pointer = np.uint64(self._release.__cuda_array_interface__["data"][0])
        core_launch(self._stream, self._config, self._kernel, pointer)

    def _free(self) -> None:
        self._release[0] = 1

    def holds_host(self, launch: Callable[[], None], wait_s: float = 0.5) -> bool:
        """Whether one call of ``launch`` waits for the GPU: called (in another thread) while the stream is held, it
        has not returned after ``wait_s`` seconds. Call it after a warm-up launch (a first call may compile)."""
        failure: list[BaseException] = []
        returned = threading.Event()

        def call() -> None:
            try:
                launch()
            except BaseException as exc:  # re-raised below, in the caller's thread
                failure.append(exc)
            finally:
                returned.set()

        self._hold()
        thread = threading.Thread(target=call, daemon=True)
        try:
            thread.start()
            waited = not returned.wait(wait_s)
        finally:
            self._free()
        thread.join()
        self._stream.sync()
        if failure:
            raise failure[0]
        return waited

    def _batch(self, launch: Callable[[], None]) -> tuple[Any, Any, float]:
        """Events around ``BATCH`` calls of ``launch``, and the host microseconds per call."""
        begin = self._stream.record(options=self._timing)
        start = time.perf_counter()
        for _ in range(BATCH):
            launch()
        host_us = (time.perf_counter() - start) / BATCH * 1e6
        return begin, self._stream.record(options=self._timing), host_us

    def sample_unheld(self, launch: Callable[[], None]) -> tuple[float, float]:
        """As :meth:`sample`, without holding the stream: for a launch that waits for the GPU itself."""
        begin, end, host_us = self._batch(launch)
        end.sync()
        return (end - begin) / BATCH, host_us

    def sample(self, launch: Callable[[], None]) -> tuple[float, float]:
        """(GPU milliseconds per launch, host microseconds per launch call) of ``BATCH`` calls of ``launch``."""
        self._hold()
        try:
            begin, end, host_us = self._batch(launch)
        finally:
            self._free()
        end.sync()
        return (end - begin) / BATCH, host_us
