"""cub::BlockShuffle through real NVRTC to LTO-IR for sm_90 (no GPU): every overload, many dtypes,
1-D/2-D/3-D blocks; one NVRTC call per block shape."""

from __future__ import annotations

import pytest

from cuda.coop._provider import NvrtcCompiler, Toolchain
from cuda.coop._specs import Request
from tests.helpers.nvrtc import compile_requests, every_overload

DTYPES = ("int8", "uint16", "int32", "uint64", "float16", "bfloat16", "float32", "float64", "complex128")
OVERLOADS = every_overload("block_shuffle")


def _requests() -> list[Request]:
    requests = []
    for i, dtype in enumerate(DTYPES):
        for j, (method, overload) in enumerate(OVERLOADS):
            kw: dict[str, object] = {}
            if method in ("up", "down"):
                kw["items_per_thread"] = 1 + (i + j) % 4
            if method == "rotate" and overload == "scalar_distance":
                kw["distance_type"] = ("int64", "uint8", "int32", "uint64")[i % 4]
            requests.append(Request("block_shuffle", method, overload, dtype=dtype, **kw))
    return requests


@pytest.mark.parametrize("block", [(128,), (33,), (16, 8), (4, 4, 4)], ids=["1d", "33", "2d", "3d"])
def test_every_overload_compiles(block: tuple[int, ...], toolchain: Toolchain, compiler: NvrtcCompiler) -> None:
    requests = _requests()
    p = compile_requests(requests, toolchain, compiler, block)
    assert len(p.plan.signatures) == len(requests) == len(DTYPES) * 8
    for cpp in (".Offset(", ".Rotate(", ".Up(", ".Down("):
        assert cpp in p.source
