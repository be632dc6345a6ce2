"""Águeda Solo Mode on hand-set positions: the tour-guide cards, the AI's end-game card, the end
after the last card and the win condition (the AI wins ties). Config: configs/agueda/v1.yaml
(difficulty normal: 3 points, 0 per umbrella, 2 per colour group of 4 or more)."""

from __future__ import annotations

import numpy as np
import pytest
from agueda_turns import Turn, all_turns, play

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.core.protocol import Position
from balancer.games.agueda.rules import G_AI_PTS, G_DECK, umbrellas_accounted
from balancer.games.agueda.scoring import ai_score

R, O, Y, G, B, P = range(6)


def solo(cfg, market, first_card: str) -> Position:
    game = ag.SPEC.new_game(cfg, 1, 3)
    st = ag.game_state(game)
    st.bag[:] += np.bincount(st.market, minlength=6)
    st.market[:] = market
    st.bag[:] -= np.bincount(np.array(market), minlength=6)
    names = [c.name for c in cfg.solo.deck]
    st.deck[0] = names.index(first_card)
    st.deck[1:] = [i for i in range(10) if i != names.index(first_card)]
    return game


@pytest.mark.parametrize(
    "card,taken,points",
    [
        # the player first takes line 0 (cell 2); the card then acts on what is left
        ("Guide 6", {R: 1, O: 1}, 2),  # market row 1 = cells 0, 1 (cell 2 already gone): 1 per umbrella
        ("Guide 8", {O: 1, B: 1, P: 1}, 3),  # market column 2 = cells 1, 4, 7
        ("Guide 1", {R: 1, B: 1, Y: 1}, 3),  # line 3 (index 2) = cells 0, 4, 8
        ("Guide 4", {}, 2),  # line 1 = cell 2, already taken by the player: 0 umbrellas, 2 flat points
        ("Guide 10", {B: 3}, 3),  # most common colour: B at cells 4, 5, 6
    ],
)
def test_tour_guide_card_takes_from_the_market(ag_cfg, card, taken, points):
    """Solo Gameplay step 2: after the player's turn and before the refill, the revealed card takes
    umbrellas for the AI; they stay out of the bag."""
    market = [R, O, Y, G, B, B, B, P, Y]
    game = solo(ag_cfg, market, card)
    play(game, Turn(0, 0, (Y,)))
    st = ag.game_state(game)
    assert {c: int(n) for c, n in enumerate(st.ai) if n} == taken
    assert st.g[G_AI_PTS] == points and st.g[G_DECK] == 1
    assert umbrellas_accounted(st) == 120


def test_solo_ends_after_the_last_card(ag_cfg):
    game = ag.SPEC.new_game(ag_cfg, 1, 5)
    for _ in range(10):
        assert not protocol.is_over(game)
        play(game, all_turns(game)[0])
    assert protocol.is_over(game) and ag.game_state(game).stats[0, 1] == 10


def test_ai_end_card_and_ties_go_to_the_ai(ag_cfg):
    """AI: 13 card points + normal card 3 + 2 groups of 4+ (R 4, O 5) x 2 = 20. A player with 20
    loses (the AI wins ties), with 21 wins."""
    game = ag.SPEC.new_game(ag_cfg, 1, 5)
    st = ag.game_state(game)
    st.ai[:] = [4, 5, 3, 0, 1, 0]
    st.g[G_AI_PTS] = 13
    assert ai_score(st, game.T.rules) == 20
    st.shops[:] = [6, 9]  # Shop 07 (full rows) and Shop 10 (marked umbrellas): 0 on an empty board
    st.stats[0, 0] = 20 + 21  # tourist points; 21 empty spaces score -21
    st.g[2] = 1
    out = protocol.outcome(game)
    assert out.scores == [20] and out.metrics["ai_score"] == [20.0] and out.metrics["solo_win"] == [0.0]
    st.stats[0, 0] += 1
    assert protocol.outcome(game).metrics["solo_win"] == [1.0]
