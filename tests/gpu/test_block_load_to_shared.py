"""``coop.block.load_to_shared`` on the GPU: tiles copied into a shared array, against NumPy.

One kernel per case; ``GRID`` blocks, each copying ``TILES`` tiles in a loop into one ``cuda.shared.array(tile, dtype,
alignment=16)`` (the second copy reuses the array after a ``cuda.syncthreads()``, and CUB's barrier after its
invalidation). Before each copy the block fills the shared array with a poison value the inputs never take; after it,
every thread copies the shared array out to global memory with no barrier of its own (the call ends synchronised).
The model: ``out[tile] == src[tile]`` for the first ``n = clamp(valid_items, 0, tile)`` items, poison after them (a
partial tile writes nothing past ``n``). Counts per tile rotate through a random one, 0, 1, tile - 1 (a tail of
fewer than 16 bytes copied item by item), tile, tile + 5 and -3, so both CUB's aligned bulk part and cuda-coop's tail
are exercised; full-tile cases call the form without ``valid_items``. In integer cases the block then sums the first
``block_threads`` items of the shared array (``coop.block.sum``), whose temporary storage overlaps the copy's
invalidated barrier.

Axes (rotated, see :func:`cases`): item types int8..int64, uint8..uint64, float16, float32, float64, complex64,
complex128 (bfloat16 is a 2-byte bit copy like float16: compiled in the compile tier, not run: NumPy has no bfloat16)
x blocks (32,), (64,), (96,), (256,), (1024,), (32, 4), (8, 4, 4) x items per thread 1, 3, 4, 8 (tiles up to 48 KiB of
static shared memory) x full and partial tiles. A block that is not a multiple of 32 threads is refused (CUB elects its
copying thread in the last warp with a full mask): tests/compile/test_block_load_to_shared.py checks the refusal.
compute-sanitizer memcheck/racecheck/synccheck run ``tests/gpu/_sanitizer_load_to_shared.py``: nothing found, but
racecheck's known write-write race on CUB's bulk copy into the reused array (docs/known_issues.rst,
known-issue-racecheck-bulk-copy), asserted exactly.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.gpu import _sanitizer_load_to_shared as sanitizer
from tests.gpu._data import assert_bits_equal, random_values, sentinels
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import Race, run_clean
from tests.helpers.shapes import Tile

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
          "complex64", "complex128")
BLOCKS = ((32, 1, 1), (64, 1, 1), (96, 1, 1), (256, 1, 1), (1024, 1, 1), (32, 4, 1), (8, 4, 4))
ITEMS = (1, 3, 4, 8)
GRID, TILES = 3, 2
STATIC_SHARED = 48 * 1024
"""The static shared memory a block may have: the tile, and the block sum's storage, fit in it."""


@dataclass(frozen=True)
class Case(Tile):
    dtype: str
    block: tuple[int, int, int]
    ipt: int
    partial: bool

    @property
    def itemsize(self) -> int:
        return np.dtype(self.dtype).itemsize

    @property
    def summed(self) -> bool:
        """Integer cases also sum the shared array's first ``threads`` items (a block primitive after the copy)."""
        return np.dtype(self.dtype).kind in "iu"

    @property
    def id(self) -> str:
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-n{self.ipt}-{'partial' if self.partial else 'full'}"


def cases() -> list[Case]:
    result = []
    n = 0
    for d, dtype in enumerate(DTYPES):
        for j in range(2):
            for k in range(len(BLOCKS) * len(ITEMS)):  # the first shape from the rotation whose tile fits
                block = BLOCKS[(d + 3 * j + k) % len(BLOCKS)]
                ipt = ITEMS[(d + j + k) % len(ITEMS)]
                if math.prod(block) * ipt * np.dtype(dtype).itemsize <= STATIC_SHARED - 1024:
                    break
            result.append(Case(dtype, block, ipt, partial=(n % 2 == 0)))
            n += 1
    return result


CASES = cases()


# --- host side ----------------------------------------------------------------------------------------------------


def poison(dtype: str) -> np.ndarray:
    """One value the inputs never take: the integer sentinel, a NaN (complex: NaN parts)."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        return np.array([complex(np.nan, np.nan)], dt)
    if dt.kind == "f":
        return np.array([np.nan], dt)
    return np.array([sentinels(dtype)[0]], dt)


def inputs(case: Case, rng: np.random.Generator) -> np.ndarray:
    n = GRID * TILES * case.tile
    dt = np.dtype(case.dtype)
    if dt.kind == "c":
        part = np.float32 if dt == np.complex64 else np.float64
        return (random_values(rng, part.__name__, n) + 1j * random_values(rng, part.__name__, n)).astype(dt)
    if dt == np.float16:
        return (rng.uniform(0.5, 1000.0, n) * rng.choice([-1.0, 1.0], n)).astype(dt)
    return random_values(rng, case.dtype, n)


def counts(case: Case, rng: np.random.Generator) -> np.ndarray:
    """Each tile's ``valid_items``: the whole tile for full-tile cases; a rotation of interesting counts otherwise."""
    tile = case.tile
    if not case.partial:
        return np.full(GRID * TILES, tile, np.int64)
    choices = [int(rng.integers(1, tile)) if tile > 1 else 1, 0, 1, tile - 1, tile, tile + 5, -3]
    return np.array([choices[i % len(choices)] for i in range(GRID * TILES)], np.int64)


def expected(case: Case, x: np.ndarray, valid: np.ndarray) -> np.ndarray:
    out = np.repeat(poison(case.dtype), x.size)
    for i, v in enumerate(valid):
        n = int(np.clip(v, 0, case.tile))
        out[i * case.tile : i * case.tile + n] = x[i * case.tile : i * case.tile + n]
    return out


def expected_sums(case: Case, x: np.ndarray) -> np.ndarray:
    tiles = x.reshape(GRID * TILES, case.tile)[:, : case.threads]
    return tiles.sum(axis=1, dtype=x.dtype)


# --- kernels ------------------------------------------------------------------------------------------------------


def signature(case: Case, *, dsl: Dsl = NUMBA_MLIR) -> tuple[Any, ...]:
    types = dsl.types

    item = getattr(types, case.dtype)[::1]
    return (item, item, types.int64[::1], item, item)


def make_kernel(case: Case, *, dsl: Dsl = NUMBA_MLIR) -> Any:
    """``k(src, out, valid, poison, sums)``: see the module docstring."""
    cuda = dsl.cuda

    import cuda.coop as coop

    T = getattr(np, case.dtype)
    TILE, IPT, THREADS = case.tile, case.ipt, case.threads
    bx, by, _bz = case.block
    partial, summed = case.partial, case.summed

    @cuda.jit
    def kernel(src, out, valid, poison, sums):
        shared = cuda.shared.array(TILE, T, alignment=16)
        t = cuda.threadIdx.x + bx * (cuda.threadIdx.y + by * cuda.threadIdx.z)
        for rep in range(TILES):
            for i in range(t, TILE, THREADS):
                shared[i] = poison[0]
            cuda.syncthreads()  # the poison is in place before the copy; no thread reads the previous tile
            k = cuda.blockIdx.x * TILES + rep
            base = k * TILE
            if partial:
                coop.block.load_to_shared(src, shared, offset=base, valid_items=valid[k], items_per_thread=IPT)
            else:
                coop.block.load_to_shared(src, shared, offset=base, items_per_thread=IPT)
            for i in range(t, TILE, THREADS):
                out[base + i] = shared[i]
            if summed:
                total = coop.block.sum(shared[t])
                if t == 0:
                    sums[k] = total
            cuda.syncthreads()

    return kernel


def run(case: Case, rng: np.random.Generator, *, dsl: Dsl = NUMBA_MLIR) -> None:
    cuda = dsl.cuda

    x = inputs(case, rng)
    valid = counts(case, rng)
    bad = poison(case.dtype)
    out = cuda.to_device(np.repeat(bad, x.size))
    sums = cuda.to_device(np.repeat(bad, GRID * TILES))
    kernel = make_kernel(case, dsl=dsl)
    kernel[GRID, case.block](cuda.to_device(x), out, cuda.to_device(valid), cuda.to_device(bad), sums)
    assert_bits_equal(out.copy_to_host(), expected(case, x, valid), case.id)
    if case.summed and not case.partial:
        np.testing.assert_array_equal(sums.copy_to_host(), expected_sums(case, x), err_msg=f"{case.id}: block sums")


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_block_load_to_shared(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    run(case, rng, dsl=dsl)


def test_cases_cover_every_axis() -> None:
    assert {c.dtype for c in CASES} == set(DTYPES)
    assert {c.block for c in CASES} == set(BLOCKS)
    assert {c.ipt for c in CASES} == set(ITEMS)
    assert {c.partial for c in CASES} == {False, True}
    assert all(c.tile * c.itemsize <= STATIC_SHARED for c in CASES)
    assert all(c.threads % 32 == 0 for c in CASES)
    assert any(c.summed and not c.partial for c in CASES)
    for itemsize in (1, 2, 4, 8, 16):  # a partial tile of every item size: tails of 15, 7, 3, 1 and 0 items
        assert any(c.partial and c.itemsize == itemsize for c in CASES), itemsize


def test_model_on_a_hand_example() -> None:
    case = Case("int32", (32, 1, 1), 1, partial=True)
    x = np.arange(1, GRID * TILES * 32 + 1, dtype=np.int32)
    valid = np.array([3, 0, 32, 40, -3, 31])
    want = expected(case, x, valid)
    assert want[:3].tolist() == [1, 2, 3] and (want[3:32] == poison("int32")[0]).all()
    assert (want[32:64] == poison("int32")[0]).all() and want[64:96].tolist() == x[64:96].tolist()
    assert want[96:128].tolist() == x[96:128].tolist() and (want[128:160] == poison("int32")[0]).all()
    assert want[160:191].tolist() == x[160:191].tolist() and want[191] == poison("int32")[0]


DEMANGLED = {"int32": "int", "float16": "__fp16"}
"""The item types of the sanitizer script's kernels as racecheck's demangled kernel names spell them."""


def bulk_copy_pcs(block: tuple[int, int, int], dtype: str, arch: str) -> set[int]:
    """The offsets of the bulk copies (``UBLKCP``: CUB's ``cp.async.bulk``) in the sanitizer script's kernel, compiled
    as the script launches it (the same toolchain compiles the same cubin)."""
    from numba_cuda_mlir.numba_cuda import types

    from cuda.coop.numba_mlir import compile_kernel

    item = getattr(types, dtype)[::1]
    sass = compile_kernel(sanitizer._kernel(block, dtype), (item, item, types.int64), block=block, arch=arch).sass()
    return {int(m[1], 16) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?UBLKCP\b", sass)}


def bulk_bytes(block: tuple[int, int, int], dtype: str) -> int:
    """The bytes the script's kernel copies through CUB's bulk copy in one pass over the grid: each block's valid
    items rounded down to whole 16-byte chunks (the tail under 16 bytes is cuda-coop's per-thread copy)."""
    size = np.dtype(dtype).itemsize
    tile = math.prod(block) * sanitizer.IPT
    n = sanitizer.GRID * tile - 5  # as the script sizes its source
    return sum(min(tile, n - b * tile) * size // 16 * 16 for b in range(sanitizer.GRID))


def only_the_known_bulk_copy_race(races: list[Race]) -> None:
    """docs/known_issues.rst, known-issue-racecheck-bulk-copy: racecheck reports one write-write race per kernel,
    between CUB's bulk copy (``cp.async.bulk``, SASS ``UBLKCP``) of one loop iteration and that of the next, on
    exactly the bulk-copied bytes of each of the REPS - 1 later copies; nothing else (not the tail's per-thread
    stores, not a read). When this fails because racecheck reports nothing, the tool models the copy's completion:
    drop the section and this exception."""
    from numba_cuda_mlir import cuda

    major, minor = cuda.get_current_device().compute_capability
    assert len(races) == len(sanitizer.CASES), races
    for block, dtype in sanitizer.CASES:
        mine = [r for r in races if f"kernel(Array<{DEMANGLED[dtype]}, " in r.first_function]
        assert len(mine) == 1, (dtype, races)
        race = mine[0]
        pcs = bulk_copy_pcs(block, dtype, f"sm_{major}{minor}")
        assert len(pcs) == 1, pcs
        assert (race.severity, race.first, race.second) == ("Error", "Write", "Write"), race
        assert race.second_function == race.first_function and race.first_pc == race.second_pc, race
        assert race.first_pc in pcs, f"{race}: not the bulk copy, at {sorted(map(hex, pcs))}"
        assert race.hazards == (sanitizer.REPS - 1) * bulk_bytes(block, dtype), race


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    """``tests/gpu/_sanitizer_load_to_shared.py`` under compute-sanitizer: right results, nothing found (memcheck: a
    partial last tile reads nothing past the end of an array sized to it), but racecheck's known false write-write
    race on CUB's bulk copy (:func:`only_the_known_bulk_copy_race`)."""
    known = only_the_known_bulk_copy_race if tool == "racecheck" else None
    run_clean("tests.gpu._sanitizer_load_to_shared", tool, "load_to_shared", 2, rng=None,  # inputs not random
              known_races=known)
