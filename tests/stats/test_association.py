"""Win rate with and without a 0/1 per-seat indicator: hand-computed values, games as clusters."""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy import stats

from balancer.stats import summarize
from balancer.stats.association import difference_interval, indicator_columns, indicator_win_rates


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
