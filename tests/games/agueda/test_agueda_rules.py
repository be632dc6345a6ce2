"""Águeda rules on hand-set positions, one rule per test, named after the rulebook's headings.

Positions are set on a real game: ``ag.game_state(game)`` holds numpy views into the game's buffer
(market, bag, boards, mural, tourists, coins) that a test overwrites before playing a whole turn
(``agueda_turns.play``: the turn's decisions, each checked against the kernel's legal moves). Seats
are 0-based in the engine. The config is configs/agueda/v1.yaml: colours R O Y G B P are codes
0..5; market cells 0..8 row by row; lines (0-based) 0 = cell 2 (1 umbrella, +1 coin), 1 = cells
1, 5 (free), 2 = cells 0, 4, 8 (costs 1 coin), 3 = cells 3, 7 (free), 4 = cell 6 (+1 coin); rows
of 7 spaces with paintbrushes on spaces 3 and 6 (indices 2 and 5); mural rows (R, O), (Y, G),
(B, P); tourist tile t shows the colours of mural row t and starts beside board row t.
"""

from __future__ import annotations

import numpy as np
import pytest
from agueda_turns import Turn, all_turns, is_legal_turn, play

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.core.game import ranks_and_win_shares
from balancer.core.protocol import Position
from balancer.games.agueda.rules import (
    ATTRACT_ONE,
    ATTRACT_TWO,
    G_BANK,
    G_OVER,
    G_SEAT,
    G_TRIGGER,
    ST_RETURNED,
    TAKE_BREAK,
    umbrellas_accounted,
)

R, O, Y, G, B, P = range(6)
L = 7


def position(cfg, n: int = 2, market=(R, O, Y, G, B, P, R, O, Y), seed: int = 1) -> Position:
    """A fresh game with the market set to ``market`` (the bag adjusted so that 120 umbrellas are
    still accounted for), every board empty."""
    game = ag.SPEC.new_game(cfg, n, seed)
    st = ag.game_state(game)
    st.bag[:] += np.bincount(st.market[st.market >= 0], minlength=6)  # put the dealt market back
    for cell, c in enumerate(market):
        st.market[cell] = c
        if c >= 0:
            st.bag[c] -= 1
    assert umbrellas_accounted(st) == 120
    return game


def set_row(game: Position, seat: int, row: int, colours) -> None:
    """Fill board ``row`` of ``seat`` with ``colours`` from the left (taken out of the bag)."""
    st = ag.game_state(game)
    st.board[seat, row, :] = -1
    st.board[seat, row, : len(colours)] = colours
    st.fill[seat, row] = len(colours)
    for c in colours:
        st.bag[c] -= 1


def market_line(game: Position, line: int) -> tuple[int, ...]:
    cells = game.T.rules.line_cells[line, : game.T.rules.line_len[line]]
    return tuple(int(ag.game_state(game).market[c]) for c in cells)


# ------------------------------------------------------------------------------------------ Pick Umbrellas


@pytest.mark.parametrize("line,coins_after", [(0, 3), (1, 2), (2, 1), (3, 2), (4, 3)])
def test_pick_umbrellas_each_diagonal_cost_and_coin(ag_cfg, line, coins_after):
    """Pick Umbrellas: starting from 2 coins, a 1-umbrella line (0, 4) gains 1, a 2-umbrella line
    (1, 3) is free, the 3-umbrella line (2) costs 1; the coin goes to or comes from the bank."""
    game = position(ag_cfg)
    bank = int(ag.game_state(game).g[G_BANK])
    taken = market_line(game, line)
    assert len(taken) == len(ag_cfg.market.lines[line].cells)
    play(game, Turn(line, 0, taken))
    assert ag.game_state(game).coins[0] == coins_after
    assert ag.game_state(game).g[G_BANK] == bank - (coins_after - 2)
    assert tuple(ag.game_state(game).board[0, 0, : len(taken)]) == taken


def test_pick_umbrellas_three_line_needs_a_coin(ag_cfg):
    """Pick Umbrellas: "In order to pick a column with 3 umbrellas, you must first pay 1 coin"."""
    game = position(ag_cfg)
    ag.game_state(game).coins[0] = 0
    move = Turn(2, 0, market_line(game, 2))
    assert not is_legal_turn(game, move)
    assert all(m.line != 2 for m in all_turns(game))
    with pytest.raises(ValueError):
        play(game, move)
    ag.game_state(game).coins[0] = 1
    assert is_legal_turn(game, move)


def test_pick_umbrellas_empty_bank_pays_nothing(ag_cfg):
    """coins (assumed, the empty bank): a 1-umbrella line with the bank empty gains no coin."""
    game = position(ag_cfg)
    ag.game_state(game).g[G_BANK] = 0
    play(game, Turn(0, 0, market_line(game, 0)))
    assert ag.game_state(game).coins[0] == 2 and ag.game_state(game).g[G_BANK] == 0


def test_pick_umbrellas_order_must_be_the_lines_umbrellas(ag_cfg):
    game = position(ag_cfg)  # line 1 holds O (cell 1) and P (cell 5)
    assert is_legal_turn(game, Turn(1, 0, (P, O)))
    assert not is_legal_turn(game, Turn(1, 0, (O, O)))
    assert not is_legal_turn(game, Turn(1, 0, (O,)))


# ------------------------------------------------------------------------------------------ Place Umbrellas


def test_place_umbrellas_from_the_leftmost_empty_space_in_the_chosen_order(ag_cfg):
    game = position(ag_cfg)  # line 2: R (cell 0), B (cell 4), Y (cell 8)
    set_row(game, 0, 1, [G, G])
    play(game, Turn(2, 1, (Y, R, B)))
    assert list(ag.game_state(game).board[0, 1, :5]) == [G, G, Y, R, B] and ag.game_state(game).fill[0, 1] == 5


def test_place_umbrellas_overflow_goes_back_into_the_bag(ag_cfg):
    """Place Umbrellas: "Any umbrellas you selected that do not fit in the row are discarded back
    into the bag". Row 0 has 1 empty space; the 3-line R, B, Y placed as B, R, Y: B fits, R and Y
    go back. The market refill then draws 3 of the bag's umbrellas, so the check is on bag + market."""
    game = position(ag_cfg)
    st = ag.game_state(game)
    set_row(game, 0, 0, [O, O, G, G, P, P])

    def pool() -> np.ndarray:
        return st.bag.copy() + np.bincount(st.market[st.market >= 0], minlength=6)

    before = pool()
    play(game, Turn(2, 0, (B, R, Y)))
    after = pool()
    assert list(st.board[0, 0]) == [O, O, G, G, P, P, B] and st.fill[0, 0] == L
    assert st.stats[0, ST_RETURNED] == 2
    # bag + market lost the 3 taken umbrellas and regained R and Y: only B is gone
    assert list(after - before) == [0, 0, 0, 0, -1, 0]
    assert umbrellas_accounted(st) == 120


def test_place_umbrellas_into_a_full_row_returns_all(ag_cfg):
    game = position(ag_cfg)
    set_row(game, 0, 2, [O] * 4 + [G] * 3)
    move = Turn(1, 2, (O, P))
    assert is_legal_turn(game, move)
    play(game, move)
    assert ag.game_state(game).stats[0, ST_RETURNED] == 2 and ag.game_state(game).fill[0, 2] == L


# ------------------------------------------------------------------------------------------ Update Mural


def test_update_mural_paintbrush_flips_that_colour_once(ag_cfg):
    """Update Mural: filling a paintbrush space (index 2) flips the tile of that umbrella's colour;
    an already flipped colour on a later paintbrush space does nothing."""
    game = position(ag_cfg)
    st = ag.game_state(game)
    set_row(game, 0, 0, [G, G])
    play(game, Turn(0, 0, (Y,)))  # line 0 = cell 2 = Y onto index 2 (paintbrush)
    assert list(st.flipped[0]) == [0, 0, 1, 0, 0, 0]
    assert st.suitcase[0] == 3 and list(st.unlocked[0]) == [0, 0, 0]
    # a non-paintbrush space flips nothing
    game2 = position(ag_cfg)
    play(game2, Turn(0, 0, (Y,)))  # Y onto index 0
    assert ag.game_state(game2).flipped[0].sum() == 0


def test_update_mural_row_unlocks_its_tourist_usable_the_same_turn(ag_cfg):
    """Update Mural + Attract Tourists: with R flipped and no tourist in a suitcase, placing O on a
    paintbrush space flips O, completes mural row (R, O) and unlocks its tourist, which may be
    attracted at once: to the open tile of row 1 (tile (Y, G)), scoring G, 2 umbrellas -> 2 points."""
    game = position(ag_cfg)  # line 1: O (cell 1), P (cell 5)
    st = ag.game_state(game)
    st.flipped[0, R] = 1
    st.suitcase[0] = 0
    st.occ[0] = [1, 0, 2]  # tiles of rows 0 and 2 are taken
    set_row(game, 0, 1, [G, G])
    move = Turn(1, 1, (O, P), ATTRACT_ONE, 1, G)
    without_unlock = Turn(1, 1, (P, O), ATTRACT_ONE, 1, G)  # P lands on the paintbrush instead
    assert not is_legal_turn(game, without_unlock)
    assert is_legal_turn(game, move)
    play(game, move)
    assert st.flipped[0, O] == 1 and st.unlocked[0, 0] == 1
    assert st.suitcase[0] == 0 and st.occ[0, 1] == 1
    assert st.stats[0, 0] == 2


# ------------------------------------------------------------------------------------------ Attract Tourists


def _tourist_position(cfg) -> Position:
    """Seat 0: row 0 = R R O Y, row 1 = Y G G, 3 tourists in suitcases, every tile open."""
    game = position(cfg)
    set_row(game, 0, 0, [R, R, O, Y])
    set_row(game, 0, 1, [Y, G, G])
    return game


def test_attract_one_tourist_scores_one_colour_of_the_tile(ag_cfg):
    """Attract 1 Tourist & Score: row 0's tile shows R and O; after placing the line-4 umbrella (R,
    cell 6) in row 0, scoring R counts 3 umbrellas (including earlier ones)."""
    game = _tourist_position(ag_cfg)
    play(game, Turn(4, 0, (R,), ATTRACT_ONE, 0, R))
    st = ag.game_state(game)
    assert st.stats[0, 0] == 3 and st.occ[0, 0] == 1 and st.suitcase[0] == 2


def test_attract_one_tourist_colour_must_be_on_the_tile(ag_cfg):
    game = _tourist_position(ag_cfg)
    assert not is_legal_turn(game, Turn(4, 0, (R,), ATTRACT_ONE, 0, Y))


def test_attract_two_tourists_scores_both_colours(ag_cfg):
    """Attract 2 Tourists & Score: row 1's tile shows Y and G: Y G G + the placed Y (line 0, cell
    2) -> 4 points; 2 tourists leave the suitcases."""
    game = _tourist_position(ag_cfg)
    play(game, Turn(0, 1, (Y,), ATTRACT_TWO, 1))
    st = ag.game_state(game)
    assert st.stats[0, 0] == 4 and st.occ[0, 1] == 2 and st.suitcase[0] == 1


def test_attract_needs_an_open_tile_and_enough_tourists(ag_cfg):
    """ "A Tourist Tile is considered open ONLY when it is empty"; 2 tourists need 2 in suitcases."""
    game = _tourist_position(ag_cfg)
    st = ag.game_state(game)
    st.occ[0, 0] = 1
    st.suitcase[0] = 1
    assert not is_legal_turn(game, Turn(4, 0, (R,), ATTRACT_ONE, 0, R))  # tile taken
    assert is_legal_turn(game, Turn(4, 0, (R,), ATTRACT_ONE, 1, G))
    assert not is_legal_turn(game, Turn(4, 0, (R,), ATTRACT_TWO, 1))  # only 1 tourist


def test_take_a_break_returns_tourists_and_shifts_tiles(ag_cfg):
    """Take a Break: tourists return to the suitcases; the tiles shift down 1, the bottom to the top."""
    game = _tourist_position(ag_cfg)
    st = ag.game_state(game)
    st.occ[0] = [1, 2, 0]
    st.suitcase[0] = 0
    play(game, Turn(4, 0, (R,), TAKE_BREAK))
    assert list(st.occ[0]) == [0, 0, 0] and st.suitcase[0] == 3
    assert list(st.tile_at[0]) == [2, 0, 1]
    assert st.stats[0, 0] == 0


def test_no_tourist_in_a_suitcase_forces_a_break(ag_cfg):
    """ "If all of your Tourist Meeples have already been placed, you ... must Take a Break"."""
    game = _tourist_position(ag_cfg)
    st = ag.game_state(game)
    st.suitcase[0] = 0
    st.occ[0] = [2, 1, 0]
    moves = all_turns(game)
    assert moves and all(m.tourist == TAKE_BREAK for m in moves)
    assert not is_legal_turn(game, Turn(4, 0, (R,), ATTRACT_ONE, 2, B))


def test_legal_moves_count_on_a_fresh_market(ag_cfg):
    """A fresh position: lines 0, 4 (1 umbrella: 1 order), 1, 3 (2 different: 2 orders), 2 (3
    different: 6 orders) = 12 orders x 3 rows, each with 1 break + 3 open tiles x (2 colours + 1
    pair) = 10 tourist options -> 360 moves."""
    game = position(ag_cfg)
    moves = all_turns(game)
    assert len(moves) == 360 == len(set(moves))
    assert all(is_legal_turn(game, m) for m in moves)


# ------------------------------------------------------------------------------------------ Game End


def test_end_trigger_gives_every_other_player_one_last_turn(ag_cfg):
    """Game End: seat 1 of 3 fills its last space; seats 2 and 0 each take one final turn, then the
    game is over (seat 1 does not play again)."""
    game = position(ag_cfg, n=3)
    st = ag.game_state(game)
    for r in range(3):
        set_row(game, 1, r, [G] * (L if r < 2 else L - 1))
    st.g[G_SEAT] = 1
    play(game, Turn(0, 2, (Y,)))
    assert st.g[G_TRIGGER] == 1 and not protocol.is_over(game) and game.seat_to_move == 2
    play(game, all_turns(game)[0])
    assert not protocol.is_over(game) and game.seat_to_move == 0
    play(game, all_turns(game)[0])
    assert protocol.is_over(game) and all_turns(game) == []
    assert list(st.stats[:, 1]) == [1, 1, 1]


def test_end_trigger_by_the_last_seat(ag_cfg):
    """Seat 1 of 2 triggers: seat 0 takes one final turn and the game ends."""
    game = position(ag_cfg, n=2)
    for r in range(3):
        set_row(game, 1, r, [G] * (L if r < 2 else L - 1))
    ag.game_state(game).g[G_SEAT] = 1
    play(game, Turn(0, 2, (Y,)))
    assert not protocol.is_over(game) and game.seat_to_move == 0
    play(game, all_turns(game)[0])
    assert protocol.is_over(game)


# ------------------------------------------------------------------------------------------ Winning the Game


def test_outcome_scores_by_source_and_tie_breakers(ag_cfg):
    """Final Scoring and Winning the Game, 3 seats on an ended game with shop cards fixed to
    Shop 07 (2 per full row) and Shop 09 (1 per tourist on a tile):
      seat 0: 10 tourist points, 4 tiles flipped (2), 2 full rows (4) + 1 tourist (1), 3 empty (-3) = 14
      seat 1: 11 tourist points, 5 tiles (4), 1 full row (2) + 0, 4 empty (-4) = 13
      seat 2: 11 tourist points, 4 tiles (2), 2 full rows (4) + 0, 3 empty (-3) = 14
    seats 0 and 2 tie on 14 and on empty spaces (3) and mural tiles (4); seat 2 has more coins."""
    game = position(ag_cfg, n=3)
    st = ag.game_state(game)
    st.shops[:] = [6, 8]
    st.shop_mask[:] = 0
    boards = {0: [L, L, 4], 1: [L, 6, 4], 2: [L, L, 4]}
    for s, fills in boards.items():
        for r, f in enumerate(fills):
            set_row(game, s, r, [R] * f)
    st.stats[:, 0] = [10, 11, 11]
    st.flipped[:] = 0
    st.flipped[0, :4] = 1
    st.flipped[1, :5] = 1
    st.flipped[2, :4] = 1
    st.occ[0] = [1, 0, 0]
    st.coins[:] = [1, 0, 3]
    st.g[G_OVER] = 1  # the game has ended
    out = protocol.outcome(game)
    assert out.scores == [14, 13, 14]
    assert out.components == {
        "tourists": [10, 11, 11],
        "mural": [2, 4, 2],
        "shops": [5, 2, 4],
        "empty_spaces": [-3, -4, -3],
    }
    assert out.tiebreak == [(-3, 4, 1), (-4, 5, 0), (-3, 4, 3)]
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert ranks == [2, 3, 1] and shares == [0.0, 0.0, 1.0]
    st.coins[2] = 1  # equal on every tie-breaker: shared victory
    tied = protocol.outcome(game)
    ranks, shares = ranks_and_win_shares(tied.scores, tied.tiebreak)
    assert shares == [0.5, 0.0, 0.5]
    assert out.labels == {"shops": ["Shop 07 + Shop 09"] * 3}


def test_fewer_empty_spaces_beats_more_mural(ag_cfg):
    """Tie-breaker 1 (fewer empty spaces) comes before 2 (more mural tiles)."""
    _, shares = ranks_and_win_shares([20, 20], [(-1, 3, 0), (-2, 6, 9)])
    assert shares == [1.0, 0.0]
