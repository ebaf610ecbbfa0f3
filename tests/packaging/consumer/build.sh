#!/usr/bin/env bash
# Configure and build the consumer project against cuda-coop's CCCL (docs/cpp.rst shows this).
# Run from this folder with the Python environment that has cuda-coop active; CCCL_DIR may be
# set to use a copy of the bundle elsewhere.
set -euo pipefail
cmake -S . -B "${BUILD_DIR:-build}" \
  -DCCCL_DIR="${CCCL_DIR:-$(python -m cuda.coop --cmake-dir)}" \
  -DCMAKE_CUDA_ARCHITECTURES=90
cmake --build "${BUILD_DIR:-build}"
