"""NVRTC API failures (not compile errors) reach users as CompileError, never a bare RuntimeError (host only)."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from cuda.coop._provider import MemoryCache, NvrtcCompiler, Provider, _nvrtc
from cuda.coop._specs import Request
from cuda.coop.errors import CompileError
from tests.helpers.fakes import TOOLCHAIN

SUCCESS, OUT_OF_MEMORY, INTERNAL = "NVRTC_SUCCESS", "NVRTC_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_INTERNAL_ERROR"


def _fake_nvrtc(fail: str) -> types.SimpleNamespace:
    """An NVRTC whose ``fail`` call returns an error code (as cuda.bindings does: a tuple, no exception)."""

    def call(name: str, *values: object) -> object:
        return lambda *args: (OUT_OF_MEMORY if name == fail else SUCCESS, *values)

    return types.SimpleNamespace(
        nvrtcResult=types.SimpleNamespace(NVRTC_SUCCESS=SUCCESS),
        nvrtcGetErrorString=lambda err: (SUCCESS, err.encode()),
        nvrtcCreateProgram=call("nvrtcCreateProgram", "prog"),
        nvrtcCompileProgram=lambda *a: (INTERNAL if fail == "nvrtcCompileProgram" else SUCCESS,),
        nvrtcGetProgramLogSize=call("nvrtcGetProgramLogSize", 1),
        nvrtcGetProgramLog=call("nvrtcGetProgramLog"),
        nvrtcGetLTOIRSize=call("nvrtcGetLTOIRSize", 4),
        nvrtcGetLTOIR=call("nvrtcGetLTOIR"),
        nvrtcDestroyProgram=lambda prog: (SUCCESS,),
    )


@pytest.mark.parametrize(
    "fail", ["nvrtcCreateProgram", "nvrtcGetProgramLogSize", "nvrtcGetLTOIR", "nvrtcCompileProgram"]
)
def test_api_failures_become_compile_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fail: str) -> None:
    monkeypatch.setattr(_nvrtc, "_nvrtc", lambda: _fake_nvrtc(fail))
    monkeypatch.delenv("CUDA_COOP_SOURCE_DUMP_DIR", raising=False)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    p = Provider(
        [Request("block_reduce", "sum", "array", dtype="float32", items_per_thread=4)],
        block_dim=(64,), arch=90, toolchain=TOOLCHAIN, compiler=NvrtcCompiler(pch=False), cache=MemoryCache(),
    )
    with pytest.raises(CompileError) as info:
        p.ltoir()
    err = info.value
    expected = f"{fail} failed: {OUT_OF_MEMORY}" if fail != "nvrtcCompileProgram" else INTERNAL
    assert expected in err.log and err.options == p.options
    assert err.source_path is not None and err.source_path.read_text() == p.source
