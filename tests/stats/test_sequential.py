"""The group-sequential test of balancer.stats.sequential: spending functions, boundaries, and its
error rates measured by simulation (numpy draws of win/loss and of fractional win shares)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from balancer.stats import sequential as sq


def test_spending_functions_spend_exactly_alpha_by_the_end():
    t = np.linspace(0.05, 1, 20)
    for spend in (sq.obf_spending, sq.pocock_spending):
        s = spend(t, 0.01)
        assert np.all(np.diff(s) > 0)
        assert s[-1] == pytest.approx(0.01, rel=1e-12)
    # O'Brien-Fleming-type spends almost nothing early: at t = 1/4 it is 2 - 2 Phi(2 z_{0.995}) = 2.6e-7
    assert sq.obf_spending(0.25, 0.01) == pytest.approx(2 * stats.norm.sf(2 * stats.norm.isf(0.005)), rel=1e-9)


def test_one_look_is_the_fixed_sample_test():
    d = sq.design([100], alpha_side=0.005, beta=0.1)
    assert d.efficacy[0] == pytest.approx(stats.norm.isf(0.005))  # 2.5758
    assert math.isinf(d.futility[0])


def test_boundaries_fall_over_the_looks_and_the_last_is_near_the_fixed_one():
    d = sq.design([250, 500, 750, 1000], alpha_side=0.025, beta=0.1)
    assert list(d.efficacy) == sorted(d.efficacy, reverse=True)
    # the first look spends 1 - Phi(z_{0.975} / sqrt(1/4)) = 1 - Phi(3.92) per side: c_1 = 3.92
    assert d.efficacy[0] == pytest.approx(2 * stats.norm.isf(0.025))
    # the last look keeps most of the error: its boundary lies between z_{0.975} = 1.96 and 2.2
    assert 1.96 < d.efficacy[-1] < 2.2
    with pytest.raises(ValueError):
        sq.design([100, 100], 0.01, 0.1)


def test_boundaries_spend_exactly_the_planned_error_at_each_look():
    """Monte Carlo of the canonical process (Z_k = S(t_k) / sqrt(t_k), S a Brownian motion): the share of
    200,000 paths first crossing |Z_k| >= c_k at look k matches 2 (a(t_k) - a(t_{k-1})) within 4 sd."""
    t = np.array([0.4, 0.67, 0.86, 1.0])
    c = sq.efficacy_boundaries(t, 0.025)
    rng = np.random.default_rng(3)
    s = np.cumsum(rng.standard_normal((200_000, 4)) * np.sqrt(np.diff(t, prepend=0.0)), axis=1)
    beyond = np.abs(s / np.sqrt(t)) >= c
    first = np.where(beyond.any(axis=1), beyond.argmax(axis=1), -1)
    planned = np.diff(sq.obf_spending(t, 0.05), prepend=0.0)
    for k in range(4):
        observed = np.mean(first == k)
        assert abs(observed - planned[k]) <= 4 * math.sqrt(planned[k] / 200_000), (k, observed, planned[k])


def test_the_baseline_variance_raises_early_information_fractions():
    # I = 1 / (v/n + v/N): with a baseline as large as the cap, the first quarter already carries 0.4
    t = sq.information_fractions([250, 500, 750, 1000], var=0.2, ref_var=0.2 / 1000)
    assert t[0] == pytest.approx((1 / (0.2 / 250 + 0.0002)) / (1 / (0.2 / 1000 + 0.0002)))
    assert t[0] == pytest.approx(0.4)
    assert sq.games_needed(0.05, 0.2, ref_var=1.0, looks=4, alpha_side=0.01, beta=0.1) == math.inf


def test_no_variance_decides_by_the_exact_value():
    d = sq.design([10, 20], 0.005, 0.1)
    assert sq.look(d, 0, 0.25, 0.0, [(0.25, 1), (0.25, -1)], 0.02).verdict == "pass"
    assert sq.look(d, 0, 0.30, 0.0, [(0.25, 1), (0.25, -1)], 0.02).verdict == "fail"


def _simulate(rng, draw, true_shift, reps, looks, n_base, alpha_side, beta, tolerance):
    """Run the whole procedure ``reps`` times (new baseline each time, as in an unconditional
    false-alarm rate) and return the share of runs that failed and the games they played."""
    base = draw(rng, (reps, n_base))
    now = draw(rng, (reps, looks[-1])) + true_shift
    var = float(base.var(ddof=1))
    d = sq.design(looks, alpha_side, beta, var, var / n_base)
    fails, games = 0, []
    for r in range(reps):
        b_mean, b_var = base[r].mean(), base[r].var(ddof=1)
        for k, n in enumerate(looks):
            x = now[r, :n]
            se = math.sqrt(x.var(ddof=1) / n + b_var / n_base)
            res = sq.look(d, k, x.mean(), se, [(b_mean, 1), (b_mean, -1)], tolerance)
            if res.verdict is not None:
                fails += res.verdict == "fail"
                games.append(n)
                break
    return fails / reps, float(np.mean(games))


def _wins(rng, shape):
    return (rng.random(shape) < 0.25).astype(float)


def _shares(rng, shape):
    # a 4-player seat with shared wins: 1 (p 0.20), 1/2 (p 0.08), 1/3 (p 0.03), else 0
    return rng.choice([1.0, 0.5, 1 / 3, 0.0], size=shape, p=[0.20, 0.08, 0.03, 0.69])


@pytest.mark.parametrize("draw", [_wins, _shares], ids=["win-loss", "fractional-shares"])
def test_false_alarm_rate_is_near_the_stated_one(draw):
    """10,000 unchanged checks (a new baseline of 800 games each time, then looks after 200, 400, 600
    and 800 games) at a stated 5% (2.5% per side). The observed rate must be within 3 binomial sd of
    5% (sd = sqrt(.05 * .95 / 10000) = 0.22 point) plus 0.5 point for the normal approximation with
    estimated variances at 200 games."""
    rng = np.random.default_rng(20261129)
    rate, games = _simulate(rng, draw, 0.0, 10_000, [200, 400, 600, 800], 800, 0.025, 0.1, 0.05)
    sd = math.sqrt(0.05 * 0.95 / 10_000)
    assert abs(rate - 0.05) <= 3 * sd + 0.005, rate
    assert games < 800  # unchanged cells often stop early with a pass


def test_power_at_the_tolerance_is_at_least_the_planned_one():
    """A change as large as the tolerance, with the cap from games_needed: fails in >= 90% - 3 sd of runs."""
    rng = np.random.default_rng(7)
    tolerance, var, n_base = 0.05, 0.1875, 4000
    n = sq.games_needed(tolerance, var, var / n_base, 4, 0.025, 0.1)
    looks = [int(math.ceil(n * k / 4)) for k in range(1, 5)]
    rate, _ = _simulate(rng, _wins, tolerance, 4000, looks, n_base, 0.025, 0.1, tolerance)
    assert rate >= 0.9 - 3 * math.sqrt(0.09 / 4000), rate
