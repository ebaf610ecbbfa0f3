"""``algorithm="auto"`` through a real compile for sm_90 (compile tier, no GPU).

A kernel that gives no algorithm compiles; the CUB enumerators its provider renders are the ones
``bind`` resolves for sm_90 from the table, and a different table changes them (so the cache key, which
hashes the rendered source, follows the choice).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types

import cuda.coop as coop
from cuda.coop._specs import Request, _auto, bind
from cuda.coop.numba_mlir import compile_kernel

F32 = types.float32[::1]
U8 = types.uint8[::1]
U32 = types.uint32[::1]
ITEMS, THREADS = 4, 128


@cuda.jit
def defaults(x, y, samples, counts):
    items = cuda.local.array(ITEMS, np.float32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * THREADS * ITEMS)
    total = coop.block.sum(items, algorithm="auto")  # the same as omitting it
    coop.block.inclusive_sum(items)
    coop.block.store(y, items, offset=cuda.blockIdx.x * THREADS * ITEMS)
    witems = cuda.local.array(ITEMS, np.float32)
    coop.warp.load(x, witems, offset=(cuda.threadIdx.x // 32) * 32 * ITEMS)
    coop.warp.store(y, witems, offset=(cuda.threadIdx.x // 32) * 32 * ITEMS)
    s = cuda.local.array(ITEMS, np.uint8)
    coop.block.load(samples, s, offset=cuda.blockIdx.x * THREADS * ITEMS)
    coop.block.histogram(s, counts, bins=256)
    if cuda.threadIdx.x == 0:
        y[0] = total


def _expected(arch: str) -> dict[str, str]:
    """The enumerator ``bind`` resolves for each default call of ``defaults`` (by primitive)."""
    f32 = {"dtype": "float32", "items_per_thread": ITEMS}
    requests = {
        "block_load": Request("block_load", "load", "full", **f32),
        "block_reduce": Request("block_reduce", "sum", "array", **f32),
        "block_scan": Request("block_scan", "inclusive_sum", "array", **f32),
        "block_store": Request("block_store", "store", "full", **f32),
        "warp_load": Request("warp_load", "load", "full", **f32),
        "warp_store": Request("warp_store", "store", "full", **f32),
        "block_histogram": Request(
            "block_histogram", "histogram", "array", dtype="uint8", items_per_thread=ITEMS, bins=256,
            counter_type="uint32",
        ),
    }
    return {name: str(bind(r, (THREADS,), arch=arch).values["algorithm"]) for name, r in requests.items()}


def _source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("CUDA_COOP_SOURCE_DUMP_DIR", str(tmp_path))
    assert compile_kernel(defaults, (F32, F32, U8, U32), block=THREADS, arch="sm_90").cubin
    (source,) = tmp_path.glob("*.cu")
    return source.read_text()


def test_default_algorithms_compile_as_the_table_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _source(tmp_path, monkeypatch)
    for prim, enumerator in _expected("sm_90").items():
        assert enumerator in text, (prim, enumerator)
    assert "auto" not in text.lower().replace("automatic", "")


def test_another_table_changes_the_rendered_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    row = {"item_bytes": 4, "threads": THREADS, "items": ITEMS}
    table = _auto.parse_table({
        "schema": 1,
        "archs": {"sm_90": {
            "block_load": [{**row, "ranking": ["warp_transpose"]}],
            "block_store": [{**row, "ranking": ["vectorize"]}],
            "block_reduce": [{**row, "ranking": ["raking_commutative_only"]}],
            "block_scan": [{**row, "ranking": ["warp_scans"]}],
            "warp_load": [{**row, "ranking": ["transpose"]}],
            "warp_store": [{**row, "ranking": ["vectorize"]}],
            "block_histogram": [{**row, "item_bytes": 1, "ranking": ["atomic"]}],
        }},
    })
    monkeypatch.setattr(_auto, "load_table", lambda path=_auto.TABLE_PATH: table)
    text = _source(tmp_path, monkeypatch)
    for enumerator in ("cub::BLOCK_LOAD_WARP_TRANSPOSE", "cub::BLOCK_STORE_VECTORIZE",
                       "cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY", "cub::BLOCK_SCAN_WARP_SCANS",
                       "cub::WARP_LOAD_TRANSPOSE", "cub::WARP_STORE_VECTORIZE", "cub::BLOCK_HISTO_ATOMIC"):
        assert enumerator in text, enumerator
    assert _expected("sm_90")["block_load"] == "cub::BLOCK_LOAD_WARP_TRANSPOSE"
