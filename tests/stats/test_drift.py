"""Moves and drift across a history (balancer.stats.drift, issue 27), on synthetic histories whose truth
is known by construction: no games are played."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from balancer.stats import drift as dr


def row(event: int, kind: str, estimate: float, games: int, verdict: str, seed: int, tol: float = 0.05, **extra):
    """One point of seat_win_rate:3 with the per-game variance of a win/loss value, p (1 - p)."""
    return {
        "event": event,
        "event_kind": kind,
        "commit_sha": f"{event:07d}",
        "run": "mirror-3p",
        "variant": "v1.1",
        "number": "seat_win_rate:3",
        "kind": "win_rate",
        "test": "saved" if kind == "baseline" else "baseline",
        "estimate": estimate,
        "variance": estimate * (1 - estimate),
        "games": games,
        "seed": seed,
        "verdict": verdict,
        "tolerance": tol,
        "baseline_value": extra.get("baseline_value", estimate),
        **{k: v for k, v in extra.items() if k != "baseline_value"},
    }


def three_steps(games: int = 20000) -> pl.DataFrame:
    """A baseline at 30%, then three intended changes of +2 points, each checked (and passing: 2
    points is inside the 5-point tolerance) and then saved as the new baseline."""
    rows, event = [], 0
    p = 0.30
    for step in range(4):
        if step:
            event += 1
            rows.append(row(event, "check", p, games, "pass", seed=99, baseline_value=p - 0.02))
        event += 1
        rows.append(row(event, "baseline", p, games, "baseline", seed=1))
        p += 0.02
    return pl.DataFrame(rows)


def test_three_passing_steps_of_two_points_are_flagged_as_drift_beyond_five():
    pts = dr.points(three_steps())
    d = dr.drift(pts)
    assert d.height == 1
    r = d.row(0, named=True)
    # anchor 30% (event 1), latest 36% (event 7, the last baseline): drift +6 points. Unpaired (the
    # two baselines share seed 1, but no per-game values are given): se = sqrt(.21/20000 + .2304/20000)
    # = 0.00469; one series at its 6th look after the anchor (events 2..7), which may spend
    # 0.05 * 6 / (pi^2 * 36) = 0.000844: z = 3.34, interval 0.06 +- 3.34 * 0.00469 = [0.0443, 0.0757]
    assert (r["anchor_event"], r["latest_event"]) == (1, 7)
    assert r["drift"] == pytest.approx(0.06) and r["look"] == 6
    se = math.sqrt(0.21 / 20000 + 0.36 * 0.64 / 20000)
    z = stats.norm.isf(0.05 * 6 / (math.pi**2 * 36) / 2)
    assert z == pytest.approx(3.34, abs=0.01)
    assert r["ci_low"] == pytest.approx(0.06 - z * se) and r["ci_high"] == pytest.approx(0.06 + z * se)
    assert r["checks"] == 3 and r["all_passed"] and r["beyond"] and r["flag"] == "drift"


def test_a_failed_check_on_the_way_is_not_called_unseen_drift():
    frame = three_steps().with_columns(
        pl.when(pl.col("event") == 4).then(pl.lit("fail")).otherwise(pl.col("verdict")).alias("verdict")
    )
    r = dr.drift(dr.points(frame)).row(0, named=True)
    assert r["beyond"] and not r["all_passed"] and r["flag"] == "failed"


def test_two_steps_of_two_points_stay_inside_a_five_point_tolerance():
    # +4 points is shown (its interval excludes 0) but is not beyond the tolerance: no flag
    frame = three_steps().filter(pl.col("event") <= 5)
    r = dr.drift(dr.points(frame)).row(0, named=True)
    assert r["drift"] == pytest.approx(0.04) and r["ci_low"] > 0 and not r["beyond"] and r["flag"] == ""


def _noise_history(rng: np.random.Generator, p: float, games: int, events: int, tol: float) -> pl.DataFrame:
    """A history where nothing changed: a baseline, then checks and re-saved baselines whose estimates
    are the truth p plus the sampling noise of ``games`` games."""
    rows = []
    for e in range(1, events + 1):
        est = float(rng.binomial(games, p) / games)
        kind = "baseline" if e % 2 == 1 else "check"
        rows.append(row(e, kind, est, games, "pass" if kind == "check" else "baseline", seed=e, tol=tol))
    return pl.DataFrame(rows)


@pytest.mark.parametrize(
    "games,tol,limit",
    [
        # the CI study's cells: 6,000 games at 27%, se of a drift sqrt(2 * 0.197 / 6000) = 0.0081, so a
        # 5-point tolerance is 6.2 se: a false flag has probability about 1e-9; none of 1,000 may be flagged
        (6000, 0.05, 0),
        # the worst case, no tolerance at all: only the 95% interval decides, so at most 5% are flagged
        # (+3 binomial sd of 1,000: 0.05 + 3 * sqrt(0.05 * 0.95 / 1000) = 0.0707)
        (6000, 0.0, 70),
    ],
)
def test_the_drift_flag_on_unchanged_histories(games, tol, limit):
    rng = np.random.default_rng(27)
    flagged = sum(bool(dr.drift(dr.points(_noise_history(rng, 0.27, games, 5, tol)))["beyond"][0]) for _ in range(1000))
    assert flagged <= limit, flagged


def test_consecutive_points_of_one_seed_are_compared_game_by_game():
    a = row(1, "check", 0.5, 4, "pass", seed=7)
    b = row(2, "check", 0.75, 4, "pass", seed=7)
    va, vb = np.array([0.0, 1.0, 0.0, 1.0]), np.array([1.0, 1.0, 0.0, 1.0])
    paired = dr.compare_points(a, b, va, vb)
    # one game of four moved from 0 to 1: differences (1, 0, 0, 0), mean 0.25. One changed game is under
    # the sparse limit (paired_test, issue 32), so the exact sign test decides: 1 of 1 up, two-sided
    # p = min(1, 2 * 0.5**1) = 1 (a t-test would say 2 * t.sf(1, 3) = 0.39 from one game)
    assert paired["paired"] and paired["difference"] == pytest.approx(0.25)
    assert paired["p_value"] == pytest.approx(1.0)
    other = dr.compare_points(a, b | {"seed": 8}, va, vb)
    # another seed: two independent means, se = sqrt(.25/4 + .1875/4) = 0.3307, z = 0.756
    assert not other["paired"]
    assert other["p_value"] == pytest.approx(2 * stats.norm.sf(0.25 / math.sqrt(0.25 / 4 + 0.1875 / 4)))


def test_steps_are_flagged_with_holm_adjusted_p_values():
    # one adjustment family on every page (issue 51): Holm, as the compare, study and sweep pages
    s = dr.steps(dr.points(three_steps()))
    # six steps: each check sees the new rules 2 points above the baseline before it (unpaired, z =
    # 0.02 / 0.0047 = 4.3, p = 2e-5), and the baseline saved next repeats the check's estimate (0)
    moves = s["difference"].to_list()
    assert moves == pytest.approx([0.02, 0.0, 0.02, 0.0, 0.02, 0.0])
    assert s["significant"].to_list() == [True, False, True, False, True, False]
    # Holm over six steps: the smallest p times 6, the next times 5, ...; the three p = 1 stay 1
    p = sorted(s["p_value"].to_list())
    assert sorted(s["p_holm"].to_list())[0] == pytest.approx(6 * p[0]) and max(s["p_holm"].to_list()) == 1.0
