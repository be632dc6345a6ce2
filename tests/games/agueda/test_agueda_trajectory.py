"""Águeda's trajectories (issue 49): each seat's score as Final Scoring would count it at the end of every
round (every seat has taken one turn) and at the game's end, recorded by the full-speed paths
(``play_chunk``'s compiled table, ``play_game``) and written by a run to ``trajectories.parquet``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import balancer.games.agueda as ag
from balancer import api
from balancer.config import load_config
from balancer.core import protocol
from balancer.core.kernel import ENDED_BY
from balancer.core.seeding import game_rngs, game_seed
from balancer.core.tables import seat_agents
from balancer.games.agueda.kernel import checkpoint_bound, outcome_of, turn_count
from balancer.games.agueda.rules import ST_TOURIST_PTS
from balancer.games.agueda.scoring import final_rows

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "agueda"
V1 = load_config(CONFIGS / "v1.yaml")


def _check_chunk(batch, n: int, bound: int) -> None:
    """Every game has 1..bound checkpoints, every seat a finite standing at each, NaN after the last;
    the last is the game's own final scores."""
    assert batch.standings is not None and batch.checkpoints is not None
    k = batch.checkpoints
    assert ((k >= 1) & (k <= bound)).all()
    assert batch.standings.shape == (batch.games, k.max(), n)
    for i in range(batch.games):
        assert np.isfinite(batch.standings[i, : k[i]]).all() and np.isnan(batch.standings[i, k[i] :]).all()
        np.testing.assert_array_equal(batch.standings[i, k[i] - 1], batch.scores[i])


@pytest.mark.parametrize("agents", [["greedy", "random", "greedy", "random"], ["greedy", "greedy"], ["random"]])
def test_every_game_has_its_checkpoints_and_the_last_is_the_final_score(agents):
    n = len(agents)
    batch = ag.play_chunk(V1, agents, 7, 0, 5)
    _check_chunk(batch, n, checkpoint_bound(ag.compiled(V1, n).rules))
    # a checkpoint per round, the game's end closing a last partial one: ceil(the table's turns / n)
    turns = batch.turns.sum(axis=1)
    np.testing.assert_array_equal(batch.checkpoints, -(-turns // n))
    if n == 1:
        assert (batch.checkpoints == 10).all()  # solo: a turn per tour-guide card, 10 cards (v1)


def test_the_bound_is_the_safety_stops():
    # end.max_turns 7 with 2 players: every game stops at the cap after turn 7 (real games take 10 or more
    # turns), in the middle of round 4: 3 whole rounds + the partial one = ceil(7 / 2) = 4 checkpoints, the bound
    cfg = V1.model_copy(update={"end": V1.end.model_copy(update={"max_turns": 7})})
    assert checkpoint_bound(ag.compiled(cfg, 2).rules) == 4
    batch = ag.play_chunk(cfg, ["greedy", "random"], 3, 0, 4)
    assert batch.ended_by is not None and all(ENDED_BY[int(e)] == "turn_cap" for e in batch.ended_by)
    assert (batch.checkpoints == 4).all()
    _check_chunk(batch, 2, 4)


def test_first_checkpoint_is_final_scoring_of_the_position_after_round_one():
    # The same game stepped through the Python protocol (new_game / legal_moves / apply, the agents drawing
    # from the game's agent stream as play_game's do), stopped when every seat has taken one turn and scored
    # there by Final Scoring (scoring.final_rows, as the game's outcome would count it); two of its parts checked by hand too:
    # -1 per empty space (3 rows of 7 minus the umbrellas placed) and the tourist points scored in play.
    agents, seed = ["greedy", "random", "greedy"], game_seed(4, 0)
    game = ag.SPEC.new_game(V1, 3, seed)
    _, agent_rng = game_rngs(seed)
    players = [ag.make_agent(V1, a) for a in agents]
    while turn_count(game.S) < 3:
        seat = game.seat_to_move
        protocol.apply(game, players[seat].choose(game, seat, agent_rng))
    st = ag.game_state(game)
    now = outcome_of(V1, final_rows(st, game.T.rules), st.shops, 0, 0)  # Final Scoring, the game not over
    empty = [3 * V1.board.row_length - int(st.fill[s].sum()) for s in range(3)]
    assert now.components["empty_spaces"] == [-e for e in empty]
    assert now.components["tourists"] == [int(st.stats[s, ST_TOURIST_PTS]) for s in range(3)]
    assert all(e < 21 for e in empty)  # umbrellas were placed: not the setup's -21 each
    assert ag.play_game(V1, agents, seed).standings[0] == now.scores
    assert ag.play_chunk(V1, agents, 4, 0, 1).standings[0, 0].tolist() == now.scores


def test_play_chunk_and_play_game_give_the_same_standings():
    agents = ["greedy", "random", "greedy"]
    batch = ag.play_chunk(V1, agents, 5, 3, 7)
    for j, i in enumerate(range(3, 7)):
        one = ag.play_game(V1, seat_agents(agents, i), game_seed(5, i))
        assert one.scores == batch.scores[j].tolist()
        k = int(batch.checkpoints[j])
        assert len(one.standings) == k and one.standings == batch.standings[j, :k].tolist()


def test_a_run_writes_the_trajectories_and_the_flow_measures(tmp_path):
    out = tmp_path / "run"
    api.run(CONFIGS / "v1.yaml", players=3, agents="greedy", games=12, seed=2, out=out)
    traj = pl.read_parquet(out / "trajectories.parquet")
    results = pl.read_parquet(out / "results.parquet")
    last = traj.filter(pl.col("checkpoint") == pl.col("checkpoint").max().over("game_index"))
    joined = last.join(results, on=["game_index", "seat"])
    assert joined.height == results.height == 36
    assert (joined["standing"] == joined["score"].cast(pl.Float64)).all()
    flow = json.loads((out / "summary.json").read_text())["flow"]["trajectory"]
    assert flow["games"] == 12 and flow["without_trajectory"] == 0
    assert flow["checkpoints_min"] >= 1 and len(flow["leader_wins"]) == flow["checkpoints_max"]
    assert "lead_changes" in flow and "comebacks" in flow and "decided_at" in flow


def test_without_trajectories_the_same_games_and_no_standings():
    # run --no-flow: play_chunk(trajectories=False) records none, and plays the same games
    agents = ["greedy", "random", "greedy"]
    with_them = ag.play_chunk(V1, agents, 9, 0, 3)
    without = ag.play_chunk(V1, agents, 9, 0, 3, trajectories=False)
    assert without.standings is None and without.checkpoints is None
    np.testing.assert_array_equal(with_them.scores, without.scores)
    np.testing.assert_array_equal(with_them.tiebreak, without.tiebreak)


def test_a_chunk_keeps_its_numbers_when_the_next_chunk_reuses_the_records_buffer():
    """Águeda's chunks are played into one records buffer reused chunk after chunk (rows as wide as
    the safety stop's rounds, mostly empty: fresh pages cost more than the play here). A chunk's batch
    must hold copies: playing the next chunk, which overwrites the buffer, leaves it as it was, and
    the buffer's own numbers are those of a fresh play of the same games."""
    import copy

    import numpy as np

    from balancer.config import load_config
    from balancer.games import agueda

    cfg = load_config(agueda.DEFAULT_CONFIG)
    agents = ["greedy", "random", "greedy"]
    first = agueda.play_chunk(cfg, agents, 11, 0, 30)
    kept = copy.deepcopy(first)
    agueda.play_chunk(cfg, agents, 11, 30, 90)  # more games: the buffer grows and is written again
    for name in ("scores", "turns", "standings", "checkpoints"):
        assert np.array_equal(getattr(first, name), getattr(kept, name), equal_nan=True), name
    again = agueda.play_chunk(cfg, agents, 11, 0, 30)  # the same games from a reused, larger buffer
    assert np.array_equal(again.standings, kept.standings, equal_nan=True)
    assert np.array_equal(again.scores, kept.scores)


def test_each_thread_has_its_own_records_buffer():
    """Dask workers play chunks in several threads of one process: each thread's scratch buffer is its
    own (a shared one would mix two chunks' games)."""
    import threading

    from balancer.core.table_loop import _scratch_records

    mine = _scratch_records(4, 7)
    mine[:] = 5
    seen = {}
    thread = threading.Thread(target=lambda: seen.setdefault("other", _scratch_records(4, 7)))
    thread.start()
    thread.join()
    assert not np.shares_memory(seen["other"], mine) and (seen["other"] == 0).all()
    again = _scratch_records(3, 7)  # the same thread: the same memory, zeroed
    assert np.shares_memory(again, mine) and (again == 0).all() and again.shape == (3, 7)
