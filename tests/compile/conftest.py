"""Fixtures of the compile tier: the resolved toolchain and an NVRTC compiler without precompiled headers, one each
for the session (``tests/helpers/nvrtc.py`` compiles with them)."""

from __future__ import annotations

import pytest

from cuda.coop._provider import NvrtcCompiler, Toolchain, resolve_toolchain


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    """The CCCL headers and CUDA toolkit the provider would use (``resolve_toolchain()``)."""
    return resolve_toolchain()


@pytest.fixture(scope="session")
def compiler() -> NvrtcCompiler:
    """NVRTC without precompiled headers: every compile is a plain one, as a test of a request expects."""
    return NvrtcCompiler(pch=False)
