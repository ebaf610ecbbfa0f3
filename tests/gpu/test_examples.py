"""Every example in examples/ runs on the GPU and checks its own result against NumPy (prints PASS)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_passes_on_the_gpu(script: Path) -> None:
    result = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "PASS", result.stdout
