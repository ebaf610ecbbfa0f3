"""Installation versus registration: automatic activation, explicit register(), and the status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from cuda.coop import _registration
from cuda.coop.errors import BackendError


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full_env, check=False)


@pytest.fixture
def fresh_status():
    saved = dict(_registration._STATUS)
    _registration._reset_for_tests()
    yield
    _registration._STATUS.clear()
    _registration._STATUS.update(saved)


@pytest.fixture
def fake_backend(monkeypatch, fresh_status):
    """A backend entry whose module does not exist, so nothing real is activated."""
    backend = _registration._Backend(
        name="fake", distribution="cuda-coop-fake-backend", import_name="cuda_coop_fake_backend",
        module="cuda.coop._no_such_module", minimum=(1, 0), below=(2, 0), install_hint="pip install fake",
    )
    monkeypatch.setattr(_registration, "_BACKENDS", {"fake": backend})
    return backend


def test_missing_backend_is_recorded_silently(fake_backend, recwarn) -> None:
    _registration.auto_register()
    status = _registration.backend_status()["fake"]
    assert not status.active and status.version is None
    assert "cuda-coop-fake-backend is not installed" in status.reason
    assert not recwarn.list


def test_explicit_registration_of_a_missing_backend_raises(fake_backend) -> None:
    with pytest.raises(BackendError, match="cuda-coop-fake-backend is not installed; pip install fake"):
        _registration.register("fake")


def test_incompatible_version_warns_on_auto_and_raises_when_explicit(fake_backend, monkeypatch) -> None:
    monkeypatch.setattr(_registration.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(_registration.importlib.metadata, "version", lambda dist: "2.1.0")
    with pytest.warns(_registration.BackendWarning, match=r"needs cuda-coop-fake-backend>=1\.0,<2\.0, found 2\.1\.0"):
        _registration.auto_register()
    status = _registration.backend_status()["fake"]
    assert not status.active and status.version == "2.1.0"
    with pytest.raises(BackendError, match=r"found 2\.1\.0"):
        _registration.register("fake")


def test_unknown_backend_name(fresh_status) -> None:
    with pytest.raises(BackendError, match="unknown cuda-coop backend 'numba'; known: numba_cuda, numba_mlir"):
        _registration.register("numba")


def test_disabled_auto_registration_is_reported(fresh_status, monkeypatch) -> None:
    monkeypatch.setenv("CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION", " Yes ")
    _registration.auto_register()
    for name in ("numba_mlir", "numba_cuda"):  # one switch for every backend
        status = _registration.backend_status()[name]
        assert not status.active and "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION" in status.reason
        assert f"cuda.coop.register({name!r})" in status.reason


def test_a_numba_cuda_without_the_launch_configuration_api_is_refused_clearly(fresh_status, monkeypatch) -> None:
    """numba-cuda 0.29 and older have no numba.cuda.launchconfig: the block shape cannot come from the launch."""
    monkeypatch.setattr(_registration.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(_registration.importlib.metadata, "version", lambda dist: "0.29.0")
    with pytest.raises(BackendError, match=r"cuda.coop.numba_cuda needs numba-cuda>=0\.30\.0,<0\.31, found 0\.29\.0; "
                                           r"pip install \"cuda-coop\[numba-cuda-cu13\]\""):
        _registration.register("numba_cuda")


needs_backend = pytest.mark.skipif(
    _registration._check(_registration._BACKENDS["numba_mlir"])[1] is not None,
    reason="needs the numba-cuda-mlir extra (a supported numba-cuda-mlir)",
)

STATUS = """
import json, sys
import cuda.coop as coop
{action}
st = coop.backend_status()["numba_mlir"]
print(json.dumps({{"active": st.active, "reason": st.reason, "imported": "numba_cuda_mlir" in sys.modules}}))
"""


@needs_backend
def test_import_activates_when_installed() -> None:
    proc = _python(STATUS.format(action=""))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"active": True, "reason": "active", "imported": True}


@needs_backend
@pytest.mark.parametrize("action", ["coop.register('numba_mlir')", "import cuda.coop.numba_mlir"])
def test_disabled_then_explicit_activation(action: str) -> None:
    disabled = _python(STATUS.format(action=""), CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="1")
    assert json.loads(disabled.stdout)["imported"] is False  # import cuda.coop stayed cheap
    assert json.loads(disabled.stdout)["active"] is False
    proc = _python(STATUS.format(action=action), CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["active"] is True


@needs_backend
def test_diagnostics_show_the_integration() -> None:
    proc = _python("from cuda.coop._cli import main; raise SystemExit(main(['--json']))")
    backends = json.loads(proc.stdout)["backends"]
    assert backends["numba_mlir"]["active"] is True
    numba_cuda = _registration._check(_registration._BACKENDS["numba_cuda"])
    assert backends["numba_cuda"]["active"] is (numba_cuda[1] is None)  # both listed; active where installed
    assert backends["numba_cuda"]["version"] == numba_cuda[0]


needs_numba_cuda = pytest.mark.skipif(
    _registration._check(_registration._BACKENDS["numba_cuda"])[1] is not None,
    reason="needs the numba-cuda extra (a supported numba-cuda)",
)


@needs_backend
@needs_numba_cuda
@pytest.mark.parametrize("action", ["coop.register('numba_cuda')", "import cuda.coop.numba_cuda"])
def test_numba_cuda_activates_beside_numba_mlir(action: str) -> None:
    code = f"""
        import json, sys
        import cuda.coop as coop
        {action}
        st = coop.backend_status()
        print(json.dumps([st["numba_cuda"].active, st["numba_mlir"].active, "numba_cuda_mlir" in sys.modules]))
    """
    disabled = _python(code.replace(action, "pass"), CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="1")
    assert json.loads(disabled.stdout) == [False, False, False], disabled.stderr
    proc = _python(code, CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="1")
    assert json.loads(proc.stdout) == [True, False, False], proc.stderr  # only what was asked for
    both = _python(code)
    assert json.loads(both.stdout) == [True, True, True], both.stderr


@needs_backend
def test_cache_true_warns_once(tmp_path) -> None:
    script = tmp_path / "cached_kernels.py"  # cache=True needs a file to locate its cache
    script.write_text(textwrap.dedent("""
        import warnings
        warnings.simplefilter("always")
        import cuda.coop
        from numba_cuda_mlir import cuda
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                @cuda.jit(cache=True)
                def kernel(x):
                    x[0] = 1
        print(sum("disk cache" in str(w.message) and type(w.message).__name__ == "CacheDisabledWarning"
                  for w in caught))
    """))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDA_COOP_")}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "1"


# --- the version rule: pip's semantics for >=0.5.0,<0.6 ---------------------------------------------

VERSIONS = {
    "0.5": True, "0.5.0": True, "0.5.4": True, "0.5.4+cu13": True, "0.5.0.post1": True, "v0.5.2": True,
    "0.5.99": True, "0.5.0.0": True, "0.5.0rc1": False, "0.5.0.dev1": False, "0.5.0a1.dev2": False,
    "0.5.1rc2": True, "0.5.1.dev3": True, "0.5.0.post1.dev0": True, "0.4.9": False, "0.4.99.post3": False,
    "0.6": False, "0.6.0rc1": False, "0.6.0": False, "0.6.0.dev0": False, "0.6.0.post1": False,
    "1!0.5.0": False, "not-a-version": False, "0.5.x": False, "": False,
}


@pytest.mark.parametrize(("version", "expected"), sorted(VERSIONS.items()))
def test_version_rule_is_pips(version: str, expected: bool) -> None:
    backend = _registration._BACKENDS["numba_mlir"]
    assert backend.supported == ">=0.5.0,<0.6"
    assert backend.supports(version) is expected
    try:  # the installer's own implementation, where it is installed, must agree
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion, Version
    except ImportError:
        return
    try:
        parsed = Version(version)
    except InvalidVersion:
        assert not expected
        return
    # pip checks an installed distribution with prereleases=True (req_install.check_if_exists, pip check)
    assert SpecifierSet(backend.supported).contains(parsed, prereleases=True) is expected


@pytest.mark.parametrize("seams", ["numba_mlir/_seams/__init__.py", "numba_cuda/_seams/__init__.py"])
def test_the_seams_use_the_rule(seams: str) -> None:
    """Each integration's own import-time gate calls the same function (no second copy of the rule)."""
    from pathlib import Path

    path = Path(_registration.__file__).resolve().parent / seams
    assert "_backend.supports(VERSION)" in path.read_text()


def test_backend_installed_after_import_is_not_registered_until_register(tmp_path) -> None:
    """Installing a backend into a running process (here: making it importable) activates nothing."""
    site = tmp_path / "late-site"
    (site / "late_backend").mkdir(parents=True)
    (site / "late_backend" / "__init__.py").write_text("")
    dist = site / "late_backend-1.5.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: late-backend\nVersion: 1.5\n")
    (site / "cuda_coop_late_module.py").write_text(
        "from cuda.coop import _registration\n_registration.mark_active('late')\n")
    done = _python(f"""
        import json, sys
        import cuda.coop as coop
        from cuda.coop import _registration
        _registration._BACKENDS['late'] = _registration._Backend(
            name='late', distribution='late-backend', import_name='late_backend',
            module='cuda_coop_late_module', minimum=(1, 0), below=(2, 0), install_hint='pip install late')
        _registration.auto_register()  # what import did: the backend is not installed yet
        before = coop.backend_status()['late']
        sys.path.insert(0, {str(site)!r})  # "pip install" while the process runs
        import importlib; importlib.invalidate_caches()
        after_install = coop.backend_status()['late']
        status = coop.register('late')
        print(json.dumps([before.active, before.reason, after_install.active, status.active,
                          'cuda_coop_late_module' in sys.modules]))
    """)
    assert done.returncode == 0, done.stderr
    before, reason, after_install, registered, imported = json.loads(done.stdout)
    assert (before, after_install, registered, imported) == (False, False, True, True)
    assert "late-backend is not installed" in reason
