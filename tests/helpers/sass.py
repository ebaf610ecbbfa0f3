"""SASS checks shared by the compile tier's family tests: the wrappers are inlined, nothing lives in local memory."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["assert_inlined", "disassemble", "functions", "instructions", "nvcc_functions"]

Listings = dict[str, list[str]]
"""Kernel name -> its SASS instructions (NOP padding and predicate guards left out)."""

_FUNCTION = re.compile(r"^\s*\.text\.(\w+):")
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")


def instructions(sass: str) -> list[str]:
    """The instruction lines of an ``nvdisasm`` listing."""
    return [line for line in sass.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", line)]


def assert_inlined(compiled: Any, spills: bool = False, local: bool = False) -> None:
    """No CALL and no local memory in ``compiled`` (a ``CompiledKernel``).

    ``spills``: local loads and stores that ptxas marks as register spills (``"SpillRefill"``, ``"SpillStore"``) are
    allowed, and only those (a 1024-thread block has 64 registers a thread, which a kernel holding many call sites or
    16 wide items can exceed). ``local``: any local memory is allowed and only CALL is checked (the wrappers inline;
    for kernels whose local memory is not the test's concern, such as the GPU tier's sanitizer kernels).
    """
    lines = instructions(compiled.sass())
    assert lines, "no SASS"
    for op in ("CALL",) if local else ("CALL", "LDL", "STL"):
        offending = [line.strip() for line in lines if re.search(rf"\b{op}\b", line)
                     and not (spills and op != "CALL" and re.search(r'"Spill(Refill|Store)"', line))]
        assert not offending, f"{op} in SASS: {offending[:3]}"
    if not (spills or local):
        assert compiled.resource_usage().get("local", 0) == 0


def functions(listing: str) -> Listings:
    """Instructions of each function of an ``nvdisasm -c`` listing, NOP padding left out."""
    out: Listings = {}
    current: list[str] | None = None
    for line in listing.splitlines():
        if match := _FUNCTION.match(line):
            current = out.setdefault(match[1], [])
        elif current is not None and (match := _INSTRUCTION.match(line)):
            text = re.sub(r"^@!?U?P\w+\s+", "", match[1])  # the predicate guard is not the instruction
            if not text.startswith("NOP"):
                current.append(text)
    return out


def disassemble(cubin: bytes, tmp: Path, name: str) -> Listings:
    """:func:`functions` of a cubin (written to ``tmp/<name>.cubin`` for nvdisasm from the NVIDIA wheels)."""
    from cuda.coop._numba._inspect import _tool

    path = tmp / f"{name}.cubin"
    path.write_bytes(cubin)
    sass = subprocess.run([_tool("nvdisasm"), "-c", str(path)], check=True, capture_output=True, text=True).stdout
    return functions(sass)


def nvcc_functions(source: Path, tmp: Path, arch: str, *includes: Path) -> Listings:
    """SASS of every kernel of ``source``, built by ``nvcc -O3 -cubin`` for ``arch`` against the bundled CCCL (its
    version checked by ``EXPECTED_CCCL_VERSION``) and ``includes``."""
    import cuda.coop as coop
    from tests.helpers import requires

    nvcc = requires.nvcc("the CUB twins")
    bundle = coop.header_bundle()
    major, minor, patch = (int(p) for p in bundle.provenance.cccl_version.split("."))
    cubin = tmp / f"{source.stem}.cubin"
    subprocess.run(
        [nvcc, "-O3", "-std=c++17", f"-arch={arch}", f"-I{bundle.include_dir}", *(f"-I{d}" for d in includes),
         f"-DEXPECTED_CCCL_VERSION={major * 1000000 + minor * 1000 + patch}", "-cubin", "-o", str(cubin), str(source)],
        check=True, capture_output=True, text=True,
    )
    return disassemble(cubin.read_bytes(), tmp, source.stem)
