"""``compile_kernel`` for other arches while other threads launch kernels on this GPU (issue 9.9).

Before: compile_kernel swapped a process-wide compute capability, so a thread launching a kernel during
it could compile for the wrong arch and fail in the driver ("no kernel image"), and a cubin asked for
sm_80 could hold this GPU's code. Now the assumed arch is per thread.
"""

from __future__ import annotations

import struct
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def _cubin_sm(cubin: bytes) -> int:
    (e_flags,) = struct.unpack_from("<I", cubin, 0x30)
    return (e_flags >> 8) & 0xFF


def test_compiles_for_other_arches_do_not_disturb_launches_in_other_threads() -> None:
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda import types

    import cuda.coop as coop
    from cuda.coop.numba_mlir import compile_kernel

    def make(scale: int):  # a fresh dispatcher per launch: every launch compiles, for this GPU's arch
        @cuda.jit
        def block_total(x, out):
            total = coop.block.sum(x[cuda.grid(1)] * scale)
            if cuda.threadIdx.x == 0:
                out[cuda.blockIdx.x] = total

        return block_total

    here = cuda.get_current_device().compute_capability
    others = [arch for arch in ("sm_80", "sm_100", "sm_120") if arch != f"sm_{here[0]}{here[1]}"]
    stop = threading.Event()

    def launches() -> int:
        n = 0
        x = cuda.to_device(np.arange(256, dtype=np.int32))
        while not stop.is_set() or n < 3:
            out = cuda.to_device(np.zeros(2, np.int32))
            make(n + 1)[2, 128](x, out)
            expected = np.arange(256, dtype=np.int64).reshape(2, 128).sum(axis=1) * (n + 1)
            np.testing.assert_array_equal(out.copy_to_host(), expected)
            n += 1
        return n

    def compiles() -> list[tuple[str, int]]:
        try:
            sig = (types.int32[::1], types.int32[::1])
            return [(a, _cubin_sm(compile_kernel(make(7), sig, block=128, arch=a).cubin)) for a in others * 2]
        finally:
            stop.set()

    with ThreadPoolExecutor(3) as pool:
        launched = [pool.submit(launches) for _ in range(2)]
        compiled = pool.submit(compiles).result()
        assert all(f.result() >= 3 for f in launched)
    assert compiled == [(a, int(a[3:])) for a in others * 2]
