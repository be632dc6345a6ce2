"""Citywright's trajectories (issue 49): each seat's score as if the game ended now, after every turn of
the whole table (``agents.checkpoints_of``: rounds x turns, 12 in v1.1), recorded by the full-speed
paths (``play_chunk``'s compiled table, ``play_game``) and written by a run to ``trajectories.parquet``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from balancer import api
from balancer.config import load_config
from balancer.core import protocol
from balancer.core.seeding import game_rngs, game_seed
from balancer.core.tables import seat_agents
from balancer.games import citywright as cw
from balancer.games.citywright.config import DISTRICTS
from balancer.games.citywright.rules import STAT_TURNS
from balancer.games.citywright.scoring import score_reference

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "citywright"
V11 = load_config(CONFIGS / "v1.1.yaml")
ACHIEVEMENTS = load_config(CONFIGS / "achievements.yaml")  # §7 on: the standings hold achievements as of now


@pytest.mark.parametrize(
    ("cfg", "agents"),
    [
        (V11, ["greedy", "random", "commercial", "greedy"]),
        (ACHIEVEMENTS, ["greedy", "park", "random"]),
        (V11, ["greedy", "random"]),
        (V11, ["random"]),
    ],
    ids=["v1.1-4p", "achievements-3p", "v1.1-2p", "v1.1-solo"],
)
def test_every_game_has_its_checkpoints_and_the_last_is_the_final_score(cfg, agents):
    batch = cw.play_chunk(cfg, agents, 7, 0, 4)
    n = len(agents)
    k = cfg.round_plan(n).rounds * cfg.round_plan(n).turns  # a checkpoint per turn of the table
    assert k == 12  # §4.1: everyone takes 12 turns, at every player count
    assert batch.standings is not None and batch.checkpoints is not None
    assert batch.standings.shape == (4, k, n)
    assert (batch.checkpoints == k).all()  # every game plays all its turns
    assert not np.isnan(batch.standings).any()  # every seat at every checkpoint
    # the standing is the score: at the last checkpoint (the game's end) the game's own final scores
    np.testing.assert_array_equal(batch.standings[:, -1, :], batch.scores)


def test_first_checkpoint_is_the_tables_scored_after_the_first_turn_of_the_table():
    # The same game played through the Python protocol (new_game / legal_moves / apply, the agents drawing
    # from the game's agent stream as play_game's do), stopped when every seat has taken one turn: each
    # table scored by the readable reference scorer (§6.1-§6.4, scoring.score_reference, not the compiled
    # scorer the trajectory asks), plus the seat bonus (§6.5, v1.1's 4-player [2, 2, 1, 0]); v1.1 plays
    # without achievements (§7 off), so that sum is each seat's score as the game stands.
    agents, seed = ["greedy", "random", "industrial", "greedy"], game_seed(11, 0)
    game = cw.new_game(V11, 4, seed)
    _, agent_rng = game_rngs(seed)
    players = [cw.make_agent(V11, a) for a in agents]
    while int(game.state.stats[:, STAT_TURNS].sum()) < 4:
        seat = game.seat_to_move
        protocol.apply(game, players[seat].choose(game, seat, agent_rng))
    bonus = V11.seat_bonus["4"]
    by_hand = []
    for s in range(4):
        parts = score_reference(V11, game.state.tables[s])
        by_hand.append(sum(parts[d] for d in DISTRICTS) + bonus[s])
    assert sum(int((t != 0).sum()) for t in game.state.tables) > 0  # tiles were laid: not a trivial 0 + bonus
    assert cw.play_game(V11, agents, seed).standings[0] == by_hand
    assert cw.play_chunk(V11, agents, 11, 0, 1).standings[0, 0].tolist() == by_hand


def test_play_chunk_and_play_game_give_the_same_standings():
    agents = ["greedy", "random", "residential"]
    batch = cw.play_chunk(V11, agents, 5, 3, 7)
    for j, i in enumerate(range(3, 7)):
        one = cw.play_game(V11, seat_agents(agents, i), game_seed(5, i))
        assert one.scores == batch.scores[j].tolist()
        assert one.standings == batch.standings[j].tolist()


def test_a_run_writes_the_trajectories_and_the_flow_measures(tmp_path):
    out = tmp_path / "run"
    api.run(CONFIGS / "v1.1.yaml", players=3, agents="greedy", games=12, seed=2, out=out)
    traj = pl.read_parquet(out / "trajectories.parquet")
    assert traj.height == 12 * 12 * 3  # games x checkpoints x seats
    last = traj.filter(pl.col("checkpoint") == 11).join(
        pl.read_parquet(out / "results.parquet"), on=["game_index", "seat"]
    )
    assert last.height == 36 and (last["standing"] == last["score"].cast(pl.Float64)).all()
    flow = json.loads((out / "summary.json").read_text())["flow"]["trajectory"]
    assert flow["games"] == 12 and flow["without_trajectory"] == 0
    assert (flow["checkpoints_min"], flow["checkpoints_max"]) == (12, 12)
    assert len(flow["leader_wins"]) == 12
    assert "lead_changes" in flow and "comebacks" in flow and "decided_at" in flow


def test_the_report_names_citywrights_checkpoint(tmp_path):
    """Citywright's checkpoint is a turn of the whole table, not a round (§4.1: a round is several
    turns): run.json records it from the game's spec, and the report's leader-wins caption says it."""
    out = tmp_path / "run"
    api.run(CONFIGS / "v1.1.yaml", players=2, agents="greedy", games=4, seed=3, out=out)
    assert json.loads((out / "run.json").read_text())["checkpoint"] == "turn of the table"
    page = api.write_report(out, tmp_path / "report.html").read_text()
    assert "at each checkpoint (the end of each turn of the table)" in page
    assert "the end of each round" not in page


def test_without_trajectories_the_same_games_and_no_standings():
    # run --no-flow: play_chunk(trajectories=False) records none, and plays the same games
    agents = ["greedy", "random"]
    with_them = cw.play_chunk(V11, agents, 9, 0, 3)
    without = cw.play_chunk(V11, agents, 9, 0, 3, trajectories=False)
    assert without.standings is None and without.checkpoints is None
    np.testing.assert_array_equal(with_them.scores, without.scores)
    np.testing.assert_array_equal(with_them.tiebreak, without.tiebreak)
