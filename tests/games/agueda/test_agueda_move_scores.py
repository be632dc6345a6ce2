"""Águeda's move scores (kernel.move_scores): the greedy agent's value of the best whole turn that
agrees with each decision. Positions as in test_agueda_rules.py (v1: lines 0 = cell 2, 1 = cells
1, 5, 2 = cells 0, 4, 8, 3 = cells 3, 7, 4 = cell 6; colours R O Y G B P = 0..5)."""

from __future__ import annotations

import numpy as np
import pytest
from test_agueda_rules import G, Y, position, set_row

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.core.seeding import game_rngs
from balancer.games.agueda.kernel import KERNEL, M_ROW, M_TOURIST, PH_LINE, PH_ROW, PH_TOURIST, phase


def scores(game) -> dict[int, float]:
    """The move score of each legal decision; ``S`` must come back unchanged."""
    moves = np.array(protocol.legal_moves(game), np.int64)
    out = np.full(len(moves), np.nan)
    before = game.S.copy()
    KERNEL.move_scores(game.S, game.T, moves, len(moves), out)
    assert np.array_equal(game.S, before)
    return dict(zip(moves.tolist(), out.tolist(), strict=True))


@pytest.mark.parametrize("n_players", [1, 2, 4])
def test_the_greedy_decision_scores_highest(ag_cfg, n_players):
    """By construction: a decision's score is the greatest greedy value among the whole turns that
    agree with it and with the decisions already taken, and the greedy agent plays a turn of the
    greatest value among all turns (the first decision), then holds to it; so at every decision of
    a greedy game the greedy decision's score is the maximum, and the scores are exact ties of the
    same floats (the same expression of greedy_search gives both). Every decision of one whole
    fixed-seed game of greedy seats is checked."""
    game = ag.SPEC.new_game(ag_cfg, n_players, 11)
    agents = [ag.make_agent(ag_cfg, "greedy") for _ in range(n_players)]
    _, rng = game_rngs(11)
    asked = set()
    while not protocol.is_over(game):
        seat = game.seat_to_move
        sc = scores(game)
        asked.add(phase(game.S))
        move = agents[seat].choose(game, seat, rng)
        assert sc[move] == max(sc.values()), (phase(game.S), sc, move)
        assert all(np.isfinite(v) for v in sc.values())
        protocol.apply(game, move)
    assert asked == {0, 1, 2, 3}  # the line, the row, the order and the tourists were all asked


def test_scores_on_a_hand_set_position(ag_cfg):
    """Seat 1's row 2 holds Y G Y G (tile (Y, G)); shop cards 07 (full rows) and 10 without a
    marker score nothing here; 3 tourists in the suitcase, 2 coins. Line 0 (one Y, +1 coin) into row
    2 lands on space 5 (no paintbrush): base = fill 1 x 1 + coin 0.5 x 1 + tile_match 0.3 x 1 =
    1.8. Tourist options (suitcase weight 0.6 per tourist left in the suitcase; the break keeps 3):
    break 1.8 + 0.6 x 3 = 3.6; row 2: scoring Y (3 now) 1.8 + 3 + 1.2 = 6.0, G (2) 5.0, both 1.8 +
    5 + 0.6 = 7.4; rows 1 and 3 (nothing of their tiles' colours): 1.8 + 1.2 = 3.0 each, both 2.4.
    Into row 1 or 3 instead, the Y matches no tile (base 1.5) and row 2 keeps Y G Y G: the best
    completion is 2 tourists there, 1.5 + 4 + 0.6 = 6.1. So the row decision after line 0 scores
    6.1, 7.4, 6.1, and line 0 scores its best completion, 7.4."""
    game = position(ag_cfg, n=2)
    st = ag.game_state(game)
    st.shops[:] = [6, 9]
    st.shop_mask[:] = 0
    set_row(game, 0, 1, [Y, G, Y, G])
    assert phase(game.S) == PH_LINE
    assert scores(game)[0] == pytest.approx(7.4)
    protocol.apply(game, 0)
    assert phase(game.S) == PH_ROW
    assert scores(game) == pytest.approx({M_ROW: 6.1, M_ROW + 1: 7.4, M_ROW + 2: 6.1})
    protocol.apply(game, M_ROW + 1)  # one umbrella: its order is not asked
    assert phase(game.S) == PH_TOURIST
    expected = [3.6, 3.0, 3.0, 2.4, 6.0, 5.0, 7.4, 3.0, 3.0, 2.4]  # break, then per row: 1st, 2nd colour, both
    assert scores(game) == pytest.approx({M_TOURIST + t: v for t, v in enumerate(expected)})


def test_every_full_row_scores_as_the_full_row_greedy_tries(ag_cfg):
    """Rows 1 and 3 are full: greedy tries one full row (both send every umbrella back into the
    bag and score alike), and the row decision gives both the same score."""
    game = position(ag_cfg, n=2)
    set_row(game, 0, 0, [G] * 7)
    set_row(game, 0, 2, [Y] * 7)
    protocol.apply(game, 2)
    sc = scores(game)
    assert sc[M_ROW] == sc[M_ROW + 2]
