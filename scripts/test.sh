#!/usr/bin/env bash
# Sets up .venv with cuda-coop (built from this checkout) and its test dependencies, then runs
# ruff, mypy --strict and every test tier that needs no GPU, then the codegen-sensitive compile tests
# against the oldest CUDA 13 release we accept (scripts/test_cuda13.0.sh). Extra arguments go to pytest
# (and skip the second step).
#   bash scripts/test.sh            # what CI runs
#   bash scripts/test.sh -m gpu     # on a machine with a GPU (see ../shared/device/README.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/_venv.sh
python -m ruff check .
python -m mypy
if (($#)); then
  python -m pytest "$@"
else
  python -m pytest -m "not gpu"
  bash scripts/test_cuda13.0.sh
fi
