"""Build CCCL source checkouts (as Git repositories) from real CCCL headers, for CMake tests.

The headers come from the installed cuda-coop header bundle; they are laid out as CCCL's
own repository lays them out (cub/cub, thrust/thrust, libcudacxx/include/{cuda,nv},
lib/cmake/<component>, LICENSE) and committed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from cuda.coop import header_bundle

GIT_ENV = {
    "GIT_AUTHOR_NAME": "cuda-coop tests",
    "GIT_AUTHOR_EMAIL": "tests@cuda-coop.invalid",
    "GIT_COMMITTER_NAME": "cuda-coop tests",
    "GIT_COMMITTER_EMAIL": "tests@cuda-coop.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    import os

    env = {**os.environ, **GIT_ENV, "HOME": str(repo)}
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def lay_out_checkout(dest: Path) -> Path:
    """Copy the bundle's CCCL into ``dest`` with CCCL's repository layout (no Git)."""
    bundle = header_bundle()
    inc = bundle.include_dir
    shutil.copytree(inc / "cub", dest / "cub" / "cub")
    shutil.copytree(inc / "thrust", dest / "thrust" / "thrust")
    shutil.copytree(inc / "cuda", dest / "libcudacxx" / "include" / "cuda")
    shutil.copytree(inc / "nv", dest / "libcudacxx" / "include" / "nv")
    shutil.copytree(bundle.root / "lib" / "cmake", dest / "lib" / "cmake")
    shutil.copy2(bundle.root / "licenses" / "LICENSE", dest / "LICENSE")
    (dest / "README.md").write_text("A CCCL checkout made by cuda-coop's tests.\n")
    return dest


def make_git_checkout(dest: Path) -> str:
    """Lay out a checkout in ``dest``, commit it, and return the HEAD commit."""
    lay_out_checkout(dest)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "CCCL fixture")
    return git(dest, "rev-parse", "HEAD")


def clone(base: Path, dest: Path) -> str:
    """A fresh local clone of ``base``; returns its HEAD commit."""
    subprocess.run(["git", "clone", "-q", str(base), str(dest)], check=True, capture_output=True)
    return git(dest, "rev-parse", "HEAD")
