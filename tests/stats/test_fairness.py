"""The fairness headline (balancer.stats.fairness) on synthetic tables whose answer is known by construction."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from balancer.stats.fairness import seat_spread_headline, spread_difference


def _two_seats(seat1_wins: np.ndarray) -> np.ndarray:
    """games x 2 win shares: seat 1 wins where True, seat 2 elsewhere."""
    w = seat1_wins.astype(float)
    return np.column_stack([w, 1.0 - w])


# Blocks of 8 games: seat 1 wins positions 0-5 in A (75%) and 0-4 in B (62.5%); the games are the
# same seeds, so B differs from A only at position 5 of each block.
N = 800
POS = np.arange(N) % 8
A = _two_seats(POS < 6)
B = _two_seats(POS < 5)


def test_paired_spread_interval_matches_the_hand_computed_one():
    """With two seats the spread is |2 r1 - 1|; both rates are far above 1/2, so it is 2 r1 - 1 in
    every draw and the change is the mean of d_i = 2 (s1_B,i - s1_A,i): -2 in one game of 8, 0
    elsewhere. Mean -0.25; sd sqrt(4 * 1/8 * 7/8) = 0.6614; 95% interval -0.25 +- 1.96 * 0.6614 /
    sqrt(800) = [-0.2958, -0.2042]. The bootstrap's percentile ends agree within 0.01."""
    got = spread_difference(A, B, 0.95, resamples=4000, seed=3)
    assert got["spread_a"] == pytest.approx(0.5) and got["spread_b"] == pytest.approx(0.25)
    assert got["difference"] == pytest.approx(-0.25)
    se = np.sqrt(4 * (1 / 8) * (7 / 8)) / np.sqrt(N)
    assert got["ci_low"] == pytest.approx(-0.25 - 1.96 * se, abs=0.01)
    assert got["ci_high"] == pytest.approx(-0.25 + 1.96 * se, abs=0.01)
    assert got["verdict"] == "fairer" and got["p_value"] < 0.001


def test_pairing_narrows_the_interval_as_the_shared_games_predict():
    """Unpaired, the two sides' noise adds: se = sqrt(4 * .75 * .25 + 4 * .625 * .375) / sqrt(800)
    = 0.0459, against 0.0234 paired (above): the interval is about twice as wide."""
    paired = spread_difference(A, B, 0.95, resamples=4000, seed=3)
    unpaired = spread_difference(A, B, 0.95, resamples=4000, seed=3, paired=False)
    se = np.sqrt(4 * 0.75 * 0.25 + 4 * 0.625 * 0.375) / np.sqrt(N)
    assert unpaired["ci_high"] - unpaired["ci_low"] == pytest.approx(2 * 1.96 * se, rel=0.1)
    assert (unpaired["ci_high"] - unpaired["ci_low"]) > 1.7 * (paired["ci_high"] - paired["ci_low"])


def test_the_verdict_goes_both_ways_and_says_cannot_tell_for_the_same_games():
    assert spread_difference(B, A, resamples=500)["verdict"] == "less fair"
    same = spread_difference(A, A, resamples=500)
    assert (same["difference"], same["ci_low"], same["ci_high"], same["p_value"]) == (0.0, 0.0, 0.0, 1.0)
    assert same["verdict"] == "cannot tell"


def _long(shares: np.ndarray) -> pl.DataFrame:
    games, seats = shares.shape
    return pl.DataFrame(
        {
            "game_index": np.repeat(np.arange(games), seats),
            "seat": np.tile(np.arange(1, seats + 1), games),
            "win_share": shares.reshape(-1),
        }
    )


def test_headline_from_results_tables_names_the_seats_at_the_ends():
    # three seats: A's seat 3 never wins (spread 0.5: seat 1 50%, seat 2 50%), B's seats share evenly
    games = 600
    a = np.zeros((games, 3))
    a[np.arange(games) % 2 == 0, 0] = 1
    a[np.arange(games) % 2 == 1, 1] = 1
    b = np.zeros((games, 3))
    b[np.arange(games), np.arange(games) % 3] = 1
    got = seat_spread_headline(_long(a), _long(b), resamples=500)
    assert got["spread_a"] == pytest.approx(0.5) and got["spread_b"] == pytest.approx(0.0)
    assert got["worst_a"] == 3 and got["paired"] and got["verdict"] == "fairer"
    assert got["rates_b"] == {"1": pytest.approx(1 / 3), "2": pytest.approx(1 / 3), "3": pytest.approx(1 / 3)}


def test_the_p_value_agrees_with_the_interval():
    """p < 0.05 exactly when the 95% interval excludes 0 (the interval inverted), on tables whose
    spreads sit near 0, where a plain share of draws below 0 disagreed (a 0.46 beside an interval
    of +2.0 to +19.8 points)."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        u = rng.random(200)
        other = np.where(rng.random(200) < 0.5, rng.random(200), u)
        a, b = _two_seats(u < 0.5), _two_seats(other < rng.uniform(0.45, 0.62))
        got = spread_difference(a, b, 0.95, resamples=1000, seed=int(rng.integers(1 << 30)))
        if got["ci_low"] > 0 or got["ci_high"] < 0:  # excludes 0
            assert got["p_value"] < 0.05 and got["verdict"] != "cannot tell", got
        elif got["ci_low"] < 0 < got["ci_high"]:  # holds 0 inside (an end exactly at 0 may go either way)
            assert got["p_value"] >= 0.05 and got["verdict"] == "cannot tell", got
