"""Intervals of a skewed per-game metric (issue 51, item 1): the studentized bootstrap over games.

The synthetic truth: 4 seats a game, seat j of game g has metric exp(sigma (sqrt(rho) z_g + sqrt(1 - rho)
e_gj)) with z_g, e_gj standard normal: log-normal per seat, correlation rho between the logs of one game's
seats (the game-level correlation), so the mean per player is exp(sigma^2 / 2) by construction. With
sigma = 1 and rho = 0.8 the per-game mean has skewness about 4.9; the t interval covers 0.90 at 30 games and
0.92 at 60 (1,500 replicates each; the statistician's re-check found 0.86 and 0.90 on a similar metric), so
the coverage tests below fail on the t interval (checked: below the 0.928 floor at both sizes).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import special

from balancer.stats import bootstrap
from balancer.stats.aggregate import summary_of

SIGMA, RHO, SEATS = 1.0, 0.8, 4
TRUTH = math.exp(SIGMA**2 / 2)  # the mean of a log-normal(0, sigma^2)
REPLICATES = 300
# 95% within Monte Carlo error: 3 binomial standard errors of 300 replicates (0.0126 each) either side
FLOOR, CEILING = 0.95 - 3 * 0.0126, 0.95 + 3 * 0.0126


def _skewed_games(rng: np.random.Generator, replicates: int, games: int) -> np.ndarray:
    """(replicates, games, seats) metric values of the synthetic truth above."""
    z = rng.standard_normal((replicates, games, 1))
    e = rng.standard_normal((replicates, games, SEATS))
    return np.exp(SIGMA * (math.sqrt(RHO) * z + math.sqrt(1 - RHO) * e))


def _t_interval(s: np.ndarray, k: np.ndarray) -> tuple[float, float]:
    """The clustered t interval of the summaries before issue 51 (same k in every game: t over game means)."""
    g = s.size
    r = s.sum() / k.sum()
    se = math.sqrt(g / (g - 1) * np.square(s - r * k).sum()) / k.sum()
    t = float(special.stdtrit(g - 1, 0.975))
    return r - t * se, r + t * se


@pytest.mark.parametrize("games", [30, 60])
def test_bootstrap_t_covers_a_skewed_correlated_metric(games: int) -> None:
    x = _skewed_games(np.random.default_rng(51 + games), REPLICATES, games)
    s, k = x.sum(axis=2), np.full((REPLICATES, games), float(SEATS))
    hits = t_hits = 0
    for r in range(REPLICATES):
        low, high = bootstrap.studentized_ratio_interval(s[r], k[r], 0.95, seed=r)
        hits += low <= TRUTH <= high
        t_low, t_high = _t_interval(s[r], k[r])
        t_hits += t_low <= TRUTH <= t_high
    coverage, t_coverage = hits / REPLICATES, t_hits / REPLICATES
    assert FLOOR <= coverage <= CEILING, (coverage, t_coverage)
    assert t_coverage < FLOOR  # the synthetic metric is skewed enough to defeat the t interval


def _reference_bootstrap_t(s: np.ndarray, k: np.ndarray, idx: np.ndarray, confidence: float) -> tuple[float, float]:
    """The bootstrap-t written out resample by resample (Efron & Tibshirani 1993, eq. 12.22), on given indices."""
    g = s.size

    def ratio_se(ss: np.ndarray, kk: np.ndarray) -> tuple[float, float]:
        r = ss.sum() / kk.sum()
        return r, math.sqrt(g / (g - 1) * sum((a - r * b) ** 2 for a, b in zip(ss, kk, strict=True))) / kk.sum()

    r, se = ratio_se(s, k)
    t = [(rb - r) / seb for rb, seb in (ratio_se(s[i], k[i]) for i in idx)]
    q_lo, q_hi = np.quantile(t, [(1 - confidence) / 2, (1 + confidence) / 2])
    return r - q_hi * se, r - q_lo * se


@pytest.mark.parametrize("case", range(3))
def test_vectorised_bootstrap_equals_the_loop_written_out(case: int) -> None:
    # unequal player counts per game (k of 2 to 4) exercise the ratio form, not only a mean of game means
    rng = np.random.default_rng(case)
    games = 25 + 10 * case
    k = rng.integers(2, 5, games).astype(float)
    s = np.exp(rng.standard_normal(games)) * k
    name = f"metric_{case}"
    low, high = bootstrap.studentized_ratio_interval(s, k, 0.9, resamples=199, seed=name)
    # the same draws as the function makes: its generator, one block of 199 x games indices
    import zlib

    gen = np.random.default_rng([bootstrap.SEED, zlib.crc32(name.encode())])
    idx = gen.integers(0, games, size=(199, games), dtype=np.intp)
    assert (low, high) == pytest.approx(_reference_bootstrap_t(s, k, idx, 0.9), rel=1e-12)


def test_bootstrap_t_is_near_the_t_interval_for_a_symmetric_metric() -> None:
    # for normal per-game values the studentized ratio is t-distributed: the bootstrap's quantiles match t's
    rng = np.random.default_rng(7)
    s, k = rng.normal(10.0, 2.0, 400) * 4, np.full(400, 4.0)
    low, high = bootstrap.studentized_ratio_interval(s, k, 0.95, seed="m")
    t_low, t_high = _t_interval(s, k)
    half = (t_high - t_low) / 2
    assert abs(low - t_low) < 0.1 * half and abs(high - t_high) < 0.1 * half


def test_degenerate_samples() -> None:
    assert all(math.isnan(v) for v in bootstrap.studentized_ratio_interval(np.array([1.0]), np.array([1.0])))
    # every game gives the same ratio: se = 0, the interval is the point
    assert bootstrap.studentized_ratio_interval(np.full(30, 8.0), np.full(30, 4.0)) == (2.0, 2.0)


def _results(x: np.ndarray) -> pl.DataFrame:
    """A results table of one replicate's (games, seats) metric values (every game won by seat 1)."""
    games, seats = x.shape
    return pl.DataFrame(
        {
            "game_index": np.repeat(np.arange(games), seats),
            "seat": np.tile(np.arange(1, seats + 1), games),
            "agent": ["greedy"] * (games * seats),
            "score": np.zeros(games * seats, dtype=np.int64),
            "win_share": np.tile([1.0] + [0.0] * (seats - 1), games),
            "metric_waste": x.ravel(),
        }
    )


@pytest.mark.parametrize("games", [bootstrap.MIN_GAMES, 60, bootstrap.MAX_GAMES])
def test_summary_uses_the_bootstrap_from_min_to_max_games(games: int) -> None:
    x = _skewed_games(np.random.default_rng(games), 1, games)[0]
    row = summary_of(_results(x), {"n_players": SEATS}).metrics["waste_per_player"]
    expected = bootstrap.studentized_ratio_interval(x.sum(axis=1), np.full(games, 4.0), 0.95, seed="metric_waste")
    assert (row.ci_low, row.ci_high) == pytest.approx(expected, rel=1e-9)  # per-game sums in float, not decimal
    assert row.mean == pytest.approx(x.mean(), rel=1e-9) and row.games == games


@pytest.mark.parametrize("games", [bootstrap.MIN_GAMES - 1, bootstrap.MAX_GAMES + 1])
def test_summary_uses_the_t_interval_outside(games: int) -> None:
    x = _skewed_games(np.random.default_rng(games), 1, games)[0]
    row = summary_of(_results(x), {"n_players": SEATS}).metrics["waste_per_player"]
    assert (row.ci_low, row.ci_high) == pytest.approx(_t_interval(x.sum(axis=1), np.full(games, 4.0)), rel=1e-9)


def test_summary_interval_does_not_depend_on_row_order() -> None:
    x = _skewed_games(np.random.default_rng(3), 1, 40)[0]
    df = _results(x)
    a = summary_of(df, {"n_players": SEATS}).metrics["waste_per_player"]
    b = summary_of(df.sample(fraction=1.0, shuffle=True, seed=1), {"n_players": SEATS}).metrics["waste_per_player"]
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
