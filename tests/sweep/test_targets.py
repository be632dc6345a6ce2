"""Targets' distances and verdicts on numbers set up by hand (balancer/sweep/targets.py)."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from balancer.sweep.targets import (
    RunShape,
    bootstrap_objective,
    estimate,
    game_numbers,
    objective,
    resolve_terms,
    term_distance,
)

SHAPE = {"four": RunShape("four", ["greedy"] * 4, ["wasted_tiles"], [])}


def _est(mean, low, high):
    return {"mean": mean, "ci_low": low, "ci_high": high, "games": 100}


def test_equal_distance_is_the_rms_gap_from_the_fair_share():
    (term,) = resolve_terms({"seat_win_rate": "equal"}, SHAPE, "f: target")
    # gaps from 1/4: +0.05, -0.05, +0.01, -0.01 -> sqrt((0.0025 * 2 + 0.0001 * 2) / 4)
    means = {"seat_win_rate:1": 0.30, "seat_win_rate:2": 0.20, "seat_win_rate:3": 0.26, "seat_win_rate:4": 0.24}
    assert term.distance(means) == pytest.approx(math.sqrt(0.0052 / 4))
    # the verdict is joint: each seat's score test z = (x - 1/4) / sqrt(3/16 / games), Holm over 4.
    # 100 games: seat 1's z = 0.05 / 0.0433 = 1.155, p = 0.248, adjusted 4 x 0.248 > 0.05: consistent
    held = {k: _est(v, v - 0.06, v + 0.06) for k, v in means.items()}
    assert term.verdict(held) == "consistent"
    rows = term.verdicts(held)
    assert rows[0]["p_adjusted"] == pytest.approx(min(1.0, 4 * 0.24821), abs=1e-4) and rows[0]["family_size"] == 4
    # 2,000 games: z = 0.05 / sqrt(0.1875 / 2000) = 5.16, adjusted p about 1e-6: missed
    held = {k: dict(e, games=2000) for k, e in held.items()}
    assert term.verdict(held) == "missed"
    # 400 games: z = 2.309 for seats 1 and 2 (p = 0.0209, Holm 4 x 0.0209 = 0.084): each seat's own
    # 95% test rejects, but the joint verdict does not
    held = {k: dict(e, games=400) for k, e in held.items()}
    assert term.verdict(held) == "consistent"


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
    # unbiased in the square: each seat's gap squared minus the variance of its mean
    var = wins.var(ddof=1) / 400
    assert low <= value <= high and value == pytest.approx(math.sqrt((wins.mean() - 0.5) ** 2 - var))


def test_seat_interval_inverts_the_chi_square_test() -> None:
    """400 games of 2 seats: seat 1 wins 230 (x = 0.575). Pearson X^2 = n G sum (x_s - 1/2)^2 =
    2 x 400 x 2 x 0.075^2 = 9.0 on 1 df (p = 0.0027), lambda = n^2 G D^2 = 1600 D^2. The interval
    of D is sqrt of ncx2's equal-tailed interval of lambda over 1600; it excludes 0 (p < 0.025) and
    brackets the plain gap 0.075. Exactly balanced games (X^2 = 0, below the central chi-square's
    2.5% quantile) give [0, 0], the convention of the RMSEA interval (Steiger 1990)."""
    from scipy import optimize
    from scipy.stats import ncx2

    (term,) = resolve_terms({"seat_win_rate": "equal"}, {"two": RunShape("two", ["g", "g"], [], [])}, "f: target")
    wins = np.r_[np.ones(230), np.zeros(170)]
    value, low, high = bootstrap_objective([term], {"two": {"seat_win_rate:1": wins, "seat_win_rate:2": 1 - wins}})
    lam_low = optimize.brentq(lambda lam: ncx2.sf(9.0, 1, lam) - 0.025, 1e-9, 100)
    lam_high = optimize.brentq(lambda lam: ncx2.cdf(9.0, 1, lam) - 0.025, 1e-9, 100)
    assert (low, high) == pytest.approx((math.sqrt(lam_low / 1600), math.sqrt(lam_high / 1600)))
    assert 0 < low < value < 0.075 < high
    half = np.tile([1.0, 0.0], 200)
    assert bootstrap_objective([term], {"two": {"seat_win_rate:1": half, "seat_win_rate:2": 1 - half}}) == (
        0.0,
        0.0,
        0.0,
    )


def _four_seat_games(rng: np.random.Generator, rates: np.ndarray, reps: int, games: int) -> np.ndarray:
    """(reps, games, 4) one-hot winners drawn with seat probabilities ``rates``."""
    winner = rng.choice(4, size=(reps, games), p=rates)
    return (winner[..., None] == np.arange(4)).astype(float)


def test_objective_is_unbiased_and_covers_a_true_zero() -> None:
    """A balanced 4-player game (truth: every seat 1/4, distance 0), 2,000 games, 1,000 replicates.
    The plain RMS distance averages about sqrt(3 / 16 / 2000 x 3 / 4)... well above 0 (+0.0085 here);
    the corrected squared distance averages 0 within simulation error, and the chi-square interval
    holds the true 0 in at least 93% of replicates (it holds 0 whenever the uniformity test's p is at
    least 0.025: 97.5% by construction)."""
    (term,) = resolve_terms({"seat_win_rate": "equal"}, SHAPE, "f: target")
    rng = np.random.default_rng(32)
    sims = _four_seat_games(rng, np.full(4, 0.25), 1000, 2000)
    names = [f"seat_win_rate:{s}" for s in range(1, 5)]
    sq, plain, covered = [], [], 0
    for sim in sims:
        nums = {"four": {k: sim[:, i] for i, k in enumerate(names)}}
        means = {k: float(v.mean()) for k, v in nums["four"].items()}
        var = {k: float(v.var(ddof=1) / v.size) for k, v in nums["four"].items()}
        sq.append(term.squared_distance(means, var))
        plain.append(term.distance(means))
        _, low, _ = bootstrap_objective([term], nums)
        covered += low == 0.0
    sq_a = np.array(sq)
    assert abs(sq_a.mean()) < 3 * sq_a.std(ddof=1) / math.sqrt(sq_a.size)
    assert np.mean(plain) > 0.005
    assert covered / 1000 >= 0.93


def test_objective_interval_covers_a_true_distance() -> None:
    """Seat rates 0.28, 0.26, 0.24, 0.22 (true D = sqrt((0.03^2 + 0.01^2) x 2 / 4) = 0.02236), 2,000
    games, 500 replicates: the interval holds the true D in about 95% (at least 92% here)."""
    (term,) = resolve_terms({"seat_win_rate": "equal"}, SHAPE, "f: target")
    rates = np.array([0.28, 0.26, 0.24, 0.22])
    truth = math.sqrt(((rates - 0.25) ** 2).mean())
    assert truth == pytest.approx(0.022361, abs=1e-6)
    rng = np.random.default_rng(7)
    names = [f"seat_win_rate:{s}" for s in range(1, 5)]
    covered = 0
    for sim in _four_seat_games(rng, rates, 500, 2000):
        _, low, high = bootstrap_objective([term], {"four": {k: sim[:, i] for i, k in enumerate(names)}})
        covered += low <= truth <= high
    assert covered / 500 >= 0.92


def test_joint_equal_verdict_false_missed_rate_at_most_5_percent() -> None:
    """A balanced 4-player game, 2,000 games, 2,000 replicates: four per-seat 95% checks call it
    missed 1 - P(all four hold) = about 17% of the time; the joint verdict (Holm over the seats'
    score tests) at most 5%."""
    (term,) = resolve_terms({"seat_win_rate": "equal"}, SHAPE, "f: target")
    rng = np.random.default_rng(11)
    counts = rng.multinomial(2000, np.full(4, 0.25), size=2000)
    per_seat = joint = 0
    for c in counts:
        est = {
            f"seat_win_rate:{s + 1}": estimate(np.r_[np.ones(c[s]), np.zeros(2000 - c[s])], "seat_win_rate")
            for s in range(4)
        }
        joint += term.verdict(est) == "missed"
        per_seat += any(not e["ci_low"] <= 0.25 <= e["ci_high"] for e in est.values())
    assert per_seat / 2000 > 0.12
    assert joint / 2000 <= 0.05


def _two_seat_numbers() -> dict[str, np.ndarray]:
    # 8 two-player games, seat 1 wins 6: means 3/4 and 1/4
    seat1 = np.array([1.0] * 6 + [0.0] * 2)
    return {"seat_win_rate:1": seat1, "seat_win_rate:2": 1.0 - seat1}


def test_term_distance_is_the_corrected_distance_of_the_tune_objective() -> None:
    # gaps from 1/2: +-1/4, squared 1/16 each (plain distance 0.25). Each mean's sampling variance:
    # per-game variance (ddof 1) (6 (1/4)^2 + 2 (3/4)^2) / 7 = 1.5 / 7 = 3/14, over 8 games = 3/112.
    # corrected squared distance 1/16 - 3/112 = 4/112 = 1/28: distance sqrt(1/28) = 0.188982
    (term,) = resolve_terms({"seat_win_rate": "equal"}, {"two": RunShape("two", ["greedy"] * 2, [], [])}, "f")
    nums = _two_seat_numbers()
    assert term.distance({k: float(v.mean()) for k, v in nums.items()}) == pytest.approx(0.25)
    assert term_distance(term, nums) == pytest.approx(math.sqrt(1 / 28))
    # the tune objective of the same games (one term, weight 1) is the same number
    assert bootstrap_objective([term], {"two": nums}, rounds=0)[0] == pytest.approx(math.sqrt(1 / 28))


def test_sweep_table_and_verdicts_show_the_corrected_distance() -> None:
    # the sweep page's rows (report.sweep.target_rows) and the sweep's verdicts take the same
    # corrected distance as the tune page, from the cell's per-game numbers
    from types import SimpleNamespace

    from balancer.report.sweep import target_rows
    from balancer.sweep.runner import SweepResult

    (term,) = resolve_terms({"seat_win_rate": "equal"}, {"two": RunShape("two", ["greedy"] * 2, [], [])}, "f")
    nums = _two_seat_numbers()
    est = {k: estimate(v, k) for k, v in nums.items()}
    plan = SimpleNamespace(terms=[term], points=[SimpleNamespace(label="p", values={"bonus": 1})])
    result = SweepResult(plan, {}, {("two", "p"): nums}, {("two", "p"): est}, 0, 0.0)  # type: ignore[arg-type]
    assert target_rows(result)[0]["rows"][0]["distance"] == pytest.approx(math.sqrt(1 / 28))
    assert result.verdicts()[0]["distance"] == pytest.approx(math.sqrt(1 / 28))
