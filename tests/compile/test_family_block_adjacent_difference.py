"""cub::BlockAdjacentDifference through real NVRTC to LTO-IR for sm_90 (no GPU): every overload, many dtypes,
known and user operators, 1-D/2-D/3-D blocks; one NVRTC call per block shape."""

from __future__ import annotations

import pytest

from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import Request, UserOp
from tests.helpers.nvrtc import compile_requests, every_overload

DTYPES = ("int8", "uint16", "int32", "uint64", "float16", "bfloat16", "float32", "float64", "complex64")
OVERLOADS = every_overload("block_adjacent_difference")


def _requests() -> list[Request]:
    requests = []
    for i, dtype in enumerate(DTYPES):
        for j, (method, overload) in enumerate(OVERLOADS):
            op: object = UserOp(f"diff_{dtype}") if (i + j) % 2 else "+"
            kw = {"count_type": ("int64", "uint8", "int32")[j % 3]} if "valid" in overload else {}
            requests.append(
                Request("block_adjacent_difference", method, overload, dtype=dtype, items_per_thread=1 + j % 4,
                        op=op, **kw)
            )
    return requests


@pytest.mark.parametrize("block", [(128,), (33,), (16, 8), (4, 4, 4)], ids=["1d", "33", "2d", "3d"])
def test_every_overload_compiles(block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests = _requests()
    p = compile_requests(requests, toolchain, compiler, block)
    assert len(p.plan.signatures) == len(DTYPES) * len(OVERLOADS) == len(requests)
    for cpp in ("SubtractLeft(", "SubtractLeftPartialTile(", "SubtractRight(", "SubtractRightPartialTile("):
        assert cpp in p.source
