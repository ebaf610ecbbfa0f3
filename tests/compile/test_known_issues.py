"""The reproducers of docs/known_issues.rst still run and show what the page says (compile tier, no GPU).

When a later NVRTC loads a precompiled header made by another process, the first test fails: then the persistent
cache could keep one without placing NVRTC's heap (cuda_coop/_provider/_nvrtc.py), and the page's section goes.
The load time of the second reproducer is the page's to report, not a test's to assert.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cuda.coop._provider import Toolchain

PAGE = Path(__file__).resolve().parents[2] / "docs" / "known_issues.rst"


def _reproducer(section: str) -> str:
    text = PAGE.read_text()
    start = text.index(f".. _{section}:")
    block = re.search(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text[start:])
    assert block, f"no python code block in {section}"
    return "\n".join(line[3:] for line in block.group(1).splitlines())


def test_a_pch_from_another_process_is_refused(toolchain: Toolchain, tmp_path: Path) -> None:
    script = tmp_path / "repro.py"
    script.write_text(_reproducer("known-issue-nvrtc-pch-per-process"))
    root = next(r for r in toolchain.cccl_include_roots if (r / "cuda" / "std" / "type_traits").is_file())
    result = subprocess.run([sys.executable, str(script), "use", str(root)], capture_output=True, text=True,
                            check=False, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "creating precompiled header file" in result.stdout  # the other process made it
    assert "#20282-D: incompatible precompiled header (PCH) heap allocation address" in result.stdout, result.stdout


def test_the_pch_load_reproducer_runs(toolchain: Toolchain, tmp_path: Path) -> None:
    script = tmp_path / "repro.py"
    script.write_text(_reproducer("known-issue-nvrtc-pch-load"))
    root = next(r for r in toolchain.cccl_include_roots if (r / "cuda" / "std" / "type_traits").is_file())
    result = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True,
                            check=False, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and all(re.fullmatch(r"with the PCH: \d+ ms; without any header: \d+ ms", x) for x in lines)


def test_the_generic_lambda_reproducer_fails_exactly_where_cuda_coop_adds_default_device(
    toolchain: Toolchain, tmp_path: Path
) -> None:
    """known-issue-nvrtc-generic-lambda: the page's program fails on the NVRTCs that ``GENERIC_LAMBDA_NVRTC`` gives
    ``-default-device`` and compiles on the others (scripts/test_cuda13.0.sh runs it against NVRTC 13.0 too); when an
    NVRTC this says needs the option no longer does, this fails and the bound moves."""
    from cuda.coop._provider._key import GENERIC_LAMBDA_NVRTC

    script = tmp_path / "repro.py"
    script.write_text(_reproducer("known-issue-nvrtc-generic-lambda"))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False, timeout=120,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    first, *log = result.stdout.splitlines()
    refused = toolchain.nvrtc_version < GENERIC_LAMBDA_NVRTC
    assert first.startswith(str(not refused)), result.stdout
    assert ("host functions are not allowed in JIT mode" in "\n".join(log)) is refused, result.stdout


def test_a_global_bfloat16_constant_does_not_lower_and_a_float32_one_does() -> None:
    """known-issue-bfloat16-constant: the page's kernel still fails to compile in Numba-CUDA-MLIR (when this test
    fails, it compiles: drop the section and the recipes' float32 padding), and the workaround compiles."""
    import ml_dtypes
    import numpy as np
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda import types

    import cuda.coop as coop
    from cuda.coop.numba_mlir import compile_kernel

    scope: dict[str, object] = {}
    exec(_reproducer("known-issue-bfloat16-constant").split("\nout = cuda.to_device")[0], scope)
    bf16 = types.Array(types.bfloat16, 1, "C")
    with pytest.raises(Exception, match="compiler bug") as info:
        compile_kernel(scope["k"], (bf16,), block=32)
    assert "UserFacingInternalCompilerError" in type(info.value).__name__

    pad = np.float32(-np.inf)

    @cuda.jit
    def padded(x, out, n):
        items = cuda.local.array(4, ml_dtypes.bfloat16)
        coop.block.load(x, items, valid_items=n, oob_default=pad)
        coop.block.store(out, items)

    assert compile_kernel(padded, (bf16, bf16, types.int32), block=128).cubin


def test_float_not_equal_is_ordered_so_x_ne_x_folds_to_false() -> None:
    """known-issue-float-not-equal: the page's ``x[i] != x[i]`` compiles to no floating-point compare at all (the
    ordered ``one`` of a value with itself is false; when this test fails, ``!=`` is unordered as in Python: drop the
    section), and the workaround ``not (x[i] == x[i])`` compiles to one."""
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda import types

    from cuda.coop.numba_mlir import compile_kernel

    scope: dict[str, object] = {}
    exec(_reproducer("known-issue-float-not-equal").split("\nout = cuda.to_device")[0], scope)

    @cuda.jit
    def workaround(x, out):
        i = cuda.threadIdx.x
        out[i] = not (x[i] == x[i])  # noqa: SIM201 (`!=` is the issue)

    signature = (types.float32[::1], types.boolean[::1])
    assert "FSETP" not in compile_kernel(scope["k"], signature, block=32).sass()
    assert "FSETP" in compile_kernel(workaround, signature, block=32).sass()
