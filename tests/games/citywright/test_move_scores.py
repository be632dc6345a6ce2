"""Citywright's move scores (``kernel.move_scores``): the greedy agent's gain of each decision of a
turn, the best whole turn it can complete.

Why the greedy agent's decision is always among the best-scored: the greedy agent plays a turn of
the largest (gain, tie-break) pair over every legal whole turn, and the score of a decision is the
largest (gain, tie-break) pair over the whole turns that decision can complete (as gain + 1/64 x
tie-break, the tie-break below one point), computed by the same search (``greedy.greedy_search``)
pruned per decision instead of overall. Every decision of the greedy's turn can complete that turn,
so it scores the overall maximum, and no decision can score more (each completion is a legal turn).
"""

from __future__ import annotations

import numpy as np
import pytest

import balancer.games.citywright as cw
from balancer.core import protocol
from balancer.games.citywright.greedy import SEC_UNIT
from balancer.games.citywright.kernel import DRAFT, KERNEL, PLACE0, PLACEMENT
from balancer.games.citywright.rules import G_PHASE

R, C, P, I = 1, 2, 3, 4


def scores_of(game: cw.Game) -> tuple[list[int], np.ndarray]:
    """The legal moves of ``game`` and their move scores (checking that ``S`` is unchanged)."""
    out = np.zeros(game.T.max_moves, np.int64)
    k = int(KERNEL.legal(game.S, game.T, out))
    sc = np.zeros(game.T.max_moves)
    S0 = game.S.copy()
    KERNEL.move_scores(game.S, game.T, out, k, sc)
    assert np.array_equal(game.S, S0)
    return [int(m) for m in out[:k]], sc[:k].copy()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_greedy_agent_plays_a_best_scored_move_at_every_decision(cw_cfg, n):
    checked = 0
    for seed in (3, 4):
        game = cw.new_game(cw_cfg, n, seed)
        rng = np.random.default_rng(seed)
        players = [cw.make_agent(cw_cfg, "greedy") for _ in range(n)]
        while not protocol.is_over(game):
            seat = game.seat_to_move
            move = players[seat].choose(game, seat, rng)
            moves, sc = scores_of(game)
            assert np.isfinite(sc).all()
            assert sc[moves.index(move)] >= sc.max() - 1e-9, (seed, int(game.S[G_PHASE]), move)
            protocol.apply(game, move)
            checked += 1
    assert checked > 2 * 12 * n  # every decision of two games (12 turns each seat, 2-4 decisions a turn)


def test_a_placements_score_is_its_gain_by_hand(cw_cfg):
    game = cw.new_game(cw_cfg, 3, 5)
    st = game.state
    seat = game.seat_to_move
    shape = cw_cfg.rulers.names.index("I")
    st.slots[0] = shape  # row 1 left: its line is site cells 0-3
    st.site[:4] = [P, P, P, P]  # one tile order only: no order decision
    table = st.tables[seat]
    table[:] = 0
    table[0] = R  # row 1, column 1
    table[8] = C  # row 2, column 2
    st.ticks[seat, :] = 0
    assert game.S[G_PHASE] == DRAFT
    slots, slot_scores = scores_of(game)
    protocol.apply(game, 0)
    assert game.S[G_PHASE] == PLACEMENT
    moves, sc = scores_of(game)
    lay = {
        frozenset(int(c) for c in game.rules.pl_cells[m - PLACE0, : game.rules.pl_k[m - PLACE0]]): s
        for m, s in zip(moves, sc)
        if m >= PLACE0
    }
    # four parks on row 1, columns 2-5 (cells 1-4): cell 1 touches the R (cell 0) and the C (cell 8),
    # +1 (§6.3); one row with a park, +2; four columns, +4 x 2 = 8: 11 points. Tie-break: 4 tiles
    # landed and a new shape, 2 x 4 + 1 = 9
    assert lay[frozenset({1, 2, 3, 4})] == pytest.approx(11 + 9 * SEC_UNIT)
    # down column 7, rows 1-4 (cells 6, 13, 20, 27): touching nothing; four rows +8; one column +2
    assert lay[frozenset({6, 13, 20, 27})] == pytest.approx(10 + 9 * SEC_UNIT)
    # the slot's score is its ruler's best turn: the best of its placements
    assert slot_scores[slots.index(0)] == pytest.approx(sc.max())
