"""``coop.block.load_to_shared`` for sm_90 (and sm_80, sm_75) without a GPU (compile tier).

- The declarations of ``cub::detail`` this family uses, with the signatures and constants it relies on, compiled by
  NVRTC against the bundled CCCL: ``detail`` has no stability promise between CCCL releases, so a CCCL whose
  ``BlockLoadToShared`` differs turns this red before any kernel would misbehave.
- Every item type (bfloat16 too) x both forms through one NVRTC provider; the GPU tier's kernels and the sanitizer
  script's compile inlined in a covering subset of its axes.
- What the bundle's header does per architecture, read from the SASS: sm_90 one elected bulk copy (``UBLKCP``)
  tracked by an mbarrier (``SYNCS``), sm_80 per-thread ``LDGSTS`` (``cp.async``), sm_75 plain 16-byte loads and stores.
- Misuse (a local, global or unaligned ``dst``, a shared ``src``, a block of a partial warp, a misaligned constant
  offset, a ``dst`` too small) is a UsageError naming the argument and the call's file:line.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._provider._key import compile_options
from cuda.coop._specs import Request
from cuda.coop._specs.block_load_to_shared import ALIGN
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import _sanitizer_load_to_shared as sanitizer
from tests.gpu import test_block_load_to_shared as gpu
from tests.helpers.dsl import NUMBA_CUDA
from tests.helpers.nvrtc import compile_requests
from tests.helpers.refusal import refused
from tests.helpers.sass import assert_inlined, instructions
from tests.helpers.subset import block_rank, covering, missing_values

F32 = types.float32[::1]

PINNED = """\
#include <cub/block/block_load_to_shared.cuh>
#include <cuda/std/span>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

static_assert(CCCL_VERSION == 3006000, "the bundled CCCL");
namespace pin
{
using ::cuda::std::declval;
using ::cuda::std::is_same_v;
using ::cuda::std::span;
using Copy = cub::detail::BlockLoadToShared<32, 2, 2>;
using Token = typename Copy::CommitToken;

// the chunk size and the buffer rules cuda-coop's composition (and its docs: 16-byte alignment, no room past the tile
// for a 16-byte-multiple prefix) rely on
static_assert(cub::detail::bulk_copy_min_align == 16);
static_assert(cub::detail::LoadToSharedBufferAlignBytes<signed char>() == 16);
static_assert(cub::detail::LoadToSharedBufferAlignBytes<double>() == 16);
static_assert(cub::detail::LoadToSharedBufferSizeBytes<float, 16>(1024) == 4096);
static_assert(cub::detail::LoadToSharedBufferSizeBytes<float>(1000) == 4016); // the unaligned path needs 16 more
// the members the composition calls, with the signatures it calls them with
static_assert(::cuda::std::is_constructible_v<Copy, typename Copy::TempStorage&>);
static_assert(sizeof(typename Copy::TempStorage) == 8); // one mbarrier
static_assert(is_same_v<decltype(declval<Copy&>().template CopyAsync<float, 16>(declval<span<char>>(),
                                                                                 declval<span<const float>>())),
                        span<float>>);
static_assert(is_same_v<decltype(declval<Copy&>().Commit()), Token>);
static_assert(is_same_v<decltype(declval<Copy&>().Wait(declval<Token&&>())), void>);
static_assert(is_same_v<decltype(declval<Copy&>().CommitAndWait()), void>);
static_assert(is_same_v<decltype(declval<Copy&>().Invalidate()), void>);
static_assert(!::cuda::std::is_copy_constructible_v<Copy> && !::cuda::std::is_copy_constructible_v<Token>);
} // namespace pin
"""


def test_the_detail_declarations_we_use_are_pinned(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    """``cub::detail::BlockLoadToShared`` as the bundled CCCL 3.6 declares it: the composition's assumptions."""
    assert ALIGN == 16
    result = compiler.compile(PINNED, compile_options(toolchain, "sm_90"), name="pin_block_load_to_shared.cu")
    assert result.ltoir is not None, result.log


def _requests() -> list[Request]:
    result = []
    for n, dtype in enumerate((*gpu.DTYPES, "bfloat16")):
        common = {"dtype": dtype, "items_per_thread": (1, 3, 4)[n % 3]}
        result.append(Request("block_load_to_shared", "load_to_shared", "full", **common))
        result.append(Request("block_load_to_shared", "load_to_shared", "guarded",
                              count_type=("int32", "uint64", "int8")[n % 3], **common))
    return result


def test_every_type_and_form_compiles_with_nvrtc(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    p = compile_requests(_requests(), toolchain, compiler, (32, 2, 2))
    assert ".LoadToShared(src, dst);" in p.source and "cuda_coop::BlockLoadToShared<__nv_bfloat16, 32, " in p.source
    assert "cuda_coop_detail::clamp_count<" in p.source


COVERING = covering(gpu.CASES, "dtype", "block", "ipt", "partial")
"""Every value of every axis of the GPU tier's kernels."""


def test_covering_subset_covers_the_gpu_axes() -> None:
    assert not missing_values(COVERING, gpu.CASES, "dtype", "block", "ipt", "partial")
    assert len(COVERING) <= 14, len(COVERING)
    gpu.test_cases_cover_every_axis()
    gpu.test_model_on_a_hand_example()


@pytest.mark.parametrize("case", COVERING, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)
    assert_inlined(compiled)
    assert [i for i in instructions(compiled.sass()) if "UBLKCP" in i]


NUMBA_CUDA_CASES = covering(COVERING, block_rank, "partial")
"""The same kernels' sources under numba-cuda: every block rank, whole and partial tiles."""


@pytest.mark.parametrize("case", NUMBA_CUDA_CASES, ids=lambda c: c.id)
def test_gpu_tier_kernels_compile_under_numba_cuda(case: gpu.Case) -> None:
    kernel, sig = gpu.make_kernel(case, dsl=NUMBA_CUDA), gpu.signature(case, dsl=NUMBA_CUDA)
    compiled = NUMBA_CUDA.compile_kernel(kernel, sig, block=case.block)
    assert_inlined(compiled)
    assert [i for i in instructions(compiled.sass()) if "UBLKCP" in i]


@pytest.mark.parametrize(("block", "dtype"), sanitizer.CASES)
def test_sanitizer_kernels_compile(block: tuple[int, int, int], dtype: str) -> None:
    item = getattr(types, dtype)[::1]
    assert_inlined(compile_kernel(sanitizer._kernel(block, dtype), (item, item, types.int64), block=block))


def _sass(arch: str, partial: bool = True) -> list[str]:
    PARTIAL = partial

    @cuda.jit
    def kernel(x, out, n):
        tile = cuda.shared.array(512, np.float32, alignment=16)
        base = cuda.blockIdx.x * 512
        if PARTIAL:
            coop.block.load_to_shared(x, tile, offset=base, valid_items=n - base, items_per_thread=4)
        else:
            coop.block.load_to_shared(x, tile, offset=base, items_per_thread=4)
        out[base + cuda.threadIdx.x] = tile[511 - cuda.threadIdx.x]

    return instructions(compile_kernel(kernel, (types.float32[::1], types.float32[::1], types.int64), block=128,
                                       arch=arch).sass())


def _count(sass: list[str], pattern: str) -> int:
    return len([i for i in sass if re.search(pattern, i)])


def test_sm_90_copies_with_one_bulk_copy_and_an_mbarrier() -> None:
    """CUB 3.6 on sm_90: one elected thread issues the bulk copy (``cp.async.bulk``); the block waits on the
    mbarrier; four barriers: the mbarrier's initialisation, the commit, and the invalidation's two."""
    sass = _sass("sm_90")
    assert _count(sass, r"\bUBLKCP\b") == 1 and _count(sass, r"\bELECT\b") >= 1
    assert _count(sass, r"SYNCS\.ARRIVE") and _count(sass, r"SYNCS\.PHASECHK") and _count(sass, r"SYNCS\.CCTL\.IV")
    assert _count(sass, r"\bBAR\.SYNC") == 4 and not _count(sass, r"\bLDGSTS\b")


def test_a_partial_tile_copies_its_tail_item_by_item() -> None:
    """The bytes past the partial tile's last whole 16-byte chunk: one load and one shared store per thread (those
    ranked below the tail's items); a whole tile has no tail, and no such code."""
    partial, whole = _sass("sm_90"), _sass("sm_90", partial=False)
    assert _count(partial, r"\bLDG\.E\b") == 1 and _count(partial, r"\bSTS\b") == 1
    assert not _count(whole, r"\bLDG\b|\bSTS\b") and _count(whole, r"\bUBLKCP\b") == 1


def test_sm_80_copies_with_cp_async() -> None:
    sass = _sass("sm_80")
    assert _count(sass, r"\bLDGSTS") and _count(sass, r"\bLDGDEPBAR\b|\bDEPBAR\b")
    assert not _count(sass, r"\bUBLKCP\b|\bSYNCS\b")


def test_sm_75_copies_through_registers() -> None:
    sass = _sass("sm_75")
    assert _count(sass, r"\bLDG\.E\.128\b") and _count(sass, r"\bSTS\.128\b")
    assert not _count(sass, r"\bUBLKCP\b|\bLDGSTS\b|\bSYNCS\b")


def test_alignas_does_not_type_and_alignment_does() -> None:
    """docs/known_issues.rst (known-issue-shared-array-alignas): Numba-CUDA-MLIR 0.5.4 types ``alignment=16`` and
    the third positional argument, not its own documented ``alignas=16``. When this fails, ``alignas=`` works: name it
    in the docs and messages again."""

    def kernel_with(spelling: str):  # type: ignore[no-untyped-def]
        source = (f"def k(x, y):\n    tile = cuda.shared.array(128, np.float32{spelling})\n"
                  "    coop.block.load_to_shared(x, tile, items_per_thread=1)\n    y[0] = tile[0]\n")
        env = {"cuda": cuda, "np": np, "coop": coop}
        exec(compile(source, f"<alignment {spelling}>", "exec"), env)
        return cuda.jit(env["k"])

    for spelling in (", alignment=16", ", 16"):
        compile_kernel(kernel_with(spelling), (F32, F32), block=128)
    with pytest.raises(Exception, match="alignment must be a constant integer"):
        compile_kernel(kernel_with(", alignas=16"), (F32, F32), block=128)


# --- misuse ------------------------------------------------------------------------------------------------------


@cuda.jit
def local_dst(x, y):
    tile = cuda.local.array(128, np.float32)
    coop.block.load_to_shared(x, tile, items_per_thread=1)  # call
    y[0] = tile[0]


@cuda.jit
def global_dst(x, y):
    coop.block.load_to_shared(x, y, items_per_thread=1)  # call


@cuda.jit
def shared_src(x, y):
    a = cuda.shared.array(128, np.float32, alignment=16)
    b = cuda.shared.array(128, np.float32, alignment=16)
    coop.block.load_to_shared(a, b, items_per_thread=1)  # call
    y[0] = b[0]


@cuda.jit
def default_alignment(x, y):
    tile = cuda.shared.array(128, np.float32)
    coop.block.load_to_shared(x, tile, items_per_thread=1)  # call
    y[0] = tile[0]


@cuda.jit
def sliced_dst(x, y):
    tile = cuda.shared.array(256, np.float32, alignment=16)
    coop.block.load_to_shared(x, tile[128:], items_per_thread=1)  # call
    y[0] = tile[0]


@cuda.jit
def too_small(x, y):
    tile = cuda.shared.array(100, np.float32, alignment=16)
    coop.block.load_to_shared(x, tile, items_per_thread=1)  # call
    y[0] = tile[0]


@cuda.jit
def misaligned_offset(x, y):
    tile = cuda.shared.array(128, np.float32, alignment=16)
    coop.block.load_to_shared(x, tile, offset=2, items_per_thread=1)  # call
    y[0] = tile[0]


@cuda.jit
def partial_warp(x, y):
    tile = cuda.shared.array(48, np.float32, alignment=16)
    coop.block.load_to_shared(x, tile, items_per_thread=1)  # call
    y[0] = tile[0]


@cuda.jit
def no_tile_size(x, y):
    tile = cuda.shared.array(128, np.float32, alignment=16)
    coop.block.load_to_shared(x, tile)  # call
    y[0] = tile[0]


@cuda.jit
def thread_dependent_offset(x, y):
    tile = cuda.shared.array(128, np.float32, alignment=16)
    coop.block.load_to_shared(x, tile, offset=cuda.threadIdx.x * 4, items_per_thread=1)  # call
    y[0] = tile[0]


@pytest.mark.parametrize(
    ("kernel", "block", "needles"),
    [
        (local_dst, (128,), ("dst=", "cuda.local.array", "private copy", "cuda.shared.array")),
        (global_dst, (128,), ("dst= is the kernel argument 'y' (global memory), but the call writes dst only as a "
                              "cuda.shared.array(n, dtype)",)),
        (shared_src, (128,), ("src= is a cuda.shared.array of shape (128,), but the call reads src only as a global "
                              "array",)),
        (default_alignment, (128,), ("dst= is a cuda.shared.array of shape (128,) declared with alignment=8", "a "
                                     "multiple of 16 bytes", "cuda.shared.array(n, dtype, alignment=16)")),
        (sliced_dst, (128,), ("dst= is an element or slice of", "multiple of 16 bytes")),
        (too_small, (128,), ("dst=", "100 items, but the call writes 128 items",)),
        (misaligned_offset, (128,), ("offset=2 puts src[2] 8 bytes past the array's start, not a multiple of 16",
                                     "a multiple of 4")),
        (partial_warp, (48,), ("the block (48, 1, 1) has 48 threads, but CUB's copy to shared memory needs whole "
                               "warps",)),
        (no_tile_size, (128,), ("items_per_thread= is required",)),
        (thread_dependent_offset, (128,), ("offset=", "same in every thread of the block")),
    ],
    ids=lambda v: v.py_func.__name__ if hasattr(v, "py_func") else None,
)
def test_misuse_is_refused_at_the_call(kernel, block, needles: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    refused(kernel, (F32, F32), *needles, block=block)
