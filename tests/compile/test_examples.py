"""Every example in examples/ compiles its kernels for sm_90 without a GPU (compile tier).

The GPU tier (tests/gpu/test_examples.py) runs the same scripts and checks that they print PASS.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba_cuda_mlir", reason="needs the numba-cuda-mlir extra")

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_compiles_without_a_gpu(script: Path) -> None:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # compile-only path even where a GPU exists
    result = subprocess.run(
        [sys.executable, str(script)], check=False, capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "compiled" in result.stdout and "No GPU here" in result.stdout, result.stdout
