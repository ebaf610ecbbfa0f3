#!/usr/bin/env bash
# The compile tests whose result depends on NVRTC's code generation, again against the oldest CUDA 13
# release the numba-cuda-mlir-cu13 extra allows (13.0: NVRTC, nvJitLink, libNVVM and the CUDA headers;
# scripts/cuda13.0-constraints.txt). NVRTC 13.0 declares 64-bit shared-memory pointers where 13.1 and
# later declare 32-bit ones (see cuda_coop/numba_mlir/_seams/_link.py), so a run on the newest release alone
# does not show that a kernel gets nvcc's shared-memory addressing on every release we accept. NVRTC 13.0 (12.8 to
# 13.1) also refuses a generic lambda in device code without -default-device (cuda_coop/_provider/_key.py), which
# CCCL's WarpReduceBatched and WarpBitonicSort have: test_generic_lambdas.py compiles a kernel of each (~10 s).
# Installs the wheel scripts/_venv.sh built into .venv-cuda13.0; scripts/test.sh runs this after the tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
wheel=$(ls .venv/wheelhouse/cuda_coop-*.whl)
python3 -m venv .venv-cuda13.0
.venv-cuda13.0/bin/python -m pip install -q --upgrade pip
.venv-cuda13.0/bin/python -m pip install -q --force-reinstall --no-deps "$wheel"
.venv-cuda13.0/bin/python -m pip install -q -c scripts/cuda13.0-constraints.txt "${wheel}[test,numba-cuda-mlir-cu13]"
.venv-cuda13.0/bin/python -m pip list 2>/dev/null | grep -E '^nvidia-(cuda-nvrtc|nvjitlink|nvvm|cuda-runtime) '
.venv-cuda13.0/bin/python -m pytest -p no:cacheprovider tests/compile/test_link_layout.py tests/compile/test_sass_parity.py \
  tests/compile/test_generic_lambdas.py \
  tests/compile/test_known_issues.py::test_the_generic_lambda_reproducer_fails_exactly_where_cuda_coop_adds_default_device
