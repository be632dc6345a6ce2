"""Win rate with and without a 0/1 per-seat indicator: hand-computed values, games as clusters."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from balancer.stats import summarize
from balancer.stats.association import (
    difference_interval,
    difference_p_value,
    indicator_columns,
    indicator_win_rates,
)
from balancer.stats.paired import holm_adjust


def clustered() -> pl.DataFrame:
    """4 games x 2 seats, indicator ``metric_took`` (``metric_count`` is a count, not an indicator).

    game 0: seat 1 took=1 wins;  seat 2 took=0
    game 1: seat 1 took=1 wins;  seat 2 took=0
    game 2: seat 1 took=1 wins;  seat 2 took=1
    game 3: seat 1 took=0, seat 2 took=0, a shared win (1/2 each)
    """
    return pl.DataFrame(
        {
            "game_index": [0, 0, 1, 1, 2, 2, 3, 3],
            "seat": [1, 2] * 4,
            "agent": ["a", "b"] * 4,
            "score": [1] * 8,
            "win_share": [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.5, 0.5],
            "metric_took": [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0],
            "metric_count": [1.0, 0.0, 2.0, 0.0, 1.0, 1.0, 0.0, 0.0],
        }
    )


def wilson(p: float, n: float) -> tuple[float, float]:
    """Wilson's score interval written out (z = 1.959964), for fractional n as well."""
    z = stats.norm.ppf(0.975)
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    return centre - half, centre + half


def test_counts_rates_design_effects_and_difference_by_hand() -> None:
    # with (took=1): g0 1, g1 1, g2 1 + 0 -> K1 = 4 players, S1 = 3 wins, r1 = 3/4
    # without (0):   g0 0, g1 0, g3 1/2 + 1/2 -> K0 = 4, S0 = 1, r0 = 1/4; d = 1/2
    # per game (s1, k1; s0, k0): g0 (1,1; 0,1) g1 (1,1; 0,1) g2 (1,2; 0,0) g3 (0,0; 1,2)
    # residuals e1 = (s1 - r1 k1)/K1: 1/16, 1/16, -1/8, 0;  e0 = (s0 - r0 k0)/K0: -1/16, -1/16, 0, 1/8
    # G = 4 games, factor G/(G-1) = 4/3:
    #   V1 = 4/3 (1/256 + 1/256 + 1/64) = 1/32;  V0 = 1/32 likewise
    #   cov = 4/3 (-1/256 - 1/256) = -1/96;  rho = cov / sqrt(V1 V0) = -1/3
    # binomial variance r(1-r)/K = 3/64 for both, so deff = (1/32) / (3/64) = 2/3, n_eff = 4 / (2/3) = 6
    # Wilson(0.75, n=6) = (0.364823, 0.940010); Wilson(0.25, 6) = (0.059990, 0.635177)
    # a = r1 - l1 = b = u0 - r0 = 0.385177: low  = 0.5 - a sqrt(2 + 2/3) = -0.128992
    # c = u1 - r1 = e = r0 - l0 = 0.190010: high = 0.5 + c sqrt(8/3)     =  0.810286
    rows = indicator_win_rates(clustered())
    assert [r["indicator"] for r in rows] == ["took"]
    r = rows[0]
    assert (r["games"], r["players_1"], r["wins_1"], r["players_0"], r["wins_0"]) == (4, 4, 3.0, 4, 1.0)
    assert r["rate_1"] == 0.75 and r["rate_0"] == 0.25 and r["difference"] == 0.5
    assert r["design_effect_1"] == pytest.approx(2 / 3) and r["design_effect_0"] == pytest.approx(2 / 3)
    assert r["correlation"] == pytest.approx(-1 / 3)
    assert (r["ci_low_1"], r["ci_high_1"]) == pytest.approx((0.364823, 0.940010), abs=2e-6)
    assert (r["ci_low_0"], r["ci_high_0"]) == pytest.approx((0.059990, 0.635177), abs=2e-6)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((-0.128992, 0.810286), abs=2e-6)


def test_newcombe_hybrid_score_interval_matches_the_published_examples() -> None:
    # Newcombe (1998), Stat. Med. 17:873, Table II, method 10 (score, no continuity correction)
    for (x1, n1, x0, n0), expected in [
        ((56, 70, 48, 80), (0.0524, 0.3339)),
        ((5, 56, 0, 29), (-0.0381, 0.1926)),
        ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ]:
        ci1 = stats.binomtest(x1, n1).proportion_ci(method="wilson")
        ci0 = stats.binomtest(x0, n0).proportion_ci(method="wilson")
        got = difference_interval(x1 / n1, (ci1.low, ci1.high), x0 / n0, (ci0.low, ci0.high))
        assert got == pytest.approx(expected, abs=5e-5)


def test_difference_interval_with_a_correlation_against_the_formula() -> None:
    # scipy's Wilson intervals for 30/50 and 20/60, combined by hand with rho = -0.5:
    # low = d - sqrt(a^2 + b^2 + a b), high = d + sqrt(c^2 + e^2 + c e)
    ci1 = stats.binomtest(30, 50).proportion_ci(method="wilson")
    ci0 = stats.binomtest(20, 60).proportion_ci(method="wilson")
    p1, p0 = 0.6, 1 / 3
    a, b, c, e = p1 - ci1.low, ci0.high - p0, ci1.high - p1, p0 - ci0.low
    expected = (p1 - p0 - math.sqrt(a * a + b * b + a * b), p1 - p0 + math.sqrt(c * c + e * e + c * e))
    got = difference_interval(p1, (ci1.low, ci1.high), p0, (ci0.low, ci0.high), rho=-0.5)
    assert got == pytest.approx(expected, rel=1e-12)
    # a negative correlation widens the interval, and rho = 0 is narrower
    plain = difference_interval(p1, (ci1.low, ci1.high), p0, (ci0.low, ci0.high))
    assert got[0] < plain[0] and got[1] > plain[1]


def test_without_clusters_it_is_newcombe_up_to_the_small_sample_factor() -> None:
    # no game_index: every row its own game, so rho = 0 and, for 0/1 outcomes, deff = G/(G-1) exactly
    # (V1 = G/(G-1) * K1 r1 (1-r1) / K1^2); 12 rows, 5 with the indicator (3 wins), 7 without (1 win)
    flag = [1] * 5 + [0] * 7
    wins = [1, 1, 1, 0, 0] + [1, 0, 0, 0, 0, 0, 0]
    df = pl.DataFrame(
        {
            "seat": [1] * 12,
            "agent": ["a"] * 12,
            "score": [0] * 12,
            "win_share": [float(w) for w in wins],
            "metric_flag": [float(f) for f in flag],
        }
    )
    r = indicator_win_rates(df)[0]
    assert r["correlation"] == 0.0
    assert r["design_effect_1"] == pytest.approx(12 / 11) and r["design_effect_0"] == pytest.approx(12 / 11)
    l1, u1 = wilson(3 / 5, 5 * 11 / 12)
    l0, u0 = wilson(1 / 7, 7 * 11 / 12)
    assert (r["ci_low_1"], r["ci_high_1"]) == pytest.approx((l1, u1), rel=1e-9)
    a, b, c, e = 3 / 5 - l1, u0 - 1 / 7, u1 - 3 / 5, 1 / 7 - l0
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(
        (3 / 5 - 1 / 7 - math.hypot(a, b), 3 / 5 - 1 / 7 + math.hypot(c, e)), rel=1e-9
    )


def test_which_columns_are_indicators() -> None:
    df = clustered().with_columns(
        pl.lit(0.0).alias("metric_never"),  # constant: compares nothing
        pl.Series("metric_flag", [True, False] * 4),  # booleans count
        pl.Series("metric_gaps", [1.0, None, 0.0, float("nan"), 1.0, 0.0, 0.0, 1.0]),  # missing values skipped
        pl.Series("metric_half", [0.5, 0.0] * 4),  # a fraction is not 0/1
        pl.Series("metric_name", ["1", "0"] * 4),  # not numeric
        pl.Series("score_bonus", [1, 0] * 4),  # not a metric
    )
    assert indicator_columns(df) == ["metric_took", "metric_flag", "metric_gaps"]
    assert indicator_columns(df.drop("metric_took", "metric_flag", "metric_gaps")) == []
    assert indicator_win_rates(df.drop("metric_took", "metric_flag", "metric_gaps")) == []


def test_row_order_does_not_change_the_result() -> None:
    df = clustered()
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=11)
    assert indicator_win_rates(shuffled.lazy()) == indicator_win_rates(df)


def test_summary_carries_the_indicators() -> None:
    s = summarize(clustered(), {"n_players": 2, "game": "toy", "variant": "v", "seed": 1})
    assert [r["indicator"] for r in s["indicators"]] == ["took"]
    assert s["indicators"][0]["difference"] == 0.5
    assert summarize(clustered().drop("metric_took"), {"n_players": 2})["indicators"] == []


def test_p_value_inverts_the_difference_interval() -> None:
    # p is 1 - c for the confidence c whose interval just reaches 0: recomputing the whole
    # comparison at c = 1 - p must put the interval's low end at 0 (difference +0.5, so the low
    # end is the one that crosses), and any lower confidence excludes 0
    r = indicator_win_rates(clustered())[0]
    p = r["p_value"]
    assert 0.05 < p < 1.0 and r["significant_alone"] is False  # the 95% interval holds 0 (hand test above)
    at_p = indicator_win_rates(clustered(), confidence=1.0 - p)[0]
    assert at_p["ci_low"] == pytest.approx(0.0, abs=1e-9)
    assert indicator_win_rates(clustered(), confidence=1.0 - p - 0.01)[0]["ci_low"] > 0.0


def test_holm_over_the_indicators_of_a_run() -> None:
    # two indicators: "took" and its complement "left" (same |difference|, the same p); Holm's
    # adjusted p of two equal p-values is 2p (both ranks give min(1, 2p)), a family of 2
    df = clustered().with_columns((1.0 - pl.col("metric_took")).alias("metric_left"))
    rows = indicator_win_rates(df)
    took, left = rows
    assert took["p_value"] == pytest.approx(left["p_value"], rel=1e-9)
    assert took["p_adjusted"] == pytest.approx(min(1.0, 2 * took["p_value"]), rel=1e-9)
    summary = summarize(df, {"n_players": 2})
    assert summary["indicator_multiplicity"] == {"method": "Holm", "family_size": 2, "alpha": pytest.approx(0.05)}
    assert [r["p_adjusted"] for r in summary["indicators"]] == pytest.approx([took["p_adjusted"], left["p_adjusted"]])
    # the existing keys stay
    assert {"difference", "ci_low", "ci_high", "correlation", "rate_1", "rate_0"} <= set(summary["indicators"][0])


def test_no_multiplicity_block_without_indicators() -> None:
    assert "indicator_multiplicity" not in summarize(clustered().drop("metric_took"), {"n_players": 2})


def _simulated_p_values(rng: np.random.Generator, reps: int, games: int, seats: int, probs: list[float]) -> np.ndarray:
    """p-values (reps x indicators) of runs where nothing goes with winning: one winner per game,
    uniform over the seats; indicator j is 1 for a player with probability probs[j], independent
    of the win. The comparison's sums (module docstring of balancer.stats.association), vectorised."""
    winner = rng.integers(0, seats, size=(reps, games))
    win = (np.arange(seats) == winner[..., None]).astype(float)  # reps x games x seats
    x = rng.random((reps, len(probs), games, seats)) < np.array(probs)[None, :, None, None]
    w = win[:, None]  # reps x 1 x games x seats
    s1, k1 = (w * x).sum(-1), x.sum(-1).astype(float)
    s0, k0 = (w * ~x).sum(-1), (~x).sum(-1).astype(float)
    S1, K1, S0, K0 = s1.sum(-1), k1.sum(-1), s0.sum(-1), k0.sum(-1)
    r1, r0 = S1 / K1, S0 / K0
    e1 = (s1 - r1[..., None] * k1) / K1[..., None]
    e0 = (s0 - r0[..., None] * k0) / K0[..., None]
    c = games / (games - 1)
    v1, v0, cov = c * (e1 * e1).sum(-1), c * (e0 * e0).sum(-1), c * (e1 * e0).sum(-1)
    deff1 = v1 / (r1 * (1 - r1) / K1)
    deff0 = v0 / (r0 * (1 - r0) / K0)
    rho = np.clip(cov / np.sqrt(v1 * v0), -1.0, 1.0)
    return difference_p_value(r1, K1 / deff1, r0, K0 / deff0, rho)


def test_simulated_p_values_match_the_library_on_one_run() -> None:
    # the vectorised sums above are the library's: one replicate, through indicator_win_rates
    rng = np.random.default_rng(3)
    p = _simulated_p_values(rng, 1, 60, 4, [0.3, 0.5])
    rng = np.random.default_rng(3)
    winner = rng.integers(0, 4, size=(1, 60))
    x = rng.random((1, 2, 60, 4)) < np.array([0.3, 0.5])[None, :, None, None]
    df = pl.DataFrame(
        {
            "game_index": np.repeat(np.arange(60), 4),
            "seat": np.tile(np.arange(1, 5), 60),
            "agent": ["a"] * 240,
            "score": [0] * 240,
            "win_share": (np.arange(4) == winner[0][:, None]).astype(float).ravel(),
            "metric_one": x[0, 0].astype(float).ravel(),
            "metric_two": x[0, 1].astype(float).ravel(),
        }
    )
    assert [r["p_value"] for r in indicator_win_rates(df)] == pytest.approx(list(p[0]), rel=1e-6)


def test_family_wise_false_flag_rate_with_no_true_association() -> None:
    # 2,000 simulated runs of 200 four-player games with 5 indicators unrelated to winning: a run
    # with any flag is a false flag. Holm keeps it at or below 5% (simulation SE ~0.5 points);
    # flagging each indicator at 5% on its own flags about 1 - 0.95^5 = 23% of runs
    rng = np.random.default_rng(20261202)
    p = _simulated_p_values(rng, 2000, 200, 4, [0.15, 0.3, 0.45, 0.6, 0.75])
    alone = (p < 0.05).any(axis=1).mean()
    adjusted = np.array([holm_adjust(list(row)) for row in p], dtype=float)
    family = (adjusted < 0.05).any(axis=1).mean()
    assert alone > 0.15  # the adjustment is needed: the test could fail without it
    assert family <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 2000)
