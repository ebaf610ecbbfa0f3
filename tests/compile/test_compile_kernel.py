"""``compile_kernel``: thread safety across arches, NumPy launch shapes, arch-specific names, misuse (no GPU)."""

from __future__ import annotations

import re
import struct
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop.errors import UsageError
from cuda.coop.numba_mlir import _seams, compile_kernel

F32 = types.float32[::1]
SIG = (F32, F32)


@cuda.jit
def block_sum(x, out):
    i = cuda.grid(1)
    out[i] = coop.block.sum(x[i])


def _cubin_sm(cubin: bytes) -> int:
    """The SM number in a CUDA ELF header (``e_flags`` bits 8-15 in the current ABI, e.g. 0x5a = 90)."""
    assert cubin[:4] == b"\x7fELF" and cubin[4] == 2, "not a 64-bit ELF"
    (e_flags,) = struct.unpack_from("<I", cubin, 0x30)
    return (e_flags >> 8) & 0xFF


def _ptx_target(ptx: str) -> str:
    return re.search(r"^\.target\s+(\w+)", ptx, re.MULTILINE)[1]  # type: ignore[index]


def test_concurrent_compiles_for_different_arches_each_get_their_arch() -> None:
    """Before: the arch was a process-wide setting swapped per call; a cubin asked for sm_80 held other code."""
    arches = ["sm_80", "sm_90", "sm_80", "sm_90", "sm_100", "sm_80"]
    barrier = threading.Barrier(3)

    def one(index: int) -> tuple[str, int, str]:
        arch = arches[index]
        if index < 3:  # the first three start together
            barrier.wait(timeout=120)
        compiled = compile_kernel(block_sum, SIG, block=128, arch=arch)
        return arch, _cubin_sm(compiled.cubin), _ptx_target(compiled.ptx)

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(one, range(len(arches))))
    for arch, sm, target in results:
        assert (sm, target) == (int(arch[3:]), arch), (arch, sm, target)
    assert getattr(_seams._ASSUMED_CC, "cc", None) is None  # nothing left set in this thread


def test_numpy_integers_for_block_and_grid() -> None:
    compiled = compile_kernel(block_sum, SIG, block=(np.int64(32), np.int32(2)), grid=np.uint32(4))
    assert compiled.block == (32, 2, 1) and all(type(d) is int for d in compiled.block)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_arch_specific_targets(arch: str) -> None:
    compiled = compile_kernel(block_sum, SIG, block=64, arch=arch)
    assert compiled.arch == arch and _ptx_target(compiled.ptx) == arch
    assert _cubin_sm(compiled.cubin) == int(arch[3:-1])


def test_ptx_has_no_trailing_nul() -> None:
    ptx = compile_kernel(block_sum, SIG, block=32).ptx
    assert "\0" not in ptx and ptx.rstrip().endswith("}")


def plain(x, out):  # type: ignore[no-untyped-def]
    out[0] = x[0]


def test_a_plain_function_is_refused() -> None:
    with pytest.raises(UsageError, match=r"kernel=.*plain Python function.*@numba_cuda_mlir\.cuda\.jit"):
        compile_kernel(plain, SIG, block=32)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"block": 0}, "block"),
        ({"block": 2.5}, "block"),
        ({"block": True}, "block"),
        ({"block": (1, 2, 3, 4)}, "block"),
        ({"block": ()}, "block"),
        ({"block": np.array([32, 2])}, "block"),
        ({"block": 32, "grid": -1}, "grid"),
        ({"block": 32, "arch": "sm_9"}, "arch"),
        ({"block": 32, "arch": "90"}, "arch"),
        ({"block": 32, "arch": "sm_90b"}, "arch"),
        ({"block": 32, "arch": 90}, "arch"),
    ],
)
def test_malformed_launch_shapes_and_arches(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(UsageError, match=rf"compile_kernel\({name}="):
        compile_kernel(block_sum, SIG, **kwargs)  # type: ignore[arg-type]
