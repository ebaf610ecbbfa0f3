"""Precompiled packs end to end, in fresh processes with the persistent cache off (real NVRTC, no GPU).

The pack holds the GPU tier's pack kernels (tests/gpu/_pack_kernels.py: a radix sort plus scan and a
histogram, one source for both DSLs), built once per DSL with ``python -m cuda.coop precompile``; so the
compile tier compiles them too. Each scenario runs a new process that compiles the kernels for sm_90 (as a
launch on an sm_90 GPU links them: ``sm_90a`` for numba-cuda) and reports its NVRTC calls, its nvJitLink calls,
how each kernel link went and which pack served. The tests that take the ``pack`` fixture run once per DSL.

Processes run with one ``PYTHONHASHSEED`` (``child_env``): numba-cuda 0.30 lowers some kernels in an order that
follows Python's string hashing, and a pack's linked kernel serves only the same kernel code
(:func:`test_numba_cuda_under_another_hash_seed_still_takes_its_providers_from_the_pack`).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.coop._provider._cache import encode_entry
from tests.gpu._pack_kernels import MODULES
from tests.helpers.dsl import DSLS, NUMBA_CUDA, NUMBA_MLIR, Dsl
from tests.helpers.packs import child_env

REPO = Path(__file__).resolve().parents[2]
BOTH, HISTOGRAM = ("sort_scan", "byte_histogram"), ("byte_histogram",)
LINKED_FOR = {"numba_mlir": "sm_90", "numba_cuda": "sm_90a"}
"""The arch a launch on an sm_90 GPU links a kernel of each DSL for: what the pack holds, and what is compiled."""

# One process: compile the named pack kernels of a DSL for an sm_90 GPU, as its launch path does; report.
SCRIPT = r"""
import hashlib, importlib, json, sys, warnings
from tests.helpers.link_log import count_nvjitlink, record_links, record_served
links, nvjitlink, served = record_links(), count_nvjitlink(), record_served()
import cuda.coop as coop
from cuda.coop._provider._nvrtc import default_compiler
dsl, module, arch, names, how, added = *sys.argv[1:4], sys.argv[4].split(","), sys.argv[5], sys.argv[6:]
integration = importlib.import_module(f"cuda.coop.{dsl}")
k = importlib.import_module(module)
for path in added:
    coop.add_pack(path)
if how == "after_another":  # numba-cuda numbers every function it compiles: shift the count first
    from numba import cuda
    from numba.cuda import types

    @cuda.jit
    def first(x):
        x[0] = 1

    integration.compile_kernel(first, (types.int64[::1],), block=32, arch=arch)
    first[1, 1]  # nothing launches: numba-cuda's dispatcher needs a GPU for that
cubins = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for kernel, signature, block in k.cuda_coop_precompile:
        if kernel.py_func.__name__ not in names:
            continue
        if how == "launch":  # as a numba-cuda-mlir launch compiles it: the kernel's own dispatcher, the GPU's cc
            key = (("grid", (7, 1, 1)), ("block", (block, 1, 1)), ("sharedmem", 0), ("cluster", None))
            with integration._seams.assumed_compute_capability((9, 0)):
                cubin = kernel._compile_launch_config_signature(signature, key).metadata["cubin"]
        else:
            cubin = integration.compile_kernel(kernel, signature, block=block, arch=arch).cubin
        cubins[kernel.py_func.__name__] = hashlib.sha256(bytes(cubin)).hexdigest()
ours = [f"{w.category.__name__}: {w.message}" for w in caught if "cuda.coop" in str(w.message)]
print(json.dumps({"nvrtc": default_compiler().calls, "nvjitlink": nvjitlink[0], "links": links, "served": served,
                  "cubins": cubins, "warnings": ours}))
"""


@pytest.fixture(scope="module", params=DSLS, ids=str)
def dsl(request: pytest.FixtureRequest) -> Dsl:
    """Each DSL in turn (its backend must be installed: a skip, a failure under ``CI=true``)."""
    found: Dsl = request.param
    found.integration  # noqa: B018  (imports the backend, or skips)
    return found


def _run(
    env: dict[str, str],
    names: tuple[str, ...] = BOTH,
    added: tuple[Path, ...] = (),
    how: str = "compile_kernel",
    dsl: Dsl = NUMBA_MLIR,
) -> dict[str, object]:
    """What a new process reports after compiling ``names`` of ``dsl`` (through ``compile_kernel``, as a launch
    does, or after compiling another kernel first)."""
    args = [dsl.name, MODULES[dsl.name], LINKED_FOR[dsl.name], ",".join(names), how, *map(str, added)]
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *args], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=600, check=False)
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


def _build(dsl: Dsl, root: Path) -> Path:
    """The pack of ``dsl``'s pack kernels for sm_90 at ``root / "pack"``, built by the command line."""
    module = MODULES[dsl.name]
    proc = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "precompile", module, "--arch", "sm_90", "--out", str(root / "pack")],
        env=child_env(root), cwd=REPO, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    header, *rows, summary = proc.stdout.strip().splitlines()
    assert header.split() == ["kernel", "block", "arch", "dsl", "size", "time"]
    names = [f"tests.gpu._pack_kernels.build.<locals>.{n}" for n in BOTH]  # one source, written in build()
    assert [r.split()[:4] for r in rows] == [[n, "128x1x1", LINKED_FOR[dsl.name], dsl.name] for n in names]
    assert summary.startswith("2 kernel(s) for sm_90")
    return root / "pack"


_BUILT: dict[str, Path] = {}


def _pack_of(dsl: Dsl, factory: pytest.TempPathFactory) -> Path:
    """``dsl``'s pack, built once per session (never modified: copy it)."""
    if dsl.name not in _BUILT:
        _BUILT[dsl.name] = _build(dsl, factory.mktemp(f"pack-{dsl.name}"))
    return _BUILT[dsl.name]


@pytest.fixture(scope="module")
def pack(dsl: Dsl, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack of ``dsl``'s pack kernels (tests/gpu/_pack_kernels.py) for sm_90 (never modified: copy it)."""
    return _pack_of(dsl, tmp_path_factory)


def _copy(pack: Path, to: Path) -> Path:
    shutil.copytree(pack, to)
    return to


def _compiles_nothing(result: dict[str, object], pack: Path, pack_cubins: dict[str, str], links: int = 0) -> None:
    """``result`` took both kernels and their providers from ``pack`` (``links``: nvJitLink links of other kernels,
    which call no primitive: numba-cuda links them as usual)."""
    assert result["nvrtc"] == 0 and result["nvjitlink"] == links
    assert result["links"] == ["pack hit", "pack hit"]
    assert result["served"] == [str(pack)] * 4  # two providers, two kernels
    assert result["cubins"] == pack_cubins
    assert result["warnings"] == []


def test_a_fresh_process_compiles_no_provider_and_links_no_kernel(dsl: Dsl, pack: Path, tmp_path: Path) -> None:
    _compiles_nothing(_run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(pack)), dsl=dsl), pack, _cubins(pack))
    assert not (tmp_path / "xdg").exists()  # nothing cached: the cache is off, and packs are never copied


def test_a_numba_cuda_mlir_launch_takes_its_kernel_from_the_pack(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """As a launch compiles it: the kernel's own dispatcher, the GPU's compute capability (numba-cuda's launch needs
    a GPU: the GPU tier)."""
    pack = _pack_of(NUMBA_MLIR, tmp_path_factory)
    _compiles_nothing(_run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(pack)), how="launch"), pack, _cubins(pack))


def test_a_numba_cuda_kernel_compiled_after_others_is_still_taken_from_the_pack(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """numba-cuda numbers every function it compiles in a process, in its symbol names; cuda-coop renumbers a
    kernel's before its link, so the kernel compiled after another one is the packed kernel."""
    pack = _pack_of(NUMBA_CUDA, tmp_path_factory)
    result = _run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(pack)), how="after_another", dsl=NUMBA_CUDA)
    _compiles_nothing(result, pack, _cubins(pack), links=1)  # the other kernel's own link, by numba-cuda


def test_a_moved_pack_serves_with_headers_installed_elsewhere(dsl: Dsl, pack: Path, tmp_path: Path) -> None:
    """Copied, then renamed deeper elsewhere; the bundle copied to another path (same bytes): still used."""
    (tmp_path / "some" / "other").mkdir(parents=True)
    moved = _copy(pack, tmp_path / "copy").rename(tmp_path / "some" / "other" / "place")
    from cuda.coop import header_bundle

    bundle = shutil.copytree(header_bundle().root, tmp_path / "relocated" / "bundle", ignore=_no_pycache)
    result = _run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(moved), CUDA_COOP_CCCL_ROOT=str(bundle)), dsl=dsl)
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
    NUMBA_MLIR.integration  # noqa: B018  (imports the backend, or skips)
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


def test_two_packs_holding_the_same_entries_resolve_deterministically(dsl: Dsl, pack: Path, tmp_path: Path) -> None:
    a, b = _copy(pack, tmp_path / "a"), _copy(pack, tmp_path / "b")
    env = child_env(tmp_path, CUDA_COOP_PACK_PATH=f"{a}{os.pathsep}{b}")
    assert _run(env, HISTOGRAM, dsl=dsl)["served"] == [str(a)] * 2
    assert _run({**env, "CUDA_COOP_PACK_PATH": f"{b}{os.pathsep}{a}"}, HISTOGRAM, dsl=dsl)["served"] == [str(b)] * 2
    assert _run(env, HISTOGRAM, added=(b,), dsl=dsl)["served"] == [str(b)] * 2  # add_pack comes first
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
    dsl: Dsl, pack: Path, tmp_path: Path, damage: str, nvrtc: int, nvjitlink: int, reason: str
) -> None:
    copy = _copy(pack, tmp_path / "pack")
    if damage == "truncated provider":
        _truncate(_entry_file(copy, "provider", "byte_histogram"))
    elif damage == "forged kernel":
        _forge(_entry_file(copy, "kernel", "byte_histogram"))
    else:
        _truncate(copy / "manifest.json")
    env = child_env(tmp_path, CUDA_COOP_PACK_PATH=str(copy))
    result = _run(env, HISTOGRAM, dsl=dsl)
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
        ([MODULES["numba_mlir"], "--arch", "sm90"], "expected 'sm_<major><minor>'"),
        (["no_such_module_here", "--arch", "sm_90"], "no module named 'no_such_module_here'"),
        ([MODULES["numba_cuda"], "--arch", "sm_90", "--out", str(tmp_path / "file")], "it is a file"),
    ]
    for args, message in cases:
        out = [] if "--out" in args else ["--out", str(tmp_path / "out")]
        proc = subprocess.run([sys.executable, "-m", "cuda.coop", "precompile", *args, *out], env=child_env(tmp_path),
                              cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
        assert proc.returncode == 1 and message in proc.stderr, (args, proc.stderr[-2000:])


def test_precompile_refuses_malformed_targets(dsl: Dsl) -> None:
    from cuda.coop.errors import UsageError

    cuda, k = dsl.cuda, importlib.import_module(MODULES[dsl.name])
    other = importlib.import_module(MODULES[next(d.name for d in DSLS if d is not dsl)])

    @cuda.jit
    def plain(x):
        x[0] = 1

    cases = [
        ([], "the list is empty"),
        ([(k.sort_scan, k.SORT_SIGNATURE)], r"targets\[0\] = .*expected \(kernel, signature, block\)"),
        ([(k.sort_scan.py_func, k.SORT_SIGNATURE, 128)], r"targets\[0\]: the kernel .*plain Python function"),
        ([(k.sort_scan, k.SORT_SIGNATURE, 0)], r"targets\[0\]\(block=0\)"),
        ([(plain, (k.types.int64[::1],), 32)], "calls no cuda-coop primitive"),
        ([(other.sort_scan, other.SORT_SIGNATURE, 128)],
         rf"targets\[0\]: the kernel .* is a .* kernel, and cuda.coop.{dsl}.precompile compiles .*; precompile it "
         rf"with cuda.coop.{'numba_cuda' if dsl is NUMBA_MLIR else 'numba_mlir'}.precompile"),
    ]
    for targets, message in cases:
        with pytest.raises(UsageError, match=message):
            dsl.integration.precompile(targets, arch="sm_90", out=os.devnull + "-never-written")
    with pytest.raises(UsageError, match="arch="):
        dsl.integration.precompile(k.cuda_coop_precompile, arch="", out="unused")


def test_the_command_line_picks_each_kernels_dsl_and_refuses_other_objects() -> None:
    from cuda.coop._numba._precompile_cli import compiler_for
    from cuda.coop.errors import UsageError

    for dsl in DSLS:
        k = importlib.import_module(MODULES[dsl.name])
        name, _ = compiler_for(k.sort_scan, "targets[0]")
        assert name == dsl.name
    with pytest.raises(UsageError, match=r"targets\[0\]: got a plain Python function; list kernels decorated with "
                                         r"@numba_cuda_mlir.cuda.jit or @numba.cuda.jit"):
        compiler_for(lambda: None, "targets[0]")


def test_the_manifest_lists_each_entry_and_its_file(dsl: Dsl, pack: Path) -> None:
    for kind in ("provider", "kernel"):
        for name in BOTH:
            path = _entry_file(pack, kind, name)
            assert path.is_file() and path.name.startswith(path.parent.name)
    manifest = json.loads((pack / "manifest.json").read_text())
    assert manifest["format"] == 2 and manifest["cccl"]["version"]
    assert {e["arch"] for e in manifest["entries"] if e["kind"] == "provider"} == {"sm_90"}
    assert {e["arch"] for e in manifest["entries"] if e["kind"] == "kernel"} == {LINKED_FOR[dsl.name]}
    assert {tuple(e["dsls"]) for e in manifest["entries"]} == {(dsl.name,)}
    assert hashlib.sha256(b"").hexdigest() not in {e["sha256"] for e in manifest["entries"]}


def test_a_pack_serves_only_the_dsl_it_was_built_for(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """One source, so the same providers (the same keys): only the entries' DSL keeps a pack for one DSL from
    serving the other's kernels, which then compile as usual. A pack may hold both (one ``--out``, two runs)."""
    for dsl in DSLS:
        dsl.integration  # noqa: B018  (imports the backend, or skips)
    packs = {dsl.name: _pack_of(dsl, tmp_path_factory) for dsl in DSLS}
    providers = {name: {e["key"] for e in json.loads((p / "manifest.json").read_text())["entries"]
                        if e["kind"] == "provider"} for name, p in packs.items()}
    assert providers["numba_mlir"] == providers["numba_cuda"]  # the same CUB code, the same keys
    for dsl, other in ((NUMBA_MLIR, NUMBA_CUDA), (NUMBA_CUDA, NUMBA_MLIR)):
        result = _run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(packs[other.name])), HISTOGRAM, dsl=dsl)
        assert (result["nvrtc"], result["nvjitlink"], result["served"]) == (1, 1, []), (dsl, result)
        assert result["warnings"] == []  # not an error, nor damage

    both = _copy(packs["numba_mlir"], tmp_path / "both")
    subprocess.run([sys.executable, "-m", "cuda.coop", "precompile", MODULES["numba_cuda"], "--arch", "sm_90",
                    "--out", str(both)], env=child_env(tmp_path), cwd=REPO, check=True, capture_output=True,
                   timeout=900)
    entries = json.loads((both / "manifest.json").read_text())["entries"]
    assert {tuple(e["dsls"]) for e in entries if e["kind"] == "provider"} == {("numba_cuda", "numba_mlir")}
    assert sorted(e["dsls"][0] for e in entries if e["kind"] == "kernel") == ["numba_cuda"] * 2 + ["numba_mlir"] * 2
    for dsl in DSLS:
        result = _run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(both)), dsl=dsl)
        assert (result["nvrtc"], result["nvjitlink"], result["served"]) == (0, 0, [str(both)] * 4), (dsl, result)


def test_numba_cuda_under_another_hash_seed_still_takes_its_providers_from_the_pack(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """numba-cuda 0.30 lowers some kernels (here the histogram) in an order that follows Python's string hashing, so
    under another ``PYTHONHASHSEED`` the kernel's own code can differ from the packed one: its link then runs (the
    linked kernel is keyed by that code), its providers still come from the pack."""
    NUMBA_CUDA.integration  # noqa: B018  (imports the backend, or skips)
    pack = _pack_of(NUMBA_CUDA, tmp_path_factory)
    for seed in ("1", "2", "3"):
        result = _run(child_env(tmp_path, CUDA_COOP_PACK_PATH=str(pack), PYTHONHASHSEED=seed), dsl=NUMBA_CUDA)
        hits = result["links"].count("pack hit")  # type: ignore[union-attr]
        assert result["nvrtc"] == 0 and result["served"] == [str(pack)] * (2 + hits), (seed, result)
        assert result["nvjitlink"] == 2 - hits and result["links"].count("linked") == 2 - hits, (seed, result)
