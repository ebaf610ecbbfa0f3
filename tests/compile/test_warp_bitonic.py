"""What the warp sorts' ``algorithm="bitonic"`` relies on in CCCL's ``cub::detail`` namespace, pinned (NVRTC, sm_90),
and the GPU tier's bitonic-against-merge-sort kernels compiled (a covering subset).

``cub::detail::WarpBitonicSort`` is internal to CUB: CCCL promises nothing about it between releases. cuda-coop
bundles CCCL 3.6, and ``include/cuda_coop/detail/warp_bitonic.cuh`` uses exactly the declarations this module
compiles against (``static_assert``s and ``decltype`` checks in one translation unit), so a bundle whose CCCL
changes them fails here, naming what changed, instead of in a user's kernel. What the class *does* (a sorted
striped tile, any items per lane) is pinned by the GPU tier, bit for bit against ``"merge_sort"``
(tests/gpu/test_warp_bitonic.py).
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pytest

from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._provider._key import compile_options, generic_lambda_options
from tests.gpu import test_warp_bitonic as gpu
from tests.helpers.nvrtc import LTOIR_MAGIC
from tests.helpers.subset import Axis, covering, missing_values

DECLARATIONS = r"""
#include <cub/warp/warp_bitonic_sort.cuh>
#include <cub/warp/warp_utils.cuh>
#include <cub/util_ptx.cuh>
#include <cuda/std/functional>
#include <cuda/std/type_traits>
#include <cuda_coop/warp_merge_sort.cuh>

static_assert(CCCL_VERSION == 3006000, "the pins below are CCCL 3.6's: review them for another CCCL");

namespace pin
{
using ::cuda::std::declval;
using ::cuda::std::is_same_v;
using Less = ::cuda::std::less<>;
struct Key { float key; int position; };  // the shape of cuda_coop::detail::Positioned
template <class K, int N, int T, class V = cub::NullType>
using Bitonic = cub::detail::WarpBitonicSort<K, N, T, V>;

// 1. The class template takes <KeyT, ItemsPerThread, LogicalWarpThreads, ValueT>, with an empty TempStorage (CUB's
//    one byte) it is constructed from, for any positive items per lane and struct keys.
template <class K, int N, int T, class V>
constexpr bool empty_storage = sizeof(typename Bitonic<K, N, T, V>::TempStorage) == 1
  && ::cuda::std::is_constructible_v<Bitonic<K, N, T, V>, typename Bitonic<K, N, T, V>::TempStorage&>;
static_assert(empty_storage<int, 1, 32, cub::NullType> && empty_storage<Key, 3, 16, double>);
static_assert(empty_storage<double, 7, 1, short> && empty_storage<Key, 8, 32, cub::NullType>);

// 2. The two member functions used: Sort(keys, compare) and Sort(keys, values, compare), const, returning void.
template <class K, int N, int T>
using KeysSort = decltype(declval<const Bitonic<K, N, T>&>().Sort(declval<K (&)[N]>(), Less{}));
template <class K, int N, int T, class V>
using PairsSort =
  decltype(declval<const Bitonic<K, N, T, V>&>().Sort(declval<K (&)[N]>(), declval<V (&)[N]>(), Less{}));
static_assert(is_same_v<KeysSort<int, 4, 32>, void> && is_same_v<KeysSort<Key, 5, 8>, void>);
static_assert(is_same_v<PairsSort<Key, 1, 2, long long>, void> && is_same_v<PairsSort<Key, 3, 32, float>, void>);

// 3. The lane and mask helpers (the lane the network and the exchange back to blocked count positions by).
static_assert(is_same_v<decltype(cub::detail::logical_lane_id<8>()), int>);
static_assert(is_same_v<decltype(cub::detail::logical_warp_id<8>()), int>);
static_assert(is_same_v<decltype(cub::WarpMask<8>(0u)), unsigned int>);

// 4. cuda-coop's compositions over them: an empty storage where nothing is exchanged.
static_assert(sizeof(cuda_coop::WarpSort<int, 1, 32, double, cuda_coop::WARP_SORT_BITONIC>::TempStorage) == 1);
static_assert(sizeof(cuda_coop::WarpSort<int, 4, 32, double, cuda_coop::WARP_SORT_BITONIC>::TempStorage) == 4 * 32 * 8);
static_assert(sizeof(cuda_coop::WarpSort<char, 8, 32, short, cuda_coop::WARP_SORT_BITONIC>::TempStorage) == 264 * 2);
} // namespace pin

// Every declaration used, instantiated in a kernel.
__global__ void pin_kernel(float* data, double* values, int valid)
{
  using Sort = cuda_coop::WarpSort<float, 3, 8, double, cuda_coop::WARP_SORT_BITONIC>;
  __shared__ Sort::TempStorage temp[4];
  float keys[3];
  double vals[3];
  for (int i = 0; i < 3; ++i)
  {
    keys[i] = data[threadIdx.x * 3 + i];
    vals[i] = values[threadIdx.x * 3 + i];
  }
  Sort(temp[threadIdx.x / 8]).Sort(keys, vals, pin::Less{});
  Sort(temp[threadIdx.x / 8]).StableSort(keys, vals, pin::Less{}, valid, 0.0f);
  for (int i = 0; i < 3; ++i)
  {
    data[threadIdx.x * 3 + i]   = keys[i];
    values[threadIdx.x * 3 + i] = vals[i];
  }
}
"""

NOT_A_POWER_OF_TWO = r"""
#include <cub/warp/warp_bitonic_sort.cuh>
#include <cuda/std/functional>
__global__ void three_lanes(int* data)
{
  using Sort = cub::detail::WarpBitonicSort<int, 2, 3>;
  Sort::TempStorage none;
  int keys[2] = {data[0], data[1]};
  Sort(none).Sort(keys, ::cuda::std::less<>{});
  data[0] = keys[0];
}
"""


def _compile(source: str, toolchain: Toolchain, compiler: NvrtcCompiler) -> tuple[bytes | None, str]:
    # WarpBitonicSort's generic lambda needs -default-device on NVRTC before 13.2, as its providers get it.
    options = compile_options(toolchain, "sm_90", generic_lambda_options(toolchain.nvrtc_version))
    result = compiler.compile(source, options, name="pin_warp_bitonic.cu")
    return result.ltoir, result.log


def test_the_declarations_bitonic_relies_on(toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    ltoir, log = _compile(DECLARATIONS, toolchain, compiler)
    assert ltoir is not None and ltoir.startswith(LTOIR_MAGIC), log


@pytest.mark.parametrize("source", [NOT_A_POWER_OF_TWO], ids=["three_lanes"])
def test_cub_still_refuses_a_logical_warp_that_is_not_a_power_of_two(
    source: str, toolchain: Toolchain, compiler: NvrtcCompiler
) -> None:
    """The spec refuses ``threads=3`` before C++ (LOGICAL_WARP_CONSTRAINT); CUB's own check backs it."""
    ltoir, log = _compile(source, toolchain, compiler)
    assert ltoir is None and "LogicalWarpThreads must be a power of two" in log, log


# --- the GPU tier's kernels (tests/gpu/test_warp_bitonic.py) -----------------------------------------------------

Launch = tuple[gpu.Case, str, str]
"""A case, the algorithm and the part of one of its kernels: the GPU tier launches each case's parts with both
algorithms."""


def _field(name: str) -> Axis:
    def axis(launch: Launch) -> Hashable:
        return getattr(launch[0], name)  # type: ignore[no-any-return]

    axis.__name__ = name
    return axis


def algorithm(launch: Launch) -> Hashable:
    return launch[1]


def part(launch: Launch) -> Hashable:
    return launch[2]


def function(launch: Launch) -> Hashable:
    """Each part with each algorithm."""
    return launch[1:]


AXES: tuple[Axis, ...] = (*(_field(n) for n in ("dtype", "threads", "ipt", "block", "values", "descending")), algorithm,
                          part, function)
LAUNCHES = [(case, a, p) for case in gpu.CASES for p in gpu.PARTS for a in reversed(gpu.ALGORITHMS)]
"""In the GPU tier's order, "bitonic" first (the covering then picks it for most kernels)."""
COVERING = covering(LAUNCHES, *AXES)
"""Every key type, logical warp, items per lane, block, value type, direction and algorithm at least once."""


@pytest.mark.parametrize("launch", COVERING, ids=lambda launch: "-".join((launch[0].id, *launch[1:])))
def test_gpu_tier_kernels_compile_inlined(launch: Launch) -> None:
    """Every wrapper inlined; local memory for register spills only: the radix kernel holds an argsort's and a
    top-k's arrays with float64 values, which can pass the 128 registers Numba-CUDA-MLIR's kernels get (measured: one
    spilled 8-byte register in two of the subset's kernels; none in the others)."""
    pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")
    from cuda.coop.numba_mlir import compile_kernel
    from tests.helpers.sass import assert_inlined

    case, alg, part = launch
    compiled = compile_kernel(gpu.kernel(case, alg, part), gpu.signature(case, part), block=case.block)
    assert_inlined(compiled, spills=True)
    assert "call." not in compiled.ptx


def test_the_subset_covers_the_gpu_tier(rng: np.random.Generator) -> None:
    assert not missing_values(COVERING, LAUNCHES, *AXES)
    gpu.test_cases_cover_every_axis()
    gpu.test_the_host_model(rng)
