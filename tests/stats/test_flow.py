"""How a game feels (issue 49, balancer/stats/flow.py): every measure computed by hand on small made-up
trajectories, the edge cases the module docstring decides (ties in the lead, one checkpoint, all tied at
the midpoint, shared wins, solo games), the trajectory contract's refusals, the leader-wins curve's
Wilson coverage on trajectories whose answer is known by construction, a paired case with known
differences, and invariants by hypothesis."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from balancer.stats.flow import (
    TRAJECTORY_SCHEMA,
    check_trajectories,
    flow_measures,
    midpoint,
    paired_flow,
    per_game_flow,
)


def results_of(games: list[tuple[list[float], list[float]]], turns: list[int] | None = None, variant: str = "v"):
    """A results table: games[i] = (scores by seat, win shares by seat); seats 1-based."""
    rows = []
    for g, (scores, shares) in enumerate(games):
        for s, (score, share) in enumerate(zip(scores, shares), start=1):
            rows.append(
                {
                    "variant": variant,
                    "game": "made-up",
                    "n_players": len(scores),
                    "game_index": g,
                    "seat": s,
                    "agent": "greedy",
                    "score": score,
                    "win_share": share,
                    "turns": turns[g] if turns else 4,
                    "ended_by": "rules",
                }
            )
    return pl.DataFrame(rows).with_columns(pl.col("n_players", "seat").cast(pl.Int32))


def trajectories_of(standings: list[list[tuple[float, ...]]], variant: str = "v") -> pl.DataFrame:
    """standings[game][checkpoint] = the seats' standings (seat 1 first)."""
    rows = []
    for g, game in enumerate(standings):
        for k, row in enumerate(game):
            for s, x in enumerate(row, start=1):
                rows.append((variant, len(row), g, k, s, float(x)))
    return pl.DataFrame(rows, schema=dict(TRAJECTORY_SCHEMA), orient="row")


# Three two-player games of four checkpoints (the made-up case every hand computation below reads):
#   game 0: seat 1 wins 10-7;  standings (0,0) (2,1) (1,3) (5,4)
#   game 1: seat 2 wins 8-4;   standings (1,0) (3,1) (3,4) (4,8)
#   game 2: a shared win 5-5;  standings (0,1) (1,1) (3,2) (5,5)
RESULTS = results_of([([10, 7], [1.0, 0.0]), ([4, 8], [0.0, 1.0]), ([5, 5], [0.5, 0.5])], turns=[12, 11, 12])
TRAJ = trajectories_of(
    [
        [(0, 0), (2, 1), (1, 3), (5, 4)],
        [(1, 0), (3, 1), (3, 4), (4, 8)],
        [(0, 1), (1, 1), (3, 2), (5, 5)],
    ]
)


def test_measures_by_hand_on_three_games():
    m = flow_measures(RESULTS, TRAJ)
    # margin: 10-7 = 3, 8-4 = 4, 5-5 = 0 -> mean 7/3; one game tied on points, one shared win
    assert m.margin is not None and m.margin.mean == pytest.approx(7 / 3)
    assert (m.tied_on_points, m.shared_wins, m.games) == (1, 1, 3)
    # its t interval: Student t with 2 df on (3, 4, 0) (scipy's own, computed apart)
    lo, hi = sps.t.interval(0.95, 2, loc=7 / 3, scale=np.std([3, 4, 0], ddof=1) / math.sqrt(3))
    assert (m.margin.ci_low, m.margin.ci_high) == (pytest.approx(lo), pytest.approx(hi))
    assert m.margin.quantiles["median"] == 3 and m.margin.quantiles["max"] == 4
    # length: the most turns a seat took: 12, 11, 12
    assert m.length is not None and m.length.mean == pytest.approx(35 / 3) and m.ended_by == {"rules": 3}
    # seat scores: seat 1 (10, 4, 5), seat 2 (7, 8, 5)
    assert [s.scores.quantiles["median"] for s in m.seat_scores] == [5, 7]
    assert [s.scores.mean for s in m.seat_scores] == [pytest.approx(19 / 3), pytest.approx(20 / 3)]

    t = m.trajectory
    assert t is not None and (t.games, t.checkpoints_min, t.checkpoints_max) == (3, 4, 4)
    # leader wins (credit = the leaders' mean win share):
    #   k0: g0 tie (1+0)/2 = .5, g1 seat 1 lost 0, g2 seat 2 shared .5      -> 1.0 / 3
    #   k1: g0 seat 1 won 1,     g1 seat 1 lost 0, g2 tie (.5+.5)/2 = .5    -> 1.5 / 3
    #   k2: g0 seat 2 lost 0,    g1 seat 2 won 1,  g2 seat 1 shared .5      -> 1.5 / 3
    #   k3: g0 seat 1 won 1,     g1 seat 2 won 1,  g2 tie .5                -> 2.5 / 3
    credits = [1.0, 1.5, 1.5, 2.5]
    assert [p.rate for p in t.leader_wins] == [pytest.approx(c / 3) for c in credits]
    assert [p.tied for p in t.leader_wins] == [1, 1, 0, 1]
    assert [p.games for p in t.leader_wins] == [3, 3, 3, 3]
    for p, c in zip(t.leader_wins, credits):  # statsmodels' Wilson, fractional successes
        lo, hi = proportion_confint(c, 3, alpha=0.05, method="wilson")
        assert (p.ci_low, p.ci_high) == (pytest.approx(lo), pytest.approx(hi))
    # lead changes (sole leaders, ties skipped): g0 1,2,1 -> 2; g1 1,1,2,2 -> 1; g2 2,(tie),1,(tie) -> 1
    assert t.lead_changes.mean == pytest.approx(4 / 3) and t.lead_changes.quantiles["max"] == 2
    # comebacks at the midpoint (4-1)//2 = 1: g0 (2,1) last is seat 2, who lost: 0; g1 (3,1) last is
    # seat 2, who won: 1; g2 (1,1) all tied: no comeback -> 1 / 3
    assert t.comebacks.rate == pytest.approx(1 / 3) and t.comebacks.games == 3 and t.all_tied_at_midpoint == 1
    lo, hi = proportion_confint(1, 3, alpha=0.05, method="wilson")
    assert (t.comebacks.ci_low, t.comebacks.ci_high) == (pytest.approx(lo), pytest.approx(hi))
    # decided at (k+1)/K, k the first checkpoint from which only winners lead:
    #   g0: seat 2 (lost) leads at k2 -> k = 3 -> 4/4 = 1;  g1: seat 1 (lost) leads at k1 -> k = 2 -> 3/4;
    #   g2: both seats won, never a loser in the lead -> k = 0 -> 1/4.  Mean 2/3.
    games = per_game_flow(RESULTS, TRAJ)
    assert games["decided_at"].to_list() == [1.0, 0.75, 0.25]
    assert games["lead_changes"].to_list() == [2, 1, 1]
    assert t.decided_at.mean == pytest.approx(2 / 3)
    # the decided-at histogram, every game of K = 4: a bin centred on each of 1/4, 2/4, 3/4, 1
    assert t.decided_at.edges == [0.125, 0.375, 0.625, 0.875, 1.125]
    assert t.decided_at.counts == [1, 0, 1, 1]


def test_to_dict_is_json_and_names_every_measure():
    import json

    d = flow_measures(RESULTS, TRAJ).to_dict()
    json.dumps(d, allow_nan=False)
    assert set(d) >= {"margin", "seat_scores", "length", "ended_by", "trajectory"}
    assert set(d["trajectory"]) >= {"leader_wins", "lead_changes", "comebacks", "decided_at"}
    # without trajectories: the results' measures, no trajectory
    assert flow_measures(RESULTS).to_dict()["trajectory"] is None


def test_three_players_tied_leaders_and_tied_last_seats():
    # one game, 3 seats, 3 checkpoints, seats 1 and 3 share the win (0.5 each)
    res = results_of([([6, 2, 6], [0.5, 0.0, 0.5])])
    traj = trajectories_of([[(5, 5, 1), (1, 1, 5), (6, 2, 6)]])
    t = flow_measures(res, traj).trajectory
    assert t is not None
    # k0: seats 1 and 2 lead: (0.5 + 0) / 2 = 0.25; k1: seat 3 alone: 0.5; k2: seats 1, 3: 0.5
    assert [p.rate for p in t.leader_wins] == [pytest.approx(0.25), 0.5, 0.5]
    # midpoint (3-1)//2 = 1: seats 1 and 2 tie for last; their win shares sum to 0.5
    assert t.comebacks.rate == pytest.approx(0.5)
    # decided: seat 2 (lost) leads at k0 -> from k1 only winners lead -> (1+1)/3
    assert t.decided_at.mean == pytest.approx(2 / 3)
    # lead changes: sole leaders only at k1 (seat 3): nothing to change from -> 0
    assert t.lead_changes.mean == 0


def test_a_game_of_one_checkpoint():
    # K = 1: the midpoint and the end are checkpoint 0; decided at 1/1 either way; no lead change
    assert midpoint(1) == 0 and midpoint(4) == 1 and midpoint(5) == 2
    res = results_of([([3, 1], [1.0, 0.0]), ([1, 3], [0.0, 1.0])])
    traj = trajectories_of([[(3, 1)], [(2, 0)]])  # game 1: seat 1 leads at its only checkpoint, seat 2 wins
    games = per_game_flow(res, traj)
    assert games["decided_at"].to_list() == [1.0, 1.0]
    assert games["lead_changes"].to_list() == [0, 0]
    # game 1: seat 2, last at the midpoint, won: a comeback
    assert games["comeback"].to_list() == [0.0, 1.0]
    t = flow_measures(res, traj).trajectory
    assert t is not None and [p.rate for p in t.leader_wins] == [0.5]


def test_games_of_different_lengths_and_a_missing_trajectory():
    res = results_of([([3, 1], [1.0, 0.0]), ([1, 3], [0.0, 1.0]), ([2, 1], [1.0, 0.0])])
    traj = trajectories_of([[(1, 0), (3, 1)], [(1, 0), (1, 2), (1, 3)]])  # game 2 has none
    t = flow_measures(res, traj).trajectory
    assert t is not None and (t.games, t.without_trajectory, t.checkpoints_min, t.checkpoints_max) == (2, 1, 2, 3)
    # k0: both games, seat 1 leads: won g0, lost g1 -> 1/2; k1: g0 seat 1 won, g1 seat 2 won -> 1; k2: g1 only
    assert [(p.rate, p.games) for p in t.leader_wins] == [(0.5, 2), (1.0, 2), (1.0, 1)]
    # games of 2 and 3 checkpoints: decided-at in tenths of the game; game 0 (seat 1 leads throughout and
    # wins) 1/2; game 1 (seat 1 leads at checkpoint 0, seat 2 from 1 on and wins) (1+1)/3 = 2/3
    assert len(t.decided_at.edges) == 11 and t.decided_at.counts == [0, 0, 0, 0, 0, 1, 1, 0, 0, 0]
    assert t.decided_at.mean == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_solo_games_have_no_margin_and_no_trajectory_measures():
    res = results_of([([7], [1.0]), ([3], [0.0])])
    traj = trajectories_of([[(1,), (7,)], [(1,), (3,)]])
    m = flow_measures(res, traj)
    assert m.margin is None and m.games == 2
    assert m.trajectory is not None and m.trajectory.games == 0 and m.trajectory.leader_wins == []
    assert m.trajectory.comebacks.rate is None


def test_a_margin_is_on_points_whatever_the_tie_breaker():
    # 5-5, the tie-breaker gave seat 2 the win alone: margin 0, no shared win
    m = flow_measures(results_of([([5, 5], [0.0, 1.0])]))
    assert m.margin is not None and m.margin.mean == 0 and (m.tied_on_points, m.shared_wins) == (1, 0)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.drop("standing"), "lack column"),
        (lambda t: t.filter(~((pl.col("game_index") == 1) & (pl.col("checkpoint") == 2))), "game 1"),
        (
            lambda t: t.filter(~((pl.col("game_index") == 0) & (pl.col("seat") == 2) & (pl.col("checkpoint") == 0))),
            "game 0",
        ),
        (lambda t: pl.concat([t, t.head(1)]), "more than one row"),
        (lambda t: t.filter(pl.col("seat") == 1), "1 of 2 seats"),
        (lambda t: t.with_columns(pl.col("checkpoint") + 1), "checkpoint"),
        (
            lambda t: t.with_columns(
                pl.when(pl.col("seat") == 1).then(float("nan")).otherwise("standing").alias("standing")
            ),
            "not finite",
        ),
        (lambda t: t.with_columns(pl.col("game_index") + 10), "which the results do not"),
    ],
)
def test_a_trajectory_that_breaks_the_contract_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        flow_measures(RESULTS, change(TRAJ))


def test_results_with_two_rows_for_one_seat_are_refused():
    twice = pl.concat([RESULTS, RESULTS.filter((pl.col("game_index") == 2) & (pl.col("seat") == 1))])
    with pytest.raises(ValueError, match="more than one row"):
        flow_measures(twice)
    # the same seat numbers in different games are not a duplicate
    assert flow_measures(RESULTS).games == 3


def test_check_trajectories_returns_the_contract_types():
    t = check_trajectories(TRAJ.with_columns(pl.col("seat").cast(pl.Int64), pl.col("standing").cast(pl.Int32)))
    assert dict(t.schema) == dict(TRAJECTORY_SCHEMA)


def test_a_lazy_table_measured_in_slices_of_games_gives_the_measures_of_one_pass(monkeypatch):
    """flow_measures reads a lazy table a slice of games at a time (its memory bound): every measure is
    per game, so slices of 7 games (8 slices of 50 games, the last holding no trajectory) give what one
    pass over the eager tables gives."""
    import balancer.stats.flow as flow

    res, traj = simulated((0.5, 0.7, 0.9), 50, np.random.default_rng(3))
    traj = traj.filter(pl.col("game_index") < 45)  # games 45..49 have no trajectory
    whole = flow_measures(res, traj).to_dict()
    monkeypatch.setattr(flow, "SLICE_GAMES", 7)
    sliced = flow_measures(res.lazy(), traj.lazy()).to_dict()
    assert _close(sliced, whole)
    assert sliced["trajectory"]["without_trajectory"] == 5
    # a trajectory of a game outside the results' range is refused in slices too
    with pytest.raises(ValueError, match="game 99"):
        flow_measures(
            res.lazy(),
            pl.concat(
                [traj, traj.filter(pl.col("game_index") == 0).with_columns(game_index=pl.lit(99, pl.Int64))]
            ).lazy(),
        )


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12, abs=1e-12)
    return a == b


# --------------------------------------------------------------------------- coverage


def simulated(p: tuple[float, ...], games: int, rng: np.random.Generator) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two-player games of len(p) checkpoints: seat 1 or 2 wins (a fair coin); at checkpoint k the
    winner leads (1 to 0) with probability p[k], else the loser does. So the leader at k wins with
    probability exactly p[k]: the curve's true value."""
    k = len(p)
    winner = rng.integers(1, 3, size=games)
    lead_is_winner = rng.random((games, k)) < np.asarray(p)
    leader = np.where(lead_is_winner, winner[:, None], 3 - winner[:, None])
    g = np.repeat(np.arange(games), 2)
    seat = np.tile([1, 2], games)
    res = pl.DataFrame(
        {
            "n_players": np.full(2 * games, 2, dtype=np.int32),
            "game_index": g,
            "seat": seat.astype(np.int32),
            "score": (seat == winner[g]).astype(np.int64),
            "win_share": (seat == winner[g]).astype(np.float64),
        }
    )
    gg, kk, ss = np.meshgrid(np.arange(games), np.arange(k), [1, 2], indexing="ij")
    traj = pl.DataFrame(
        {
            "variant": "sim",
            "n_players": 2,
            "game_index": gg.ravel(),
            "checkpoint": kk.ravel(),
            "seat": ss.ravel(),
            "standing": (ss == leader[:, :, None]).astype(np.float64).ravel(),
        }
    )
    return res, traj


def test_leader_wins_intervals_cover_the_true_curve_at_the_nominal_rate():
    # 250 replications x 4 checkpoints of 100 games each: 1,000 Wilson intervals, each covering its
    # p_k with probability about 0.95; the coverage's sd over 1,000 is 0.007, so [0.925, 0.975] is
    # about 3.5 sd wide either side (fixed seed: the test is deterministic)
    p = (0.5, 0.65, 0.8, 0.95)
    rng = np.random.default_rng(49)
    covered = total = 0
    for _ in range(250):
        res, traj = simulated(p, 100, rng)
        t = flow_measures(res, traj).trajectory
        assert t is not None
        for point, truth in zip(t.leader_wins, p):
            covered += point.ci_low <= truth <= point.ci_high
            total += 1
    assert total == 1000
    assert 0.925 <= covered / total <= 0.975


# --------------------------------------------------------------------------- paired


def known_pair(games: int = 200) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Seat 1 wins every game 6-2 in A, 8-2 in B (margin +2 in every game). K = 4. In B seat 1 leads
    from the start: (1,0) at every checkpoint. In A the same, except that in every fourth game seat 2
    leads at checkpoint 1: (1,0) (0,1) (1,0) (1,0)."""
    a = results_of([([6, 2], [1.0, 0.0])] * games)
    b = results_of([([8, 2], [1.0, 0.0])] * games, variant="w")
    sa = [[(1, 0), (0, 1), (1, 0), (1, 0)] if i % 4 == 0 else [(1, 0)] * 4 for i in range(games)]
    ta = trajectories_of(sa)
    tb = trajectories_of([[(1, 0)] * 4] * games, variant="w")
    return a, b, ta, tb


def test_paired_differences_equal_their_construction():
    a, b, ta, tb = known_pair()
    d = paired_flow(a, b, ta, tb)
    assert d["paired"] and d["games_paired"] == 200
    rows = {r["name"]: r for r in d["rows"]}
    # margin: +2 in every game -> exactly 2, interval [2, 2]
    assert rows["margin"]["difference"] == 2 and (rows["margin"]["ci_low"], rows["margin"]["ci_high"]) == (2, 2)
    # length: the same turns -> identical in every game
    assert rows["length"]["identical"]
    # the 50 games of A with seat 2 ahead at k1 (i % 4 == 0) against none in B:
    #   lead changes: 2 (1 -> 2 -> 1) against 0: -2 in 50 of 200 games -> -0.5
    #   comebacks: seat 1 is last at the midpoint (k1) and wins: 1 against 0 -> -0.25
    #   decided at: A (1+2)/4 = 0.75, B 1/4 -> -0.5 in a quarter of the games -> -0.125
    #   leader wins, mean over checkpoints: A 3/4, B 1 -> +0.25 in a quarter -> +0.0625
    assert rows["lead changes"]["difference"] == pytest.approx(-0.5)
    assert rows["comebacks"]["difference"] == pytest.approx(-0.25)
    assert rows["decided at"]["difference"] == pytest.approx(-0.125)
    assert rows["leader wins"]["difference"] == pytest.approx(0.0625)
    # and the curve: only checkpoint 1 moves, by +0.25 (its paired t interval: 50 ones among 200)
    curve = {r["checkpoint"]: r for r in d["leader_wins"]}
    assert [curve[k]["difference"] for k in range(4)] == [0, pytest.approx(0.25), 0, 0]
    assert curve[0]["identical"] and curve[1]["p_value"] < 1e-6
    half = sps.t.ppf(0.975, 199) * np.std([1] * 50 + [0] * 150, ddof=1) / math.sqrt(200)
    assert curve[1]["ci_low"] == pytest.approx(0.25 - half) and curve[1]["ci_high"] == pytest.approx(0.25 + half)
    # every row carries a p-value for compare's Holm family
    assert all(r["kind"] == "flow" and "p_value" in r for r in d["rows"])


def test_the_rows_join_a_holm_family_as_paired_differences_rows_do():
    """compare adjusts every row of a page as one Holm family (balancer.compare.holm_page, through
    balancer.stats.paired.adjust_family): the flow rows carry what it reads (p_value, identical,
    significant), an identical row stays out of the family, and the per-checkpoint curve is not in
    ``rows`` (5 tested rows here: length is identical in every game)."""
    from balancer.stats.paired import adjust_family, holm_adjust

    a, b, ta, tb = known_pair()
    d = paired_flow(a, b, ta, tb)
    family = adjust_family(d["rows"], 0.95)
    assert family["family_size"] == 5
    tested = [r for r in d["rows"] if not r["identical"]]
    assert [r["p_adjusted"] for r in tested] == holm_adjust([r["p_value"] for r in tested])
    assert all(r["p_adjusted"] is None for r in d["rows"] if r["identical"])


def test_without_both_trajectories_only_the_results_rows():
    a, b, ta, _ = known_pair(40)
    d = paired_flow(a, b, ta, None)
    assert [r["name"] for r in d["rows"]] == ["margin", "length"] and d["leader_wins"] == []


def test_games_that_do_not_pair_fall_back_to_welch():
    a = results_of([([6, 2], [1.0, 0.0]), ([3, 5], [0.0, 1.0])])
    b = results_of([([6, 2, 1], [1.0, 0.0, 0.0]), ([3, 5, 1], [0.0, 1.0, 0.0])])
    d = paired_flow(a, b)
    assert not d["paired"] and "player counts differ" in d["pairing"]
    assert all(r["test"] == "Welch t-test" for r in d["rows"])


# --------------------------------------------------------------------------- invariants


@st.composite
def made_up_games(draw):
    n = draw(st.integers(2, 4))
    n_games = draw(st.integers(1, 6))
    games, standings = [], []
    for _ in range(n_games):
        k = draw(st.integers(1, 6))
        scores = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
        top = max(scores)
        winners = [s == top for s in scores]
        games.append((scores, [1.0 / sum(winners) if w else 0.0 for w in winners]))
        # small integer standings: ties in the lead and for last happen often
        standings.append([tuple(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))) for _ in range(k)])
    return results_of(games), trajectories_of(standings)


@settings(max_examples=60, deadline=None)
@given(made_up_games())
def test_invariants(data):
    res, traj = data
    games = per_game_flow(res, traj)
    assert (games["margin"] >= 0).all()
    assert (games["lead_changes"] <= games["checkpoints"] - 1).all()
    assert ((games["decided_at"] > 0) & (games["decided_at"] <= 1)).all()
    assert ((games["comeback"] >= 0) & (games["comeback"] <= 1 + 1e-12)).all()
    t = flow_measures(res, traj).trajectory
    assert t is not None
    for p in t.leader_wins:
        assert 0 <= p.ci_low <= p.rate <= p.ci_high <= 1


@pytest.mark.parametrize("block", [None, 1000, 7])
def test_the_curve_sums_add_in_row_order_so_the_same_games_give_the_same_bits(block, monkeypatch):
    """The leader-wins curve's sums are added in the rows' order (games, then checkpoints), not in a
    parallel group-by's order: two runs of the same games gave rates that differed in the last bit,
    and summary.json differed (tests/test_api.py and test_check.py compare them whole). Expected:
    per checkpoint, the plain left-to-right float sum of its credits, whatever the rows per numpy
    pass (``block``: the default, or passes that end inside a game)."""
    import polars as pl

    from balancer.stats import flow
    from balancer.stats.flow import _curve_sums

    if block is not None:
        monkeypatch.setattr(flow, "BLOCK_ROWS", block)

    rng = np.random.default_rng(7)
    n = 30_000
    credits = pl.DataFrame(
        {
            "n_players": np.full(n, 3, np.int32),
            "game_index": np.repeat(np.arange(n // 6), 6),
            "checkpoint": np.tile(np.arange(6, dtype=np.int32), n // 6),
            "credit": rng.choice([0.0, 1 / 3, 0.5, 1.0, 1 / 6], n),
            "tied": rng.random(n) < 0.3,
        }
    )
    got = _curve_sums(credits).sort("checkpoint")
    for k in range(6):
        total = 0.0
        for x in credits.filter(pl.col("checkpoint") == k)["credit"].to_list():
            total += x  # left to right, in row order
        row = got.row(k, named=True)
        assert row["credit"] == total and row["games"] == n // 6
        assert row["tied"] == int(credits.filter(pl.col("checkpoint") == k)["tied"].sum())
