"""Águeda agents: the greedy agent takes the move its documented value ranks first on hand-set
positions, breaks exact ties at random, and every agent only plays legal moves."""

from __future__ import annotations

from collections import Counter

import numpy as np

import balancer.games.agueda as ag
from balancer.core.seeding import game_rngs
from balancer.games.agueda.rules import ATTRACT_TWO

R, O, Y, G, B, P = range(6)


def test_greedy_scores_the_big_row(ag_cfg):
    """Row 1 holds Y G G G Y G (6 of tile (Y, G)); any umbrella placed elsewhere and 2 tourists
    attracted to row 1 score 6, far above anything else on offer (at most 3 + 1 on a fresh row)."""
    game = ag.new_game(ag_cfg, 2, 4)
    st = game.state
    st.board[0, 1, :6] = [Y, G, G, G, Y, G]
    st.fill[0, 1] = 6
    st.bag[Y] -= 2
    st.bag[G] -= 4
    move = ag.make_agent(ag_cfg, "greedy").choose(game, 0, np.random.default_rng(0))
    assert move.tourist == ATTRACT_TWO and move.tourist_row == 1
    assert ag.is_legal_move(game, move)


def test_greedy_breaks_exact_ties_at_random(ag_cfg):
    """With every tourist tile showing red/orange, the three empty rows of a fresh board are alike
    (same paintbrush spaces, same tile), so the greedy move's row varies with the rng."""
    cfg = ag_cfg.model_copy(update={"tourists": ag_cfg.tourists.model_copy(update={"tiles": [["red", "orange"]] * 3})})
    game = ag.new_game(cfg, 2, 4)
    agent = ag.make_agent(cfg, "greedy")
    rows = Counter(agent.choose(game, 0, np.random.default_rng(i)).row for i in range(60))
    assert len(rows) == 3 and min(rows.values()) >= 8   # about 20 each


def test_lookahead_plays_legal_moves(ag_cfg):
    game = ag.new_game(ag_cfg, 3, 8)
    _, rng = game_rngs(8)
    agent = ag.make_agent(ag_cfg, "lookahead")
    for _ in range(4):
        move = agent.choose(game, game.seat_to_move, rng)
        assert move in set(ag.legal_moves(game))
        ag.apply(game, move)


def test_greedy_beats_random(ag_cfg):
    """Over 40 two-player games (seats alternating), greedy outscores random in most."""
    wins = 0
    for i in range(40):
        table = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        out = ag.play_game(ag_cfg, table, i)
        g = table.index("greedy")
        wins += out.scores[g] > out.scores[1 - g]
    assert wins >= 35
