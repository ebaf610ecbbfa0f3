"""The first launch of a precompiled kernel, in a fresh process with the cache off and a pack present.

The pack of tests/gpu/_pack_kernels.py (a tile radix sort plus scan of int64 keys, and a byte
histogram), once per DSL (the same source as Numba-CUDA-MLIR and as numba-cuda kernels), is built for this
GPU's arch with ``python -m cuda.coop precompile``; a new process then
launches each kernel once, timed from the launch call to the end of the synchronisation (the CUDA
context is created before, untimed), and checks the results against NumPy: random keys, many beyond
32 bits, full tiles and a partial last tile. The test asserts the results and that neither NVRTC nor
nvJitLink ran; it prints the first-launch times (target: <= 0.2 s each). The same figure for the
benchmark kernels, next to a plain kernel's: ``python benchmarks/kernel_compile.py --pack --json
benchmarks/results/kernel_compile_pack.json`` on the GPU machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.gpu._pack_kernels import MODULES
from tests.helpers import seed
from tests.helpers.dsl import DSLS, Dsl
from tests.helpers.packs import child_env

REPO = Path(__file__).resolve().parents[2]
TARGET_SECONDS = 0.2

SCRIPT = r"""
import json, sys, time
import numpy as np
from tests.helpers import seed
from tests.helpers.link_log import count_nvjitlink, record_links
links, nvjitlink = record_links(), count_nvjitlink()
import importlib
import cuda.coop  # before the DSL's cuda, which the name cuda must stay bound to
if sys.argv[1] == "numba_mlir":
    from numba_cuda_mlir import cuda
else:
    from numba import cuda
from cuda.coop._provider._nvrtc import default_compiler
k = importlib.import_module(sys.argv[2])

rng = seed.script_generator()  # the seed the test set
cuda.to_device(np.zeros(1, np.int8))
cuda.synchronize()  # the context: not part of a first launch

def first_launch(kernel, grid, *args):
    start = time.perf_counter()
    kernel[grid, k.THREADS](*args)
    cuda.synchronize()
    return time.perf_counter() - start

n = 37 * k.TILE + 123  # 37 full tiles and a partial one
keys = rng.integers(-(2**52), 2**52, n, dtype=np.int64)
keys[::3] = rng.integers(2**32, 2**52, keys[::3].size)  # a third of them beyond 32 bits for sure
keys[5:40] = keys[4]  # ties
d_keys, d_sorted, d_prefix = (cuda.to_device(a) for a in (keys, np.zeros(n, np.int64), np.zeros(n, np.int64)))
tiles = -(-n // k.TILE)
sort_seconds = first_launch(k.sort_scan, tiles, d_keys, d_sorted, d_prefix, n)
want_sorted, want_prefix = k.expected_sort_scan(keys)
got_sorted, got_prefix = d_sorted.copy_to_host(), d_prefix.copy_to_host()
sort_ok = bool(np.array_equal(got_sorted, want_sorted) and np.array_equal(got_prefix, want_prefix))
again = first_launch(k.sort_scan, tiles, d_keys, d_sorted, d_prefix, n)

m = 53 * k.TILE + 77
data = rng.integers(0, 256, m, dtype=np.uint8)
data[:3000] = 7  # a long run of one value
d_data, d_hist = cuda.to_device(data), cuda.to_device(np.zeros(k.BINS, np.uint32))
histogram_seconds = first_launch(k.byte_histogram, -(-m // k.TILE), d_data, m, d_hist)
histogram_ok = bool(np.array_equal(d_hist.copy_to_host(), k.expected_histogram(data)))
print(json.dumps({"nvrtc": default_compiler().calls, "nvjitlink": nvjitlink[0], "links": links,
                  "sort_ok": sort_ok, "histogram_ok": histogram_ok, "sort_seconds": sort_seconds,
                  "histogram_seconds": histogram_seconds, "relaunch_seconds": again,
                  "device": getattr(name := cuda.get_current_device().name, "decode", lambda: name)()}))
"""


def _arch(dsl: Dsl) -> str:
    major, minor = dsl.cuda.get_current_device().compute_capability
    return f"sm_{major}{minor}"


@pytest.fixture(scope="module", params=DSLS, ids=str)
def dsl(request: pytest.FixtureRequest) -> Dsl:
    """Each DSL in turn (its backend must be installed: a skip, a failure under ``CI=true``)."""
    found: Dsl = request.param
    found.integration  # noqa: B018  (imports the backend, or skips)
    return found


@pytest.fixture(scope="module")
def pack(dsl: Dsl, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack of ``dsl``'s pack kernels (tests/gpu/_pack_kernels.py) for this GPU's arch."""
    root = tmp_path_factory.mktemp(f"pack-{dsl}")
    build = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "precompile", MODULES[dsl.name], "--arch", _arch(dsl),
         "--out", str(root / "pack")], env=child_env(root), cwd=REPO, capture_output=True, text=True, timeout=900,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-4000:]
    return root / "pack"


@pytest.mark.parametrize("run", [1, 2])  # two fresh processes, each with data of its own
def test_first_launch_from_a_pack_is_correct_and_compiles_nothing(
    dsl: Dsl, pack: Path, tmp_path: Path, run: int, capsys: pytest.CaptureFixture[str], rng: np.random.Generator
) -> None:
    env = seed.child_env(rng, child_env(tmp_path, CUDA_COOP_PACK_PATH=str(pack)))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, dsl.name, MODULES[dsl.name]], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    with capsys.disabled():
        print(f"\n{result['device']} ({dsl}): first launch from a pack (target <= {TARGET_SECONDS} s): sort+scan "
              f"{result['sort_seconds']:.3f} s (relaunch {result['relaunch_seconds'] * 1000:.1f} ms), histogram "
              f"{result['histogram_seconds']:.3f} s")
    assert result["sort_ok"] and result["histogram_ok"]
    assert (result["nvrtc"], result["nvjitlink"], result["links"]) == (0, 0, ["pack hit", "pack hit"])
