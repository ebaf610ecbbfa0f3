#!/usr/bin/env bash
# Sets up .venv with cuda-coop (built from this checkout) and runs the main job.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/_venv.sh
python examples/quickstart.py
