"""Urban Sketchers' trajectory (issue 49): each seat's points if the game ended now (the compiled
final scoring, :func:`~balancer.games.urban_sketchers.fast.final_components`) at the end of every
round, the last checkpoint the game's end, recorded by the full-speed paths (``play_chunk``'s compiled
table and ``play_game_fast``)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from balancer import api
from balancer.core import protocol
from balancer.core.seeding import game_rngs, game_seed
from balancer.core.tables import seat_agents
from balancer.games import urban_sketchers as us
from balancer.games.urban_sketchers import fast

GAMES = 6


@pytest.mark.parametrize("agents", [["greedy", "greedy"], ["greedy", "random", "greedy"]])
def test_every_round_every_seat_and_the_last_checkpoint_is_the_final_score(us_cfg, agents):
    batch = us.play_chunk(us_cfg, agents, 7, 0, GAMES)
    assert batch is not None and batch.standings is not None and batch.checkpoints is not None
    rounds = batch.metrics["game_rounds"][:, 0].astype(np.int64)  # the game's rounds, counted by the rules
    assert (batch.checkpoints == rounds).all() and (rounds >= 1).all()
    assert batch.standings.shape == (GAMES, rounds.max(), len(agents))
    for g in range(GAMES):
        k = batch.checkpoints[g]
        mine = batch.standings[g, :k]
        assert np.isfinite(mine).all() and np.isnan(batch.standings[g, k:]).all()
        assert mine[-1].tolist() == batch.scores[g].tolist()  # the points if it ended now, at its end: the result


def test_play_chunk_and_play_game_record_the_same_trajectories(us_cfg):
    agents = ["random", "greedy"]
    batch = us.play_chunk(us_cfg, agents, 3, 2, 2 + GAMES)
    assert batch is not None and batch.standings is not None
    for j in range(GAMES):
        i = 2 + j
        out = us.play_game(us_cfg, seat_agents(agents, i), game_seed(3, i))
        assert out.standings == batch.standings[j, : batch.checkpoints[j]].tolist(), f"game {i}"


def test_checkpoints_are_the_points_of_the_position_at_each_rounds_end(us_cfg):
    # Derivation: play the same game through the Python protocol (new_game / legal_moves / apply, the same
    # agents and seed as play_game) and, whenever a decision ends a round (the rules' round counter moves on,
    # or the game ends), score the position then with the game's own score of a position (the kernel's
    # `scores`: each seat's points if the game ended now); round r's checkpoint is that score. The dice of the
    # next round, rolled in the same step, change no points.
    agents = ["greedy", "greedy"]
    seed = game_seed(5, 0)
    players = [us.make_agent(us_cfg, a) for a in agents]
    pos = protocol.new_game(us.ENGINE, us_cfg, 2, seed)
    _, agent_rng = game_rngs(seed)
    points = np.zeros(2, np.int64)
    by_hand = []
    while not protocol.is_over(pos):
        before = int(pos.S[fast.G_ROUND])
        seat = pos.seat_to_move
        protocol.apply(pos, players[seat].choose(pos, seat, agent_rng))
        if int(pos.S[fast.G_ROUND]) != before or protocol.is_over(pos):
            us.ENGINE.kernel.scores(pos.S, pos.T, points)
            by_hand.append(points.astype(float).tolist())
    got = us.play_game(us_cfg, agents, seed).standings
    assert got is not None and len(got) == len(by_hand) >= 2
    assert got[0] == by_hand[0]  # the end of round 1
    assert got == by_hand
    assert got[-1] == [float(x) for x in protocol.outcome(pos).scores]


def test_without_flow_play_chunk_builds_no_trajectories(us_cfg):
    on = us.SPEC.play_chunk(us_cfg, ["greedy", "random"], 4, 0, 3)
    off = us.SPEC.play_chunk(us_cfg, ["greedy", "random"], 4, 0, 3, trajectories=False)
    assert on is not None and off is not None and on.standings is not None
    assert off.standings is None and off.checkpoints is None and (off.scores == on.scores).all()


def test_a_run_writes_trajectories_and_the_flow_measures(tmp_path):
    out = tmp_path / "run"
    api.run("urban_sketchers/base", players=2, agents="greedy", games=8, seed=2, out=out)
    traj = pl.read_parquet(out / "trajectories.parquet")
    results = pl.read_parquet(out / "results.parquet")
    assert traj["game_index"].n_unique() == 8 and set(traj["seat"].to_list()) == {1, 2}
    last = traj.filter(pl.col("checkpoint") == pl.col("checkpoint").max().over("game_index"))
    joined = results.join(last, on=["game_index", "seat"])
    assert joined.height == 16 and (joined["standing"] == joined["score"].cast(pl.Float64)).all()
    measures = json.loads((out / "summary.json").read_text())["flow"]["trajectory"]
    assert measures["games"] == 8 and measures["without_trajectory"] == 0
    assert len(measures["leader_wins"]) == measures["checkpoints_max"] == last["checkpoint"].max() + 1
    assert measures["comebacks"]["games"] == 8 and 0 < measures["decided_at"]["mean"] <= 1
