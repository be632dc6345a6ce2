"""``balancer --version`` (issue 51): the one version of balancer, the one run.json, baselines, the engine
hash and the report footer record (tests/sim/test_runner.py and tests/report/test_render.py check those two)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from typer.testing import CliRunner

from balancer.cli import app
from balancer.version import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_version_option_prints_the_version_and_exits_0() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output == f"balancer {__version__}\n"


def test_the_package_metadata_and_the_module_agree() -> None:
    # pyproject.toml's version is what pip installs; balancer/version.py what run.json records: one number
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == __version__


def test_no_arguments_still_prints_the_help() -> None:
    result = CliRunner().invoke(app, [])
    assert "Usage:" in result.output and "--version" in result.output
