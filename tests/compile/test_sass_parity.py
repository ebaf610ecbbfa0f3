"""SASS of the benchmark kernels against their nvcc CUB twins (compile tier, no GPU).

The cuda-coop kernels of benchmarks/run.py are compiled for sm_90 with ``compile_kernel``; their
twins in benchmarks/cub_twins.cu with ``nvcc -cubin`` against the CCCL that cuda-coop bundles.

What holds (measured, numba-cuda-mlir 0.5.4, CUDA 13.0 nvcc):

- Every shared-memory access of a kernel is the twin's: same opcodes, same immediate offsets. This
  is the codegen fix of issue 14: nvJitLink keeps the first module's data layout, and numba-cuda-mlir
  links the kernel's LTO-IR first, whose layout has 64-bit shared pointers (as NVRTC 13.0's has), so
  the linked kernel computed each padded TempStorage address in 64 bits (``STS [R24]`` where the twin
  has ``STS [R23+0x400]``); a link holding a provider now starts with a layout-only module with 32-bit
  shared pointers (``_seams._link.link_with_short_shared_pointers``, tests/compile/test_link_layout.py).
  Tile sum: 248 instructions before, 200 after.
- The instruction count is within 1.05x of the twin for ``histogram_sort_u8``, ``tile_inclusive_sum_i32``
  and ``exchange_b2s_i32``. A tile's ``src[offset]`` is the array's data pointer plus ``offset`` items
  (``_numba._call.Advanced``): it once was a slice view, whose address multiplied by the memref's runtime
  stride (tile sum 192, scan 301 instructions); a whole kernel argument's data pointer is its aligned
  pointer, since numba-cuda-mlir 0.5.x launches every array argument with a memref offset of 0
  (``_seams.LAUNCH_OFFSET_IS_ZERO``: tile sum 186 -> 177, exchange 151 -> 139, atomic histogram 130 -> 127).
  The rest of the gap is the Python kernel's own code, not the CUB wrappers: numba-cuda-mlir indexes an
  array (``partial[cuda.blockIdx.x] = total``) with the memref's runtime stride, its offset and the
  negative-index wraparound, where the twin has a raw pointer (docs/known_issues.rst has the upstream
  report). Those kernels have a margin of their own (``GAPS``, the measured ratio rounded up): a regression
  of cuda-coop's code past it fails the run; an improvement, or another nvcc's twin, does not.
- Against twins written with numba-cuda-mlir's array ABI and indexing (tests/data/sass/
  numba_abi_twins.cu: the same CUB code, the same kernel-side arithmetic as the Python kernels),
  every kernel is within 1.05x (measured 0.94-0.99 before the aligned-pointer change, which these twins do
  not make): what cuda-coop adds is what nvcc makes of the same C++.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir.numba_cuda import types

from cuda.coop.numba_mlir import compile_kernel
from tests.helpers.sass import Listings, disassemble, nvcc_functions
from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
ARCH = "sm_90"
LIMIT = 1.05

SIGNATURES: dict[str, tuple[Any, ...]] = {
    "tile_sum_f32": (types.float32[::1], types.float32[::1]),
    "tile_inclusive_sum_i32": (types.int32[::1], types.int32[::1]),
    "exchange_b2s_i32": (types.int32[::1], types.int32[::1]),
    "histogram_sort_u8": (types.uint8[::1], types.uint32[::1]),
    "histogram_atomic_u8": (types.uint8[::1], types.uint32[::1]),
}

# The margins of the kernels over LIMIT, each its measured ratio of SASS instructions (cuda-coop / twin, NOP padding
# excluded; numba-cuda-mlir 0.5.4, CUDA 13.0 nvcc) rounded up: the excess is the numba array ABI of the Python kernel
# (see the module docstring), which the numba-ABI twins below show is not cuda-coop's code. Remove an entry once the
# kernel is within LIMIT.
GAPS = {
    # 179 / 167 = 1.072 (177 when the tile's address was formed from an LDC.64 with two IMAD.WIDE: now from the
    # uniform parameter as in the twin: ULDC, IMAD.WIDE, LEA, LEA.HI.X, and the SHF that sign-extends the thread index)
    "tile_sum_f32": 1.08,
    "histogram_atomic_u8": 1.13,  # 127 / 113 = 1.124
}


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Listings:
    return nvcc_functions(ROOT / "benchmarks" / "cub_twins.cu", tmp_path_factory.mktemp("twins"), ARCH)


@pytest.fixture(scope="module")
def abi_twins(tmp_path_factory: pytest.TempPathFactory) -> Listings:
    return nvcc_functions(ROOT / "tests" / "data" / "sass" / "numba_abi_twins.cu", tmp_path_factory.mktemp("abi"), ARCH)


@functools.cache
def _benchmarks() -> Any:
    return load_script(ROOT / "benchmarks" / "run.py", "cuda_coop_benchmark_kernels")


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Listings:
    tmp = tmp_path_factory.mktemp("coop")
    out = {}
    for name, signature in SIGNATURES.items():
        block = _benchmarks().BLOCK
        compiled = compile_kernel(getattr(_benchmarks(), name), signature, block=block, arch=ARCH)
        (function,) = disassemble(compiled.cubin, tmp, name).values()  # the wrappers are inlined: one function
        out[name] = function
    return out


def _shared_accesses(instructions: list[str]) -> Counter[str]:
    """Each LDS/STS/ATOMS as opcode + immediate offset (registers differ between compilers)."""
    found: Counter[str] = Counter()
    for text in instructions:
        opcode = text.split()[0]
        if opcode.split(".")[0] in ("LDS", "STS", "ATOMS"):
            offset = re.search(r"\[[^\]+]*(?:\+(0x[0-9a-f]+))?\]", text)
            found[f"{opcode} +{offset[1] if offset and offset[1] else '0x0'}"] += 1
    return found


# Accesses to the kernel's own ``cuda.shared.array`` that have a register address where the twin's
# ``__shared__`` array, laid out in one section with the TempStorage, gets an immediate offset.
USER_SHARED = {"histogram_sort_u8": 2}


def _opcodes(accesses: Counter[str]) -> Counter[str]:
    return Counter(k.split()[0] for k in accesses.elements())


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_shared_memory_accesses_are_the_twins(name: str, ours: Listings, twins: Listings) -> None:
    """Same shared-memory instructions with the same immediate offsets: the TempStorage addresses fold as in nvcc."""
    got, expected = _shared_accesses(ours[name]), _shared_accesses(twins[name])
    assert expected, f"the twin {name} has no shared-memory access: the parser is broken"
    assert _opcodes(got) == _opcodes(expected), f"{name}: opcodes {_opcodes(got)} != twin's {_opcodes(expected)}"
    unfolded = sum((expected - got).values())
    assert unfolded <= USER_SHARED.get(name, 0), (
        f"{name}: {unfolded} shared-memory accesses lost the twin's immediate offset\n"
        f"  only cuda-coop: {dict(got - expected)}\n  only twin: {dict(expected - got)}"
    )


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_instruction_count_within_its_margin_of_the_twin(name: str, ours: Listings, twins: Listings) -> None:
    """Within LIMIT of the twin's instructions, or within the margin of a known gap (GAPS)."""
    got, expected = len(ours[name]), len(twins[name])
    margin = GAPS.get(name, LIMIT)
    assert got / expected <= margin, (
        f"{name}: {got} SASS instructions, twin {expected}: {got / expected:.3f}x, over its margin {margin}x"
        + (" (GAPS: the numba array ABI's share)" if name in GAPS else "")
    )


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_instruction_count_within_5_percent_of_numba_abi_twin(name: str, ours: Listings, abi_twins: Listings) -> None:
    """The same CUB code and the same kernel-side arithmetic in C++: cuda-coop's code is nvcc's."""
    got, expected = len(ours[name]), len(abi_twins[name])
    assert got / expected <= LIMIT, f"{name}: {got} SASS instructions, numba-ABI twin {expected}: {got / expected:.3f}x"
