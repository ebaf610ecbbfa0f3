"""BlockAdjacentDifference, BlockDiscontinuity and BlockShuffle on the GPU, against NumPy.

One kernel per case runs every method and overload of the three families (one NVRTC compile per case):
``subtract_left``/``subtract_right`` with a Python difference (wrapping like C++ for integers, exact in
the items' type for floats) and a known operator, with tile neighbours, in place and into an output,
and their partial-tile forms (``valid_items`` below the tile, zero and above it); ``flag_heads``,
``flag_tails`` and ``flag_heads_and_tails`` with known comparisons and a Python predicate, with and
without tile neighbours, into flags of the case's flag dtype (integers or bool); ``shuffle_offset``
(default and negative distance), ``shuffle_rotate`` (default, a distance, and one past the block, which
the documentation says acts as ``block_threads``), ``shuffle_up``/``shuffle_down`` with and without the
block suffix/prefix, in place and into an output. Inputs span each type and have runs of equal items;
every output starts poisoned (the items with no source must stay so). compute-sanitizer's memcheck,
racecheck and synccheck run two of the cases (``python -m tests.gpu.test_family_block_neighbours``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import DTYPES, assert_bits_equal, random_values, sentinels
from tests.helpers import seed
from tests.helpers.dsl import DSLS, NUMBA_MLIR, Dsl
from tests.helpers.sanitizer import run_clean
from tests.helpers.shapes import Tile

BLOCKS = ((32, 1, 1), (128, 1, 1), (33, 1, 1), (16, 8, 1), (4, 4, 4), (256, 1, 1), (1024, 1, 1))
ITEMS = (1, 4, 16)
FLAG_TYPES = ("int32", "uint8", "bool", "int64")
TILES = 3
ADJ = ("left", "left_pred", "left_valid_pred", "right_max_succ", "right_valid", "left_in_place", "right",
       "left_valid", "up_suffix", "down_prefix", "up_in_place", "down")
"""The per-item outputs of ``out`` (one segment of the whole array each)."""
FLAGS = ("heads", "heads_pred", "tails", "tails_lt_succ", "ht_heads", "ht_tails", "htp_heads", "htp_tails",
         "hts_heads", "hts_tails", "htps_heads", "htps_tails")
"""The flag outputs of ``flags`` (one segment each)."""
SCALARS = ("offset", "offset_d", "rotate", "rotate_d", "rotate_big", "suffix", "prefix")
"""The per-thread outputs of ``sc`` (one segment each)."""
FLAG_POISON = 7


@dataclass(frozen=True)
class Case(Tile):
    dtype: str
    block: tuple[int, int, int]
    ipt: int
    flag_type: str

    @property
    def id(self) -> str:
        return f"{self.dtype}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-flags_{self.flag_type}"


def cases() -> list[Case]:
    """The full product: every dtype x block shape x items per thread (the storage of these families is one item
    per thread, so every shape fits in shared memory); the flag dtypes rotate (one NVRTC compile per case)."""
    return [
        Case(dtype, block, ipt, FLAG_TYPES[n % len(FLAG_TYPES)])
        for n, (block, ipt, dtype) in enumerate((b, i, d) for b in BLOCKS for i in ITEMS for d in DTYPES)
    ]


CASES = cases()


def minus(a, b):  # type: ignore[no-untyped-def]
    return a - b


def greater(a, b):  # type: ignore[no-untyped-def]
    return a > b


def make_kernel(case: Case, *, dsl: Dsl = NUMBA_MLIR):  # type: ignore[no-untyped-def]
    """The case's kernel (a numba-cuda-mlir dispatcher; compiled at its first launch)."""
    cuda = dsl.cuda

    import cuda.coop as coop

    DT, FT, IPT, TILE, T = getattr(np, case.dtype), np.dtype(case.flag_type).type, case.ipt, case.tile, case.threads
    N, TT = TILES * case.tile, TILES * case.threads
    FP = FT(FLAG_POISON)

    @cuda.jit
    def kernel(x, preds, succs, valid, poison, dshift, drot, dbig, out, flags, sc):  # noqa: PLR0912 (one kernel per case)
        items = cuda.local.array(IPT, DT)
        res = cuda.local.array(IPT, DT)
        hf = cuda.local.array(IPT, FT)
        tf = cuda.local.array(IPT, FT)
        edge = cuda.local.array(1, DT)
        bid = cuda.blockIdx.x
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        base = bid * TILE
        mine = base + tid * IPT
        g = bid * T + tid
        pred, succ, v = preds[bid], succs[bid], valid[bid]
        coop.block.load(x, items, offset=base)

        # --- adjacent difference -----------------------------------------------------------------------
        for i in range(IPT):
            res[i] = poison
        coop.block.subtract_left(items, minus, output=res)
        coop.block.store(out, res, offset=0 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = poison
        coop.block.subtract_left(items, minus, output=res, tile_predecessor_item=pred)
        coop.block.store(out, res, offset=1 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = poison
        coop.block.subtract_left_partial_tile(items, minus, valid_items=v, output=res, tile_predecessor_item=pred)
        coop.block.store(out, res, offset=2 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = poison
        coop.block.subtract_right(items, "max", output=res, tile_successor_item=succ)
        coop.block.store(out, res, offset=3 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = poison
        coop.block.subtract_right_partial_tile(items, operator.sub, valid_items=v, output=res)
        coop.block.store(out, res, offset=4 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = items[i]
        coop.block.subtract_left(res, minus)  # in place
        coop.block.store(out, res, offset=5 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = poison
        coop.block.subtract_right(items, minus, output=res)
        coop.block.store(out, res, offset=6 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = poison
        coop.block.subtract_left_partial_tile(items, minus, valid_items=v, output=res)
        coop.block.store(out, res, offset=7 * N + base, algorithm="direct")

        # --- shuffles ------------------------------------------------------------------------------------
        for i in range(IPT):
            res[i] = poison
        coop.block.shuffle_up(items, output=res, block_suffix=edge)
        coop.block.store(out, res, offset=8 * N + base, algorithm="direct")
        sc[5 * TT + g] = edge[0]
        for i in range(IPT):
            res[i] = poison
        coop.block.shuffle_down(items, output=res, block_prefix=edge)
        coop.block.store(out, res, offset=9 * N + base, algorithm="direct")
        sc[6 * TT + g] = edge[0]
        for i in range(IPT):
            res[i] = items[i]
        coop.block.shuffle_up(res)  # in place: the tile's first item keeps its own value
        coop.block.store(out, res, offset=10 * N + base, algorithm="direct")
        for i in range(IPT):
            res[i] = poison
        coop.block.shuffle_down(items, output=res)
        coop.block.store(out, res, offset=11 * N + base, algorithm="direct")
        sc[0 * TT + g] = coop.block.shuffle_offset(items[0])
        sc[1 * TT + g] = coop.block.shuffle_offset(items[0], distance=dshift)
        sc[2 * TT + g] = coop.block.shuffle_rotate(items[IPT - 1])
        sc[3 * TT + g] = coop.block.shuffle_rotate(items[IPT - 1], distance=drot)
        sc[4 * TT + g] = coop.block.shuffle_rotate(items[0], distance=dbig)

        # --- discontinuity -------------------------------------------------------------------------------
        for i in range(IPT):
            hf[i] = FP
            tf[i] = FP
        coop.block.flag_heads(items, hf, "!=")
        for i in range(IPT):
            flags[0 * N + mine + i] = hf[i]
            hf[i] = FP
        coop.block.flag_heads(items, hf, "!=", tile_predecessor_item=pred)
        coop.block.flag_tails(items, tf, "!=")
        for i in range(IPT):
            flags[1 * N + mine + i] = hf[i]
            flags[2 * N + mine + i] = tf[i]
            tf[i] = FP
        coop.block.flag_tails(items, tf, operator.lt, tile_successor_item=succ)
        for i in range(IPT):
            flags[3 * N + mine + i] = tf[i]
            hf[i] = FP
            tf[i] = FP
        coop.block.flag_heads_and_tails(items, hf, tf, greater)
        for i in range(IPT):
            flags[4 * N + mine + i] = hf[i]
            flags[5 * N + mine + i] = tf[i]
            hf[i] = FP
            tf[i] = FP
        coop.block.flag_heads_and_tails(items, hf, tf, greater, tile_predecessor_item=pred)
        for i in range(IPT):
            flags[6 * N + mine + i] = hf[i]
            flags[7 * N + mine + i] = tf[i]
            hf[i] = FP
            tf[i] = FP
        coop.block.flag_heads_and_tails(items, hf, tf, greater, tile_successor_item=succ)
        for i in range(IPT):
            flags[8 * N + mine + i] = hf[i]
            flags[9 * N + mine + i] = tf[i]
            hf[i] = FP
            tf[i] = FP
        coop.block.flag_heads_and_tails(items, hf, tf, greater, tile_predecessor_item=pred, tile_successor_item=succ)
        for i in range(IPT):
            flags[10 * N + mine + i] = hf[i]
            flags[11 * N + mine + i] = tf[i]

    return kernel


def signature(case: Case, *, dsl: Dsl = NUMBA_MLIR) -> tuple:  # type: ignore[type-arg]
    """The kernel's argument types, for ``compile_kernel`` (compile tier)."""
    types = dsl.types

    scalar = getattr(types, case.dtype)
    arr = scalar[::1]
    flag = (types.boolean if case.flag_type == "bool" else getattr(types, case.flag_type))[::1]
    return (arr, arr, arr, types.int64[::1], scalar, types.int32, types.int64, types.int64, arr, flag, arr)


def inputs(case: Case, rng: np.random.Generator) -> dict[str, object]:
    """Items with runs of equal values (about 40% of items repeat their predecessor), spanning the type."""
    n, tile = TILES * case.tile, case.tile
    values = random_values(rng, case.dtype, n)
    keep = rng.random(n) >= 0.4
    keep[0] = True
    x = values[np.maximum.accumulate(np.where(keep, np.arange(n), 0))]
    preds = random_values(rng, case.dtype, TILES)
    succs = random_values(rng, case.dtype, TILES)
    preds[1] = x[tile]  # equal neighbours across a tile edge: no head there
    succs[0] = x[tile - 1]
    valid = np.array([max(1, 2 * tile // 3), 0, tile + 100], np.int64)  # partial, empty, more than the tile
    return {"x": x, "preds": preds, "succs": succs, "valid": valid, "poison": sentinels(case.dtype)[0],
            "dshift": np.int32(-2), "drot": case.threads // 3 + 1, "dbig": 10 * case.threads + 3}


def _sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return (a - b).astype(a.dtype)  # wraps like C++ for integers; in the items' type for floats


def expected(case: Case, inp: dict) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray]]:  # type: ignore[type-arg]
    """(per-item outputs, flags, per-thread scalars) as NumPy computes them, each of shape (tiles, ...)."""
    x = np.asarray(inp["x"]).reshape(TILES, case.tile)
    preds, succs, valid = (np.asarray(inp[k]) for k in ("preds", "succs", "valid"))
    poison, tile, ipt, threads = inp["poison"], case.tile, case.ipt, case.threads
    prev = np.concatenate([preds[:, None], x[:, :-1]], axis=1)  # each item's left neighbour (predecessor first)
    nxt = np.concatenate([x[:, 1:], succs[:, None]], axis=1)  # each item's right neighbour (successor last)
    idx = np.arange(tile)[None, :]
    left = _sub(x, prev)
    left_nopred = left.copy()
    left_nopred[:, 0] = x[:, 0]
    v = np.minimum(valid, tile)[:, None]  # a count at or above the tile means the whole tile
    right = _sub(x, nxt)
    right_nosucc = right.copy()
    right_nosucc[:, -1] = x[:, -1]
    up = np.concatenate([np.full((TILES, 1), poison, x.dtype), x[:, :-1]], axis=1)
    down = np.concatenate([x[:, 1:], np.full((TILES, 1), poison, x.dtype)], axis=1)
    up_in_place = up.copy()
    up_in_place[:, 0] = x[:, 0]
    out = {
        "left": left_nopred,
        "left_pred": left,
        "left_valid_pred": np.where(idx < v, left, x),
        "right_max_succ": np.maximum(x, nxt),
        "right_valid": np.where(idx < v - 1, right, x),
        "left_in_place": left_nopred,
        "right": right_nosucc,
        "left_valid": np.where(idx < v, left_nopred, x),
        "up_suffix": up,
        "down_prefix": down,
        "up_in_place": up_in_place,
        "down": down,
    }
    heads_pred = prev != x
    heads = heads_pred.copy()
    heads[:, 0] = True
    tails_succ = x != nxt
    tails = tails_succ.copy()
    tails[:, -1] = True
    gh, gt = prev > x, x > nxt
    gh_nopred, gt_nosucc = gh.copy(), gt.copy()
    gh_nopred[:, 0] = True
    gt_nosucc[:, -1] = True
    flags = {
        "heads": heads, "heads_pred": heads_pred, "tails": tails, "tails_lt_succ": x < nxt,
        "ht_heads": gh_nopred, "ht_tails": gt_nosucc, "htp_heads": gh, "htp_tails": gt_nosucc,
        "hts_heads": gh_nopred, "hts_tails": gt, "htps_heads": gh, "htps_tails": gt,
    }
    firsts, lasts = x[:, ::ipt], x[:, ipt - 1 :: ipt]  # (tiles, threads): each thread's first and last item
    t = np.arange(threads)
    drot, dbig = int(inp["drot"]), int(inp["dbig"])
    assert dbig > threads  # documented: acts as block_threads, a full turn
    scalars = {
        "offset": firsts[:, np.minimum(t + 1, threads - 1)],
        "offset_d": firsts[:, np.maximum(t - 2, 0)],
        "rotate": lasts[:, (t + 1) % threads],
        "rotate_d": lasts[:, (t + drot) % threads],
        "rotate_big": firsts,
        "suffix": np.repeat(x[:, -1:], threads, axis=1),
        "prefix": np.repeat(x[:, :1], threads, axis=1),
    }
    return out, flags, scalars


def defined_threads(name: str, threads: int) -> np.ndarray:
    """Threads whose scalar result is specified (offsets leave the ones whose source is outside the block)."""
    t = np.arange(threads)
    if name == "offset":
        return t + 1 < threads
    if name == "offset_d":
        return t - 2 >= 0
    return np.ones(threads, bool)


@pytest.mark.parametrize("dsl", DSLS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_neighbour_primitives(case: Case, rng: np.random.Generator, dsl: Dsl) -> None:
    cuda = dsl.cuda

    inp = inputs(case, rng)
    dt, ft = np.dtype(case.dtype), np.dtype(case.flag_type)
    n, tt = TILES * case.tile, TILES * case.threads
    poison = inp["poison"]
    d_out = cuda.to_device(np.full(len(ADJ) * n, poison, dt))
    d_flags = cuda.to_device(np.full(len(FLAGS) * n, FLAG_POISON if ft.kind != "b" else False, ft))
    d_sc = cuda.to_device(np.full(len(SCALARS) * tt, poison, dt))
    args = [cuda.to_device(np.asarray(inp[k])) for k in ("x", "preds", "succs", "valid")]
    kernel = make_kernel(case, dsl=dsl)
    kernel[TILES, case.block](*args, poison, inp["dshift"], inp["drot"], inp["dbig"], d_out, d_flags, d_sc)

    exp_out, exp_flags, exp_sc = expected(case, inp)
    got_out = d_out.copy_to_host().reshape(len(ADJ), TILES, case.tile)
    for k, name in enumerate(ADJ):
        assert_bits_equal(got_out[k], exp_out[name].astype(dt), f"{name} ({case.id})")
    got_flags = d_flags.copy_to_host().reshape(len(FLAGS), TILES, case.tile)
    for k, name in enumerate(FLAGS):
        np.testing.assert_array_equal(got_flags[k], exp_flags[name].astype(ft), err_msg=f"{name} ({case.id})")
    got_sc = d_sc.copy_to_host().reshape(len(SCALARS), TILES, case.threads)
    for k, name in enumerate(SCALARS):
        ok = defined_threads(name, case.threads)
        assert_bits_equal(got_sc[k][:, ok], exp_sc[name][:, ok].astype(dt), f"{name} ({case.id})")


SANITIZED = [next(c for c in CASES if (c.dtype, c.block, c.ipt) == key)
             for key in (("float64", (128, 1, 1), 4), ("int16", (33, 1, 1), 4))]
"""The cases run under compute-sanitizer: a block of whole warps and one with a partial warp."""


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, rng: np.random.Generator) -> None:
    assert {c.threads % 32 == 0 for c in SANITIZED} == {True, False}, "whole warps, and a partial warp"
    run_clean("tests.gpu.test_family_block_neighbours", tool, "case", len(SANITIZED), rng=rng)


def main(*, dsl: Dsl = NUMBA_MLIR) -> None:
    """Run the sanitized cases (each raises on a wrong result) and print ``ALL OK``."""
    cuda = dsl.cuda

    rng = seed.script_generator()  # the seed the test set (tests/helpers/sanitizer.py)
    for case in SANITIZED:
        test_neighbour_primitives(case, rng, dsl)
        print(f"OK case {case.id}")
    cuda.synchronize()
    print("ALL OK")


if __name__ == "__main__":
    main()
