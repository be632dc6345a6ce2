"""Game counts planned (issue 50, item 4): ``balancer plan`` says how many games find a change of D in
each tracked number and which number drives the total; per-number tolerances in the study's
``check.tolerance.numbers``; an underpowered ``check`` names the number that drives it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from balancer.check import UnderpoweredError, run_check
from balancer.check.plan import plan_games

runner = CliRunner()

STUDY = """\
study: planned
title: a planned study
game: citywright
seed: 1
variants: {{v1.1: citywright/v1.1}}
runs:
  mirror-2p: {{players: 2, agents: [random], games: 400}}
check: {{tolerance: {{win_rate: 0.05{extra}}}, false_alarm: 0.1, miss_rate: 0.2, looks: 1, metrics: []}}
"""


def _study(tmp_path, extra: str = ""):
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.format(extra=extra), encoding="utf-8")
    return path


def test_the_games_are_the_two_proportion_sample_size(tmp_path):
    # Two numbers (seat 1 and seat 2 of a two-player mirror table), false alarm 0.1 split over them and
    # both sides: alpha 0.025 a side, z = 1.95996; miss rate 0.2 (as check splits it): z = 1.28155. One
    # look, so the boundary is the plain z. The normal-approximation sample size of a difference of two
    # proportions at p = 1/2 (each of a baseline and a check of m games):
    #   m = (1.95996 + 1.28155)^2 (0.25 + 0.25) / 0.05^2 = 10.5074 x 0.5 / 0.0025 = 2101.5 -> 2,102
    # (a multiple of the two players).
    plan = plan_games(_study(tmp_path))
    assert [(p.number, p.games) for p in plan.numbers] == [("seat_win_rate:1", 2102), ("seat_win_rate:2", 2102)]
    assert plan.driver().number == "seat_win_rate:1"


def test_a_number_with_its_own_tolerance_needs_its_own_games(tmp_path):
    # seat 2 at 10 points: a quarter of the games, (1.95996 + 1.28155)^2 x 0.5 / 0.01 = 525.4 -> 526;
    # seat 1 (5 points) drives the cell
    plan = plan_games(_study(tmp_path, ", numbers: {seat_win_rate:2: 0.1}"))
    assert {p.number: p.games for p in plan.numbers} == {"seat_win_rate:1": 2102, "seat_win_rate:2": 526}
    assert plan.drivers()[("mirror-2p", "v1.1")].number == "seat_win_rate:1"


def test_plan_command_names_the_driver(tmp_path):
    from balancer.cli import app

    result = runner.invoke(app, ["plan", str(_study(tmp_path, ", numbers: {seat_win_rate:1: 0.1}"))])
    assert result.exit_code == 0, result.output
    assert "mirror-2p/v1.1: 2,102 games, driven by seat_win_rate:2 (tolerance 5 points)" in result.output


def test_an_underpowered_check_names_the_number_that_drives_it(tmp_path):
    # a hand-made baseline of 400 games at 50%: a check capped at 400 games cannot find 5 points
    # (it needs about 2,100 against a baseline this noisy: more than its own 400), refused before playing
    study = _study(tmp_path, ", numbers: {seat_win_rate:1: 0.2}")
    number = {"kind": "win_rate", "games": 400, "mean": 0.5, "variance": 0.25, "successes": 200.0}
    baseline = {
        "format": 1,
        "kind": "balancer-baseline",
        "study": "planned",
        "game": "citywright",
        "seed": 1,
        "cells": [
            {
                "run": "mirror-2p",
                "variant": "v1.1",
                "players": 2,
                "agents": ["random", "random"],
                "games": 400,
                "seed": 1,
                "config_sha256": "0" * 64,
                "numbers": {"seat_win_rate:1": dict(number), "seat_win_rate:2": dict(number)},
            }
        ],
    }
    (tmp_path / "b.json").write_text(json.dumps(baseline))
    with pytest.raises(UnderpoweredError, match=r"driven by seat_win_rate:2 at a tolerance of 5 points"):
        run_check(study, baseline, tmp_path / "b.json")


def test_a_too_noisy_baseline_names_the_number_that_needs_the_largest_new_baseline(tmp_path):
    # A baseline of 400 games is too noisy for both seats (tolerances 5 and 4 points: the check alone
    # cannot make up the baseline's variance 0.25 / 400), so the refusal asks for a new baseline of
    # m = 2 x 0.25 x ((1.95996 + 1.28155) / 0.04)^2 = 3,283.6 -> 3,284 games, driven by seat 2's tighter
    # 4 points. Before, every number needed "infinitely many" check games and the first (seat 1) was named.
    study = _study(tmp_path, ", numbers: {seat_win_rate:2: 0.04}")
    number = {"kind": "win_rate", "games": 400, "mean": 0.5, "variance": 0.25, "successes": 200.0}
    baseline = {
        "format": 1,
        "kind": "balancer-baseline",
        "study": "planned",
        "game": "citywright",
        "seed": 1,
        "cells": [
            {
                "run": "mirror-2p",
                "variant": "v1.1",
                "players": 2,
                "agents": ["random", "random"],
                "games": 400,
                "seed": 1,
                "config_sha256": "0" * 64,
                "numbers": {"seat_win_rate:1": dict(number), "seat_win_rate:2": dict(number)},
            }
        ],
    }
    (tmp_path / "b.json").write_text(json.dumps(baseline))
    with pytest.raises(
        UnderpoweredError, match=r"about 3,284 games each .*driven by seat_win_rate:2 at a tolerance of 4 points"
    ):
        run_check(study, baseline, tmp_path / "b.json")


def test_a_target_is_planned_as_check_tests_it(tmp_path):
    """``balancer plan`` of a study alone split the false alarm over the tracked numbers only, while
    ``check`` tests every expect: target too (one Bonferroni family): citywright/ci was planned over 9
    numbers, checked over 14, so the plan asked for fewer games than the check needs. Here two seats
    and a target on each (between: two sides): 4 numbers, false alarm 0.1 / 4 / 2 = 0.0125 a side,
    z = 2.24140; miss 0.2: z = 1.28155; (2.24140 + 1.28155)^2 = 12.4112. A seat against the baseline
    (a baseline and a check, each): 12.4112 x (0.25 + 0.25) / 0.05^2 = 2482.2 -> 2,484 (a multiple of
    2 players); a target (the check alone against a fixed bound): 12.4112 x 0.25 / 0.05^2 = 1241.1 -> 1,242."""
    path = _study(tmp_path)
    text = path.read_text(encoding="utf-8").replace(
        "games: 400}", "games: 400, expect: {seat_win_rate: {between: [0.4, 0.6]}}}"
    )
    path.write_text(text, encoding="utf-8")
    plan = plan_games(path)
    assert [(p.number, p.games) for p in plan.numbers] == [
        ("seat_win_rate:1", 2484),
        ("seat_win_rate:2", 2484),
        ("seat_win_rate:1 (target between 0.4 and 0.6)", 1242),
        ("seat_win_rate:2 (target between 0.4 and 0.6)", 1242),
    ]


def test_the_plan_of_the_shipped_ci_study_counts_the_numbers_its_check_tests():
    """citywright/ci planned from the study alone and from its committed baseline (what check tests):
    the same 14 numbers, and a metric's games (its tolerance in its own SDs, so its variance cancels)
    the same either way; only the win rates differ, by the baseline's rates against the fair share."""
    from pathlib import Path

    from balancer.data import locate_config

    baseline = json.loads((Path(__file__).resolve().parents[1] / "baselines" / "citywright-ci.json").read_text())
    alone, checked = (
        plan_games(locate_config("citywright/ci")),
        plan_games(locate_config("citywright/ci"), None, baseline),
    )
    assert len(alone.numbers) == len(checked.numbers) == 14
    metric = lambda plan: {(p.run, p.number): p.games for p in plan.numbers if p.kind != "win_rate"}  # noqa: E731
    assert metric(alone) == metric(checked)


def test_the_plan_says_whether_the_study_plays_enough_games(tmp_path):
    """The plan gave the games a cell needs, the study file the games it plays, and nothing set them
    side by side (a study of 400 games per cell read as if planned). The 2,102 games worked by hand
    above against the file's 400: too few, naming the key to set; against 3,000: enough."""
    from balancer.cli import app

    path = _study(tmp_path)
    result = runner.invoke(app, ["plan", str(path)])
    assert result.exit_code == 0, result.output
    assert "mirror-2p/v1.1: 2,102 games, driven by seat_win_rate:1 (tolerance 5 points); the study plays 400: " \
        "too few, set runs.mirror-2p.games" in result.output  # fmt: skip
    path.write_text(path.read_text(encoding="utf-8").replace("games: 400", "games: 3000"), encoding="utf-8")
    result = runner.invoke(app, ["plan", str(path)])
    assert "; the study plays 3,000: enough" in result.output, result.output
