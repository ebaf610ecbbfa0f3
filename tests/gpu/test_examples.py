"""Every example in examples/ runs on the GPU, checks its own result against NumPy (prints PASS), and
prints what the docs show it printing (docs/example_output/, numbers aside: sizes and error figures may
differ between runs, the checks and their verdicts may not).

With ``CUDA_COOP_RECORD_EXAMPLES=<folder>`` the outputs are written there instead of compared, with a
``recorded.json`` naming the GPU and the date; copy the folder to docs/example_output/ to update the docs.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "_ext"))

import coop_sources  # noqa: E402

EXAMPLES = sorted((REPO / "examples").glob("*.py"))


def _gpu_name() -> str:
    from numba_cuda_mlir import cuda

    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_passes_on_the_gpu(script: Path) -> None:
    result = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "PASS", result.stdout
    if record := os.environ.get("CUDA_COOP_RECORD_EXAMPLES"):
        folder = Path(record)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{script.stem}.txt").write_text(result.stdout)
        recording = {"device": _gpu_name(), "date": datetime.date.today().isoformat()}
        (folder / coop_sources.RECORDING).write_text(json.dumps(recording, indent=2) + "\n")
        return
    shown = coop_sources.recorded_output(script)
    if shown is None and script.stem in coop_sources.recording().pending:
        return  # added without a GPU: it passed; record it (CUDA_COOP_RECORD_EXAMPLES) and copy the folder to the docs
    assert shown is not None, f"{script.name}: no recorded output in docs/example_output/ (see this module's docstring)"
    assert coop_sources.output_shape(result.stdout) == coop_sources.output_shape(shown), (
        f"{script.name} printed\n{result.stdout}\nbut the docs show\n{shown}")
