"""Águeda rules read sentence by sentence against the rulebook (shared/rules/agueda.txt) where the
first tests left a gap or the code read the text differently. Positions as in test_agueda_rules.py
(v1: lines 0 = cell 2, 1 = cells 1, 5, 2 = cells 0, 4, 8, 3 = cells 3, 7, 4 = cell 6)."""

from __future__ import annotations

from agueda_turns import Turn, all_turns, is_legal_turn, play
from test_agueda_rules import B, G, O, P, R, Y, position

import balancer.games.agueda as ag
from balancer.games.agueda.rules import G_BANK

E = -1  # an empty market space


def test_a_long_diagonal_holding_one_umbrella_gains_a_coin(ag_cfg):
    """Pick Umbrellas: "If you choose the diagonal with 1 umbrella, you also gain 1 coin from the
    bank. In order to pick a column with 3 umbrellas, you must first pay 1 coin." The coin depends on
    the umbrellas the line holds. The bag ran out, so the 3-space diagonal (cells 0, 4, 8) holds one
    umbrella (R on cell 0): with 0 coins the player may take it and gains 1 coin (0 + 1 = 1), and the
    bank pays it."""
    game = position(ag_cfg, market=(R, O, Y, G, E, P, R, O, E))
    st = ag.game_state(game)
    st.coins[0] = 0
    bank = int(st.g[G_BANK])
    move = Turn(2, 0, (R,))
    assert is_legal_turn(game, move)
    play(game, move)
    assert st.coins[0] == 1 and st.g[G_BANK] == bank - 1


def test_a_long_diagonal_holding_two_umbrellas_is_free(ag_cfg):
    """Pick Umbrellas: "Picking a column with 2 umbrellas is free": the 3-space diagonal holding two
    umbrellas (R on 0, Y on 8; cell 4 empty) costs nothing: 2 coins stay 2."""
    game = position(ag_cfg, market=(R, O, Y, G, E, P, R, O, Y))
    st = ag.game_state(game)
    play(game, Turn(2, 0, (R, Y)))
    assert st.coins[0] == 2


def test_a_full_three_diagonal_still_costs_a_coin(ag_cfg):
    """The usual case is unchanged: a full 3-space diagonal (R, B, Y) costs 1 coin (2 - 1 = 1)."""
    game = position(ag_cfg, market=(R, O, Y, G, B, P, R, O, Y))
    play(game, Turn(2, 0, (R, B, Y)))
    assert ag.game_state(game).coins[0] == 1


def test_no_line_can_be_taken_the_turn_goes_on_to_the_tourists(ag_cfg):
    """market.assumed: the bag ran out and only the 3-space diagonal holds umbrellas (3 of them: "a
    column with 3 umbrellas" costs 1 coin). With 0 coins no line can be taken: every legal move takes
    no line (line -1) and the turn only attracts tourists or rests; with 1 coin the line is legal."""
    game = position(ag_cfg, market=(R, E, E, E, B, E, E, E, Y))
    st = ag.game_state(game)
    st.coins[0] = 0
    moves = all_turns(game)
    assert moves and all(m.line == -1 and m.order == () for m in moves)
    st.coins[0] = 1
    assert is_legal_turn(game, Turn(2, 0, (R, B, Y)))
    assert all(m.line == 2 for m in all_turns(game))


def test_more_mural_beats_more_coins(ag_cfg):
    """Winning the Game: tie-breaker 2 (most completed mural) comes before 3 (most coins): two
    players on 20 points and 1 empty space each, 4 flipped tiles and 0 coins against 3 tiles and
    9 coins: the first wins alone."""
    from balancer.core.game import ranks_and_win_shares

    _, shares = ranks_and_win_shares([20, 20], [(-1, 4, 0), (-1, 3, 9)])
    assert shares == [1.0, 0.0]
