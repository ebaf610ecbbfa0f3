"""BlockExchange and WarpExchange on the GPU, against NumPy.

One kernel per case runs every method of the family on random values spanning the dtype, into
poisoned outputs, on a 2-block grid. Each result is stored in the arrangement it claims (blocked,
striped, warp-striped), so a correct exchange reproduces the input tile, or its permutation by the
ranks (a random permutation of each tile; the guarded and flagged scatters drop a random subset and
only the positions that received an item are compared). ``warp_time_slicing`` is used by half of the
call sites; rank types vary (int32, uint16, int64, int16) and flags are bool.

Block shapes (32,), (128,), (256,), (1024,), (33,), (16,8), (4,4,4) x items 1, 4 and 16 x every one of the ten
dtypes: one kernel per (block, items) holds every dtype (one inlined device function, specialised per dtype), so
the number of compiled kernels stays 21. (33,) runs every method but the warp-striped ones, which are refused
(checked below and in ``tests/compile/test_family_exchange.py``). A tile is exchanged through shared memory, so a
dtype whose tile is over ``TILE_BYTES`` is left out of its case: 1024 threads x 16 items of 4 or 8 bytes need more
than the 48 KiB of static shared memory a block may have, and CUB's storage is refused at compile time with the
documented error (asserted in the compile tier).
WarpExchange: every dtype x logical warps of 1 to 32 threads x items 1, 4 and 16 (``WARP_MATRIX``, the block
rotating through the shapes above), with the shuffle algorithm where items_per_thread == threads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import DTYPES, assert_bits_equal, random_values, sentinels
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Threads, Tile

BLOCKS = ((32, 1, 1), (128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4), (256, 1, 1), (1024, 1, 1))
ITEMS = (1, 4, 16)
TILE_BYTES = 32 * 1024
"""The largest tile a case exchanges: CUB pads it by one item in 32, and the block may have 48 KiB."""
GRID = 2
BLOCK_OUTPUTS = ("b2s", "s2b", "b2ws", "ws2b", "sc_b", "sc_s", "sc_g", "sc_f")
WARP_OUTPUTS = ("b2s", "s2b", "sc_s", "sh_b2s", "sh_s2b")


@dataclass(frozen=True)
class BlockCase(Tile):
    block: tuple[int, int, int]
    ipt: int
    dtypes: tuple[str, ...]

    @property
    def whole_warps(self) -> bool:
        return self.threads % 32 == 0

    @property
    def id(self) -> str:
        return f"{'x'.join(map(str, self.block))}-ipt{self.ipt}"


def fits(block: tuple[int, int, int], ipt: int, dtype: str) -> bool:
    """Whether the tile fits in shared memory (see ``TILE_BYTES``)."""
    return math.prod(block) * ipt * np.dtype(dtype).itemsize <= TILE_BYTES


def block_cases() -> list[BlockCase]:
    """Every block x items per thread, one kernel each, holding every dtype whose tile fits in shared memory."""
    return [BlockCase(b, i, tuple(d for d in DTYPES if fits(b, i, d))) for b in BLOCKS for i in ITEMS]


@dataclass(frozen=True)
class WarpCase(Threads):
    dtype: str
    block: tuple[int, int, int]
    width: int
    ipt: int

    @property
    def id(self) -> str:
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-w{self.width}-ipt{self.ipt}"


WARP_CASES = [
    WarpCase("int8", (33, 1, 1), 1, 4),
    WarpCase("uint16", (32, 1, 1), 2, 1),
    WarpCase("float32", (16, 8, 1), 4, 4),
    WarpCase("int64", (4, 4, 4), 8, 1),
    WarpCase("float64", (128, 1, 1), 16, 4),
    WarpCase("uint32", (128, 1, 1), 32, 4),
    WarpCase("int32", (16, 8, 1), 32, 1),
    WarpCase("uint64", (4, 4, 4), 16, 1),
    WarpCase("int16", (256, 1, 1), 32, 16),
    WarpCase("float32", (256, 1, 1), 1, 16),
    WarpCase("uint8", (1024, 1, 1), 4, 16),  # 16 KiB: wider items at 1024 x 16 exceed the 48 KiB
    WarpCase("float64", (1024, 1, 1), 32, 1),
]
BLOCK_CASES = block_cases()
"""A spread of the warp matrix (every width, items per thread and block dimensionality): the compile tier compiles
these; the GPU tier runs them within :data:`WARP_MATRIX`."""
WARP_WIDTHS = (1, 2, 4, 8, 16, 32)


def warp_matrix() -> list[WarpCase]:
    """Every dtype x logical warp width x items per thread, the block rotating through :data:`BLOCKS` (the next
    one whose size the width divides and whose tile, exchanged through shared memory, fits ``TILE_BYTES``), and
    :data:`WARP_CASES`: 180 + 12 kernels."""
    result, n = list(WARP_CASES), 0
    for dtype in DTYPES:
        size = np.dtype(dtype).itemsize
        for width in WARP_WIDTHS:
            for ipt in ITEMS:
                for k in range(len(BLOCKS)):
                    block = BLOCKS[(n + k) % len(BLOCKS)]
                    threads = math.prod(block)
                    if threads % width == 0 and threads * max(ipt, width) * size <= TILE_BYTES:
                        break
                n += 1
                case = WarpCase(dtype, block, width, ipt)
                if case not in result:
                    result.append(case)
    return result


WARP_MATRIX = warp_matrix()


def _block_body(case: BlockCase, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The device function running every BlockExchange method on one dtype's tile (specialised per dtype), each
    result stored in its arrangement (the warp-striped methods only where the block is made of whole warps:
    elsewhere they are refused)."""
    cuda = dsl.cuda

    import cuda.coop as coop

    IPT, T, TILE = case.ipt, case.threads, case.tile
    WT = 32 * IPT  # one warp's share of a warp-striped tile

    @cuda.jit(device=True)
    def body(x, perm, keep, b2s, s2b, sc_b, sc_s, sc_g, sc_f):
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = cuda.blockIdx.x * TILE
        items = cuda.local.array(IPT, x.dtype)
        out = cuda.local.array(IPT, x.dtype)
        r32 = cuda.local.array(IPT, np.int32)
        r16 = cuda.local.array(IPT, np.uint16)
        r64 = cuda.local.array(IPT, np.int64)
        flags = cuda.local.array(IPT, np.bool_)
        for i in range(IPT):
            items[i] = x[base + t * IPT + i]  # blocked
            r32[i] = perm[base + t * IPT + i]
            r16[i] = perm[base + t * IPT + i]
            flags[i] = keep[base + t * IPT + i] != 0
            r64[i] = perm[base + t * IPT + i] if flags[i] else -1
        coop.block.blocked_to_striped(items, output=out)
        for i in range(IPT):
            b2s[base + i * T + t] = out[i]
        for i in range(IPT):
            out[i] = x[base + i * T + t]  # striped
        coop.block.striped_to_blocked(out, warp_time_slicing=True)  # in place
        for i in range(IPT):
            s2b[base + t * IPT + i] = out[i]
        coop.block.scatter_to_blocked(items, r32, output=out)
        for i in range(IPT):
            sc_b[base + t * IPT + i] = out[i]
        coop.block.scatter_to_striped(items, r16, output=out, warp_time_slicing=True)
        for i in range(IPT):
            sc_s[base + i * T + t] = out[i]
        coop.block.scatter_to_striped_guarded(items, r64, output=out)
        for i in range(IPT):
            sc_g[base + i * T + t] = out[i]
        coop.block.scatter_to_striped_flagged(items, r32, flags, output=out)
        for i in range(IPT):
            sc_f[base + i * T + t] = out[i]

    @cuda.jit(device=True)
    def warp_striped(x, b2ws, ws2b):
        """The warp-striped methods (whole warps only)."""
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = cuda.blockIdx.x * TILE
        items = cuda.local.array(IPT, x.dtype)
        out = cuda.local.array(IPT, x.dtype)
        for i in range(IPT):
            items[i] = x[base + t * IPT + i]
        warp, lane = t // 32, t % 32
        coop.block.blocked_to_warp_striped(items, output=out, warp_time_slicing=True)
        for i in range(IPT):
            b2ws[base + warp * WT + i * 32 + lane] = out[i]
        for i in range(IPT):
            out[i] = x[base + warp * WT + i * 32 + lane]  # warp-striped
        coop.block.warp_striped_to_blocked(out, output=items)
        for i in range(IPT):
            ws2b[base + t * IPT + i] = items[i]

    return body, warp_striped


def make_block_kernel(case: BlockCase, *, whole_warps: bool | None = None, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The case's kernel (compiled at its first launch): arguments ``perm, keep``, then for each of ``case.dtypes``
    its input and the ``BLOCK_OUTPUTS``; one call of the device functions per dtype. ``whole_warps`` (default: the
    block's) includes the warp-striped methods."""
    import linecache

    cuda = dsl.cuda

    body, warp_striped = _block_body(case, dsl=dsl)
    ws = case.whole_warps if whole_warps is None else whole_warps
    args, lines = ["perm", "keep"], []
    for k in range(len(case.dtypes)):
        x, outs = f"x{k}", [f"{name}{k}" for name in BLOCK_OUTPUTS]
        args += [x, *outs]
        b2s, s2b, b2ws, ws2b, sc_b, sc_s, sc_g, sc_f = outs
        lines.append(f"    body({x}, perm, keep, {b2s}, {s2b}, {sc_b}, {sc_s}, {sc_g}, {sc_f})")
        if ws:
            lines.append(f"    warp_striped({x}, {b2ws}, {ws2b})")
    name = f"exchange_{case.id.replace('-', '_')}" + ("_ws" if ws else "")
    source = f"def {name}({', '.join(args)}):\n" + "\n".join(lines) + "\n"
    filename = f"<block exchange kernel {case.id}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    env = {"body": body, "warp_striped": warp_striped}
    exec(compile(source, filename, "exec"), env)  # one kernel whatever the number of dtypes
    return cuda.jit(env[name])


def make_warp_kernel(case: WarpCase, *, dsl: Dsl = NUMBA_MLIR):
    """The case's kernel: every WarpExchange method (smem) and the shuffle transposes (W items)."""
    cuda = dsl.cuda

    import cuda.coop as coop

    DT, IPT, W, T = getattr(np, case.dtype), case.ipt, case.width, case.threads

    @cuda.jit
    def kernel(x, xs, perm, b2s, s2b, sc_s, sh_b2s, sh_s2b):
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        lane = t % W
        seg = (cuda.blockIdx.x * T + t - lane) * IPT  # this logical warp's W * IPT items
        items = cuda.local.array(IPT, DT)
        out = cuda.local.array(IPT, DT)
        ranks = cuda.local.array(IPT, np.int16)
        for i in range(IPT):
            items[i] = x[seg + lane * IPT + i]
            ranks[i] = perm[seg + lane * IPT + i]
        coop.warp.blocked_to_striped(items, output=out, threads=W)
        for i in range(IPT):
            b2s[seg + i * W + lane] = out[i]
        coop.warp.scatter_to_striped(items, ranks, output=out, threads=W)
        for i in range(IPT):
            sc_s[seg + i * W + lane] = out[i]
        for i in range(IPT):
            items[i] = x[seg + i * W + lane]
        coop.warp.striped_to_blocked(items, threads=W)
        for i in range(IPT):
            s2b[seg + lane * IPT + i] = items[i]
        # shuffle: W items per lane
        sq = cuda.local.array(W, DT)
        sseg = (cuda.blockIdx.x * T + t - lane) * W
        for i in range(W):
            sq[i] = xs[sseg + lane * W + i]
        coop.warp.blocked_to_striped(sq, threads=W, algorithm="shuffle")
        for i in range(W):
            sh_b2s[sseg + i * W + lane] = sq[i]
        for i in range(W):
            sq[i] = xs[sseg + i * W + lane]
        coop.warp.striped_to_blocked(sq, threads=W, algorithm="shuffle")
        for i in range(W):
            sh_s2b[sseg + lane * W + i] = sq[i]

    return kernel


def block_signature(case: BlockCase, *, dsl: Dsl = NUMBA_MLIR) -> tuple:
    types = dsl.types

    sig: list = [types.int32[::1], types.uint8[::1]]
    for dtype in case.dtypes:
        sig += [getattr(types, dtype)[::1]] * (1 + len(BLOCK_OUTPUTS))
    return tuple(sig)


def warp_signature(case: WarpCase, *, dsl: Dsl = NUMBA_MLIR) -> tuple:
    types = dsl.types

    data = getattr(types, case.dtype)[::1]
    return (data, data, types.int16[::1], *([data] * len(WARP_OUTPUTS)))


def _permutations(rng: np.random.Generator, tiles: int, size: int) -> np.ndarray:
    return np.concatenate([rng.permutation(size) for _ in range(tiles)]).astype(np.int32)


def _scattered(x: np.ndarray, perm: np.ndarray, size: int) -> np.ndarray:
    """Tile by tile: position perm[j] receives x[j]."""
    out = np.empty_like(x)
    offsets = np.repeat(np.arange(len(x) // size) * size, size)
    out[offsets + perm] = x
    return out


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", BLOCK_CASES, ids=lambda c: c.id)
def test_block_exchange(case: BlockCase, rng: np.random.Generator, dsl: Dsl) -> None:
    cuda = dsl.cuda

    n = GRID * case.tile
    perm = _permutations(rng, GRID, case.tile)
    keep = (rng.random(n) < 0.7).astype(np.uint8)
    args, runs = [cuda.to_device(perm), cuda.to_device(keep)], []
    for dtype in case.dtypes:
        x = random_values(rng, dtype, n)
        poison = sentinels(dtype)[0]
        outs = {name: cuda.to_device(np.full(n, poison, dtype=dtype)) for name in BLOCK_OUTPUTS}
        args += [cuda.to_device(x), *outs.values()]
        runs.append((dtype, x, poison, outs))
    make_block_kernel(case, dsl=dsl)[GRID, case.block](*args)
    scattered_at = _scattered(np.arange(n), perm, case.tile)  # the source index of each scattered position
    offsets = np.repeat(np.arange(GRID) * case.tile, case.tile)
    kept = offsets[keep != 0] + perm[keep != 0]  # the positions that received an item
    for dtype, x, poison, outs in runs:
        what = f"{case.id} {dtype}"
        got = {name: arr.copy_to_host() for name, arr in outs.items()}
        for name in ("b2s", "s2b") + (("b2ws", "ws2b") if case.whole_warps else ()):
            assert_bits_equal(got[name], x, f"{what}: {name}")
        if not case.whole_warps:
            assert_bits_equal(got["b2ws"], np.full(n, poison, dtype=dtype), f"{what}: b2ws untouched")
        scattered = x[scattered_at]
        assert_bits_equal(got["sc_b"], scattered, f"{what}: scatter_to_blocked")
        assert_bits_equal(got["sc_s"], scattered, f"{what}: scatter_to_striped")
        for name in ("sc_g", "sc_f"):
            assert_bits_equal(got[name][kept], scattered[kept], f"{what}: {name}")


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", WARP_MATRIX, ids=lambda c: c.id)
def test_warp_exchange(case: WarpCase, rng: np.random.Generator, dsl: Dsl) -> None:
    cuda = dsl.cuda

    n, ns = GRID * case.threads * case.ipt, GRID * case.threads * case.width
    x, xs = random_values(rng, case.dtype, n), random_values(rng, case.dtype, ns)
    segment = case.width * case.ipt
    perm = _permutations(rng, n // segment, segment).astype(np.int16)
    poison = sentinels(case.dtype)[0]
    outs = {name: cuda.to_device(np.full(ns if name.startswith("sh") else n, poison, dtype=case.dtype))
            for name in WARP_OUTPUTS}
    kernel = make_warp_kernel(case, dsl=dsl)
    kernel[GRID, case.block](cuda.to_device(x), cuda.to_device(xs), cuda.to_device(perm), *outs.values())
    got = {name: arr.copy_to_host() for name, arr in outs.items()}
    assert_bits_equal(got["b2s"], x, f"{case.id}: blocked_to_striped")
    assert_bits_equal(got["s2b"], x, f"{case.id}: striped_to_blocked")
    assert_bits_equal(got["sc_s"], _scattered(x, perm, segment), f"{case.id}: scatter_to_striped")
    assert_bits_equal(got["sh_b2s"], xs, f"{case.id}: shuffle blocked_to_striped")
    assert_bits_equal(got["sh_s2b"], xs, f"{case.id}: shuffle striped_to_blocked")


@pytest.mark.parametrize("dsl", DSLS, ids=str)
def test_warp_striped_refused_at_launch_for_partial_warps(dsl: Dsl) -> None:
    cuda = dsl.cuda

    from cuda.coop.errors import UsageError

    case = BlockCase((33, 1, 1), 4, ("int32",))
    n = GRID * case.tile
    args = [cuda.to_device(np.arange(n, dtype=np.int32) % case.tile), cuda.to_device(np.ones(n, np.uint8)),
            cuda.to_device(np.zeros(n, np.int32))]
    outs = [cuda.to_device(np.full(n, -7, np.int32)) for _ in BLOCK_OUTPUTS]
    with pytest.raises(UsageError, match=r"needs whole warps: a block size that is a multiple of 32 threads"):
        kernel = make_block_kernel(case, whole_warps=True, dsl=dsl)
        kernel[GRID, case.block](*args, *outs)  # the warp-striped calls on 33
        cuda.synchronize()
    assert all((o.copy_to_host() == -7).all() for o in outs), "a refused kernel ran"


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    """``tests/gpu/_sanitizer_exchange.py`` under compute-sanitizer: right results, nothing found."""
    run_clean("tests.gpu._sanitizer_exchange", tool, "exchange", 2, rng=rng)
