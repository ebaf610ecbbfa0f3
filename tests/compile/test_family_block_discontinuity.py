"""cub::BlockDiscontinuity through real NVRTC to LTO-IR for sm_90 (no GPU): every overload, item and flag
dtypes, comparisons and user predicates, 1-D/2-D/3-D blocks; one NVRTC call per block shape."""

from __future__ import annotations

import pytest

from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import Request, UserOp
from tests.helpers.nvrtc import compile_requests, every_overload

DTYPES = ("int8", "uint16", "int32", "uint64", "float16", "float32", "float64", "complex128")
FLAG_TYPES = ("int32", "uint8", "bool", "int64", "uint32", "int8")
OPS = ("!=", "==", "<", ">")
OVERLOADS = every_overload("block_discontinuity")


def _requests() -> list[Request]:
    requests = []
    for i, dtype in enumerate(DTYPES):
        for j, (method, overload) in enumerate(OVERLOADS):
            op: object = OPS[(i + j) % len(OPS)]
            if dtype.startswith("complex") and op in ("<", ">"):
                op = "!="
            if (i + j) % 3 == 0:
                op = UserOp(f"differs_{dtype}")
            requests.append(
                Request("block_discontinuity", method, overload, dtype=dtype, items_per_thread=1 + (i + j) % 4,
                        flag_type=FLAG_TYPES[(i + j) % len(FLAG_TYPES)], op=op)
            )
    return requests


@pytest.mark.parametrize("block", [(128,), (33,), (16, 8), (4, 4, 4)], ids=["1d", "33", "2d", "3d"])
def test_every_overload_compiles(block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests = _requests()
    p = compile_requests(requests, toolchain, compiler, block)
    assert len(p.plan.signatures) == len(requests) == len(DTYPES) * 8
    assert {e.purpose for e in p.plan.externs} == {"operator"}
    assert all(e.returns is not None and e.returns.name == "bool" for e in p.plan.externs)
