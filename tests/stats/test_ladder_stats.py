"""Ladder statistics (balancer.stats.ladder): hand-derived values, and the seat x rung test's
false-alarm rate on simulated tables without interaction."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from balancer.stats.ladder import (
    describe_shift,
    game_outcomes,
    lone_agent_rates,
    seat_rung_test,
    seat_shift,
    skill_depth,
)


def test_seat_rung_test_by_hand():
    # rungs x seats wins [[30, 10], [20, 20]]: rows 40, 40, columns 50, 30, N 80, so the counts expected
    # with the same seat shares at both rungs are [[25, 15], [25, 15]] and
    # G = 2 (30 ln 30/25 + 10 ln 10/15 + 20 ln 20/25 + 20 ln 20/15) on (2-1)(2-1) = 1 degree of freedom
    g = 2 * (30 * math.log(30 / 25) + 10 * math.log(10 / 15) + 20 * math.log(20 / 25) + 20 * math.log(20 / 15))
    test = seat_rung_test([[30, 10], [20, 20]])
    assert test["statistic"] == pytest.approx(g, rel=1e-12)
    assert test["df"] == 1
    assert test["p"] == pytest.approx(math.erfc(math.sqrt(g / 2)), rel=1e-9)  # chi-square(1) tail
    # a seat that never wins is left out: 3 seats, one empty -> still 1 degree of freedom
    assert seat_rung_test([[30, 10, 0], [20, 20, 0]])["df"] == 1
    # identical rows: nothing changes, G = 0, p = 1
    assert seat_rung_test([[10, 20], [10, 20]])["p"] == pytest.approx(1.0)


def _false_alarms(rng, p, rungs, games, reps, tie_rate=0.0):
    """Share of ``reps`` simulated ladders (the same seat probabilities ``p`` at every rung) that the
    test calls significant at 5%. With ``tie_rate``, that share of games is a two-way tie of two
    seats drawn at random (half a win each)."""
    seats = len(p)
    hits = 0
    for _ in range(reps):
        table = np.zeros((rungs, seats))
        for r in range(rungs):
            ties = rng.binomial(games, tie_rate)
            table[r] += rng.multinomial(games - ties, p)
            for _ in range(ties):
                a, b = rng.choice(seats, 2, replace=False)
                table[r, a] += 0.5
                table[r, b] += 0.5
        hits += seat_rung_test(table)["p"] < 0.05
    return hits / reps


def test_false_alarm_rate_without_interaction():
    # 2,000 ladders with no interaction: about 5% must be called significant; the binomial standard
    # error of the share is sqrt(0.05 x 0.95 / 2000) = 0.0049, so [0.035, 0.065] is +/-3 of them
    rng = np.random.default_rng(20261201)
    assert 0.035 <= _false_alarms(rng, [0.3, 0.27, 0.23, 0.2], rungs=4, games=400, reps=2000) <= 0.065
    assert 0.035 <= _false_alarms(rng, [0.56, 0.44], rungs=3, games=300, reps=2000) <= 0.065
    # shared wins make a game's outcome less variable than one multinomial draw: the test may only
    # become more cautious, never raise more alarms
    assert _false_alarms(rng, [0.3, 0.27, 0.23, 0.2], rungs=4, games=400, reps=1000, tie_rate=0.2) <= 0.065


def test_power_against_a_real_interaction():
    # the last seat's rate falls from 25% to 20% at the top rung (the others share the 5 points): with
    # 2,000 games per rung the test must find it in most ladders
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(200):
        table = np.array(
            [
                rng.multinomial(2000, [0.25] * 4),
                rng.multinomial(2000, [0.25] * 4),
                rng.multinomial(2000, [0.25 + 0.05 / 3] * 3 + [0.20]),
            ],
            dtype=float,
        )
        hits += seat_rung_test(table)["p"] < 0.05
    assert hits / 200 > 0.8


def test_g_test_equals_the_multinomial_logit_likelihood_ratio():
    # statsmodels' multinomial logit of the winning seat on the rung (dummies) against the intercept-only
    # model: its likelihood-ratio statistic is the G statistic of the rungs x seats table
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    rung = np.repeat([0, 1, 2], 300)
    probs = {0: [0.4, 0.35, 0.25], 1: [0.35, 0.35, 0.3], 2: [0.3, 0.3, 0.4]}
    seat = np.array([rng.choice(3, p=probs[r]) for r in rung])
    x = np.column_stack([np.ones(rung.size), rung == 1, rung == 2]).astype(float)
    full = sm.MNLogit(seat, x).fit(disp=False)
    null = sm.MNLogit(seat, x[:, :1]).fit(disp=False)
    table = np.array([[np.sum((rung == r) & (seat == s)) for s in range(3)] for r in range(3)], dtype=float)
    test = seat_rung_test(table)
    assert test["statistic"] == pytest.approx(2 * (full.llf - null.llf), rel=1e-6)
    assert test["df"] == 4


def _cell(rows):
    """A results table from (game_index, seat, agent, rank, win_share) rows."""
    return pl.DataFrame(rows, schema=["game_index", "seat", "agent", "rank", "win_share"], orient="row")


def test_lone_agent_rates_by_hand():
    # 4 two-player games of a against b, seats swapped each game: a wins game 0 (seat 1), loses game 1
    # (seat 2), draws game 2 (seat 1: half a win), wins game 3 (seat 2).
    # pooled (1 + 0 + 0.5 + 1) / 4 = 0.625; moving first (games 0, 2) 1.5 / 2; second (1, 3) 1 / 2
    df = _cell(
        [
            (0, 1, "a", 1, 1.0),
            (0, 2, "b", 2, 0.0),
            (1, 1, "b", 1, 1.0),
            (1, 2, "a", 2, 0.0),
            (2, 1, "a", 1, 0.5),
            (2, 2, "b", 1, 0.5),
            (3, 1, "b", 2, 0.0),
            (3, 2, "a", 1, 1.0),
        ]
    )
    r = lone_agent_rates(df, "a", 2)
    assert (r["games"], r["rate"]) == (4, 0.625)
    assert [(s["games"], s["rate"]) for s in r["by_seat"]] == [(2, 0.75), (2, 0.5)]
    assert r["ci_low"] < 0.625 < r["ci_high"]
    with pytest.raises(ValueError, match="exactly once"):
        lone_agent_rates(_cell([(0, 1, "a", 1, 1.0), (0, 2, "a", 2, 0.0)]), "a", 2)


def test_game_outcomes_by_hand():
    df = _cell([(0, 1, "a", 2, 0.0), (0, 2, "b", 1, 1.0), (1, 1, "b", 1, 0.5), (1, 2, "a", 1, 0.5)])
    assert game_outcomes(df, {"a": 0, "b": 1}) == [(((1, 0), 1.0),), (((0, 1), 0.5), ((1, 0), 0.5))]


def test_skill_depth_by_hand():
    # two players, the top rung wins 8 / 9: (8/9 - 1/2) / (1 - 1/2) = 7/9
    assert skill_depth(8 / 9, 0.8, 0.95, 2)["depth"] == pytest.approx(7 / 9)
    # four players, one top among three bottom wins 8 / 11: (8/11 - 1/4) / (3/4) = 7/11
    d = skill_depth(8 / 11, 0.6, 0.8, 4)
    assert d["depth"] == pytest.approx(7 / 11)
    assert d["ci_low"] == pytest.approx((0.6 - 0.25) / 0.75) and d["ci_high"] == pytest.approx((0.8 - 0.25) / 0.75)
    assert skill_depth(0.25, 0.2, 0.3, 4)["depth"] == 0.0  # the fair share: no skill shows


def test_seat_shift_words():
    # seat 4 moves from 21% to 16% at four players (fair share 25%): deficit 4 -> 9 points
    shift = seat_shift([[0.27, 0.26, 0.26, 0.21], [0.30, 0.28, 0.26, 0.16]], 0.25)
    assert (shift["seat"], round(shift["bottom"], 3), round(shift["top"], 3)) == (4, -0.04, -0.09)
    assert describe_shift(shift, "random", "mcts") == (
        "seat 4's deficit grows from 4.0 to 9.0 points below the fair share from random to mcts"
    )
    flip = seat_shift([[0.55, 0.45], [0.47, 0.53]], 0.5)
    assert describe_shift(flip, "a", "b") == (
        "seat 1 turns from an advantage of 5.0 points at a into a deficit of 3.0 points at b"
    )


def test_the_headline_names_a_middle_rung_that_holds_the_largest_seat_effect():
    from balancer.ladder.analysis import seat_sentence

    # Citywright's two-player ladder (1 Dec 2026): seat 1 at 46.3%, 39.6%, 46.7%, 47.1% by rung. From
    # bottom to top the seats' distance from the fair 50% shrinks from 3.7 to 2.9 points, but the
    # largest distance is at the second rung: 10.4 points (two seats are equally far: the first, seat
    # 1 at 39.6%, is named)
    rates = [[0.463, 0.537], [0.396, 0.604], [0.467, 0.533], [0.471, 0.529]]
    rungs = ["random", "mcts@100", "greedy", "commercial"]
    test = {"statistic": 30.9, "df": 3, "p": 1e-6, "rungs": 4, "seats": 2}
    text = seat_sentence(test, seat_shift(rates, 0.5), rungs[0], rungs[-1], rates, rungs)
    assert text.startswith(
        "Seat 2's advantage shrinks from 3.7 to 2.9 points above the fair share from random to commercial"
    )
    assert text.endswith(
        ". The largest distance from the fair share is at mcts@100: seat 1 at 39.6%, 10.4 points below it"
    )
    # when the extreme is at an end of the ladder, the bottom-to-top sentence already shows it
    ends = [[0.46, 0.54], [0.48, 0.52], [0.40, 0.60]]
    assert "largest distance" not in seat_sentence(test, seat_shift(ends, 0.5), "a", "c", ends, ["a", "b", "c"])


# --------------------------------------------------------------------------- issue 32: small counts, shared deals


def test_small_expected_counts_take_a_simulated_p_value():
    """[[3, 1], [0, 4]]: rows 4, 4, columns 3, 5, N 8, expected [[1.5, 2.5], [1.5, 2.5]] (below 5):
    the p-value is simulated under the pooled seat shares (3/8, 5/8), not the chi-square tail."""
    test = seat_rung_test([[3, 1], [0, 4]])
    assert test["min_expected"] == pytest.approx(1.5) and test["method"] == "simulated"
    assert 0.0 < test["p"] <= 1.0
    assert seat_rung_test([[3, 1], [0, 4]])["p"] == test["p"]  # seeded
    assert seat_rung_test([[30, 10], [20, 20]])["method"] == "chi-square"


def test_simulated_p_holds_its_level_at_small_counts():
    """500 null ladders of 3 rungs x 4 seats x 8 games (every expected count 2): the permutation
    p-value (exact in law, here from 1,000 shuffles) flags at most 5% + 3 standard errors
    (sqrt(0.05 x 0.95 / 500) = 0.0097)."""
    from balancer.stats.ladder import _g_statistics, simulated_g_p

    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(500):
        table = rng.multinomial(8, [0.25] * 4, size=3).astype(float)
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] < 2:
            continue
        g = float(_g_statistics(table))
        hits += simulated_g_p(table, g, tables=1000) < 0.05
    assert hits / 500 <= 0.05 + 3 * 0.0097


def test_shared_deals_make_the_test_conservative():
    """Rungs share their deals (one study seed): in each game the deal favours one seat, drawn
    uniformly, which wins with probability 0.5 at every rung, else a uniform seat wins. The seat
    probabilities are the same at every rung (no interaction), but the rows are positively dependent.
    Over 2,000 ladders (4 rungs x 4 seats x 400 games) the G-test flags at most 5% (it flags less:
    the rows differ less than independent ones)."""
    rng = np.random.default_rng(9)
    reps, rungs, games, seats = 2000, 4, 400, 4
    favoured = rng.integers(0, seats, (reps, 1, games))
    keep = rng.random((reps, rungs, games)) < 0.5
    winner = np.where(keep, favoured, rng.integers(0, seats, (reps, rungs, games)))
    tables = (winner[..., None] == np.arange(seats)).sum(axis=2).astype(float)
    p = [seat_rung_test(t)["p"] for t in tables]
    assert np.mean(np.array(p) < 0.05) <= 0.05
