"""Precompiled packs end to end, in fresh processes with the persistent cache off (real NVRTC, no GPU).

The pack holds the GPU tier's pack kernels (tests/gpu/_pack_kernels.py: a radix sort plus scan and a
histogram), built once for this module with ``python -m cuda.coop precompile``; so the compile tier
compiles them too. Each scenario runs a new process that compiles the kernels for sm_90 and reports
its NVRTC calls, its nvJitLink calls, how each kernel link went and which pack served.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.coop._provider._cache import encode_entry
from tests.helpers.packs import child_env, require_numba_cuda_mlir

REPO = Path(__file__).resolve().parents[2]
MODULE = "tests.gpu._pack_kernels"
BOTH, HISTOGRAM = ("sort_scan", "byte_histogram"), ("byte_histogram",)

# One process: compile the named pack kernels for sm_90, as numba-cuda-mlir's launch path does; report.
SCRIPT = r"""
import hashlib, json, sys, warnings
from tests.helpers.link_log import count_nvjitlink, record_links, record_served
links, nvjitlink, served = record_links(), count_nvjitlink(), record_served()
import cuda.coop as coop
from cuda.coop._provider._nvrtc import default_compiler
from cuda.coop.numba_mlir import compile_kernel
from cuda.coop.numba_mlir import _seams
from tests.gpu import _pack_kernels as k
names, how, added = sys.argv[1].split(","), sys.argv[2], sys.argv[3:]
for path in added:
    coop.add_pack(path)
cubins = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for kernel, signature, block in k.cuda_coop_precompile:
        if kernel.py_func.__name__ not in names:
            continue
        if how == "launch":  # as a launch compiles it: the kernel's own dispatcher, the GPU's compute capability
            key = (("grid", (7, 1, 1)), ("block", (block, 1, 1)), ("sharedmem", 0), ("cluster", None))
            with _seams.assumed_compute_capability((9, 0)):
                cubin = kernel._compile_launch_config_signature(signature, key).metadata["cubin"]
        else:
            cubin = compile_kernel(kernel, signature, block=block, arch="sm_90").cubin
        cubins[kernel.py_func.__name__] = hashlib.sha256(bytes(cubin)).hexdigest()
ours = [f"{w.category.__name__}: {w.message}" for w in caught if "cuda.coop" in str(w.message)]
print(json.dumps({"nvrtc": default_compiler().calls, "nvjitlink": nvjitlink[0], "links": links, "served": served,
                  "cubins": cubins, "warnings": ours}))
"""


@pytest.fixture(autouse=True, scope="module")
def _numba_cuda_mlir() -> None:
    require_numba_cuda_mlir()


def _run(
    env: dict[str, str], names: tuple[str, ...] = BOTH, added: tuple[Path, ...] = (), how: str = "compile_kernel"
) -> dict[str, object]:
    """What a new process reports after compiling ``names`` (through ``compile_kernel`` or as a launch does)."""
    proc = subprocess.run([sys.executable, "-c", SCRIPT, ",".join(names), how, *map(str, added)], env=env,
                          cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _diagnostics(env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-m", "cuda.coop", "--json"], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=300, check=False)
    report = json.loads(proc.stdout)
    report["returncode"] = proc.returncode
    return report


def _cubins(pack: Path) -> dict[str, str]:
    """Kernel name -> SHA-256 of its linked cubin, as the pack's manifest records them."""
    manifest = json.loads((pack / "manifest.json").read_text())
    return {e["kernel"].rsplit(".", 1)[1]: e["sha256"] for e in manifest["entries"] if e["kind"] == "kernel"}


def _entry_file(pack: Path, kind: str, kernel: str) -> Path:
    manifest = json.loads((pack / "manifest.json").read_text())
    [entry] = [e for e in manifest["entries"] if e["kind"] == kind and e["kernel"].endswith(f".{kernel}")]
    return pack / entry["file"]


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack of tests/gpu/_pack_kernels.py for sm_90, built by the command line (never modified: copy it)."""
    root = tmp_path_factory.mktemp("pack")
    proc = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "precompile", MODULE, "--arch", "sm_90", "--out", str(root / "pack")],
        env=child_env(root), cwd=REPO, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    header, *rows, summary = proc.stdout.strip().splitlines()
    assert header.split() == ["kernel", "block", "arch", "size", "time"]
    assert [r.split()[:3] for r in rows] == [[f"{MODULE}.{n}", "128x1x1", "sm_90"] for n in BOTH]
    assert summary.startswith("2 kernel(s) for sm_90")
    return root / "pack"


def _copy(pack: Path, to: Path) -> Path:
    shutil.copytree(pack, to)
    return to


@pytest.mark.parametrize("how", ["compile_kernel", "launch"])
def test_a_fresh_process_compiles_no_provider_and_links_no_kernel(pack: Path, tmp_path: Path, how: str) -> None:
    result = _run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(pack)), how=how)
    assert result["nvrtc"] == 0 and result["nvjitlink"] == 0
    assert result["links"] == ["pack hit", "pack hit"]
    assert result["served"] == [str(pack)] * 4  # two providers, two kernels
    assert result["cubins"] == _cubins(pack)
    assert result["warnings"] == []
    assert not (tmp_path / "xdg").exists()  # nothing cached: the cache is off, and packs are never copied


def test_a_moved_pack_serves_with_headers_installed_elsewhere(pack: Path, tmp_path: Path) -> None:
    """Copied, then renamed deeper elsewhere; the bundle copied to another path (same bytes): still used."""
    (tmp_path / "some" / "other").mkdir(parents=True)
    moved = _copy(pack, tmp_path / "copy").rename(tmp_path / "some" / "other" / "place")
    from cuda.coop import header_bundle

    bundle = shutil.copytree(header_bundle().root, tmp_path / "relocated" / "bundle", ignore=_no_pycache)
    result = _run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(moved), CUDA_COOP_CCCL_ROOT=str(bundle)))
    assert result["nvrtc"] == 0 and result["nvjitlink"] == 0 and result["served"] == [str(moved)] * 4


def _no_pycache(_: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]


BUILD_ONE = r"""
import sys
from cuda.coop.numba_mlir import precompile
from tests.gpu import _pack_kernels as k
precompile([k.cuda_coop_precompile[1]], arch="sm_90", out=sys.argv[1])
"""


def test_a_pack_built_against_a_bundle_with_one_byte_changed_is_not_used(tmp_path: Path) -> None:
    from cuda.coop import header_bundle

    bundle = shutil.copytree(header_bundle().root, tmp_path / "bundle", ignore=_no_pycache)
    header = bundle / "include" / "thrust" / "version.h"
    text = header.read_bytes()
    comment = text.index(b"//")  # a letter of the first comment: the code compiles the same
    at = next(i for i in range(comment, len(text)) if chr(text[i]).isalpha())
    header.write_bytes(text[:at] + bytes([text[at] ^ 0x20]) + text[at + 1 :])
    edited = child_env(tmp_path, CUDA_COOP_CCCL_ROOT=str(bundle))
    subprocess.run([sys.executable, "-c", BUILD_ONE, str(tmp_path / "pack")], env=edited, cwd=REPO, check=True,
                   timeout=600)
    served = _run({**edited, "CUDA_COOP_PACK_PATH": str(tmp_path / "pack")}, HISTOGRAM)
    assert served["nvrtc"] == 0 and served["nvjitlink"] == 0  # against the headers it was built with: used

    installed = child_env(tmp_path, CUDA_COOP_PACK_PATH=str(tmp_path / "pack"))
    result = _run(installed, HISTOGRAM)
    assert result["nvrtc"] == 1 and result["nvjitlink"] == 1 and result["links"] == ["linked"]
    assert result["served"] == [] and result["warnings"] == []  # not used, and not an error
    report = _diagnostics(installed)
    [listed] = report["packs"]["packs"]  # type: ignore[index]
    assert listed["state"].startswith("NOT USED: built against other headers")
    assert all(e["state"].startswith("not used: built against other headers") for e in listed["entries"])


def test_two_packs_holding_the_same_entries_resolve_deterministically(pack: Path, tmp_path: Path) -> None:
    a, b = _copy(pack, tmp_path / "a"), _copy(pack, tmp_path / "b")
    env = child_env(tmp_path, CUDA_COOP_PACK_PATH=f"{a}{os.pathsep}{b}")
    assert _run(env, HISTOGRAM)["served"] == [str(a)] * 2
    assert _run({**env, "CUDA_COOP_PACK_PATH": f"{b}{os.pathsep}{a}"}, HISTOGRAM)["served"] == [str(b)] * 2
    assert _run(env, HISTOGRAM, added=(b,))["served"] == [str(b)] * 2  # add_pack comes first
    report = _diagnostics(env)
    assert [p["path"] for p in report["packs"]["packs"]] == [str(a), str(b)]  # type: ignore[index]


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-100])


def _forge(path: Path) -> None:
    """A whole entry for the same key, checksum and all, with another cubin: only the manifest can tell."""
    key = path.name.split(".")[0]
    path.write_bytes(encode_entry(key, b"\x7fELF\x02\x01" + os.urandom(4000)))


@pytest.mark.parametrize(
    ("damage", "nvrtc", "nvjitlink", "reason"),
    [
        ("truncated provider", 1, 0, "is not a whole entry for its key"),
        ("forged kernel", 0, 1, "does not hold what the manifest records"),
        ("damaged manifest", 1, 1, "manifest.json is damaged"),
    ],
)
def test_a_damaged_file_is_refused_and_the_kernel_compiles_as_usual(
    pack: Path, tmp_path: Path, damage: str, nvrtc: int, nvjitlink: int, reason: str
) -> None:
    copy = _copy(pack, tmp_path / "pack")
    if damage == "truncated provider":
        _truncate(_entry_file(copy, "provider", "byte_histogram"))
    elif damage == "forged kernel":
        _forge(_entry_file(copy, "kernel", "byte_histogram"))
    else:
        _truncate(copy / "manifest.json")
    env = child_env(tmp_path, CUDA_COOP_PACK_PATH=str(copy))
    result = _run(env, HISTOGRAM)
    assert (result["nvrtc"], result["nvjitlink"]) == (nvrtc, nvjitlink)
    assert result["cubins"] == {"byte_histogram": _cubins(pack)["byte_histogram"]}  # what a compile gives
    [warning] = result["warnings"]
    assert warning.startswith(f"PackWarning: cuda.coop: the precompiled pack {copy}") and reason in warning
    report = _diagnostics(env)
    [listed] = report["packs"]["packs"]  # type: ignore[index]
    states = [listed["state"], *(e["state"] for e in listed["entries"])]
    assert any(reason in state for state in states), states
    assert report["returncode"] == 0  # a damaged pack is reported, not an error of the configuration


def test_a_path_that_is_not_a_pack_is_an_error(tmp_path: Path) -> None:
    for value, error in ((str(tmp_path / "missing"), "is not a cuda-coop pack: it does not exist"),
                         (f"{tmp_path}{os.pathsep}relative/pack", "holds 'relative/pack', which is a relative path")):
        report = _diagnostics(child_env(tmp_path, CUDA_COOP_PACK_PATH=value))
        assert report["returncode"] == 1
        assert any(error in p for p in report["problems"]), report["problems"]  # type: ignore[union-attr]


def test_the_command_line_refuses_what_it_cannot_precompile(tmp_path: Path) -> None:
    (tmp_path / "nolist.py").write_text("x = 1\n")
    (tmp_path / "file").write_text("")
    cases = [
        ([str(tmp_path / "nolist.py"), "--arch", "sm_90"], "has none; define a module-level cuda_coop_precompile"),
        ([MODULE, "--arch", "sm90"], "expected 'sm_<major><minor>'"),
        (["no_such_module_here", "--arch", "sm_90"], "no module named 'no_such_module_here'"),
        ([MODULE, "--arch", "sm_90", "--out", str(tmp_path / "file")], "it is a file"),
    ]
    for args, message in cases:
        out = [] if "--out" in args else ["--out", str(tmp_path / "out")]
        proc = subprocess.run([sys.executable, "-m", "cuda.coop", "precompile", *args, *out], env=child_env(tmp_path),
                              cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
        assert proc.returncode == 1 and message in proc.stderr, (args, proc.stderr[-2000:])


def test_precompile_refuses_malformed_targets() -> None:
    from numba_cuda_mlir import cuda

    from cuda.coop.errors import UsageError
    from cuda.coop.numba_mlir import precompile
    from tests.gpu import _pack_kernels as k

    @cuda.jit
    def plain(x):
        x[0] = 1

    cases = [
        ([], "the list is empty"),
        ([(k.sort_scan, k.SORT_SIGNATURE)], r"targets\[0\] = .*expected \(kernel, signature, block\)"),
        ([(k.sort_scan.py_func, k.SORT_SIGNATURE, 128)], r"targets\[0\]: the kernel .*plain Python function"),
        ([(k.sort_scan, k.SORT_SIGNATURE, 0)], r"targets\[0\]\(block=0\)"),
        ([(plain, (k.types.int64[::1],), 32)], "calls no cuda-coop primitive"),
    ]
    for targets, message in cases:
        with pytest.raises(UsageError, match=message):
            precompile(targets, arch="sm_90", out=os.devnull + "-never-written")
    with pytest.raises(UsageError, match="arch="):
        precompile(k.cuda_coop_precompile, arch="", out="unused")


def test_the_manifest_lists_each_entry_and_its_file(pack: Path) -> None:
    for kind in ("provider", "kernel"):
        for name in BOTH:
            path = _entry_file(pack, kind, name)
            assert path.is_file() and path.name.startswith(path.parent.name)
    manifest = json.loads((pack / "manifest.json").read_text())
    assert manifest["format"] == 1 and manifest["cccl"]["version"]
    assert {e["arch"] for e in manifest["entries"]} == {"sm_90"}
    assert hashlib.sha256(b"").hexdigest() not in {e["sha256"] for e in manifest["entries"]}
