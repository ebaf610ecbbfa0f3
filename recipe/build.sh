#!/usr/bin/env bash
# conda-build's build script (meta.yaml). Builds cuda-coop with pip and scikit-build-core,
# bundling conda-forge's cccl from the host prefix:
#   - find_package(CCCL CONFIG) finds it through CMAKE_PREFIX_PATH=$PREFIX
#     (headers in $PREFIX/include/cccl, CMake package in $PREFIX/lib/cmake/cccl);
#   - the recorded source revision is the Git tag of that cccl version (v<version>);
#   - its license text is not in the prefix (conda keeps a package's licenses in its
#     info/licenses/), so it is taken from the cccl package that conda installed there.
set -euxo pipefail

# The cccl record in the host prefix gives the version and names the extracted package, whose
# info/licenses/ holds CCCL's LICENSE (conda-forge's cccl declares license_file: LICENSE).
read -r cccl_version cccl_license < <("${PYTHON}" - "${PREFIX}" <<'PY'
import json, pathlib, sys
prefix = pathlib.Path(sys.argv[1])
records = sorted((prefix / "conda-meta").glob("cccl-[0-9]*.json"))
if len(records) != 1:
    sys.exit(f"expected one cccl package record in {prefix / 'conda-meta'}, found {len(records)}")
record = json.loads(records[0].read_text())
license = pathlib.Path(record.get("extracted_package_dir") or "/nonexistent") / "info" / "licenses" / "LICENSE"
if not license.is_file():
    sys.exit(f"{records[0].name}: CCCL's license text {license} is not there")
print(record["version"], license)
PY
)
cp "${cccl_license}" "${SRC_DIR}/LICENSE-CCCL"   # about/license_file

# conda-build sets CMAKE_GENERATOR for compiled packages; this noarch one builds with Ninja.
export CMAKE_GENERATOR=Ninja
"${PYTHON}" -m pip install "${SRC_DIR}" -vv --no-deps --no-build-isolation \
  --config-settings=cmake.define.CMAKE_PREFIX_PATH="${PREFIX}" \
  --config-settings=cmake.define.CUDA_COOP_CCCL_SOURCE_REVISION="v${cccl_version}" \
  --config-settings=cmake.define.CUDA_COOP_CCCL_LICENSE_FILES="${cccl_license}"
