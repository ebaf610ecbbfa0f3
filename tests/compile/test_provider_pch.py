"""Precompiled headers with real NVRTC (no GPU): built by a forked child, used, never waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, Toolchain
from cuda.coop._provider._pch import can_fork
from cuda.coop._specs import Request
from tests.helpers.waits import HANG_SECONDS

pytestmark = pytest.mark.skipif(not can_fork(), reason="precompiled headers need os.fork (POSIX)")

REPO = Path(__file__).resolve().parents[2]
REDUCE = Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16)
SCAN = Request("block_scan", "exclusive_sum", "array", dtype="int32", items_per_thread=4)


def _provider(requests: list[Request], toolchain: Toolchain, compiler: NvrtcCompiler) -> Provider:
    return Provider(
        requests, block_dim=(128,), arch="sm_90", toolchain=toolchain, compiler=compiler, cache=MemoryCache()
    )


def test_forked_child_builds_a_pch_the_parent_uses_and_errors_keep_it(toolchain: Toolchain) -> None:
    c = NvrtcCompiler(pch_after=1)
    first = _provider([REDUCE], toolchain, c)
    first.ltoir()
    assert c.pch_builds == 1 and c.wait_for_pch(HANG_SECONDS)
    second = _provider([SCAN], toolchain, c)
    options, headers = second.nvrtc_inputs  # what the provider's own compile, and the PCH build, were given
    result = c.compile(second.source, options, name="s.cu", preamble=second.preamble, headers=headers)
    assert result.ok and result.used_pch, result.log
    # A compile error (the kind of the 48 KiB static_assert) is the source's fault: reported, the PCH kept.
    bad = c.compile(second.source + '\nstatic_assert(sizeof(int) == 3, "too big");\n', options,
                    name="bad.cu", preamble=second.preamble, headers=headers)
    assert not bad.ok and "too big" in bad.log and "precompiled header" not in bad.log
    again = c.compile(first.source, options, name="a.cu", preamble=first.preamble, headers=headers)
    assert again.ok and again.used_pch, "a compile error must not drop the PCH"
    assert c._dir is not None
    c._at_exit()
    assert not c._dir.path.exists()


def test_the_parent_can_use_the_pch_after_mapping_memory_while_it_builds(toolchain: Toolchain) -> None:
    # NVRTC maps its PCH heap lazily; unless the parent maps it before the fork, the parent's heap lands
    # wherever its mmap calls of the meantime leave room (a CUDA context, arrays) and the PCH is refused.
    import mmap

    c = NvrtcCompiler(pch_after=1)
    _provider([REDUCE], toolchain, c).ltoir()
    assert c.pch_builds == 1
    mapped = [mmap.mmap(-1, (i + 1) << 20) for i in range(48)]  # 1.2 GB of address space, untouched
    assert c.wait_for_pch(HANG_SECONDS)
    second = _provider([SCAN], toolchain, c)
    options, headers = second.nvrtc_inputs
    result = c.compile(second.source, options, name="s.cu", preamble=second.preamble, headers=headers)
    for m in mapped:
        m.close()
    c._at_exit()
    assert result.ok and result.used_pch, result.log


SCRIPT = r"""
import atexit, json, os, signal
from cuda.coop._provider import _nvrtc, MemoryCache, Provider, default_compiler
from cuda.coop._specs import Request
_nvrtc._build_pch = lambda *args: signal.pause()  # the build never ends by itself: only a kill stops it
report = {}

def at_exit():  # registered before the compiler's directory, so it runs after the compiler's exit handler
    try:
        os.waitpid(report["pid"], os.WNOHANG)
        report["reaped"] = False
        os.kill(report["pid"], signal.SIGKILL)  # so that a failing run ends
    except ChildProcessError:
        report["reaped"] = True
    print(json.dumps(report), flush=True)

atexit.register(at_exit)
for n in (1, 2):  # two kernels: the default compiler starts the PCH build with the first
    Provider([Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=n)], block_dim=(64,),
             arch="sm_90", cache=MemoryCache()).ltoir()
c = default_compiler()
[entry] = c._pchs.values()
report.update(builds=c.pch_builds, dir=str(c._dir.path), pid=entry._pid, in_flight=not entry.done())
"""


def test_a_two_kernel_script_does_not_wait_at_exit_for_the_pch(tmp_path: Path) -> None:
    # Before: ~2.6 s waiting for the build at exit (a thread; exiting under it segfaults). Now the child is killed:
    # here it never ends by itself, so a script that waited for it would not end (HANG_SECONDS).
    env = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1", "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=HANG_SECONDS, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["builds"] == 1 and report["in_flight"], report
    assert report["reaped"], "the build in flight at exit was not killed and reaped by the exit handler"
    assert not Path(report["dir"]).exists() and not list(tmp_path.glob("cuda-coop-pch-*"))


KEPT = r"""
import json, os, sys
from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, default_compiler
from cuda.coop._specs import Request

def provider(compiler=None):
    request = Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=int(sys.argv[1]))
    return Provider([request], block_dim=(64,), arch="sm_90", cache=MemoryCache(), compiler=compiler)

ltoir = provider().ltoir()
c = default_compiler()
if sys.argv[2] == "wait":  # for the build, and for its seal: it is usable once in place, then its child seals it
    c.wait_for_pch()
    for entry in c._pchs.values():
        if entry._pid is not None:
            os.waitpid(entry._pid, 0)
same = ltoir == provider(NvrtcCompiler(pch=False)).ltoir()
print(json.dumps({"kept": c.pch_kept, "builds": c.pch_builds, "hits": c.pch_hits, "same": same}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the PCH heap is placed through /proc/self/maps")
def test_a_pch_kept_by_one_process_serves_the_next(tmp_path: Path) -> None:
    env = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1", "CUDA_COOP_ENABLE_CACHE": "1",
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(tmp_path)}
    store = tmp_path / "cache" / "cccl" / "cuda-coop" / "pch"

    def run(items: int, wait: bool = False) -> dict[str, object]:
        proc = subprocess.run([sys.executable, "-c", KEPT, str(items), "wait" if wait else "-"], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=HANG_SECONDS, check=False)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])

    assert run(1, wait=True) == {"kept": 0, "builds": 1, "hits": 0, "same": True}
    [pch] = store.glob("*.pch")
    assert (store / f"{pch.stem}.json").is_file(), "the build's child ended without sealing it"
    # Another process (another address-space layout) loads it: no build, and the same LTO-IR as without it.
    assert run(2) == {"kept": 1, "builds": 0, "hits": 1, "same": True}
    # NVRTC maps the file it is given (a truncated one is SIGBUS): a damaged entry is never handed to it.
    pch.write_bytes(pch.read_bytes()[: pch.stat().st_size // 2])
    seal = (store / f"{pch.stem}.json").read_text()
    assert run(3, wait=True) == {"kept": 0, "builds": 1, "hits": 0, "same": True}
    assert (store / f"{pch.stem}.json").read_text() != seal, "the new build was not sealed"
    assert run(4) == {"kept": 1, "builds": 0, "hits": 1, "same": True}


TWO_WAYS = r"""
import json, sys
from cuda.coop._provider import _nvrtc, MemoryCache, NvrtcCompiler, Provider
from cuda.coop._specs import Request

if sys.argv[1] == "unsteered":
    _nvrtc.canonical_address = lambda size: None  # as with an unlimited stack: the heap cannot be placed
if sys.argv[1] == "occupied":  # something of the process's own is mapped where the heap would go
    from cuda.coop._provider import _pch_heap
    address = _pch_heap.canonical_address(_nvrtc._PCH_HEAP_BYTES)
    assert _pch_heap._libc().mmap(address, 1 << 20, 0, 0x02 | 0x20 | 0x4000 | 0x100000, -1, 0) == address
tiny = []
map_heap = _nvrtc._map_heap
_nvrtc._map_heap = lambda: (tiny.append(1), map_heap())[1]
c = NvrtcCompiler()
for n in (16, 4):  # the first starts the build; the second, after it, uses the PCH
    Provider([Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=n)], block_dim=(128,),
             arch="sm_90", cache=MemoryCache(), compiler=c).ltoir()
    c.wait_for_pch()
print(json.dumps({"tiny": len(tiny), "builds": c.pch_builds, "hits": c.pch_hits,
                  "canonical": _nvrtc.HEAP.where() is not None}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the PCH heap is placed through /proc/self/maps")
@pytest.mark.parametrize("way", ["steered", "unsteered", "occupied"])
def test_the_parent_loads_the_childs_pch_with_the_heap_steered_or_mapped_before_the_fork(
    tmp_path: Path, way: str
) -> None:
    # Steered: the child and then the parent map their heaps at the canonical address, no tiny compile; else (no
    # canonical address, or its range taken) the parent maps its heap with a tiny compile before the fork and the
    # child inherits it.
    env = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1", "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", TWO_WAYS, way], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=HANG_SECONDS, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    steered = way == "steered"
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {
        "tiny": 0 if steered else 1, "builds": 1, "hits": 1, "canonical": steered}


EARLY = r"""
import json, sys
from pathlib import Path
from cuda.coop._identity import CompileAttempt, fingerprints
from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider
from cuda.coop._provider._nvrtc import HEAP
from cuda.coop._provider._pch_store import PchStore
from cuda.coop._specs import Request

store = PchStore(Path(sys.argv[2])) if sys.argv[1] == "kept" else None
placeable = HEAP.placeable()
c = NvrtcCompiler(store=store)
builds = []

def fingerprint(roots):
    builds.append(c.pch_builds)
    return fingerprints(roots, stamp_dir=None)

def provider(items):
    request = Request("block_scan", "exclusive_sum", "array", dtype="int32", items_per_thread=items)
    return Provider([request], block_dim=(128,), arch="sm_90", compiler=c, cache=MemoryCache(),
                    attempt=CompileAttempt(fingerprinter=fingerprint))

provider(4).ltoir()
c.wait_for_pch()
provider(2).ltoir()
report = {"placeable": placeable, "at_fingerprint": builds[0], "builds": c.pch_builds, "hits": c.pch_hits}
if store is not None:
    report["entries"] = store.stats().entries
    c = NvrtcCompiler(store=store)  # as a later process: the kept PCH, under the name the compile looks for
    provider(8).ltoir()
    report["later"] = {"kept": c.pch_kept, "hits": c.pch_hits, "builds": c.pch_builds}
print(json.dumps(report))
"""


@pytest.mark.parametrize("kept", [False, True])
def test_the_pch_build_starts_before_the_headers_are_fingerprinted(tmp_path: Path, kept: bool) -> None:
    # A new process whose headers were never fingerprinted starts the build before fingerprinting them for its key
    # (tens of ms). With a store, the kept PCH's name needs that fingerprint: the build's child computes it while
    # it builds, where it can steer its heap (else the compile starts the build, once it has the name).
    env = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1", "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", EARLY, "kept" if kept else "-", str(tmp_path / "pch")], env=env,
                          cwd=REPO, capture_output=True, text=True, timeout=HANG_SECONDS, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    early = not kept or report.pop("placeable")
    report.pop("placeable", None)
    assert report.pop("at_fingerprint") == (1 if early else 0)
    assert report.pop("builds") == 1 and report.pop("hits") == 1, "the build started first is the one compiles use"
    if kept:
        assert report == {"entries": 1, "later": {"kept": 1, "hits": 1, "builds": 0}}
