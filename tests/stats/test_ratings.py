"""Ratings (balancer.stats.ratings) on data whose answer is known by construction or derived by hand."""

from __future__ import annotations

import math

import choix
import numpy as np
import pytest

from balancer.stats.ratings import (
    RatingData,
    bradley_terry,
    draw_outcome,
    fit,
    outcome_from_places,
    pairwise_wins,
    plackett_luce,
    rate,
)


def _game(*order):
    return ((tuple(order), 1.0),)


def test_outcome_of_a_tie_is_spread_over_its_orders():
    # places [1, 1, 3]: items 0 and 1 tied for first, item 2 last: orders (0,1,2) and (1,0,2), half each
    assert outcome_from_places([0, 1, 2], [1, 1, 3]) == (((0, 1, 2), 0.5), ((1, 0, 2), 0.5))
    # a repeated item tied with itself is one order: (1, 0, 0) places [2, 1, 1] -> 0 and 0 first, then 1
    assert outcome_from_places([1, 0, 0], [2, 1, 1]) == (((0, 0, 1), 1.0),)
    # the pseudo-game of a 1-against-3 table: the lone item in each of the 4 places, a quarter each
    assert draw_outcome([0, 1, 1, 1]) == tuple(
        (o, 0.25) for o in [(0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 0, 1), (1, 1, 1, 0)]
    )


def test_bradley_terry_of_two_items_is_the_log_odds_with_the_pseudo_game():
    # 2,000 games, item 1 wins 1,500: with the pseudo-game (a draw: half a win each) the maximum-
    # likelihood log-odds is ln(1500.5 / 500.5) exactly (two items: the MLE is the observed log-odds)
    data = RatingData(["a", "b"])
    data.add_cell("ab", [0, 1], [_game(1, 0)] * 1500 + [_game(0, 1)] * 500)
    theta = fit(data, data.counts())
    assert theta[0] == 0.0
    assert theta[1] == pytest.approx(math.log(1500.5 / 500.5), abs=1e-9)


def test_bradley_terry_recovers_strengths_from_exactly_proportional_wins():
    # strengths 1, 2, 4 and 30 games per pair with wins exactly n p_ij: 0-1: 10 vs 20, 0-2: 6 vs 24,
    # 1-2: 10 vs 20. The score equations sum_j (W_ij - n p_ij) = 0 hold at theta = ln w, so the MLE is
    # (0, ln 2, ln 4) exactly.
    wins = np.array([[0, 10, 6], [20, 0, 10], [24, 20, 0]], dtype=float)
    np.testing.assert_allclose(bradley_terry(wins), [0.0, math.log(2), math.log(4)], atol=1e-8)


def _pl_probability(order, w):
    """Plackett-Luce probability of ``order`` (item indices, repeats allowed) with weights ``w``."""
    p, left = 1.0, list(order)
    for item in order:
        p *= w[item] / sum(w[i] for i in left)
        left.remove(item)
    return p


def test_plackett_luce_recovers_strengths_from_expected_counts():
    # one item of rung i against three of rung j for every ordered pair, strengths 1, 2, 4, 8: with
    # the counts of each order equal to 1000 x its Plackett-Luce probability (the lone item's place
    # decides the order) the expected score is zero at theta = ln w, so the MLE is ln w exactly.
    w = [1.0, 2.0, 4.0, 8.0]
    outcomes, counts = [], []
    for i in range(4):
        for j in range(4):
            if i != j:
                for k in range(4):
                    order = [j, j, j]
                    order.insert(k, i)
                    outcomes.append(((tuple(order), 1.0),))
                    counts.append(1000 * _pl_probability(order, w))
    theta = plackett_luce(4, outcomes, np.array(counts))
    np.testing.assert_allclose(theta, np.log(w), atol=1e-7)


def test_plackett_luce_on_counts_equals_choix_on_the_games():
    # the count-weighted I-LSR must give choix.ilsr_rankings' answer on the same games listed one by one
    rng = np.random.default_rng(5)
    w = np.array([1.0, 3.0, 2.0])
    data = RatingData(["a", "b", "c"])
    games = []
    for i in range(3):
        for j in range(3):
            if i == j:
                continue
            outs = []
            for _ in range(150):
                left, order = [i, j, j], []
                while left:
                    p = w[left] / w[left].sum()
                    order.append(left.pop(int(rng.choice(len(left), p=p))))
                outs.append(_game(*order))
                games.append(order)
            data.add_cell((i, j), [i, j, j], outs, shrink=False)
    ours = fit(data, data.counts())
    theirs = choix.ilsr_rankings(3, games, max_iter=1000, tol=1e-12)
    np.testing.assert_allclose(ours, theirs - theirs[0], atol=1e-7)


def test_games_that_do_not_connect_the_items_are_refused():
    # item 1 never lost to item 0 and there is no pseudo-game: no finite maximum
    data = RatingData(["a", "b"])
    data.add_cell("ab", [0, 1], [_game(1, 0)] * 10, shrink=False)
    with pytest.raises(ValueError, match="connect"):
        fit(data, data.counts())
    # with the pseudo-game the rating is finite: ln(10.5 / 0.5) = ln 21
    data = RatingData(["a", "b"])
    data.add_cell("ab", [0, 1], [_game(1, 0)] * 10)
    assert fit(data, data.counts())[1] == pytest.approx(math.log(21), abs=1e-9)


def test_pairwise_wins_counts_a_draw_as_half_each():
    outcomes = [_game(0, 1), outcome_from_places([0, 1], [1, 1])]
    np.testing.assert_allclose(pairwise_wins(2, outcomes, np.array([3.0, 2.0])), [[0, 4], [1, 0]])


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(0)
    data = RatingData(["a", "b", "c"])
    for i, j in ((0, 1), (0, 2), (1, 2)):
        wins = rng.random(400) < [0.3, 0.2, 0.4][i + j - 1]
        data.add_cell((i, j), [i, j], [_game(i, j) if x else _game(j, i) for x in wins])
    a, b = rate(data, replicates=200, seed=7), rate(data, replicates=200, seed=7)
    np.testing.assert_array_equal(a.low, b.low)
    np.testing.assert_array_equal(a.high, b.high)
    assert a.model == "Bradley-Terry" and a.games == 1200
    assert np.all(a.low <= a.theta) and np.all(a.theta <= a.high)
    assert np.all(a.high[1:] - a.low[1:] > 0.05)  # 400 games per pair: intervals of a few tenths
    none = rate(data, replicates=0)  # no replicates: no interval at all (issue 32)
    assert np.isnan(none.low).all() and np.isnan(none.high).all()


# --------------------------------------------------------------------------- issue 32: a rung that never lost


def test_unbeaten_bound_at_200_of_200_is_the_exact_one_sided_bound() -> None:
    """200 wins of 200: the exact (Clopper-Pearson) one-sided 95% lower bound of the win probability
    is q = 0.05^(1/200) = 0.985133 (the two-sided 90% exact interval's lower end), so theta >= ln(q /
    (1 - q)) = 4.1936 and Elo >= 400 x 4.1936 / ln 10 = 728.5 (729 on the page)."""
    from scipy.stats import binomtest

    from balancer.stats.ratings import unbeaten_bound

    q = binomtest(200, 200).proportion_ci(confidence_level=0.90, method="exact").low
    assert q == pytest.approx(0.05 ** (1 / 200))
    assert unbeaten_bound(200) == pytest.approx(math.log(q / (1 - q)))
    assert unbeaten_bound(200) == pytest.approx(4.1936, abs=1e-4)
    # one player of i among 3 of j, i first every time: P(i first) = p_i / (p_i + 3 p_j), odds x 3
    assert unbeaten_bound(200, 1, 3) == pytest.approx(4.1936 + math.log(3), abs=1e-4)

    data = RatingData(["random", "greedy"])
    data.add_cell("m", [0, 1], [outcome_from_places([0, 1], [2, 1])] * 200)
    rows = rate(data, replicates=20, seed=1).rows()
    greedy = rows[1]
    assert greedy["one_sided"] == "at least" and greedy["ci_high"] is None and greedy["elo_high"] is None
    assert greedy["ci_low"] == pytest.approx(4.1936, abs=1e-4)
    assert round(greedy["elo_low"]) == 729
    assert rows[0]["ci_low"] == rows[0]["ci_high"] == 0.0  # the anchor


def test_no_interval_without_replicates() -> None:
    data = RatingData(["a", "b"])
    data.add_cell("m", [0, 1], [outcome_from_places([0, 1], [1, 2])] * 3 + [outcome_from_places([0, 1], [2, 1])])
    rows = rate(data, replicates=0).rows()
    assert all(r["ci_low"] is None and r["ci_high"] is None and r["one_sided"] is None for r in rows)
    # by hand: 3 wins of 4 plus the pseudo-game (half a win each): theta_b = ln(1.5 / 3.5)
    assert rows[1]["theta"] == pytest.approx(math.log(1.5 / 3.5))


def test_a_rung_that_never_won_gets_an_upper_bound_only() -> None:
    """Three rungs: b beats a 30 of 40 (both ways), c loses all 50 games to b: c never won, so its
    rating has no lower end and its upper end is b's upper end minus the exact bound at 50 of 50,
    ln(q / (1 - q)) with q = 0.05^(1/50) = exp(-2.99573 / 50) = 0.941845: ln 16.195 = 2.7847."""
    data = RatingData(["a", "b", "c"])
    data.add_cell("ab", [0, 1], [outcome_from_places([0, 1], [2, 1])] * 30 + [outcome_from_places([0, 1], [1, 2])] * 10)
    data.add_cell("bc", [1, 2], [outcome_from_places([1, 2], [1, 2])] * 50)
    r = rate(data, replicates=50, seed=3)
    q = 0.05 ** (1 / 50)
    assert math.log(q / (1 - q)) == pytest.approx(2.7847, abs=1e-4)
    c = r.rows()[2]
    assert c["one_sided"] == "at most" and c["ci_low"] is None
    assert c["ci_high"] == pytest.approx(r.high[1] - math.log(q / (1 - q)))
    assert r.rows()[1]["one_sided"] is None  # b lost games to a: its bootstrap interval stands
