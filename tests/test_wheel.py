"""Installed without a checkout: the wheel of this source tree, installed into a fresh virtual
environment in a temporary folder, lists the shipped configs, writes a starter with `balancer init`
and plays it, from a folder that holds no configs/ (issue 19).

Offline and quick: the wheel is built with this environment's setuptools (--no-build-isolation) and
installed with --no-deps; the new environment sees this one's site-packages (numpy, numba, polars...)
through a .pth file, after its own, so `balancer` itself comes from the wheel (the test checks).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# three subprocesses of up to 900 s each: a longer limit than the suite's 600 s (pyproject.toml, pytest-timeout)
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_wheel_works_without_a_checkout(tmp_path):
    wheels = tmp_path / "wheels"
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", wheels, ROOT,
         cwd=tmp_path)  # fmt: skip
    (wheel,) = wheels.glob("balancer-*.whl")
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index", wheel,
         cwd=tmp_path)  # fmt: skip
    new_site = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).strip()
    )
    (new_site / "zz-host-site-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = tmp_path / "work"  # no configs/ here, no checkout on the path
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = _run(python, "-c", "import balancer, balancer.data; print(balancer.__file__); "
                 "print(balancer.data.CONFIGS_DIR)", cwd=work, env=env).split()  # fmt: skip
    assert all(Path(p).is_relative_to(new_site) for p in where), where

    balancer = venv / "bin" / "balancer"
    games = _run(balancer, "games", cwd=work, env=env)
    assert "citywright/v1.1.yaml  v1.1  players 1-4" in games and "(no configs" not in games
    assert "urgency/standard.yaml" in games and "agueda/v1.yaml" in games and "urban_sketchers/base.yaml" in games

    # Urgency: the game whose engine compiles fastest in the wheel's fresh install (no numba cache there)
    _run(balancer, "init", "urgency", "mine", cwd=work, env=env)
    assert "extends: urgency/standard" in (work / "mine" / "variant.yaml").read_text()
    _run(balancer, "validate", "mine/study.yaml", cwd=work, env=env)
    out = _run(balancer, "run", "mine/variant.yaml", "--players", "2", "--agents", "random", "--games", "4",
               "--jobs", "1", "--out", "res", "--quiet", cwd=work, env=env)  # fmt: skip
    assert "results: res/results.parquet" in out
    assert (work / "res" / "summary.json").is_file() and (work / "res" / "run.json").is_file()
