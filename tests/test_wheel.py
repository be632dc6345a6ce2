"""Installed without a checkout: the wheel of this source tree, installed into a fresh virtual
environment in a temporary folder, lists the shipped configs, writes a starter with `balancer init`
and plays it, from a folder that holds no configs/ (issue 19).

Offline and quick: the wheel is built with this environment's setuptools (--no-build-isolation) and
installed with --no-deps; the new environment sees this one's site-packages (numpy, numba, polars...)
through a .pth file, after its own, so `balancer` itself comes from the wheel (the test checks).

The wheel is built and installed once per session (the ``installed`` fixture, tests/wheel_env.py) and shared by
the tests below (issue 48) and tests/test_docs_from_wheel.py. Its numba cache is primed from the checkout's (the same sources, byte for byte, with
their modification times, which numba's index checks): compiling Urgency's engine afresh in the new
folder took most of this test's 151 s, and proved nothing the checkout's own tests do not (the same
code, compiled the same way). What only an installed wheel can show is still shown: every module and data
file that `games`, `init`, `validate` and `run` need is in the wheel, found from there and not from a
checkout, and the engine's compiled code is loaded from the installed package's own folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from wheel_env import _run  # the installed fixture comes from conftest.py (tests/wheel_env.py)

# subprocesses of up to 900 s each: a longer limit than the suite's 600 s (pyproject.toml, pytest-timeout)
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.fixture
def work(tmp_path) -> Path:
    """A folder with no configs/ and no checkout on the path."""
    return tmp_path


def test_balancer_and_its_configs_come_from_the_wheel(installed, work):
    where = _run(installed.python, "-c", "import balancer, balancer.data; print(balancer.__file__); "
                 "print(balancer.data.CONFIGS_DIR)", cwd=work, env=installed.env).split()  # fmt: skip
    assert all(Path(p).is_relative_to(installed.site) for p in where), where


def test_the_installed_games_lists_the_shipped_configs(installed, work):
    games = _run(installed.balancer, "games", cwd=work, env=installed.env)
    assert "citywright/v1.1.yaml  v1.1  players 1-4" in games and "(no configs" not in games
    assert "urgency/standard.yaml" in games and "agueda/v1.yaml" in games and "urban_sketchers/base.yaml" in games


def test_the_installed_balancer_writes_a_starter_and_plays_it(installed, work):
    # Urgency: the game whose engine compiles fastest, should its cache not be primed
    env = installed.env
    _run(installed.balancer, "init", "urgency", "mine", cwd=work, env=env)
    assert "extends: urgency/standard" in (work / "mine" / "variant.yaml").read_text()
    _run(installed.balancer, "validate", "mine/study.yaml", cwd=work, env=env)
    out = _run(installed.balancer, "run", "mine/variant.yaml", "--players", "2", "--agents", "random", "--games",
               "4", "--jobs", "1", "--out", "res", "--quiet", cwd=work, env=env)  # fmt: skip
    assert "results: res/results.parquet" in out
    assert (work / "res" / "summary.json").is_file() and (work / "res" / "run.json").is_file()
    # the engine's compiled code is the installed package's own (loaded or compiled there, never the checkout's)
    assert list((installed.site / "balancer" / "games" / "urgency" / "__pycache__").glob("*.nbi"))
