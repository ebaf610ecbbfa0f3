#!/usr/bin/env bash
# Sets up .venv with cuda-coop (built from this checkout) and its test dependencies, then runs
# ruff, mypy --strict, a check of the calls in the GPU tier, examples and benchmarks (scripts/check_calls.py),
# and every test tier that needs no GPU (in parallel, pytest-xdist), then the
# codegen-sensitive compile tests against the oldest CUDA 13 release we accept (scripts/test_cuda13.0.sh).
# Prints how long each stage took. Extra arguments go to pytest (and skip the last step).
#   bash scripts/test.sh            # what CI runs
#   bash scripts/test.sh -m gpu     # on a machine with a GPU (see ../shared/device/README.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

timings=()
report() {
  local status=$?
  printf '\n%-28s %8s\n' "stage" "seconds"
  printf '%-28s %8s\n' "${timings[@]}"
  exit "$status"
}
trap report EXIT
stage() {  # stage NAME COMMAND...: run it, record its time (also when it fails)
  local name=$1 start=$SECONDS
  shift
  echo "== $name" >&2
  "$@" || { local rc=$?; timings+=("$name (failed)" $((SECONDS - start))); return "$rc"; }
  timings+=("$name" $((SECONDS - start)))
}

stage "setup (.venv, wheel)" source scripts/_venv.sh
stage "lint (ruff)" python -m ruff check .
stage "types (mypy --strict)" python -m mypy
stage "calls CI cannot run (gpu tier)" python scripts/check_calls.py
if (($#)); then
  stage "pytest $*" python -m pytest "$@"
else
  # Every tier but gpu, over all cores; the workers share one build of the docs (tests/packaging/conftest.py).
  stage "unit, packaging, compile" python -m pytest -m "not gpu" -n auto --durations=15
  stage "compile, CUDA 13.0" bash scripts/test_cuda13.0.sh
fi
