"""Urgency's trajectory (issue 49): each seat's tokens scored at the end of every round (round r:
game turns 2r - 1 and 2r, seat 1 then seat 2), the last checkpoint the game's end, recorded by the
full-speed paths (:func:`~balancer.games.urgency.play_chunk`, :func:`~balancer.games.urgency.play_game`)
from the round each token scored in (``rules.SCORED_AT``, written where the rules score a token)."""

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
from balancer.games import urgency
from balancer.games.urgency.agents import GREEDY, RANDOM, play_new_game, play_race_fast
from balancer.games.urgency.kernel import priority, weights
from balancer.games.urgency.rules import MAX_TOKENS, PS, SCORED, SCORED_AT, TOTAL_TURNS

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "urgency"
GAMES = 12


@pytest.fixture(scope="module", params=["standard", "no-cards"])
def cfg(request):
    return load_config(CONFIGS / f"{request.param}.yaml")


@pytest.mark.parametrize("agents", [["greedy", "random"], ["greedy", "greedy"]])
def test_every_round_every_seat_and_the_last_checkpoint_is_the_final_score(cfg, agents):
    batch = urgency.play_chunk(cfg, agents, 7, 0, GAMES)
    assert batch.standings is not None and batch.checkpoints is not None
    rounds = batch.turns.max(axis=1)  # seat 1 plays first: a game of t turns lasts ceil(t / 2) rounds
    assert (batch.checkpoints == rounds).all() and (rounds >= 1).all()
    assert batch.standings.shape == (GAMES, rounds.max(), 2)
    for g in range(GAMES):
        k = batch.checkpoints[g]
        mine = batch.standings[g, :k]
        assert np.isfinite(mine).all() and np.isnan(batch.standings[g, k:]).all()
        assert mine[-1].tolist() == batch.scores[g].tolist()  # the standing is the score: the end is the result
        assert (np.diff(mine, axis=0) >= 0).all() and mine[0].min() >= 0  # tokens scored never go down


def test_play_chunk_and_play_game_record_the_same_trajectories(cfg):
    agents = ["random", "greedy"]
    batch = urgency.play_chunk(cfg, agents, 3, 5, 5 + GAMES)
    for j in range(GAMES):
        i = 5 + j
        out = urgency.play_game(cfg, seat_agents(agents, i), game_seed(3, i))
        assert out.standings == batch.standings[j, : batch.checkpoints[j]].tolist(), f"game {i}"


def test_the_no_card_race_records_what_the_general_engine_does():
    # play_race_fast writes SCORED_AT itself: the same slots as rules.score_token on the same games
    cfg = load_config(CONFIGS / "no-cards.yaml")
    rules = urgency.compiled(cfg)
    kinds = np.array([GREEDY, RANDOM], np.int64)
    w = np.tile(weights(cfg), (2, 1))
    slots = np.arange(SCORED_AT, SCORED_AT + 2 * MAX_TOKENS)
    for i in range(40):
        general = play_new_game(rules, np.array([-1, -1]), kinds, priority(cfg), w, *game_rngs(game_seed(9, i)))
        fast = play_race_fast(rules, kinds, *game_rngs(game_seed(9, i)))
        assert fast[slots].tolist() == general[slots].tolist(), f"game {i}"
        assert general[slots].any()


def test_checkpoints_are_the_tokens_scored_when_each_round_ends(cfg):
    # Derivation: play the same games through the Python protocol (new_game / legal_moves / apply, the same
    # agents and seeds as play_game) and read the game's own score (protocol.outcome's scores: tokens scored)
    # after every decision. Round r ends when game turn 2r + 1 starts (TOTAL_TURNS goes past 2r); the
    # standing at checkpoint r is the score seen after the last decision of round r, which no later step of
    # round r changes without a decision (Urgency scores a token only by a move; here no card scored one at a
    # turn's start, which the assert on the last checkpoint, the game's result, would also catch).
    agents = ["greedy", "random"]
    for i in range(4):
        seed = game_seed(11, i)
        players = [urgency.make_agent(cfg, a) for a in agents]
        pos = urgency.new_game(cfg, 2, seed, (players[0].deck, players[1].deck))
        _, agent_rng = game_rngs(seed)
        seen = {}  # round -> the score after the last decision played in it
        while not protocol.is_over(pos):
            rnd = max((int(pos.S[TOTAL_TURNS]) + 1) // 2, 1)
            seat = pos.seat_to_move
            protocol.apply(pos, players[seat].choose(pos, seat, agent_rng))
            seen[rnd] = (
                protocol.outcome(pos).scores
                if protocol.is_over(pos)
                else [int(pos.S[SCORED + p * PS]) for p in range(2)]
            )
        got = urgency.play_game(cfg, agents, seed).standings
        assert got is not None and len(got) == max(seen)
        last = [0, 0]
        for r in range(1, len(got) + 1):
            last = seen.get(r, last)  # a round without a decision (both rolled 0) keeps the score
            assert got[r - 1] == last, f"game {i}, round {r}"
        assert got[0] == seen.get(1, [0, 0])  # round 1, scored by hand from the protocol's play: no token yet
        assert got[-1] == protocol.outcome(pos).scores


def test_a_run_writes_trajectories_and_the_flow_measures(tmp_path):
    out = tmp_path / "run"
    api.run("urgency/standard", agents="greedy,random", games=40, seed=2, out=out)
    traj = pl.read_parquet(out / "trajectories.parquet")
    results = pl.read_parquet(out / "results.parquet")
    assert traj["game_index"].n_unique() == 40 and set(traj["seat"].to_list()) == {1, 2}
    last = traj.filter(pl.col("checkpoint") == pl.col("checkpoint").max().over("game_index"))
    joined = results.join(last, on=["game_index", "seat"])
    assert joined.height == 80 and (joined["standing"] == joined["score"].cast(pl.Float64)).all()
    measures = json.loads((out / "summary.json").read_text())["flow"]["trajectory"]
    assert measures["games"] == 40 and measures["without_trajectory"] == 0
    assert len(measures["leader_wins"]) == measures["checkpoints_max"] == last["checkpoint"].max() + 1
    assert measures["leader_wins"][0]["games"] == 40 and measures["comebacks"]["games"] == 40
    assert measures["lead_changes"]["mean"] is not None and 0 < measures["decided_at"]["mean"] <= 1


def test_without_flow_play_chunk_builds_no_trajectories(cfg):
    # run --no-flow: the runner asks for none (GameSpec.play_chunk passes trajectories=False), the rows unchanged
    on = urgency.SPEC.play_chunk(cfg, ["greedy", "random"], 4, 0, GAMES)
    off = urgency.SPEC.play_chunk(cfg, ["greedy", "random"], 4, 0, GAMES, trajectories=False)
    assert on is not None and off is not None and on.standings is not None
    assert off.standings is None and off.checkpoints is None and (off.scores == on.scores).all()


def test_games_in_which_no_token_was_scored_have_standings_of_zero():
    # no seat scored (a transcript's first turns, the ibex lock's turn cap): every standing is 0 tokens,
    # float64, and NaN only after each game's last round (the histogram of no scoring round is empty)
    from balancer.games.urgency.scoring import MAX_TOKENS, standings

    out, rounds = standings(np.zeros((2, 2, MAX_TOKENS), np.int64), np.zeros((2, 2)), np.array([[3, 2], [1, 1]]))
    assert out.dtype == np.float64 and list(rounds) == [3, 1]
    assert (out[0] == 0).all() and (out[1, 0] == 0).all() and np.isnan(out[1, 1:]).all()
