"""What CUB does not run as asked is refused, never silently replaced: block shapes that are not a
multiple of 32 threads for the warp-based algorithms, ``raking_commutative_only`` on 32 threads or
fewer, logical warps that do not divide the block.

Each refusal is a :class:`cuda.coop.errors.UsageError` that names the argument (``algorithm`` or
``threads``), in its public spelling, and the value given. The compile tier
(``tests/compile/test_gpu_kernels_compile.py``) checks the same refusals through ``compile_kernel``;
here they come from a launch, as a user meets them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest

ODD_BLOCKS = ((1, 1, 1), (33, 1, 1), (100, 1, 1), (7, 5, 3))


@dataclass(frozen=True)
class Refusal:
    primitive: str  # "load", "store", "scan", "reduce" or "warp"
    argument: str  # the public argument the error must name
    value: object
    block: tuple[int, int, int]

    @property
    def id(self) -> str:
        return f"{self.primitive}-{self.argument}={self.value}-{'x'.join(map(str, self.block))}"


def refusals() -> list[Refusal]:
    result = []
    for block in ODD_BLOCKS:
        for algo in ("warp_transpose", "warp_transpose_timesliced"):
            result += [Refusal("load", "algorithm", algo, block), Refusal("store", "algorithm", algo, block)]
        result += [Refusal("scan", "algorithm", "warp_scans", block),
                   Refusal("reduce", "algorithm", "raking_commutative_only", block)]
    result += [Refusal("reduce", "algorithm", "raking_commutative_only", (32, 1, 1)),
               Refusal("warp", "threads", 32, (33, 1, 1)), Refusal("warp", "threads", 8, (100, 1, 1)),
               Refusal("warp", "threads", 2, (7, 5, 3))]
    return result


REFUSALS = refusals()


def make_kernel(r: Refusal):
    """A kernel whose only problem is the refused argument."""
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    V = r.value
    if r.primitive == "load":

        @cuda.jit
        def kernel(x, out):
            items = cuda.local.array(4, np.int32)
            coop.block.load(x, items, algorithm=V)
            out[cuda.threadIdx.x] = items[0]

    elif r.primitive == "store":

        @cuda.jit
        def kernel(x, out):
            items = cuda.local.array(4, np.int32)
            for i in range(4):
                items[i] = x[i]
            coop.block.store(out, items, algorithm=V)

    elif r.primitive == "scan":

        @cuda.jit
        def kernel(x, out):
            out[cuda.threadIdx.x] = coop.block.exclusive_sum(x[cuda.threadIdx.x], algorithm=V)

    elif r.primitive == "reduce":

        @cuda.jit
        def kernel(x, out):
            out[cuda.threadIdx.x] = coop.block.sum(x[cuda.threadIdx.x], algorithm=V)

    else:

        @cuda.jit
        def kernel(x, out):
            out[cuda.threadIdx.x] = coop.warp.sum(x[cuda.threadIdx.x], threads=V)

    return kernel


def signature() -> tuple:
    from numba_cuda_mlir.numba_cuda import types

    return (types.int32[::1], types.int32[::1])


def check_refusal(exc: BaseException, r: Refusal) -> None:
    """The error is a UsageError that names the argument."""
    from cuda.coop.errors import UsageError

    assert isinstance(exc, UsageError), f"{type(exc).__name__} instead of UsageError: {exc}"
    assert r.argument in str(exc), f"the error does not name {r.argument}: {exc}"


def check_public_spelling(exc: BaseException, r: Refusal) -> None:
    """The error speaks the public names (issue 9): ``threads=``, not ``logical_warp_threads=``;
    ``"warp_scans"``, not ``BLOCK_SCAN_WARP_SCANS`` (whole words: a suffix of CUB's spelling does not count)."""
    msg = str(exc)
    given = rf"(?<![A-Za-z_]){r.argument}\s*="  # "threads=", not "logical_warp_threads=" nor "33 threads"
    assert re.search(given, msg), f"{r.argument}= not in its public spelling: {msg}"
    assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(str(r.value))}(?![A-Za-z0-9_])", msg), (
        f"the value {r.value!r} not in its public spelling: {msg}"
    )


@pytest.mark.parametrize("r", REFUSALS, ids=lambda r: r.id)
def test_refused_at_launch(r: Refusal) -> None:
    from numba_cuda_mlir import cuda

    from cuda.coop.errors import UsageError

    threads = r.block[0] * r.block[1] * r.block[2]
    x = cuda.to_device(np.arange(1, 4 * threads + 1, dtype=np.int32))
    out = cuda.to_device(np.full(4 * threads, -1, np.int32))
    with pytest.raises(UsageError) as info:
        make_kernel(r)[1, r.block](x, out)
        cuda.synchronize()
    check_refusal(info.value, r)
    check_public_spelling(info.value, r)
    assert (out.copy_to_host() == -1).all(), "a refused kernel ran"
