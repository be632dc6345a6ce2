"""The numpy flow summary (balancer/stats/flow.py's _checked_trajectories, _trajectory_frames) against the
polars one it replaced, kept here as the reference: per_game_flow, leader_credits, flow_measures and
paired_flow give the same values (floats within 1e-12) and the same refusals on seeded random
trajectories: 1 to 4 seats, games of 1 to 9 checkpoints, integer standings 0..3 (ties in the lead and
for last at most checkpoints), shared wins, winners that trail, games without a trajectory, player
counts mixed in one table, rows in any order."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from test_flow import _close  # the same dicts within 1e-12, floats to floats

import balancer.stats.flow as flow
from balancer.stats.flow import GAME, TRAJECTORY_SCHEMA, _collect, _results_per_game

# --------------------------------------------------------------------------- the reference (the polars code before the numpy one)


def ref_check_trajectories(trajectories: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """The trajectories as an eager frame in :data:`TRAJECTORY_SCHEMA`'s types, checked against
    the contract: every column present, standings finite, one row per (game, checkpoint, seat),
    each game's checkpoints 0..K-1 with every seat at each. Raises ValueError saying what is wrong
    (the first game at fault by its ``game_index``)."""
    df = _collect(trajectories)
    missing = [c for c in TRAJECTORY_SCHEMA if c not in df.columns]
    if missing:
        raise ValueError(f"trajectories lack column(s): {', '.join(missing)}")
    try:
        df = df.select(pl.col(c).cast(t) for c, t in TRAJECTORY_SCHEMA.items())
    except pl.exceptions.PolarsError as exc:
        raise ValueError(f"trajectories have a column of the wrong type: {exc}") from None
    if df.select(pl.col("standing").is_null().any() | (~pl.col("standing").is_finite()).any()).item():
        raise ValueError("trajectories hold a standing that is missing or not finite")
    if df.select(pl.struct(*GAME, "checkpoint", "seat").is_duplicated().any()).item():
        raise ValueError("trajectories have more than one row for some (game, checkpoint, seat)")
    shape = df.group_by(GAME).agg(
        pl.col("checkpoint").min().alias("lo"),
        pl.col("checkpoint").max().alias("hi"),
        pl.col("checkpoint").n_unique().alias("k"),
        pl.col("seat").n_unique().alias("seats"),
        pl.len().alias("rows"),
    )
    bad = shape.filter(
        (pl.col("lo") != 0)
        | (pl.col("hi") + 1 != pl.col("k"))
        | (pl.col("rows") != pl.col("k") * pl.col("seats"))
        | (pl.col("seats") != pl.col("n_players"))
    )
    if bad.height:
        g = bad.sort("game_index").row(0, named=True)
        raise ValueError(
            f"trajectory of game {g['game_index']} is not every seat at every checkpoint 0..K-1 "
            f"(checkpoints {g['lo']}..{g['hi']}, {g['seats']} of {g['n_players']} seats, {g['rows']} rows)"
        )
    return df


# --------------------------------------------------------------------------- per game


def _joined(res: pl.DataFrame, traj: pl.DataFrame) -> pl.DataFrame:
    """Trajectory rows of games with two or more players, with each seat's final win share and the
    game's K; raises ValueError for a trajectory row with no result."""
    t = traj.drop("variant").join(res.select(*GAME, "seat", "win_share"), on=[*GAME, "seat"], how="left")
    orphan = t.filter(pl.col("win_share").is_null())
    if orphan.height:
        g = orphan.sort("game_index").row(0, named=True)
        raise ValueError(
            f"trajectories hold game {g['game_index']} seat {g['seat']} ({g['n_players']} players), "
            "which the results do not"
        )
    t = t.filter(pl.col("n_players") > 1)
    over = [*GAME, "checkpoint"]
    return t.with_columns(
        (pl.col("checkpoint").max().over(GAME) + 1).alias("K"),
        (pl.col("standing") == pl.col("standing").max().over(over)).alias("leader"),
        (pl.col("standing") == pl.col("standing").min().over(over)).alias("last"),
    )


def _per_checkpoint(t: pl.DataFrame) -> pl.DataFrame:
    """One row per (game, checkpoint): leaders, the leaders' mean win share (``credit``), the sole
    leader, whether a non-winner leads, the last seats' win share, whether all are tied."""
    return (
        t.group_by(*GAME, "checkpoint")
        .agg(
            pl.col("K").first(),
            pl.col("leader").sum().alias("leaders"),
            pl.col("win_share").filter(pl.col("leader")).mean().alias("credit"),
            pl.col("seat").filter(pl.col("leader")).first().alias("lead_seat"),
            (pl.col("leader") & (pl.col("win_share") <= 0)).any().alias("loser_leads"),
            pl.col("win_share").filter(pl.col("last")).sum().alias("last_share"),
            pl.col("leader").all().alias("all_tied"),
        )
        .sort(*GAME, "checkpoint")
    )


def _credits(pc: pl.DataFrame) -> pl.DataFrame:
    return pc.select(*GAME, "checkpoint", "credit", (pl.col("leaders") > 1).alias("tied"))


def ref_flow_frames(
    res: pl.DataFrame, trajectories: pl.LazyFrame | pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The old _flow_frames, returning the credits (what the new one returns) in place of pc."""
    games = _results_per_game(res)
    if trajectories is None:
        return games, None
    pc = _per_checkpoint(_joined(res, ref_check_trajectories(trajectories)))
    sole = pc.filter(pl.col("leaders") == 1).select(*GAME, "checkpoint", "lead_seat")
    changes = sole.with_columns(
        (pl.col("lead_seat") != pl.col("lead_seat").shift(1).over(GAME)).fill_null(False).alias("change")
    )
    at_midpoint = pl.col("checkpoint") == (pl.col("K") - 1) // 2
    per = pc.group_by(GAME).agg(
        pl.col("K").first().alias("checkpoints"),
        pl.when(pl.col("all_tied").filter(at_midpoint).first())
        .then(0.0)
        .otherwise(pl.col("last_share").filter(at_midpoint).first())
        .alias("comeback"),
        pl.col("all_tied").filter(at_midpoint).first().alias("all_tied_at_midpoint"),
        # the first checkpoint from which only winners lead: one after the last one a non-winner led at
        (
            (pl.col("checkpoint").filter(pl.col("loser_leads")).max().fill_null(-1) + 2).clip(
                upper_bound=pl.col("K").first()
            )
            / pl.col("K").first()
        ).alias("decided_at"),
    )
    per = per.join(changes.group_by(GAME).agg(pl.col("change").sum().alias("lead_changes")), on=GAME, how="left")
    per = per.with_columns(pl.col("lead_changes").fill_null(0).cast(pl.Int64))
    return games.join(per, on=GAME, how="left").sort(GAME), _credits(pc)


# --------------------------------------------------------------------------- seeded random tables


def made_up(rng: np.random.Generator, games: list[tuple[int, int, int]] | None = None):
    """(results, trajectories) of random games; ``games`` = (n_players, game_index, K) of each game
    (drawn when None: 1 to 4 players, the same game_index under two player counts at times, 1 to 9
    checkpoints). Standings are integers 0..3; the winners are the top final scores (a shared win when
    they tie) or, in a third of the games, one seat at random (a tie-breaker or hidden points); a game
    in five has no trajectory; the trajectory rows are shuffled in half the tables."""
    if games is None:
        keys = set()
        for _ in range(int(rng.integers(1, 40))):
            keys.add((int(rng.choice([1, 2, 2, 3, 4])), int(rng.integers(0, 25))))
        games = [(n, g, int(rng.integers(1, 10))) for n, g in sorted(keys)]
    res_rows, traj_rows = [], []
    for n, g, k in games:
        scores = rng.integers(0, 5, size=n)
        winners = scores == scores.max()
        if rng.random() < 1 / 3:
            winners = np.arange(n) == rng.integers(0, n)
        for s in range(n):
            res_rows.append(
                (n, g, s + 1, float(scores[s]), float(winners[s]) / winners.sum(), int(rng.integers(1, 30)))
            )
        if rng.random() < 0.2:
            continue
        standing = rng.integers(0, 4, size=(k, n))
        for c in range(k):
            for s in range(n):
                traj_rows.append(("v", n, g, c, s + 1, float(standing[c, s])))
    res = pl.DataFrame(
        res_rows,
        schema={
            "n_players": pl.Int32,
            "game_index": pl.Int64,
            "seat": pl.Int32,
            "score": pl.Float64,
            "win_share": pl.Float64,
            "turns": pl.Int64,
        },
        orient="row",
    ).with_columns(variant=pl.lit("v"), ended_by=pl.lit("rules"))
    traj = pl.DataFrame(traj_rows, schema=dict(TRAJECTORY_SCHEMA), orient="row")
    if rng.random() < 0.5:
        traj = traj.sample(fraction=1.0, shuffle=True, seed=int(rng.integers(0, 2**31)))
    return res, traj, games


def _same_frames(new: pl.DataFrame, old: pl.DataFrame) -> None:
    assert_frame_equal(new, old, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(80))
def test_the_numpy_summary_gives_the_polars_one(seed, monkeypatch):
    """Every fourth table is read in numpy passes of 5 rows (``flow.BLOCK_ROWS``; 131,072 in a run):
    passes that end inside a game, and games of more checkpoints than a pass holds."""
    if seed % 4 == 3:
        monkeypatch.setattr(flow, "BLOCK_ROWS", 5)
    rng = np.random.default_rng(seed)
    res, traj, games = made_up(rng)
    r = flow._results_frame(res)
    old_games, old_credits = ref_flow_frames(r, traj)
    _same_frames(flow.per_game_flow(res, traj), old_games)
    _same_frames(flow.leader_credits(res, traj), old_credits)
    # B: the same games, other standings and winners: paired by game
    res_b, traj_b, _ = made_up(rng, games)
    new_measures = flow.flow_measures(res, traj).to_dict()
    new_paired = flow.paired_flow(res, res_b, traj, traj_b)
    new_unpaired = flow.paired_flow(
        res, res_b.filter(pl.col("game_index") % 2 == 0), traj, traj_b.filter(pl.col("game_index") % 2 == 0)
    )
    monkeypatch.setattr(flow, "_flow_frames", ref_flow_frames)
    assert _close(new_measures, flow.flow_measures(res, traj).to_dict())
    assert _close(new_paired, flow.paired_flow(res, res_b, traj, traj_b))
    assert _close(
        new_unpaired,
        flow.paired_flow(
            res, res_b.filter(pl.col("game_index") % 2 == 0), traj, traj_b.filter(pl.col("game_index") % 2 == 0)
        ),
    )


def test_no_trajectory_rows_and_solo_games_only():
    res, traj, _ = made_up(np.random.default_rng(1), [(1, 0, 3), (2, 1, 4), (1, 2, 2)])
    r = flow._results_frame(res)
    for t in (traj.clear(), traj.filter(pl.col("n_players") == 1)):
        old_games, old_credits = ref_flow_frames(r, t)
        _same_frames(flow.per_game_flow(res, t), old_games)
        _same_frames(flow.leader_credits(res, t), old_credits)


def _message(fn) -> str:
    with pytest.raises(ValueError) as info:
        fn()
    return str(info.value)


CORRUPTIONS = {
    "a row dropped": lambda t, rng: t.filter(pl.int_range(pl.len()) != int(rng.integers(0, t.height))),
    "a row twice": lambda t, rng: pl.concat([t, t.slice(int(rng.integers(0, t.height)), 1)]),
    "a checkpoint moved": lambda t, rng: t.with_columns(
        pl.when(pl.int_range(pl.len()) == int(rng.integers(0, t.height)))
        .then(pl.col("checkpoint") + 1)
        .otherwise("checkpoint")
        .alias("checkpoint")
    ),
    "a seat renamed at one checkpoint": lambda t, rng: t.with_columns(
        pl.when(pl.int_range(pl.len()) == int(rng.integers(0, t.height))).then(9).otherwise("seat").alias("seat")
    ),
    "a game's checkpoints from 1": lambda t, rng: t.with_columns(
        pl.when(pl.struct(*GAME) == t.select(pl.struct(*GAME))[int(rng.integers(0, t.height))].item())
        .then(pl.col("checkpoint") + 1)
        .otherwise("checkpoint")
        .alias("checkpoint")
    ),
    "a seat the results do not hold": lambda t, rng: t.with_columns(
        pl.when(pl.struct(*GAME, "seat") == t.select(pl.struct(*GAME, "seat"))[int(rng.integers(0, t.height))].item())
        .then(9)
        .otherwise("seat")
        .alias("seat")
    ),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
@pytest.mark.parametrize("seed", range(6))
def test_a_broken_contract_is_refused_with_the_polars_message(corruption, seed, monkeypatch):
    """Each corruption breaks one game (two broken games of one game_index would leave the polars
    message's choice between them to the group_by's order). Odd seeds check the rows in numpy passes
    of 3 rows (``flow.BLOCK_ROWS``), so that a broken row sits at a pass's edge at times."""
    if seed % 2:
        monkeypatch.setattr(flow, "BLOCK_ROWS", 3)
    rng = np.random.default_rng(100 + seed)
    res, traj, _ = made_up(rng)
    while traj.height == 0:
        res, traj, _ = made_up(rng)
    broken = CORRUPTIONS[corruption](traj, rng)
    r = flow._results_frame(res)
    assert _message(lambda: flow.per_game_flow(res, broken)) == _message(lambda: ref_flow_frames(r, broken))


@pytest.mark.parametrize("seed", range(4))
def test_game_indices_too_far_apart_to_pack_into_one_sort_key(seed):
    """Rows out of order are sorted by one packed int64 key, or by the four columns when their
    ranges do not fit in one (here game indices 2**58 apart)."""
    rng = np.random.default_rng(200 + seed)
    res, traj, _ = made_up(rng)
    far = pl.col("game_index") * 2**58
    res, traj = res.with_columns(far), traj.with_columns(far).sample(fraction=1.0, shuffle=True, seed=seed)
    old_games, old_credits = ref_flow_frames(flow._results_frame(res), traj)
    _same_frames(flow.per_game_flow(res, traj), old_games)
    _same_frames(flow.leader_credits(res, traj), old_credits)
