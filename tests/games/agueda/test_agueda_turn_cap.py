"""Águeda's safety stop (end.max_turns): a game that never reaches the Game End stops, and says so.

The rulebook has no turn limit, and a policy that keeps returning umbrellas to the bag and taking
breaks never fills a row: two seats that always take the first legal decision play "take line 1 into
row 1, it overflows back to the bag, take a break" for ever. The stop ends such games after
``end.max_turns`` turns of all seats together, and ``ended_by`` says the rules did not end them.
"""

from __future__ import annotations

import numpy as np

import balancer.games.agueda as ag
from balancer.core.kernel import ENDED_BY, RULES, TURN_CAP
from balancer.games.agueda.config import AguedaConfig
from balancer.games.agueda.kernel import ENGINE, ended_by


def capped(cfg: AguedaConfig, turns: int) -> AguedaConfig:
    return cfg.model_copy(update={"end": cfg.end.model_copy(update={"max_turns": turns})})


def first_move_game(cfg: AguedaConfig, n: int) -> tuple[np.ndarray, object, int]:
    """A game where every seat takes the first legal decision; (S, T, decisions played)."""
    T = ENGINE.compile(cfg, n)
    K = ENGINE.kernel
    S = ENGINE.new_state(T, np.random.default_rng(5))
    buf = np.zeros(ENGINE.max_moves(T), np.int64)
    rng = np.random.default_rng(6)
    decisions = 0
    while not K.is_over(S, T) and decisions < 100_000:
        K.legal(S, T, buf)
        K.apply(S, T, buf[0], rng)
        decisions += 1
    return S, T, decisions


def test_first_move_players_are_stopped_by_the_turn_cap(ag_cfg):
    # 40 turns of 2 seats, each turn at least one decision: the loop ends long before 100,000 decisions
    S, T, decisions = first_move_game(capped(ag_cfg, 40), 2)
    assert ENGINE.kernel.is_over(S, T)
    assert decisions < 100_000
    assert ENDED_BY[int(ended_by(S, T))] == "turn_cap"
    out = ENGINE.outcome(S, T)
    assert out.ended_by == "turn_cap"
    assert sum(out.turns) == 40  # every turn of both seats counts toward the cap


def test_a_cap_below_the_shortest_game_ends_every_game_there(ag_cfg):
    # by hand: a line of the 3x3 market holds at most 3 umbrellas (its diagonals hold 1, 2, 3, 2, 1), so
    # a seat fills its 3 rows of 7 spaces in 7 turns at the least and the Game End comes no sooner than
    # the 13th turn of a two-player game; a 7-turn cap ends each game first, after exactly 7 turns
    # (measured: two-player greedy games take 20 to 27 turns, `balancer run configs/agueda/v1.yaml -p 2
    # -a greedy -n 2000`)
    cfg = capped(ag_cfg, 7)
    for seed in range(5):
        out = ag.play_game(cfg, ["greedy", "greedy"], seed)
        assert out.ended_by == "turn_cap"
        assert sum(out.turns) == 7
        assert out.metrics["game_turns"] == [7.0, 7.0]


def test_the_chunk_path_reports_the_same_end(ag_cfg):
    cfg = capped(ag_cfg, 7)
    batch = ag.play_chunk(cfg, ["greedy", "random"], 11, 0, 6)
    assert batch.ended_by is not None
    assert list(batch.ended_by) == [TURN_CAP] * 6
    free = ag.play_chunk(ag_cfg, ["greedy", "random"], 11, 0, 6)  # the shipped cap of 1,000 turns
    assert free.ended_by is not None
    assert list(free.ended_by) == [RULES] * 6


def test_games_that_end_by_the_rules_say_so(ag_cfg):
    for agents in (["greedy"], ["greedy", "random"], ["random"] * 4):
        assert ag.play_game(ag_cfg, agents, 3).ended_by == "rules"


def test_the_transcript_says_the_cap_ended_the_game(ag_cfg):
    text = ag.transcript(capped(ag_cfg, 7), ["greedy", "greedy"], 2)
    assert "Ended by: the turn cap (end.max_turns, 7 turns), not the rules" in text
    assert "Ended by" not in ag.transcript(ag_cfg, ["greedy", "greedy"], 2)
