"""Run cuda-coop's CMake project the way a packager would."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def cmake_exe() -> str:
    exe = shutil.which("cmake")
    if exe is None:
        pytest.skip("cmake is not on PATH; install the test extra (pip install cuda-coop[test])")
    return exe


@dataclass
class Configured:
    returncode: int
    output: str
    build_dir: Path

    def provenance(self) -> dict[str, Any]:
        assert self.returncode == 0, self.output
        return json.loads((self.build_dir / "provenance.json").read_text())


def configure(build_dir: Path, **defines: str) -> Configured:
    args = [cmake_exe(), "-S", str(REPO), "-B", str(build_dir)]
    args += [f"-D{k}={v}" for k, v in defines.items()]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    # CMake wraps long messages at spaces: compare against the text with whitespace collapsed.
    return Configured(proc.returncode, " ".join((proc.stdout + proc.stderr).split()), build_dir)


def install(configured: Configured, prefix: Path) -> None:
    assert configured.returncode == 0, configured.output
    subprocess.run(
        [cmake_exe(), "--install", str(configured.build_dir), "--prefix", str(prefix)],
        check=True, capture_output=True, text=True,
    )
