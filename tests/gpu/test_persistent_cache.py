"""Kernels taken from the persistent cache run right (GPU tier; the compile tier checks the keys).

Each process launches one kernel (a radix sort, then an inclusive scan of the sorted keys) with
``CUDA_COOP_ENABLE_CACHE=1`` in a cache directory of the test's own, checks it against NumPy on full
and partial tiles of int64 keys beyond 32 bits (negative and positive), and reports how its kernel
link went. The second process takes the linked kernel from the cache; a third, whose kernel scales
the scan by another constant, must link a kernel of its own and give its own results.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import seed

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json
import numpy as np
from numba_cuda_mlir import cuda
import cuda.coop as coop
from tests.helpers import seed
from tests.helpers.link_log import record_links

links = record_links()  # how each kernel link went: "cache hit", "linked and cached", ...

THREADS, ITEMS, SCALE = 96, 3, 1
TILE = THREADS * ITEMS


@cuda.jit
def sort_then_scan(x, y, n):
    items = cuda.local.array(ITEMS, np.int64)
    base = cuda.blockIdx.x * TILE
    coop.block.load(x, items, offset=base, valid_items=n - base, oob_default=np.int64(-(2**50)))
    coop.block.radix_sort(items)
    for i in range(ITEMS):
        items[i] = items[i] * SCALE
    coop.block.inclusive_sum(items)
    coop.block.store(y, items, offset=base, valid_items=n - base)


rng = seed.script_generator()  # the seed the test set
n = 5 * TILE - 37  # the last tile is partial
x = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
x[:4] = [2**40 + 3, -(2**40) - 5, 2**33, -1]
y = cuda.to_device(np.full(n, 12345, np.int64))
sort_then_scan[(n + TILE - 1) // TILE, THREADS](cuda.to_device(x), y, n)
padded = np.concatenate([x, np.full(5 * TILE - n, -(2**50), np.int64)]).reshape(5, TILE)
expected = np.cumsum(np.sort(padded, axis=1) * SCALE, axis=1).reshape(-1)[:n]
got = y.copy_to_host()
print(json.dumps({"links": links, "wrong": int(np.count_nonzero(got != expected))}))
"""


def _run(tmp_path: Path, rng: np.random.Generator, scale: int = 1) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "xdg"), CUDA_COOP_ENABLE_CACHE="1")
    env = seed.child_env(rng, env)
    script = SCRIPT.replace("SCALE = 96, 3, 1", f"SCALE = 96, 3, {scale}")
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_kernel_from_the_cache_runs_as_the_one_linked_for_it(tmp_path: Path, rng: np.random.Generator) -> None:
    assert _run(tmp_path, rng) == {"links": ["linked and cached"], "wrong": 0}
    assert _run(tmp_path, rng) == {"links": ["cache hit"], "wrong": 0}
    assert _run(tmp_path, rng, scale=3) == {"links": ["linked and cached"], "wrong": 0}
    assert len(list((tmp_path / "xdg" / "cccl" / "cuda-coop" / "kernels").rglob("*.cubin"))) == 2
