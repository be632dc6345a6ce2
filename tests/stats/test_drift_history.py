"""Drift held over a whole history (issue 51, item 3): a history is looked at after every check, so the
flag's false-alarm rate must hold over all its pages, not on each. Simulated histories with a known
truth (no games): three series (a three-player table's seat win rates), a baseline and then one check
per commit, each point the truth plus normal noise of standard error ``sigma`` (independent seeds, so
every comparison with the anchor is unpaired: se of a drift ``sigma * sqrt(2)``).

The flag's rule is :func:`balancer.stats.drift.decide` (weighted Holm over the series at the look's
spent rate) with the tolerance, exactly as :func:`balancer.stats.drift.drift` applies it; the first test
checks that drift() on a simulated history flags where the vectorised rule does.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from balancer.stats import drift as dr

ALPHA = 0.05
M = 3


def simulate(n: int, commits: int, sigma: float, slope: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(anchors n x M, checks n x commits x M): the truth is 0 at the anchor and ``slope * t`` at check t."""
    rng = np.random.default_rng(seed)
    anchors = rng.normal(0.0, sigma, (n, M))
    checks = rng.normal(0.0, sigma, (n, commits, M)) + slope * np.arange(1, commits + 1)[None, :, None]
    return anchors, checks


def first_flag(anchors, checks, sigma: float, tol: float, rule: str = "history") -> np.ndarray:
    """Per history the first commit (1-based) whose page flags a series, 0 when none does. ``rule``
    ``history``: the spent rate (drift()'s rule); ``page``: each page at alpha / m (the rule before)."""
    n, commits, _ = checks.shape
    first = np.zeros(n, dtype=int)
    for t in range(1, commits + 1):
        d = checks[:, t - 1, :] - anchors
        p = 2 * stats.norm.sf(np.abs(d) / (sigma * math.sqrt(2)))
        held = dr.decide(p, np.full(M, t), ALPHA) if rule == "history" else p < ALPHA / M
        now = np.any(held & (np.abs(d) > tol), axis=1)
        first[(first == 0) & now] = t
    return first


def as_history(anchor: np.ndarray, checks: np.ndarray, sigma: float, tol: float) -> pl.DataFrame:
    """One simulated history as the rows drift() reads: win rates around 30% whose per-game variance
    and games give the standard error ``sigma`` (variance 0.21, games 0.21 / sigma^2)."""
    games = 0.21 / sigma**2
    rows = []
    for t, values in enumerate([anchor, *checks]):
        for s in range(M):
            rows.append(
                {
                    "event": t + 1,
                    "event_kind": "baseline" if t == 0 else "check",
                    "commit_sha": f"{t:07d}",
                    "run": "r",
                    "variant": "v",
                    "number": f"seat_win_rate:{s + 1}",
                    "kind": "win_rate",
                    "test": "saved" if t == 0 else "baseline",
                    "estimate": 0.3 + float(values[s]),
                    "variance": 0.21,
                    "games": games,
                    "seed": t,
                    "verdict": "baseline" if t == 0 else "pass",
                    "tolerance": tol,
                }
            )
    return pl.DataFrame(rows)


def test_drift_flags_where_the_simulated_rule_does():
    # 20 histories x 12 pages through drift() itself: the same first flagged page as first_flag (tol 0,
    # so that flags happen; sigma 1 point)
    sigma, tol = 0.01, 0.0
    anchors, checks = simulate(20, 12, sigma, 0.004, seed=5)
    expected = first_flag(anchors, checks, sigma, tol)
    got = []
    for h in range(20):
        history = as_history(anchors[h], checks[h], sigma, tol)
        first = 0
        for t in range(1, 13):
            d = dr.drift(dr.points(history.filter(pl.col("event") <= t + 1)), alpha=ALPHA)
            assert set(d["look"].to_list()) == {t}
            if first == 0 and (d["flag"] != "").any():
                first = t
        got.append(first)
    assert got == expected.tolist() and 0 < (expected > 0).sum() < 20


@pytest.mark.parametrize("commits", [20, 50])
@pytest.mark.parametrize("tol,sigma", [(0.0, 0.0055), (0.02, 0.0055)])
def test_a_stable_history_is_flagged_at_most_alpha_over_all_its_pages(commits, tol, sigma):
    # 400 stable histories. Tolerance 0 is the worst case (the test alone decides); 2 points with points of
    # se 0.55 points (a drift's se 0.78) is where the issue found 3.5% flagged on the first page and 30.5% on
    # some page within 20 commits. The bound: alpha plus 2 Monte Carlo sd (sqrt(.05 * .95 / 400) = 0.011).
    anchors, checks = simulate(400, commits, sigma, 0.0, seed=commits + int(100 * tol))
    ever = (first_flag(anchors, checks, sigma, tol) > 0).mean()
    assert ever <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / 400), ever
    # the rule of each page on its own (alpha / m per page) adds up over the pages: far above alpha
    before = (first_flag(anchors, checks, sigma, tol, rule="page") > 0).mean()
    assert before > 0.25, before


def test_a_slow_drift_is_flagged_by_the_time_it_passes_the_tolerance():
    # 0.5 points a commit against a 2-point tolerance, points of se 0.3 points (checks powered at the
    # tolerance: (2.576 + 1.645) * 0.3 * sqrt(2) = 1.8 points). The drift reaches 2 points at commit 4,
    # where a flag needs the estimate beyond 2 (about half of histories); by commit 5 (2.5 points) and 6
    # almost every history is flagged, as often as by the rule of each page on its own.
    anchors, checks = simulate(400, 12, 0.003, 0.005, seed=3)
    first = first_flag(anchors, checks, 0.003, 0.02)
    before = first_flag(anchors, checks, 0.003, 0.02, rule="page")
    by = {t: ((first > 0) & (first <= t)).mean() for t in (4, 5, 6)}
    assert by[4] >= 0.25 and by[5] >= 0.8 and by[6] >= 0.97, by
    for t in (4, 5, 6):
        assert by[t] >= ((before > 0) & (before <= t)).mean() - 0.02
