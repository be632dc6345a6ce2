"""Paired differences of two results tables, on tables built by hand."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from balancer.stats.paired import (
    IDENTICAL,
    PAIRED_TEST,
    SIGN_TEST,
    WELCH_TEST,
    adjust_family,
    holm_adjust,
    paired_differences,
    paired_test,
    sign_test_p,
    welch_test,
)

T_975_2 = 4.302652729911275  # Student t, 2 degrees of freedom, 97.5% quantile (printed tables: 4.303)


def table(
    win_share: list[float], metric: list[float], *, agents: list[str] | None = None, games: int = 3, n_players: int = 2
) -> pl.DataFrame:
    """``games`` games x 2 seats, rows in (game, seat) order; agents x, y rotate every game."""
    rows = games * n_players
    gi = [g for g in range(games) for _ in range(n_players)]
    seat = [s for _ in range(games) for s in range(1, n_players + 1)]
    names = ["x", "y", "z"][:n_players]
    if agents is None:
        agents = [names[(s - 1 + g) % n_players] for g, s in zip(gi, seat)]
    return pl.DataFrame(
        {
            "variant": ["v"] * rows,
            "game": ["toy"] * rows,
            "n_players": [n_players] * rows,
            "game_index": gi,
            "seed": [1] * rows,
            "seat": seat,
            "agent": agents,
            "score": [10] * rows,
            "rank": [1] * rows,
            "win_share": [float(w) for w in win_share],
            "turns": [12] * rows,
            "score_x": [7, 3] * games if n_players == 2 else [7] * rows,
            "metric_m": [float(v) for v in metric],
        }
    )


# Three games, two seats. Agents rotate: game 0 x|y, game 1 y|x, game 2 x|y.
#
#   seat 1 win share  A: 1, 0, 1/2     B: 1, 1, 1/2    (game 1 flips from seat 2 to seat 1)
#   metric_m (seat 1, seat 2) A: (2,4) (1,1) (0,2) -> per-game means 3, 1, 1
#                             B: (3,5) (3,3) (6,8) -> per-game means 4, 3, 7
A = table([1, 0, 0, 1, 0.5, 0.5], [2, 4, 1, 1, 0, 2])
B = table([1, 0, 1, 0, 0.5, 0.5], [3, 5, 3, 3, 6, 8])


def by_name(rows: list[dict], name: str) -> dict:
    return next(r for r in rows if r["name"] == name)


def test_three_game_example_by_hand():
    """Hand derivation, n = 3 games, t interval with n - 1 = 2 df.

    metric_m: per-game differences d = 4-3, 3-1, 7-1 = 1, 2, 6. mean = 3.
        deviations -2, -1, 3 -> sum of squares 14 -> variance 14/2 = 7, SD = sqrt(7) = 2.6458.
        SE = sqrt(7/3) = 1.5275; half-width = 4.3027 * 1.5275 = 6.5724 -> CI [-3.572, 9.572].
        t = 3 / sqrt(7/3) = sqrt(27/7) = 1.9640; with 2 df the two-sided p is 1 - t/sqrt(t^2 + 2)
        = 1 - sqrt(27/41) = 0.18850. from = (3+1+1)/3 = 5/3, to = (4+3+7)/3 = 14/3.
    seat 1 win rate: d = 0, 1, 0. mean 1/3, deviations -1/3, 2/3, -1/3 -> SS 2/3 -> var 1/3,
        SE = sqrt(1/9) = 1/3, CI = 1/3 +- 4.3027/3 = [-1.0009, 1.6676]; t = 1,
        p = 1 - 1/sqrt(3) = 0.42265. from 1/2, to 5/6.
    agent x: per-game win share A 1 (seat 1), 1 (seat 2 in game 1), 1/2; B 1, 0, 1/2 -> d = 0, -1, 0,
        mean -1/3, same SD and p as seat 1, CI [-1.6676, 1.0009].
    Winner set: only game 1 changes (seat 2 -> seat 1).
    (sparse_games=0 keeps the t-test on these 3 games; by default, with fewer than 30 games that
    differ, a row takes the exact sign test: see test_sparse_rows_take_the_sign_test.)
    """
    r = paired_differences(A, B, sparse_games=0)
    assert r["paired"] and r["games_paired"] == 3 and r["outcome_changed_games"] == 1

    m = by_name(r["metrics"], "m")
    assert m["test"] == PAIRED_TEST
    assert m["from"] == pytest.approx(5 / 3) and m["to"] == pytest.approx(14 / 3)
    assert m["difference"] == pytest.approx(3.0)
    half = T_975_2 * math.sqrt(7 / 3)
    assert half == pytest.approx(6.5724, abs=1e-4)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx((3 - half, 3 + half))
    assert m["p_value"] == pytest.approx(1 - math.sqrt(27 / 41))
    assert m["p_value"] == pytest.approx(0.18850, abs=1e-5)
    assert m["significant"] is False

    s1 = by_name(r["seat_win_rate"], "seat 1")
    assert (s1["from"], s1["to"], s1["difference"]) == pytest.approx((0.5, 5 / 6, 1 / 3))
    assert (s1["ci_low"], s1["ci_high"]) == pytest.approx((1 / 3 - T_975_2 / 3, 1 / 3 + T_975_2 / 3))
    assert s1["p_value"] == pytest.approx(1 - 1 / math.sqrt(3))
    s2 = by_name(r["seat_win_rate"], "seat 2")
    assert s2["difference"] == pytest.approx(-1 / 3)

    x = by_name(r["agent_win_rate"], "x")
    assert (x["from"], x["to"], x["difference"]) == pytest.approx((5 / 6, 0.5, -1 / 3))
    assert (x["ci_low"], x["ci_high"]) == pytest.approx((-1 / 3 - T_975_2 / 3, -1 / 3 + T_975_2 / 3))

    # score_x and the total score do not change: exactly 0 in every game.
    sx = by_name(r["score"], "x")
    assert sx["test"] == IDENTICAL and sx["difference"] == 0.0 and sx["p_value"] == 1.0
    assert r["identical"] is False


def test_matches_scipy_ttest_rel_and_its_interval():
    a, b = [3.0, 1.0, 1.0], [4.0, 3.0, 7.0]
    mine = paired_test(a, b, sparse_games=0)
    ref = stats.ttest_rel(b, a)
    ci = ref.confidence_interval(0.95)
    assert mine["p_value"] == pytest.approx(ref.pvalue)
    assert (mine["ci_low"], mine["ci_high"]) == pytest.approx((ci.low, ci.high))


def test_identical_tables_give_exact_zero_everywhere():
    r = paired_differences(A, A.lazy())
    assert r["paired"] and r["identical"] and r["outcome_changed_games"] == 0 and r["turns_changed_games"] == 0
    rows = r["seat_win_rate"] + r["agent_win_rate"] + r["score"] + r["metrics"]
    assert len(rows) == 2 + 2 + 2 + 2  # seats 1-2, agents x-y, total + x, metric m + turns
    for row in rows:
        assert row["difference"] == 0.0 and row["ci_low"] == 0.0 and row["ci_high"] == 0.0
        assert row["p_value"] == 1.0 and row["test"] == IDENTICAL and row["significant"] is False
        assert row["from"] == row["to"]


def test_incomplete_join_falls_back_to_welch():
    b2 = B.filter(pl.col("game_index") < 2)  # game 2 missing in B
    r = paired_differences(A, b2)
    assert r["paired"] is False and "do not hold the same games" in r["pairing"]
    assert r["outcome_changed_games"] is None and r["games_paired"] == 0
    m = by_name(r["metrics"], "m")
    assert m["test"] == WELCH_TEST and m["paired"] is False
    # per-game means A: 3, 1, 1; B: 4, 3
    ref = stats.ttest_ind([4.0, 3.0], [3.0, 1.0, 1.0], equal_var=False)
    ci = ref.confidence_interval(0.95)
    assert m["difference"] == pytest.approx(3.5 - 5 / 3)
    assert m["p_value"] == pytest.approx(ref.pvalue)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert (m["n_a"], m["n_b"]) == (3, 2)


def test_different_player_counts_fall_back_to_welch():
    c = table([1, 0, 0] * 3, [1.0] * 9, n_players=3)
    r = paired_differences(A, c)
    assert r["paired"] is False and "player counts differ" in r["pairing"]
    assert all(
        row["test"].startswith(WELCH_TEST) or row["test"].startswith("not compared")
        for row in r["seat_win_rate"] + r["metrics"]
    )
    seat3 = by_name(r["seat_win_rate"], "seat 3")
    assert seat3["difference"] is None and seat3["test"] == "not compared: no values in A"


def test_different_agents_by_seat_fall_back_to_welch():
    swapped = table([1, 0, 0, 1, 0.5, 0.5], [2, 4, 1, 1, 0, 2], agents=["y", "x"] * 3)
    r = paired_differences(A, swapped)
    assert r["paired"] is False and "agents by seat differ in 2 games" in r["pairing"]
    assert by_name(r["agent_win_rate"], "x")["test"] == WELCH_TEST


def test_constant_nonzero_difference_and_welch_edge_cases():
    r = paired_test([1, 2, 3], [2, 3, 4], sparse_games=0)
    assert (r["difference"], r["ci_low"], r["ci_high"], r["p_value"]) == (1.0, 1.0, 1.0, 0.0)
    assert r["significant"] is True
    # by default 3 games that differ take the sign test: 3 of 3 up, p = 2 / 2^3 = 0.25
    r = paired_test([1, 2, 3], [2, 3, 4])
    assert r["test"] == SIGN_TEST and r["p_value"] == pytest.approx(0.25) and r["significant"] is False
    one = paired_test([1.0], [3.0])
    assert one["difference"] == 2.0 and one["ci_low"] is None and one["p_value"] is None
    w = welch_test([2, 2], [2, 2, 2])
    assert (w["difference"], w["ci_low"], w["ci_high"], w["p_value"]) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        paired_test([1, 2], [1])


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="lacks required column"):
        paired_differences(A.drop("agent"), B)
    with pytest.raises(ValueError, match="more than one row"):
        paired_differences(pl.concat([A, A]), B)
    with pytest.raises(ValueError, match="empty"):
        paired_differences(A.head(0), B)


def test_result_is_strict_json():
    import json

    json.dumps(paired_differences(A, B), allow_nan=False)
    assert np.isfinite(paired_differences(A, B)["metrics"][0]["difference"])


def test_a_mirror_table_has_no_agent_win_rates_to_compare():
    # one agent in both seats: its win rate is 1/2 in every game by construction, so a compare row
    # for it could only read "50% -> 50%"; the seats are still compared
    a = table([1, 0, 0, 1, 0.5, 0.5], [2, 4, 1, 1, 0, 2], agents=["x"] * 6)
    b = table([1, 0, 1, 0, 0.5, 0.5], [3, 5, 3, 3, 6, 8], agents=["x"] * 6)
    r = paired_differences(a, b)
    assert r["agent_win_rate"] == []
    assert [row["name"] for row in r["seat_win_rate"]] == ["seat 1", "seat 2"]


# --------------------------------------------------------------------------- issue 32: sparse rows, many rows


def test_sparse_rows_take_the_sign_test() -> None:
    """4 of 2,000 games changed by +1: the t-test gives p = 0.045 (d has mean 0.002, sd
    sqrt((4 - 2000 * 0.002^2) / 1999) = 0.044710, t = 0.002 / (0.044710 / sqrt(2000)) = 2.0005);
    the exact sign test 4 of 4 up gives p = 2 / 2^4 = 0.125, not significant."""
    a = np.zeros(2000)
    b = a.copy()
    b[:4] = 1.0
    t = paired_test(a, b, sparse_games=0)
    assert t["p_value"] == pytest.approx(0.0455, abs=5e-4) and t["significant"] is True
    r = paired_test(a, b)
    assert r["test"] == SIGN_TEST and r["games_changed"] == 4
    assert r["p_value"] == pytest.approx(0.125) and r["significant"] is False
    assert sign_test_p(np.array([0.0, 0.0])) == 1.0


@pytest.mark.parametrize("changed", [4, 8, 20])
def test_sparse_false_flag_rate_at_most_5_percent(changed: int) -> None:
    """Nothing changed in law: each of ``changed`` games of 2,000 moves by +1 or -1 with probability
    1/2 (truth: no difference). The t-test flagged 12.9% of such rows at 4 games; the sign test's
    size is at most 5% by construction (exactly 2/2^8 = 0.0078 at 8 games), so 2,000 replicates stay
    below 5%."""
    rng = np.random.default_rng(32)
    flags = 0
    a = np.zeros(2000)
    for _ in range(2000):
        b = a.copy()
        b[:changed] = rng.choice([-1.0, 1.0], changed)
        flags += paired_test(a, b)["significant"]
    assert flags / 2000 <= 0.05


def test_holm_matches_statsmodels() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = [0.01, 0.04, 0.03, 0.005, 0.5, None, 0.04]
    ref = multitest.multipletests([x for x in p if x is not None], method="holm")[1]
    mine = holm_adjust(p)
    assert mine[5] is None
    assert [x for x in mine if x is not None] == pytest.approx(list(ref))
    # by hand: sorted 0.005, 0.01, 0.03, 0.04, 0.04, 0.5 (m = 6) -> 0.03, 0.05, 0.12, 0.12, 0.12, 0.5
    assert mine[:5] == pytest.approx([0.05, 0.12, 0.12, 0.03, 0.5])


def test_family_wise_false_flags_at_most_5_percent() -> None:
    """16 rows of an unchanged variant (per-game differences N(0, 1), 50 games, truth 0; the t-test
    is exact here). Flagging each row at 5% flags some row in 1 - 0.95^16 = 56% of comparisons;
    flagged on Holm-adjusted p-values, in 1 - (1 - 0.05/16)^16 = 4.9% (Holm's bound: at most 5%).
    5,000 comparisons: simulation error sqrt(0.05 * 0.95 / 5000) = 0.31%, so the measured rate must
    lie below 5% + 2 standard errors = 5.6%."""
    rng = np.random.default_rng(3)
    d = rng.normal(0.0, 1.0, (5000, 16, 50))
    p = stats.ttest_1samp(d, 0.0, axis=2).pvalue
    any_alone = any_holm = 0
    for row_p in p:
        rows = [{"p_value": float(x), "significant": bool(x < 0.05), "identical": False} for x in row_p]
        family = adjust_family(rows, 0.95)
        assert family == {"method": "Holm", "family_size": 16, "alpha": pytest.approx(0.05)}
        any_alone += any(r["significant_alone"] for r in rows)
        any_holm += any(r["significant"] for r in rows)
    assert any_alone / 5000 > 0.4
    assert any_holm / 5000 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 5000)


def test_comparison_states_its_family() -> None:
    """Rows identical in every game are exact, not tested: the family of A -> B is every other row."""
    r = paired_differences(A, B)
    rows = r["seat_win_rate"] + r["agent_win_rate"] + r["score"] + r["metrics"]
    assert r["multiplicity"]["method"] == "Holm"
    assert r["multiplicity"]["family_size"] == sum(not x["identical"] for x in rows)
    assert all("p_adjusted" in x and "significant_alone" in x for x in rows)
