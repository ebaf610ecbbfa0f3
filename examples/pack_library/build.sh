#!/usr/bin/env bash
# Build the wheel of coop-pack-example with its kernels precompiled (see docs/packs.rst).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
rm -rf src/coop_pack_example/coop_pack
PYTHONPATH=src python -m cuda.coop precompile coop_pack_example.kernels --arch "${ARCHES:-sm_80,sm_90}" \
  --out src/coop_pack_example/coop_pack
python -m pip wheel --no-deps --no-build-isolation -w dist .
