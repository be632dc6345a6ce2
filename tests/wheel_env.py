"""The wheel of this source tree installed into a fresh virtual environment, once per session: the
``installed`` fixture that tests/test_wheel.py and tests/test_docs_from_wheel.py share (conftest.py
imports it, so the wheel is built once however many of those tests run; see tests/test_wheel.py for
why it is built offline and how its numba cache is primed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@dataclass(frozen=True)
class Installed:
    venv: Path
    site: Path  # the new environment's site-packages, where the wheel's balancer is
    env: dict[str, str]  # the environment of every command: no PYTHONPATH, no VIRTUAL_ENV

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def balancer(self) -> Path:
        return self.venv / "bin" / "balancer"


def _prime_numba_cache(site: Path) -> int:
    """Copy the checkout's numba cache files (``__pycache__/*.nbi``, ``*.nbc`` and the sources' digest) into
    the installed package, for the sources that are the same bytes, and give those sources the checkout's
    modification times (numba's index is keyed by them). Returns the cache files copied."""
    copied = 0
    for cache in (ROOT / "balancer").rglob("__pycache__"):
        package = cache.parent.relative_to(ROOT)
        target = site / package / "__pycache__"
        for source in cache.parent.glob("*.py"):
            installed = site / package / source.name
            if installed.is_file() and installed.read_bytes() == source.read_bytes():
                st = source.stat()
                os.utime(installed, ns=(st.st_atime_ns, st.st_mtime_ns))
        for path in cache.iterdir():
            if path.suffix in (".nbi", ".nbc") or path.name == "numba-sources.sha256":
                target.mkdir(parents=True, exist_ok=True)
                try:
                    shutil.copy2(path, target / path.name)
                    copied += 1
                except OSError:  # rewritten by another process meanwhile: that function compiles afresh
                    pass
    return copied


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    """The wheel of this source tree, built once and installed into a fresh environment (see the module)."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheels = tmp / "wheels"
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", wheels, ROOT,
         cwd=tmp)  # fmt: skip
    (wheel,) = wheels.glob("balancer-*.whl")
    venv = tmp / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp)
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index", wheel,
         cwd=tmp)  # fmt: skip
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp).strip())
    (site / "zz-host-site-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _prime_numba_cache(site)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return Installed(venv, site, env)
