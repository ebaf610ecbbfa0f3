"""The persistent provider cache across processes, with real NVRTC (no GPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.coop._provider._cache import decode_entry, encode_entry

REPO = Path(__file__).resolve().parents[2]

# One process: build the provider, count NVRTC calls through the compiler seam, report.
SCRIPT = r"""
import hashlib, json, sys
from cuda.coop._provider import NvrtcCompiler, Provider
from cuda.coop._specs import Request

compiler = NvrtcCompiler(pch=False)
p = Provider(
    [Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=16),
     Request("block_scan", "exclusive_sum", "array", dtype="int32", items_per_thread=4)],
    block_dim=(256,), arch="sm_90", compiler=compiler,
)
data = p.ltoir()
print(json.dumps({"calls": compiler.calls, "origin": p.origin, "key": p.key.digest,
                  "sha": hashlib.sha256(data).hexdigest(), "size": len(data)}))
"""


def _env(tmp_path: Path, *, enable: bool, dump: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "xdg"), CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="1")
    if enable:
        env["CUDA_COOP_ENABLE_CACHE"] = "1"
    if dump is not None:
        env["CUDA_COOP_SOURCE_DUMP_DIR"] = str(dump)
    return env


def _run(env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "xdg").rglob("*.ltoir"))


def _files(tmp_path: Path) -> list[Path]:
    """Every file in the provider cache (other cuda-coop state in the cache directory is not looked at)."""
    return sorted(p for p in (tmp_path / "xdg" / "cccl" / "cuda-coop" / "providers").rglob("*") if p.is_file())


def test_second_process_hits_and_corrupt_entries_are_replaced(tmp_path: Path) -> None:
    dumps = tmp_path / "dumps"
    env = _env(tmp_path, enable=True, dump=dumps)
    first = _run(env)
    assert first["calls"] == 1 and first["origin"] == "nvrtc"
    [entry] = _entries(tmp_path)
    assert entry.parent.parent == tmp_path / "xdg" / "cccl" / "cuda-coop" / "providers"
    assert entry.name == f"{first['key']}.ltoir"
    dump = dumps / f"cuda_coop_numba_mlir_{str(first['key'])[:16]}.cu"
    assert dump.is_file()  # written on compile
    dump.unlink()

    second = _run(env)
    assert second["calls"] == 0 and second["origin"] == "cache"
    assert second["sha"] == first["sha"] and second["key"] == first["key"]
    assert dump.is_file()  # written on a cache hit too

    good = entry.read_bytes()
    for damaged in (good[: len(good) // 3], os.urandom(len(good)), encode_entry("f" * 64, good[100:])):
        entry.write_bytes(damaged)
        again = _run(env)
        assert again["calls"] == 1 and again["origin"] == "nvrtc" and again["sha"] == first["sha"]
        assert decode_entry(str(first["key"]), entry.read_bytes()) is not None  # replaced by a valid entry
    assert _files(tmp_path) == [entry]


def test_disabled_cache_writes_nothing(tmp_path: Path) -> None:
    result = _run(_env(tmp_path, enable=False))
    assert result["calls"] == 1
    assert not (tmp_path / "xdg").exists() or not _files(tmp_path)


def test_eight_concurrent_processes_leave_one_valid_entry(tmp_path: Path) -> None:
    env = _env(tmp_path, enable=True)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SCRIPT], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert len({r["sha"] for r in results}) == 1 and len({r["key"] for r in results}) == 1
    [entry] = _entries(tmp_path)
    assert _files(tmp_path) == [entry], "temporary files were left behind"
    assert decode_entry(str(results[0]["key"]), entry.read_bytes()) is not None


@pytest.mark.parametrize("args", [[], ["--clear"]])
def test_cache_cli_in_a_fresh_process(tmp_path: Path, args: list[str]) -> None:
    env = _env(tmp_path, enable=True)
    entry = tmp_path / "xdg" / "cccl" / "cuda-coop" / "providers" / "ab" / ("ab" + "0" * 62 + ".ltoir")
    entry.parent.mkdir(parents=True)
    entry.write_bytes(encode_entry("ab" + "0" * 62, b"x" * 10))
    code = (
        "import sys, argparse; from cuda.coop._provider import _cache_cli as c; p = argparse.ArgumentParser(); "
        "c.add_arguments(p); sys.exit(c.run(p.parse_args(sys.argv[1:])))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "--json", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["enabled"] is True and report["directory"] == str(entry.parent.parent)
    assert report["entries"] == (0 if args else 1)
    assert entry.exists() == (not args)


# One process: compile a kernel for sm_90 (no GPU) with the provider cache as the environment says;
# report the NVRTC calls of its provider and the linked kernel.
KERNEL_SCRIPT = r"""
import hashlib, json
import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.numba_cuda import types
import cuda.coop as coop
from tests.helpers.link_log import record_links
from cuda.coop._provider._nvrtc import default_compiler
from cuda.coop.numba_mlir import compile_kernel

links = record_links()  # how each kernel link went: "cache hit", "linked and cached", ...
SCALE = 1.0

@cuda.jit
def kernel(x, partial):
    items = cuda.local.array(4, np.float32)
    coop.block.load(x, items, offset=cuda.blockIdx.x * 512)
    total = coop.block.sum(items)
    if cuda.threadIdx.x == 0:
        partial[cuda.blockIdx.x] = total * SCALE

compiled = compile_kernel(kernel, (types.float32[::1], types.float32[::1]), block=128, arch="sm_90")
sha = hashlib.sha256(compiled.cubin).hexdigest()
print(json.dumps({"calls": default_compiler().calls, "sha": sha, "links": links}))
"""


def _run_kernel(env: dict[str, str], *, scale: str = "1.0") -> dict[str, object]:
    env = {**env}
    env.pop("CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION", None)
    script = KERNEL_SCRIPT.replace("SCALE = 1.0", f"SCALE = {scale}")
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_entry_that_does_not_link_is_recompiled_once_by_the_kernels_link(tmp_path: Path) -> None:
    """Well-formed entries (right key, length, checksum) whose LTO-IR nvJitLink refuses: forged bitcode, and
    LTO-IR for a newer arch stored under the sm_90 key (what a stale entry looks like). The kernel's link
    fails with them; the provider is compiled again, the kernel links, and the entry is replaced."""
    env = _env(tmp_path, enable=True)
    first = _run_kernel(env)
    assert first["calls"] == 1
    [entry] = _entries(tmp_path)
    key = entry.stem
    good = decode_entry(key, entry.read_bytes())
    assert good is not None
    newer_path = tmp_path / "sm_100.ltoir"
    code = SCRIPT.replace('arch="sm_90"', 'arch="sm_100"') + f"\nopen({str(newer_path)!r}, 'wb').write(data)\n"
    subprocess.run([sys.executable, "-c", code], env=_env(tmp_path / "o", enable=False), cwd=REPO, timeout=300,
                   check=True)
    newer = newer_path.read_bytes()
    forged = good[:64] + bytes(len(good) - 64)  # the LTO-IR header, then zeros
    for payload in (forged, newer):
        entry.write_bytes(encode_entry(key, payload))  # passes every entry check
        again = _run_kernel(env)
        assert again["calls"] == 1 and again["sha"] == first["sha"]
        assert again["links"] == ["linked and cached"]  # the link of the bad entry was not a cache hit
        assert decode_entry(key, entry.read_bytes()) == good  # replaced by what NVRTC makes
    assert _run_kernel(env) == {"calls": 0, "sha": first["sha"], "links": ["cache hit"]}  # no compile, no link


def _kernels(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "xdg" / "cccl" / "cuda-coop" / "kernels").rglob("*.cubin"))


def test_a_linked_kernel_is_cached_keyed_by_everything_the_link_is_given(tmp_path: Path) -> None:
    """A second process takes the kernel's cubin from the cache (no NVRTC, no nvJitLink); a constant of the
    user's code that changes the kernel changes its key; a damaged entry is linked again and replaced."""
    env = _env(tmp_path, enable=True)
    first = _run_kernel(env)
    assert first["calls"] == 1 and first["links"] == ["linked and cached"]
    [entry] = _kernels(tmp_path)
    good = entry.read_bytes()
    assert decode_entry(entry.stem, good) is not None

    assert _run_kernel(env) == {"calls": 0, "sha": first["sha"], "links": ["cache hit"]}

    scaled = _run_kernel(env, scale="3.0")  # the same provider (a hit), another kernel
    assert scaled["calls"] == 0 and scaled["links"] == ["linked and cached"] and scaled["sha"] != first["sha"]
    assert len(_kernels(tmp_path)) == 2

    cubin = decode_entry(entry.stem, good)
    assert cubin is not None
    not_elf = "the cached entry is not a CUDA ELF; linking again"
    for damaged, links in (
        (good[: len(good) // 2], ["linked and cached"]),  # fails the entry's own checks
        (encode_entry(entry.stem, b"\x7fELF" + bytes(60)), [not_elf, "linked and cached"]),  # passes them
    ):
        entry.write_bytes(damaged)
        again = _run_kernel(env)
        assert again == {"calls": 0, "sha": first["sha"], "links": links}
        assert decode_entry(entry.stem, entry.read_bytes()) == cubin  # replaced by what nvJitLink makes


def test_disabled_cache_caches_no_kernel(tmp_path: Path) -> None:
    result = _run_kernel(_env(tmp_path, enable=False))
    assert result["calls"] == 1 and result["links"] == []
    assert not _kernels(tmp_path)
