"""Partial tiles of the radix sorts and ranks through numba-cuda-mlir and NVRTC, for sm_90 (no GPU).

The GPU tier's kernels (``tests/gpu/test_partial_tiles.py``: ``valid_items=`` of ``coop.block.radix_sort``,
``argsort``, ``top_k``, ``radix_rank``, ``coop.warp.argsort``, ``top_k``) compile, a covering subset of them: every
key type, block shape, items per thread, algorithm, count type and the other axes at least once, with the wrappers
inlined (no CALL, no local memory). The rendered wrapper pads the keys the spec declares and passes CUB no count.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from cuda.coop._specs import Request
from cuda.coop.numba_mlir import compile_kernel
from tests.gpu import test_partial_tiles as gpu
from tests.helpers.golden import render_requests
from tests.helpers.sass import assert_inlined
from tests.helpers.subset import covering, missing_values

BLOCK_AXES = ("dtype", "block", "ipt", "descending", "output", "values", "bits", "largest", "algorithm", "radix_bits",
              "count_type", "index_type")
WARP_AXES = ("dtype", "threads", "ipt", "block", "descending", "largest", "values", "index_type", "count_type",
             "algorithm")
BLOCK_COVERING = covering(gpu.CASES, *BLOCK_AXES)
WARP_COVERING = covering(gpu.WARP_CASES, *WARP_AXES)


def _heavy(case: gpu.Case) -> bool:
    """Eight 8-byte keys a thread through four collectives: ptxas's 128 registers (numba-cuda-mlir 0.5.4) spill
    8 bytes (measured for uint64 keys with float64 values on 33 threads: 128 registers and 2 spill instructions
    padded, 112 registers and none for the same calls on whole tiles). Spills, and only spills, are allowed there."""
    return case.ipt == 8 and gpu.width(case.dtype) == 64


@pytest.mark.parametrize("case", BLOCK_COVERING, ids=lambda c: c.id)
def test_gpu_tier_block_kernels_compile_inlined(case: gpu.Case) -> None:
    compiled = compile_kernel(gpu.make_kernel(case), gpu.signature(case), block=case.block)
    assert_inlined(compiled, spills=_heavy(case))


@pytest.mark.parametrize("case", WARP_COVERING, ids=lambda c: c.id)
def test_gpu_tier_warp_kernels_compile_inlined(case: gpu.WarpCase) -> None:
    assert_inlined(compile_kernel(gpu.make_warp_kernel(case), gpu.warp_signature(case), block=case.block))


def test_the_subsets_cover_every_axis() -> None:
    assert not missing_values(BLOCK_COVERING, gpu.CASES, *BLOCK_AXES)
    assert not missing_values(WARP_COVERING, gpu.WARP_CASES, *WARP_AXES)
    assert {c.dtype for c in BLOCK_COVERING} == set(gpu.KEYS) == {c.dtype for c in WARP_COVERING}


def test_the_wrapper_pads_and_passes_cub_no_count() -> None:
    """Each partial-tile form pads its keys (descending: with the smallest key; ``"match"``: in warp-striped order)
    and calls the same CUB member as the whole-tile form, without the count; top-k's k is bounded by the count."""
    text = render_requests([
        Request("block_radix_sort", "radix_sort", "keys_valid", dtype="float32", items_per_thread=4, descending=True,
                count_type="uint64"),
        Request("block_radix_rank", "radix_rank", "ranks_valid", dtype="int16", items_per_thread=2, algorithm="match"),
        Request("block_top_k", "top_k", "keys_valid", dtype="uint8", items_per_thread=2, count_type="int32",
                valid_type="int8"),
    ], (64,))
    assert "pad_keys<true, false, 64>(reinterpret_cast<float(&)[4]>(*keys), cub::RowMajorTid(64, 1, 1), " \
           "cuda_coop_detail::clamp_count<256>(valid_items));" in text
    assert ".SortDescending(reinterpret_cast<float(&)[4]>(*keys), begin_bit, end_bit);" in text
    assert "pad_keys<false, true, 64>(keys_in, cub::RowMajorTid(64, 1, 1), " in text
    assert ".RankKeys(keys_in, reinterpret_cast<int(&)[2]>(*ranks), begin_bit, end_bit);" in text
    assert "pad_keys<true, false, 64>(keys_in," in text  # largest=True (the default) sorts descending
    assert ".TopKLargest(keys_in, cuda_coop_detail::min_count(cuda_coop_detail::clamp_count<128>(k), " \
           "cuda_coop_detail::clamp_count<128>(valid_items)), out_keys, offset);" in text
    warp = render_requests([Request("warp_argsort", "argsort", "pairs_valid", dtype="float64", items_per_thread=2,
                                    index_type="int32", threads=8)], (64,))
    assert "pad_keys<false, false, 8>(reinterpret_cast<double(&)[2]>(*keys), tid % 8, " \
           "cuda_coop_detail::clamp_count<16>(valid_items));" in warp
