# Sourced by the scripts in this folder: creates .venv once, installs cuda-coop built from this
# checkout (always the current tree) with the extras the tests and examples use, and activates it.
python3 -m venv .venv
source .venv/bin/activate
python -m pip install -q --upgrade pip
rm -rf .venv/wheelhouse
python -m pip wheel -q --no-deps -w .venv/wheelhouse .
wheel=$(ls .venv/wheelhouse/cuda_coop-*.whl)
python -m pip install -q --force-reinstall --no-deps "$wheel"
python -m pip install -q "${wheel}[test,docs,numba-cuda-mlir-cu13,numba-cuda-cu13]"
