"""Targets' distances and verdicts on numbers set up by hand (balancer/sweep/targets.py)."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from balancer.sweep.targets import RunShape, bootstrap_objective, estimate, game_numbers, objective, resolve_terms

SHAPE = {"four": RunShape("four", ["greedy"] * 4, ["wasted_tiles"], [])}


def _est(mean, low, high):
    return {"mean": mean, "ci_low": low, "ci_high": high, "games": 100}


def test_equal_distance_is_the_rms_gap_from_the_fair_share():
    (term,) = resolve_terms({"seat_win_rate": "equal"}, SHAPE, "f: target")
    # gaps from 1/4: +0.05, -0.05, +0.01, -0.01 -> sqrt((0.0025 * 2 + 0.0001 * 2) / 4)
    means = {"seat_win_rate:1": 0.30, "seat_win_rate:2": 0.20, "seat_win_rate:3": 0.26, "seat_win_rate:4": 0.24}
    assert term.distance(means) == pytest.approx(math.sqrt(0.0052 / 4))
    held = {k: _est(v, v - 0.06, v + 0.06) for k, v in means.items()}
    assert term.verdict(held) == "consistent"  # every interval holds 0.25
    held["seat_win_rate:1"] = _est(0.30, 0.26, 0.34)
    assert term.verdict(held) == "missed"


def test_bounds_verdicts_and_distance():
    (term,) = resolve_terms({"seat_win_rate:4": {"between": [0.23, 0.27]}}, SHAPE, "f: target")
    assert term.distance({"seat_win_rate:4": 0.20}) == pytest.approx(0.03)
    assert term.distance({"seat_win_rate:4": 0.25}) == 0.0
    assert term.verdict({"seat_win_rate:4": _est(0.25, 0.24, 0.26)}) == "met"
    assert term.verdict({"seat_win_rate:4": _est(0.25, 0.22, 0.28)}) == "not shown to be met"
    assert term.verdict({"seat_win_rate:4": _est(0.20, 0.18, 0.22)}) == "missed"
    (metric,) = resolve_terms({"wasted_tiles_per_player": {"at_most": 6, "weight": 0.5}}, SHAPE, "f: target")
    assert metric.distance({"wasted_tiles_per_player": 7.5}) == pytest.approx(1.5)
    assert objective(
        [term, metric], {"four": {"seat_win_rate:4": 0.20, "wasted_tiles_per_player": 7.5}}
    ) == pytest.approx(0.03 + 0.75)


def test_unknown_numbers_are_refused_one_line_each():
    with pytest.raises(ValueError) as err:
        resolve_terms(
            {
                "seat_win_rate:5": "equal",
                "nope_per_player": {"at_most": 1},
                "x/seat_win_rate": "equal",
                "agent_win_rate": "equal",
            },
            SHAPE,
            "f.yaml: objective",
        )
    lines = str(err.value).splitlines()
    assert len(lines) == 4
    assert lines[0] == "f.yaml: objective.seat_win_rate:5: seat_win_rate:5: the run has 4 seats"
    assert "no metric 'nope'; its metrics are wasted_tiles" in lines[1]
    assert "unknown run 'x'" in lines[2] and "mirror table" in lines[3]


def test_numbers_per_game_and_matchups():
    # two games of two players: game 0 deck a (seat 1) beats b; game 1 b (seat 1) and a tie
    table = pa.table(
        {
            "win_share": [1.0, 0.0, 0.5, 0.5],
            "agent": ["x", "x", "x", "x"],
            "label_deck": ["a", "b", "b", "a"],
            "metric_m": [1.0, 3.0, 2.0, 2.0],
        }
    )
    nums = game_numbers(table, ["x", "x"])
    np.testing.assert_array_equal(nums["seat_win_rate:1"], [1.0, 0.5])
    np.testing.assert_array_equal(nums["m_per_player"], [2.0, 2.0])
    np.testing.assert_array_equal(nums["matchup:deck:a:b"], [1.0, 0.5])
    np.testing.assert_array_equal(nums["matchup:deck:b:a"], [0.0, 0.5])
    e = estimate(nums["matchup:deck:a:b"], "matchup:deck:a:b")
    assert e["mean"] == 0.75 and e["games"] == 2 and 0 < e["ci_low"] < 0.75 < e["ci_high"] <= 1


def test_bootstrap_interval_is_zero_width_for_identical_games_and_brackets_the_value():
    (term,) = resolve_terms({"seat_win_rate": "equal"}, {"two": RunShape("two", ["g", "g"], [], [])}, "f: target")
    same = {"two": {"seat_win_rate:1": np.full(50, 0.5), "seat_win_rate:2": np.full(50, 0.5)}}
    assert bootstrap_objective([term], same) == (0.0, 0.0, 0.0)
    rng = np.random.default_rng(1)
    wins = (rng.random(400) < 0.6).astype(float)
    value, low, high = bootstrap_objective([term], {"two": {"seat_win_rate:1": wins, "seat_win_rate:2": 1 - wins}})
    assert low <= value <= high and value == pytest.approx(abs(wins.mean() - 0.5))


def test_bootstrap_interval_brackets_a_distance_at_its_target():
    # 400 games won exactly half by each seat: the distance |rate - 1/2| is 0, and every bootstrap
    # replicate's distance is 0 or more (most above 0), so a percentile interval would lie above the
    # value. The normal interval is 0 +/- 1.96 sd, floored at 0: [0, 1.96 sd]. The replicate's rate
    # has sd sqrt(0.25 / 400) = 0.025, and |N(0, 0.025)| has sd 0.025 sqrt(1 - 2/pi) = 0.01507, so
    # the upper end is about 1.96 x 0.01507 = 0.0295.
    (term,) = resolve_terms({"seat_win_rate": "equal"}, {"two": RunShape("two", ["g", "g"], [], [])}, "f: target")
    wins = np.tile([1.0, 0.0], 200)
    value, low, high = bootstrap_objective(
        [term], {"two": {"seat_win_rate:1": wins, "seat_win_rate:2": 1 - wins}}, rounds=4000
    )
    assert value == 0.0 and low == 0.0
    assert high == pytest.approx(1.96 * 0.025 * np.sqrt(1 - 2 / np.pi), rel=0.1)
