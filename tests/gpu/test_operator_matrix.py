"""Every documented operator on the GPU: ``"+"``, ``"*"``, ``"&"``, ``"|"``, ``"^"``, ``"min"``, ``"max"``.

One kernel per dtype x operator x block shape runs the operator through block ``reduce`` (array
form, and scalar form with ``valid_items``), warp ``reduce``, warp inclusive/exclusive scans
(with an ``initial_value``), block array ``inclusive_scan`` and ``exclusive_scan`` (with an
``initial_value``) and the scalar block ``exclusive_scan``. ``"+"`` also runs on
``algorithm="warp_reductions_nondeterministic"`` where CUB has it (atomic-capable types).
Inputs are shaped per operator (``_data.random_values``) so no result saturates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from tests.gpu._data import (
    DTYPES,
    abs_terms,
    assert_matches,
    depth,
    exclusive_ref,
    exclusive_terms,
    ops_for,
    random_values,
    reduce_ref,
    scan_ref,
    sentinels,
)
from tests.gpu.test_block_matrix import reduce_algorithms, scan_algorithms
from tests.helpers.shapes import Threads

BLOCKS = ((33, 1, 1), (128, 1, 1), (7, 5, 3), (1024, 1, 1), (16, 8, 1), (100, 1, 1))
GRID = 2
OUTPUTS = ("red", "vred", "wred", "winc", "wex", "binc", "bex", "sex")


@dataclass(frozen=True)
class Case(Threads):
    dtype: str
    op: str
    block: tuple[int, int, int]
    ipt: int
    width: int
    reduce: str
    scan: str

    @property
    def id(self) -> str:
        return (f"{self.dtype}-op{self.op}-{'x'.join(map(str, self.block))}-ipt{self.ipt}-w{self.width}-"
                f"{self.reduce}-{self.scan}")


def cases() -> list[Case]:
    result = []
    for d, dtype in enumerate(DTYPES):
        for o, op in enumerate(ops_for(dtype)):
            for j in (0, 3):
                block = BLOCKS[(d + o + j) % len(BLOCKS)]
                threads = math.prod(block)
                reds = [a for a in reduce_algorithms(threads, dtype)
                        if op == "+" or a != "warp_reductions_nondeterministic"]
                if op == "+" and "warp_reductions_nondeterministic" in reds:
                    ra = "warp_reductions_nondeterministic" if j == 0 else reds[(d + o) % len(reds)]
                else:
                    ra = reds[(d + o + j) % len(reds)]
                scans = scan_algorithms(threads)
                widths = [w for w in (32, 16, 8, 4, 2, 1) if threads % w == 0]
                result.append(Case(dtype, op, block, (3, 4)[(d + o + j) % 2], widths[(d + o + j) % min(3, len(widths))],
                                   ra, scans[(d + o + j) % len(scans)]))
    return result


CASES = cases()


def make_kernel(case: Case):
    from numba_cuda_mlir import cuda

    import cuda.coop as coop

    DT, IPT, T, W, OP = getattr(np, case.dtype), case.ipt, case.threads, case.width, case.op
    RA, SCA = case.reduce, case.scan
    # Neither commutative_only nor the nondeterministic (atomic) path takes valid_items.
    RV = {"raking_commutative_only": "raking", "warp_reductions_nondeterministic": "warp_reductions"}.get(RA, RA)

    @cuda.jit
    def kernel(x, initial, vt, red, vred, wred, winc, wex, binc, bex, sex):
        items = cuda.local.array(IPT, DT)
        scan = cuda.local.array(IPT, DT)
        bid = cuda.blockIdx.x
        tid = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        g = bid * T + tid
        mine = g * IPT
        for i in range(IPT):
            items[i] = x[mine + i]
        r = coop.block.reduce(items, OP, algorithm=RA)
        vr = coop.block.reduce(items[0], OP, valid_items=vt, algorithm=RV)
        wr = coop.warp.reduce(items[0], OP, threads=W)
        if tid == 0:
            red[bid] = r
            vred[bid] = vr
        if tid % W == 0:
            wred[g // W] = wr
        winc[g] = coop.warp.inclusive_scan(items[0], OP, threads=W)
        wex[g] = coop.warp.exclusive_scan(items[0], OP, initial_value=initial, threads=W)
        coop.block.inclusive_scan(items, OP, output=scan, algorithm=SCA)
        for i in range(IPT):
            binc[mine + i] = scan[i]
        coop.block.exclusive_scan(items, OP, initial_value=initial, output=scan, algorithm=SCA)
        for i in range(IPT):
            bex[mine + i] = scan[i]
        sex[g] = coop.block.exclusive_scan(items[0], OP, initial_value=initial, algorithm=SCA)

    return kernel


def signature(case: Case) -> tuple:
    from numba_cuda_mlir.numba_cuda import types

    scalar = getattr(types, case.dtype)
    return (scalar[::1], scalar, types.int64, *(scalar[::1],) * len(OUTPUTS))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_operator(case: Case, rng: np.random.Generator) -> None:
    from numba_cuda_mlir import cuda

    op, ipt, threads, width = case.op, case.ipt, case.threads, case.width
    tile = threads * ipt
    x = random_values(rng, case.dtype, GRID * tile, op)
    initial = random_values(rng, case.dtype, 1, op)[0]
    vt = max(1, threads - threads // 3)
    dt, poison = np.dtype(case.dtype), sentinels(case.dtype)[0]
    n_threads = GRID * threads
    sizes = {"red": GRID, "vred": GRID, "wred": n_threads // width, "binc": GRID * tile, "bex": GRID * tile}
    d_out = {k: cuda.to_device(np.full(sizes.get(k, n_threads), poison, dt)) for k in OUTPUTS}
    make_kernel(case)[GRID, case.block](cuda.to_device(x), initial, vt, *d_out.values())
    got = {k: v.copy_to_host() for k, v in d_out.items()}

    seq = x.reshape(GRID, tile)  # blocked: the block's scan order
    first = x.reshape(GRID, threads, ipt)[:, :, 0]
    lanes = first.reshape(-1, width)
    expected = {
        "red": (reduce_ref(op, seq), abs_terms(op, seq, scan=False)),
        "vred": (reduce_ref(op, first[:, :vt]), abs_terms(op, first[:, :vt], scan=False)),
        "wred": (reduce_ref(op, lanes), abs_terms(op, lanes, scan=False)),
        "winc": (scan_ref(op, lanes).reshape(-1), abs_terms(op, lanes, scan=True).reshape(-1)),
        "wex": (exclusive_ref(op, lanes, initial).reshape(-1), exclusive_terms(op, lanes, initial).reshape(-1)),
        "binc": (scan_ref(op, seq).reshape(-1), abs_terms(op, seq, scan=True).reshape(-1)),
        "bex": (exclusive_ref(op, seq, initial).reshape(-1), exclusive_terms(op, seq, initial).reshape(-1)),
        "sex": (exclusive_ref(op, first, initial).reshape(-1), exclusive_terms(op, first, initial).reshape(-1)),
    }
    for name, (value, terms) in expected.items():
        chain = depth(1, width) if name[0] == "w" else depth(ipt, threads)
        assert_matches(got[name], value, op, terms, chain, f"{name} ({case.id})")
