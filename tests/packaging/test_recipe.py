"""The conda recipe (recipe/), checked without conda.

No conda, conda-build or channel is reachable here, so this checks what can be checked:

1. ``recipe/meta.yaml`` renders with a Jinja context like conda-build's into YAML with the
   fields the package needs, consistent with pyproject.toml and the pip build.
2. ``recipe/build.sh``, run the way conda-build runs it against a prefix laid out like
   conda-forge's (``cccl`` headers in ``include/cccl``, its CMake package in ``lib/cmake``,
   its record in ``conda-meta``, made from real CCCL files), installs a package whose
   provenance, headers, licenses and CMake package are right.
3. The recipe's own test section passes against that install, in a prefix without ``cccl``.

What only the feedstock can check is listed in docs/installation.rst ("The conda recipe").
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cuda.coop import header_bundle
from tests.helpers.cmake import REPO

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")
jinja2 = pytest.importorskip("jinja2", reason="the recipe checks need the test extra (jinja2)")
yaml = pytest.importorskip("yaml", reason="the recipe checks need the test extra (pyyaml)")

RECIPE = REPO / "recipe"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
COMPONENTS = ("cccl", "cub", "thrust", "libcudacxx")
HEADER_DIRS = ("cub", "thrust", "cuda", "nv")


# --- 1. rendering -------------------------------------------------------------------------------


def _stub(name: str):
    def call(*args: object, **kwargs: object) -> str:
        return f"<{name} stub>"

    return call


def render_recipe(**variant: str) -> dict[str, Any]:
    """Render meta.yaml as conda-build would (its Jinja names stubbed) and parse the YAML."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(RECIPE), undefined=jinja2.StrictUndefined)
    names = ("load_setup_py_data", "load_setuptools", "load_npm", "load_file_regex", "load_file_data",
             "load_str_data", "installed", "pin_compatible", "pin_subpackage", "compiler", "cdt",
             "resolved_packages", "stdlib")
    context: dict[str, Any] = {name: _stub(name) for name in names}
    context.update(environ={}, os=os, time=time, datetime=datetime, **variant)
    text = env.get_template("meta.yaml").render(**context)
    assert "stub>" not in text, "a noarch: python recipe needs none of conda-build's helper functions"
    return yaml.safe_load(text)


@pytest.fixture(scope="module", params=[{}, {"python_min": "3.10"}], ids=["local", "conda-forge-pinning"])
def recipe(request: pytest.FixtureRequest) -> dict[str, Any]:
    return render_recipe(**request.param)


def _spec(requirements: list[str], name: str) -> str:
    """The version spec of ``name`` in a list of conda requirements ("" when unpinned)."""
    found = [r for r in requirements if r.split()[0] == name]
    assert len(found) == 1, f"{name} must appear once in {requirements}"
    return found[0][len(name):].strip()


def _cccl_version(recipe: dict[str, Any]) -> str:
    spec = _spec(recipe["requirements"]["host"], "cccl")
    assert re.fullmatch(r"==\d+\.\d+\.\d+", spec), f"cccl must be pinned to one version: {spec!r}"
    return spec[2:]


def _python_min() -> str:
    requires_python = PYPROJECT["project"]["requires-python"]
    assert requires_python.startswith(">=")
    return requires_python[2:]


def test_no_selectors() -> None:
    """A noarch recipe is rendered once for every platform: no `# [...]` line selectors."""
    assert not re.search(r"#\s*\[[^\]]*\]\s*$", (RECIPE / "meta.yaml").read_text(), re.MULTILINE)


def test_package_matches_pyproject(recipe: dict[str, Any]) -> None:
    from cuda.coop import __version__

    assert recipe["package"] == {"name": PYPROJECT["project"]["name"], "version": __version__}


def test_source_is_this_repository(recipe: dict[str, Any]) -> None:
    assert (RECIPE / recipe["source"]["path"]).resolve() == REPO


def test_build_is_noarch_python_with_build_sh(recipe: dict[str, Any]) -> None:
    build = recipe["build"]
    assert build["noarch"] == "python"
    assert isinstance(build["number"], int)
    assert "script" not in build, "the build script is recipe/build.sh"
    assert os.access(RECIPE / "build.sh", os.X_OK)
    assert "script_env" not in build, "build.sh takes the revision from the cccl package record"


def test_host_requirements(recipe: dict[str, Any]) -> None:
    host = recipe["requirements"]["host"]
    assert _spec(host, "python") == _python_min()
    assert _spec(host, "pip") == ""
    assert _spec(host, "ninja") == ""
    skbuild = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("scikit-build-core")]
    assert [f"scikit-build-core {_spec(host, 'scikit-build-core')}"] == [r.replace("core>", "core >") for r in skbuild]
    assert _spec(host, "cmake") == PYPROJECT["tool"]["scikit-build"]["cmake"]["version"]


def test_cccl_pin_is_the_pip_builds_cccl(recipe: dict[str, Any]) -> None:
    """The conda and pip packages bundle the same CCCL (the pip build's comes from cuda-cccl)."""
    assert _cccl_version(recipe) == header_bundle().provenance.cccl_version


def test_run_requirements(recipe: dict[str, Any]) -> None:
    """Each DSL backend is a run constraint in step with its extras (and with its integration's version gate)."""
    from cuda.coop._registration import _BACKENDS

    requirements = recipe["requirements"]
    assert requirements["run"] == [f"python >={_python_min()}"]
    constrained = []
    for backend in sorted(_BACKENDS.values(), key=lambda b: b.distribution, reverse=True):
        pip_specs = {
            re.sub(rf"^{re.escape(backend.distribution)}\[\w+\]", "", r)
            for extra in PYPROJECT["project"]["optional-dependencies"].values()
            for r in extra if re.match(rf"{re.escape(backend.distribution)}\[", r)
        }
        assert pip_specs == {backend.supported}, backend.name
        constrained.append(f"{backend.distribution} {backend.supported}")
    assert requirements["run_constrained"] == constrained


def test_about_names_both_licenses(recipe: dict[str, Any]) -> None:
    about = recipe["about"]
    assert about["license"].split(" AND ")[0] == PYPROJECT["project"]["license"]
    assert {"BSD-3-Clause", "BSL-1.0", "NCSA", "MIT"} <= set(about["license"].split(" AND "))
    assert about["license_file"] == ["LICENSE", "LICENSE-CCCL"]
    assert (REPO / "LICENSE").is_file()
    assert "LICENSE-CCCL" in (RECIPE / "build.sh").read_text(), "build.sh provides LICENSE-CCCL"
    assert about["summary"] == PYPROJECT["project"]["description"]
    assert recipe["extra"]["recipe-maintainers"]


def test_test_section(recipe: dict[str, Any]) -> None:
    test = recipe["test"]
    assert "cuda.coop" in test["imports"]
    assert {"python -m cuda.coop --cmake-dir", "pip check"} <= set(test["commands"])
    assert any(c.startswith("python -m cuda.coop --json") for c in test["commands"]), "the diagnostics command"
    (cmake,) = [c for c in test["commands"] if c.startswith("cmake ")]
    assert '-DCCCL_DIR="$(python -m cuda.coop --cmake-dir)"' in cmake
    for name in test["files"]:
        assert (RECIPE / name).is_file(), name
    assert {"cmake", "ninja", "pip"} <= {r.split()[0] for r in test["requires"]}
    assert _spec(test["requires"], "python") == _python_min()


# --- 2. the build script against a conda-forge-like prefix --------------------------------------

# What conda-forge's cccl installs as <component>-header-search.cmake: CCCL's template configured
# for CMAKE_INSTALL_INCLUDEDIR=include, which searches include/ and include/cccl/.
CONDA_HEADER_SEARCH = """\
unset({var} CACHE)
set(from_install_prefix "../../../")
find_path({var} {probe}
  REQUIRED
  NO_CMAKE_FIND_ROOT_PATH
  NO_DEFAULT_PATH
  PATHS
    "${{CMAKE_CURRENT_LIST_DIR}}/${{from_install_prefix}}/include"
    "${{CMAKE_CURRENT_LIST_DIR}}/${{from_install_prefix}}/include/cccl"
)
set_property(CACHE {var} PROPERTY TYPE INTERNAL)
"""
HEADER_SEARCH = {
    "cub": ("_CUB_VERSION_INCLUDE_DIR", "cub/version.cuh"),
    "thrust": ("_THRUST_VERSION_INCLUDE_DIR", "thrust/version.h"),
    "libcudacxx": ("_libcudacxx_VERSION_INCLUDE_DIR", "cuda/std/detail/__config"),
}


def lay_out_conda_cccl(prefix: Path, pkgs: Path, version: str) -> Path:
    """Install CCCL into ``prefix`` the way conda installs conda-forge's ``cccl``.

    The files are real CCCL (this environment's cuda-coop bundle). Returns the license file
    in the package cache (conda keeps ``info/`` there, not in the prefix).
    """
    bundle = header_bundle()
    for top in HEADER_DIRS:
        shutil.copytree(bundle.include_dir / top, prefix / "include" / "cccl" / top)
    for comp in COMPONENTS:
        shutil.copytree(bundle.root / "lib" / "cmake" / comp, prefix / "lib" / "cmake" / comp,
                        ignore=shutil.ignore_patterns("*header-search*"))
    for comp, (var, probe) in HEADER_SEARCH.items():
        (prefix / "lib" / "cmake" / comp / f"{comp}-header-search.cmake").write_text(
            CONDA_HEADER_SEARCH.format(var=var, probe=probe))
    dist = f"cccl-{version}-ha770c72_0"
    license_file = pkgs / dist / "info" / "licenses" / "LICENSE"
    license_file.parent.mkdir(parents=True)
    shutil.copy2(bundle.root / "licenses" / "LICENSE", license_file)
    record = {"name": "cccl", "version": version, "build": "ha770c72_0", "build_number": 0,
              "channel": "https://conda.anaconda.org/conda-forge", "extracted_package_dir": str(pkgs / dist),
              "files": [str(p.relative_to(prefix)) for p in sorted(prefix.rglob("*")) if p.is_file()]}
    (prefix / "conda-meta").mkdir(exist_ok=True)
    (prefix / "conda-meta" / f"{dist}.json").write_text(json.dumps(record, indent=1))
    return license_file


def remove_conda_cccl(prefix: Path) -> None:
    """What the test environment lacks: cccl is a host requirement only."""
    shutil.rmtree(prefix / "include" / "cccl", ignore_errors=True)
    for comp in COMPONENTS:
        shutil.rmtree(prefix / "lib" / "cmake" / comp, ignore_errors=True)
    for record in (prefix / "conda-meta").glob("cccl-*.json"):
        record.unlink()


def copy_source(dest: Path) -> Path:
    """The source as conda-build's `path: ..` sees it: the repository's files, without build outputs."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True, text=True).stdout
    for rel in filter(None, listed.split("\0")):
        if (REPO / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dest / rel)
    return dest


def _tool_path() -> str:
    """cmake and ninja (host requirements in conda) from this environment, then the system."""
    dirs = [str(Path(sys.executable).parent)]
    for tool in ("cmake", "ninja"):
        if (found := shutil.which(tool)) is None:
            pytest.skip(f"{tool} is not on PATH; install the test extra")
        dirs.append(str(Path(found).parent))
    return os.pathsep.join([*dict.fromkeys(dirs), "/usr/local/bin", "/usr/bin", "/bin"])


class CondaLikeBuild:
    """A conda-build-like run of recipe/build.sh: $PREFIX is a venv that also holds cccl."""

    bundle: Path
    """Where the build installed the header bundle (set once build.sh has run)."""
    log: str
    """build.sh's output."""

    def __init__(self, root: Path, recipe: dict[str, Any]) -> None:
        self.root = root
        self.recipe = recipe
        self.cccl_version = _cccl_version(recipe)
        self.prefix = root / "prefix"
        self.src = copy_source(root / "work")
        subprocess.run([sys.executable, "-m", "venv", str(self.prefix)], check=True)
        self.python = self.prefix / "bin" / "python"
        skbuild = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("scikit-build-core")]
        subprocess.run([str(self.python), "-m", "pip", "install", "-q", *skbuild], check=True)
        self.cccl_license = lay_out_conda_cccl(self.prefix, root / "pkgs", self.cccl_version)

    def env(self) -> dict[str, str]:
        # conda-build does not pass the caller's environment on; it sets these (and more).
        env = {"PREFIX": str(self.prefix), "BUILD_PREFIX": str(self.prefix), "SRC_DIR": str(self.src),
               "RECIPE_DIR": str(RECIPE), "PYTHON": str(self.python), "CONDA_BUILD": "1",
               "CONDA_BUILD_STATE": "BUILD", "CPU_COUNT": "2", "CMAKE_GENERATOR": "Unix Makefiles",
               "HOME": str(self.root), "LANG": "C.UTF-8",
               "PATH": os.pathsep.join([str(self.prefix / "bin"), _tool_path()])}
        return env

    def run_build_sh(self) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(RECIPE / "build.sh")], cwd=self.src, env=self.env(),
                              capture_output=True, text=True, check=False)

    def installed(self, code: str) -> Any:
        """Evaluate ``code`` (a JSON-able expression) with the prefix's Python, cuda.coop imported."""
        out = subprocess.run([str(self.python), "-c", f"import json, cuda.coop; print(json.dumps({code}))"],
                             cwd=self.root, check=True, capture_output=True, text=True).stdout
        return json.loads(out)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> CondaLikeBuild:
    build = CondaLikeBuild(tmp_path_factory.mktemp("conda"), render_recipe())
    proc = build.run_build_sh()
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    build.bundle = Path(build.installed("str(cuda.coop.header_bundle().root)"))
    build.log = proc.stdout + proc.stderr
    return build


def test_cmake_bundled_the_prefixs_cccl(built: CondaLikeBuild) -> None:
    """find_package(CCCL CONFIG) found conda's layout through CMAKE_PREFIX_PATH=$PREFIX."""
    log = " ".join(built.log.split())
    assert f"bundling CCCL {built.cccl_version} (package) from {built.prefix}/include/cccl" in log


def test_bundle_lives_in_the_installed_package(built: CondaLikeBuild) -> None:
    bundle = built.bundle
    assert bundle.is_relative_to(built.prefix / "lib")
    assert bundle.parts[-3:] == ("cuda", "coop", "_headers")
    assert not (bundle.parents[1] / "__init__.py").exists(), "cuda/ is a PEP 420 namespace"


def test_provenance_records_package_and_revision(built: CondaLikeBuild) -> None:
    provenance = json.loads((built.bundle / "provenance.json").read_text())
    assert provenance == {
        "schema": 1,
        "cccl_version": built.cccl_version,
        "source_kind": "package",
        "source_revision": f"v{built.cccl_version}",
        "revision_note": "CUDA_COOP_CCCL_SOURCE_REVISION",
    }


def test_headers_are_the_cccl_packages(built: CondaLikeBuild) -> None:
    include = built.bundle / "include"
    conda_include = header_bundle().include_dir  # what lay_out_conda_cccl put in include/cccl
    for top in HEADER_DIRS:
        ours = sorted(p.relative_to(include) for p in (include / top).rglob("*") if p.is_file())
        theirs = sorted(p.relative_to(conda_include) for p in (conda_include / top).rglob("*") if p.is_file())
        assert ours == theirs, top
    header = "cub/block/block_reduce.cuh"
    assert (include / header).read_bytes() == (conda_include / header).read_bytes()


def test_cmake_package_is_generated_for_the_bundle(built: CondaLikeBuild) -> None:
    cmake = built.bundle / "lib" / "cmake"
    for comp in COMPONENTS:
        assert (cmake / comp / f"{comp}-config.cmake").is_file(), comp
    for comp in HEADER_SEARCH:
        search = (cmake / comp / f"{comp}-header-search.cmake").read_text()
        assert "Generated by cuda-coop" in search and "include/cccl" not in search, comp


def test_licenses_come_from_the_cccl_package(built: CondaLikeBuild) -> None:
    text = built.cccl_license.read_bytes()
    assert (built.bundle / "licenses" / "LICENSE").read_bytes() == text
    assert (built.src / "LICENSE-CCCL").read_bytes() == text  # about/license_file


def test_diagnostics_report_the_bundle(built: CondaLikeBuild) -> None:
    proc = subprocess.run([str(built.python), "-m", "cuda.coop", "--json"], cwd=built.root,
                          capture_output=True, text=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr  # 1: no CUDA toolkit here, which is not the package's
    report = json.loads(proc.stdout)
    assert report["header_bundle"]["provenance"]["source_revision"] == f"v{built.cccl_version}"


# --- 3. the recipe's test section against that install -------------------------------------------


def test_recipe_tests_pass(built: CondaLikeBuild, tmp_path: Path) -> None:
    """Run test/imports and test/commands as conda-build would, in a prefix without cccl."""
    remove_conda_cccl(built.prefix)
    test = built.recipe["test"]
    for name in test["files"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(RECIPE / name, tmp_path / name)
    env = {**built.env(), "CONDA_BUILD_STATE": "TEST"}
    for module in test["imports"]:
        subprocess.run([str(built.python), "-c", f"import {module}"], cwd=tmp_path, env=env, check=True)
    for command in test["commands"]:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f"{command}\n{proc.stdout}{proc.stderr}"
    assert (tmp_path / "test_cmake" / "build" / "CMakeCache.txt").is_file()


def test_recipe_cmake_test_catches_a_wrong_revision(built: CondaLikeBuild, tmp_path: Path) -> None:
    """Control: the CMake test project fails when the bundle is not what the recipe built."""
    (cmake,) = [c for c in built.recipe["test"]["commands"] if c.startswith("cmake ")]
    shutil.copytree(RECIPE / "test_cmake", tmp_path / "test_cmake")
    wrong = cmake.replace(f"-DEXPECTED_REVISION=v{built.cccl_version}", "-DEXPECTED_REVISION=unknown")
    assert wrong != cmake
    proc = subprocess.run(["bash", "-c", wrong], cwd=tmp_path, env=built.env(), capture_output=True, text=True,
                          check=False)
    assert proc.returncode != 0
    assert "source_revision is" in " ".join((proc.stdout + proc.stderr).split())


def test_build_sh_without_cccl_record_fails_clearly(tmp_path: Path) -> None:
    """Outside conda (no cccl package record) build.sh stops before building, naming what is missing."""
    env = {"PREFIX": str(tmp_path), "SRC_DIR": str(tmp_path), "PYTHON": sys.executable, "PATH": os.environ["PATH"]}
    (tmp_path / "conda-meta").mkdir()
    proc = subprocess.run(["bash", str(RECIPE / "build.sh")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)
    assert proc.returncode != 0
    assert "expected one cccl package record" in proc.stderr
