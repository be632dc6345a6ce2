"""The example game outside balancer (examples/pig, docs/adding-a-game.md), with nothing installed: its
package is put on sys.path and registered by hand as its entry point would register it. It declares that
entry point; it passes the shipped conformance suite (balancer.testing) and its own rule tests; `balancer
games` lists it; a run with mcts and two worker processes equals the same run in one, and renders a report."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import balancer
from balancer.cli import app
from balancer.core import registry
from balancer.testing import check_game, conformance_checks

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pig"
CONFIG = EXAMPLE / "configs" / "pig" / "pig.yaml"


def _fresh_workers() -> None:
    """Stop the reusable worker processes (loky's), so that the next parallel run starts workers that
    see sys.path as it is now (a worker started by an earlier test of this process would not find Pig)."""
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)


@pytest.fixture
def pig(monkeypatch):
    """Pig registered as `pip install -e examples/pig` would register it."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setitem(registry.GAMES, "pig", "balancer_pig")
    _fresh_workers()
    yield
    _fresh_workers()


def test_ci_installs_the_example_and_runs_its_tests():
    """.ci/run's `make example`, after `make test`: the example installed into .venv, then its tests (its
    tests/test_cli.py runs every command of the installed balancer on the installed game)."""
    root = EXAMPLE.parents[1]
    steps = [line.split("#")[0].split() for line in (root / ".ci/run").read_text().splitlines()]
    steps = [" ".join(s[1:]) for s in steps if s[:1] == ["step"]]
    assert steps.index("make test") < steps.index("make example") < steps.index("make check")
    recipe = (root / "Makefile").read_text().split("\nexample:")[1].split("\n\n")[0]
    assert "pip install --quiet -e examples/pig" in recipe and "pytest -p no:cacheprovider examples/pig/tests" in recipe
    assert (EXAMPLE / "tests" / "test_cli.py").is_file()


def test_the_example_declares_its_entry_point():
    meta = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert meta["entry-points"]["balancer.games"] == {"pig": "balancer_pig"}
    assert "balancer" in meta["dependencies"]


@pytest.mark.timeout(1200)
def test_the_example_passes_the_conformance_suite(pig):
    checks = conformance_checks("pig", CONFIG)
    names = {str(c).split("-")[0] for c in checks}
    assert {"registry_entry", "same_seed_same_game", "search_cannot_see_what_the_seat_cannot"} <= names
    assert check_game("pig", CONFIG) == len(checks)


def test_the_examples_own_rule_tests_pass(pig):
    spec = importlib.util.spec_from_file_location("pig_rule_tests", EXAMPLE / "tests" / "test_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [f for name, f in vars(module).items() if name.startswith("test_")]
    assert len(tests) >= 5
    for test in tests:
        test()


def test_games_lists_it_and_a_parallel_run_with_mcts_renders(pig, tmp_path):
    listing = CliRunner().invoke(app, ["games"])
    assert listing.exit_code == 0 and "pig  agents: random, greedy" in listing.output
    # not one of the shipped rulebooks (issue 50): by its distribution when pip installed it (make
    # example), else by its package (this fixture registers it as a notebook would)
    assert "  plugin: installed by balancer-pig " in listing.output or (
        "  plugin: installed by the package balancer_pig, not shipped with balancer" in listing.output
    )
    assert listing.output.splitlines()[0].startswith(
        "shipped with balancer: agueda, citywright, urban_sketchers, urgency;"
    )
    starter = CliRunner().invoke(app, ["init", "pig", str(tmp_path / "starter")])
    assert starter.exit_code == 2 and "does not ship with balancer" in starter.output  # its YAML is its own
    args = dict(players=2, agents="greedy,mcts@8", games=12, seed=5, chunk_size=3)
    two = balancer.run(CONFIG, jobs=2, out=tmp_path / "two", **args)
    one = balancer.run(CONFIG, jobs=1, out=tmp_path / "one", **args)
    rows = [pl.read_parquet(r.out_dir / "results.parquet").sort("game_index", "seat") for r in (two, one)]
    assert rows[0].equals(rows[1]) and rows[0].height == 24
    html = balancer.write_report(two, tmp_path / "pig.html").read_text(encoding="utf-8")
    assert "Pig" in html and "busts" in html
