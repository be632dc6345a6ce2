"""Citywright rules (rulebook §2-§5, §8-§10), one rule per test, named after the section.

Positions are set up by hand on a real game: ``game.state`` holds numpy views into the position
buffer (tables, site board, slots, piles) which the tests overwrite before playing a turn. A turn is
written as a whole (``turns.Move``) and played, or checked, as the compiled interface's decisions,
each of which must be among ``protocol.legal_moves`` (``turns.play_turn``, ``turns.is_legal_turn``).
Seats are 0-based in the engine (seat 1 of the rulebook is index 0).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from turns import Move, all_turns, is_legal_turn, play_turn

import balancer.games.citywright as cw
from balancer.core import protocol
from balancer.core.game import ranks_and_win_shares
from balancer.games.citywright.kernel import DRAFT, FORCED_DISCARD, PASS, PLACE0
from balancer.games.citywright.rules import (
    DISCARD_FOR_TILE,
    FORCED,
    G_PHASE,
    OPPOSITE,
    PLACE,
    SLOT_LINES,
    compile_rules,
    orientations,
    placement_table,
)

R, C, P, I = 1, 2, 3, 4
TL, TR, BR, BL = 16, 17, 18, 19
SIZE = 7


def sid(cfg, name: str) -> int:
    return cfg.rulers.names.index(name)


def placements(game: cw.Game, shape: int) -> range:
    return range(int(game.rules.pl_off[shape]), int(game.rules.pl_off[shape + 1]))


def landed_cells(game: cw.Game, p: int) -> set[int]:
    return {int(c) for c in game.rules.pl_cells[p, : game.rules.pl_k[p]]}


def find_placement(game: cw.Game, shape: int, cells: set[int], star: int = -1) -> int:
    """The placement of ``shape`` landing exactly ``cells`` (non-star) and its star on ``star``."""
    found = [
        p for p in placements(game, shape) if landed_cells(game, p) == cells and int(game.rules.pl_star[p]) == star
    ]
    assert len(found) == 1, (shape, cells, star, found)
    return found[0]


def line(game: cw.Game, slot: int) -> list[int]:
    """The 4 site tiles a slot's ruler gives (§5 step 2)."""
    return [int(game.state.site[i]) for i in SLOT_LINES[slot]]


def first_place_move(game: cw.Game, slot: int) -> Move:
    """A legal PLACE move for ``slot``'s ruler: its first free placement, tiles in line order."""
    st = game.state
    shape = int(st.slots[slot])
    table = st.tables[game.seat_to_move]
    for p in placements(game, shape):
        cells = landed_cells(game, p) | ({int(game.rules.pl_star[p])} if game.rules.pl_star[p] >= 0 else set())
        if all(table[c] == 0 for c in cells):
            k = int(game.rules.pl_k[p])
            return Move(PLACE, slot, p, tuple(line(game, slot)[:k]), int(st.site[0]))
    raise AssertionError("no placement")


def fill_all_but(game: cw.Game, seat: int, empty: list[int], district: int = P) -> None:
    game.state.tables[seat][:] = district
    for c in empty:
        game.state.tables[seat][c] = 0


def deck_counts(deck: np.ndarray, cfg) -> dict[str, int]:
    names = cfg.rulers.names
    return dict(Counter(names[int(s)] for s in deck))


# --------------------------------------------------------------------------- §2 components, §3 setup

RULEBOOK_SHAPES = {
    # §2.4 as drawn (row, column), reading order; the star is the ★ cell
    "I": ([(0, 0), (0, 1), (0, 2), (0, 3)], None),
    "L": ([(0, 0), (1, 0), (2, 0), (2, 1)], None),
    "T": ([(0, 0), (0, 1), (0, 2), (1, 1)], None),
    "Z": ([(0, 0), (0, 1), (1, 1), (1, 2)], None),
    "O": ([(0, 0), (0, 1), (1, 0), (1, 1)], None),
    "W": ([(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)], (1, 1)),
    "T5": ([(0, 0), (0, 1), (0, 2), (1, 1), (2, 1)], (0, 1)),
    "P": ([(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)], (1, 1)),
    "V": ([(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)], (0, 2)),
}


def test_2_4_nine_shapes_drawn_as_in_the_rulebook(cw_cfg):
    specs = {**cw_cfg.rulers.four_cell, **cw_cfg.rulers.five_cell}
    assert list(cw_cfg.rulers.four_cell) == ["I", "L", "T", "Z", "O"]
    assert list(cw_cfg.rulers.five_cell) == ["W", "T5", "P", "V"]
    for name, (cells, star) in RULEBOOK_SHAPES.items():
        assert specs[name].cells == cells, name
        assert specs[name].star == star, name


def test_2_4_deck_composition_35_plus_16(cw_cfg):
    # §2.4: four-cell 35 cards = 7 copies x 5 shapes; five-cell 16 = 4 copies x 4 shapes; 51 in all.
    for n in (1, 3, 4):
        rules, _, _ = compile_rules(cw_cfg, n)
        assert len(rules.deck4) == 35 and len(rules.deck5) == 16
        assert deck_counts(rules.deck4, cw_cfg) == {"I": 7, "L": 7, "T": 7, "Z": 7, "O": 7}
        assert deck_counts(rules.deck5, cw_cfg) == {"W": 4, "T5": 4, "P": 4, "V": 4}
        assert list(rules.shape_five) == [0, 0, 0, 0, 0, 1, 1, 1, 1]


def test_9_1_two_player_deck_20_plus_8(cw_cfg):
    # §9.1: remove 3 copies of each four-cell shape (7 - 3 = 4 each, 20 cards) and 2 of each five-cell
    # shape (4 - 2 = 2 each, 8 cards).
    rules, _, _ = compile_rules(cw_cfg, 2)
    assert deck_counts(rules.deck4, cw_cfg) == {"I": 4, "L": 4, "T": 4, "Z": 4, "O": 4}
    assert deck_counts(rules.deck5, cw_cfg) == {"W": 2, "T5": 2, "P": 2, "V": 2}
    assert (len(rules.deck4), len(rules.deck5)) == (20, 8)


def test_appendix_v1_0_two_players_use_the_full_deck(cw_cfg_v10):
    # Appendix: in v1.0 the 20 + 8 deck was an opt-in variant; the full 35 + 16 deck was used.
    rules, _, _ = compile_rules(cw_cfg_v10, 2)
    assert (len(rules.deck4), len(rules.deck5)) == (35, 16)


def test_appendix_v1_0_had_no_solo_mode(cw_cfg_v10):
    # Appendix, "Two players and solo": "New solo mode (§10), so one person can learn and test the game
    # alone." v1.0 had no solo game (and no rival apprentice), so a 1-player v1.0 game is not a v1.0 game.
    assert 1 not in cw_cfg_v10.player_counts
    with pytest.raises(ValueError):
        cw.new_game(cw_cfg_v10, 1, 0)


def test_10_1_solo_uses_the_full_deck(cw_cfg):
    rules, _, _ = compile_rules(cw_cfg, 1)
    assert (len(rules.deck4), len(rules.deck5)) == (35, 16)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_3_setup_site_board_and_slots(cw_cfg, n):
    # §3.4: 4 tiles of each district on the 16 site cells; §3.5: 16 four-cell rulers on the edge slots,
    # 4 five-cell rulers on the corners; §2.1 every table starts empty.
    game = cw.new_game(cw_cfg, n, 11)
    st = game.state
    assert sorted(Counter(int(x) for x in st.site).items()) == [(R, 4), (C, 4), (P, 4), (I, 4)]
    assert all(st.slots[s] >= 0 and not game.rules.shape_five[st.slots[s]] for s in range(16))
    assert all(st.slots[s] >= 0 and game.rules.shape_five[st.slots[s]] for s in range(16, 20))
    assert st.tables.shape == (n, 49) and not st.tables.any()
    # the rest of each deck stays face down: 35 - 16 = 19 and 16 - 4 = 12 (20 - 16 = 4, 8 - 4 = 4 at 2p)
    assert (st.pile_n[0], st.pile_n[2]) == ((4, 4) if n == 2 else (19, 12))
    assert st.pile_n[1] == st.pile_n[3] == 0


def test_3_unsupported_player_count_is_rejected(cw_cfg):
    with pytest.raises(ValueError, match="5 players"):
        cw.new_game(cw_cfg, 5, 0)


# --------------------------------------------------------------------------- §5 step 2: slots


@pytest.mark.parametrize(
    "slot, cells",
    [
        # §2.2/§5: the rulers at the two ends of a line each give the full set of its 4 tiles;
        # site cell = 4 x row + column, 0-based.
        (0, [0, 1, 2, 3]),
        (4, [0, 1, 2, 3]),  # row 1, left and right end
        (3, [12, 13, 14, 15]),
        (7, [12, 13, 14, 15]),  # row 4
        (8, [0, 4, 8, 12]),
        (12, [0, 4, 8, 12]),  # column 1, top and bottom
        (11, [3, 7, 11, 15]),
        (15, [3, 7, 11, 15]),  # column 4
        (TL, [0, 5, 10, 15]),
        (BR, [0, 5, 10, 15]),  # "top-left and bottom-right share one diagonal"
        (TR, [3, 6, 9, 12]),
        (BL, [3, 6, 9, 12]),  # "top-right and bottom-left share the other"
    ],
)
def test_5_step2_slot_gives_its_line(slot, cells):
    assert sorted(int(c) for c in SLOT_LINES[slot]) == cells


def test_5_step2_tiles_must_come_from_the_drafted_line(cw_cfg):
    # §5 step 2/3: the tiles laid are the line's 4 tiles; a tile the line does not give is illegal.
    game = cw.new_game(cw_cfg, 3, 1)
    game.state.site[:] = [R, R, R, R, C, C, C, C, P, P, P, P, I, I, I, I]  # row 1 is all R
    game.state.slots[0] = sid(cw_cfg, "O")
    p = find_placement(game, sid(cw_cfg, "O"), {0, 1, 7, 8})
    assert not is_legal_turn(game, Move(PLACE, 0, p, (R, R, R, C)))
    with pytest.raises(ValueError):
        play_turn(game, Move(PLACE, 0, p, (R, R, R, C)))
    play_turn(game, Move(PLACE, 0, p, (R, R, R, R)))
    assert [int(game.state.tables[0][c]) for c in (0, 1, 7, 8)] == [R, R, R, R]
    # §5 step 1 first come, first served: the slot is empty for the rest of the round
    assert game.state.slots[0] == -1
    assert not is_legal_turn(game, Move(PLACE, 0, p, (R, R, R, R)))


def test_q2_site_board_never_depletes(cw_cfg):
    # Q2/Q9: taking tiles copies them; the site board changes only at Cleanup.
    game = cw.new_game(cw_cfg, 3, 2)
    site = game.state.site.copy()
    play_turn(game, first_place_move(game, 0))
    play_turn(game, first_place_move(game, 4))  # the other end of the same row
    assert np.array_equal(game.state.site, site)


# --------------------------------------------------------------------------- §5 step 3: orientations


@pytest.mark.parametrize(
    "name, expected",
    [
        # §5 "Rotate the shape 90, 180 or 270 degrees, and flip it either way": 8 transforms at most.
        ("I", 2),  # a straight bar: horizontal or vertical; flips and half turns give the same cells
        ("O", 1),  # a square is the same every way
        ("L", 8),  # no symmetry at all: 4 turns x 2 flips
        ("T", 4),  # mirror-symmetric about its stem: the flips repeat the 4 turns
        ("Z", 4),  # a half turn maps it onto itself (2 turns) and the flip gives the S (x 2)
        ("W", 4),  # the staircase is symmetric about its anti-diagonal, which keeps the ★ (centre) fixed
        ("T5", 4),  # mirror-symmetric about its stem, the ★ sits on the axis
        ("P", 8),  # the P pentomino has no symmetry
        ("V", 4),  # symmetric about the diagonal through its corner, where the ★ sits
    ],
)
def test_5_step3_distinct_orientations(name, expected):
    cells, star = RULEBOOK_SHAPES[name]
    assert len(orientations(cells, star)) == expected


def test_5_step3_placement_counts_with_overhang():
    # §5 overhang allowed, at least 1 tile must land, placements landing the same cells are one.
    # I: 7 rows x 10 horizontal offsets (column of its first cell -3..6, each landing >= 1 cell) = 70,
    # same vertically = 70; a 1-cell landing in column 1/7 (horizontal) equals one in row 1/7 (vertical)
    # only on the 4 corners -> 136.
    masks, _, k, stars = placement_table(*RULEBOOK_SHAPES["I"], SIZE)
    assert len(masks) == 136
    # O: top-left corner at rows -1..6 x columns -1..6 = 64, all different.
    masks, _, k, stars = placement_table(*RULEBOOK_SHAPES["O"], SIZE)
    assert len(masks) == 64
    # 1 cell lands only at the 4 corners; 2 cells along each of the 4 edges at 6 offsets (24);
    # all 4 with the top-left corner at rows 0-5 x columns 0-5 (36)
    assert sorted(Counter(int(x) for x in k).items()) == [(1, 4), (2, 24), (4, 36)]


@pytest.mark.parametrize("name", list(RULEBOOK_SHAPES))
def test_5_step3_every_placement_lands_at_least_one_tile(name):
    # §5 "At least 1 tile must land on the table"; landed cells + star = the cells covered on the table.
    cells, star = RULEBOOK_SHAPES[name]
    masks, landed, k, stars = placement_table(cells, star, SIZE)
    for m, row, kk, s in zip(masks, landed, k, stars):
        covered = {int(c) for c in row[:kk]} | ({int(s)} if s >= 0 else set())
        assert len(covered) >= 1
        assert int(m) == sum(1 << c for c in covered)
        assert kk + (s >= 0) <= len(cells)
        assert star is not None or s == -1


@pytest.mark.parametrize(
    "name, star_alone",
    [
        # Can the ★ land alone (the free pick only, the 4 line tiles off the table)? Every other cell must be
        # off the table. In each of these shapes some other cell shares the ★'s row and another its column,
        # so it can happen only on a table corner, say bottom-right, with every other cell's offset from the
        # ★ having a negative row or a negative column in some orientation:
        # V: ★ at the corner of the V; turned so the ★ is bottom-right, the arms go up and left -> yes.
        ("V", True),
        # W: offsets (-1,-1), (0,-1), (1,0), (1,1); flipped upside down: (1,-1), (0,-1), (-1,0), (-1,1) -> yes.
        ("W", True),
        # T5 and P: the ★ has cells on both sides of it in one line ((0,-1) and (0,1)); one of them always
        # ends up below or right of the ★ -> no.
        ("T5", False),
        ("P", False),
    ],
)
def test_5_step3_star_alone_overhang(name, star_alone):
    masks, landed, k, stars = placement_table(*RULEBOOK_SHAPES[name], SIZE)
    alone = [int(s) for kk, s in zip(k, stars) if kk == 0 and s >= 0]
    assert bool(alone) is star_alone
    assert all(s in (0, 6, 42, 48) for s in alone)


def test_5_example_l_ruler_with_its_foot_off_the_left_edge(cw_cfg):
    # §5 Example: an L from the slot above column 2 reading Park, Residential, Residential, Industrial;
    # flipped, its long arm against the left edge (R, R, P on it), its foot hanging off with the I:
    # 3 tiles land, the Industrial is lost, and you tick L.
    game = cw.new_game(cw_cfg, 3, 5)
    st = game.state
    # a site board with 4 of each district whose column 2 (site cells 1, 5, 9, 13) reads P, R, R, I
    st.site[:] = [C, P, C, I, I, R, C, P, P, R, C, R, P, I, I, R]
    assert sorted(Counter(int(x) for x in st.site).values()) == [4, 4, 4, 4]
    slot = 9  # column 2, top end
    assert line(game, slot) == [P, R, R, I]
    L = sid(cw_cfg, "L")
    st.slots[slot] = L
    # the flipped L ("·#", "·#", "##") with its arm on table column 1, rows 1-3 (cells 0, 7, 14),
    # its foot at column 0, row 3 (off the table)
    p = find_placement(game, L, {0, 7, 14})
    assert game.rules.pl_k[p] == 3
    seat = game.seat_to_move
    play_turn(game, Move(PLACE, slot, p, (R, R, P)))
    table = st.tables[seat]
    assert [int(table[c]) for c in (0, 7, 14)] == [R, R, P]
    assert int((table != 0).sum()) == 3
    assert st.stats[seat, 0] == 1  # wasted: the Industrial
    assert st.stats[seat, 4] == 4  # taken: the 4 tiles of the line
    assert st.stats[seat, 2] == 1  # rulers placed
    assert st.ticks[seat, L] == 1 and st.ticks[seat].sum() == 1


def test_5_step3_no_overwriting(cw_cfg):
    # §5 "Every cell the shape covers on your table must be empty. No overwriting."
    game = cw.new_game(cw_cfg, 3, 6)
    st = game.state
    O = sid(cw_cfg, "O")
    st.slots[0] = O
    st.tables[0][8] = P  # one tile already at row 2, column 2
    tiles = tuple(line(game, 0))
    overlapping = find_placement(game, O, {0, 1, 7, 8})
    with pytest.raises(ValueError):
        play_turn(game, Move(PLACE, 0, overlapping, tiles))
    # any other placement covering cell 8 is refused too, e.g. the O at rows 2-3, columns 2-3
    with pytest.raises(ValueError):
        play_turn(game, Move(PLACE, 0, find_placement(game, O, {8, 9, 15, 16}), tiles))
    assert st.tables[0][8] == P and int((st.tables[0] != 0).sum()) == 1
    beside = find_placement(game, O, {2, 3, 9, 10})
    play_turn(game, Move(PLACE, 0, beside, tiles))
    assert st.tables[0][8] == P


def test_5_step3_free_pick_lands_on_the_star_cell(cw_cfg):
    # §5 "On a five-cell ruler the free-pick tile goes on the ★ cell and nowhere else"; Q3.
    game = cw.new_game(cw_cfg, 3, 7)
    st = game.state
    T5 = sid(cw_cfg, "T5")
    st.slots[TL] = T5
    # T5 upright with its bar on row 1, columns 1-3 (cells 0, 1, 2), stem at cells 8, 15:
    # the ★ is the middle of the bar, cell 1
    p = find_placement(game, T5, {0, 2, 8, 15}, star=1)
    diagonal = line(game, TL)
    seat = game.seat_to_move
    play_turn(game, Move(PLACE, TL, p, tuple(diagonal), I))
    assert st.tables[seat][1] == I
    assert sorted(int(st.tables[seat][c]) for c in (0, 2, 8, 15)) == sorted(diagonal)
    assert st.stats[seat, 0] == 0 and st.stats[seat, 4] == 5


def test_q11_free_pick_cannot_be_declined(cw_cfg):
    # Q11: the free pick is required; a corner move with the ★ on the table must lay a district there.
    game = cw.new_game(cw_cfg, 3, 7)
    st = game.state
    T5 = sid(cw_cfg, "T5")
    st.slots[TL] = T5
    p = find_placement(game, T5, {0, 2, 8, 15}, star=1)
    assert not is_legal_turn(game, Move(PLACE, TL, p, tuple(line(game, TL)), 0))


def test_q11_free_pick_lost_when_the_star_overhangs(cw_cfg):
    # Q11: "you can sometimes let the ★ cell overhang, which loses it". T5 upside down with its bar
    # (★ in the middle) below the table and its stem up column 1 at rows 6-7 (cells 35, 42): the two bar
    # ends and the ★ hang off -> 2 tiles land, 3 are lost (the free pick among them).
    game = cw.new_game(cw_cfg, 3, 8)
    st = game.state
    T5 = sid(cw_cfg, "T5")
    st.slots[BR] = T5
    p = find_placement(game, T5, {35, 42}, star=-1)
    seat = game.seat_to_move
    play_turn(game, Move(PLACE, BR, p, tuple(line(game, BR)[:2]), R))
    assert int((st.tables[seat] != 0).sum()) == 2
    assert st.stats[seat, 0] == 3 and st.stats[seat, 4] == 5


@pytest.mark.parametrize("kind", [3, -1])
def test_5_a_turn_of_an_unknown_kind_is_no_turn(cw_cfg, kind):
    # A turn is PLACE, FORCED or DISCARD_FOR_TILE (rules.py); no sequence of decisions plays another
    # kind. Placement 10 is an I placement (the I's are the first rows of the placement table) inside
    # the table.
    game = cw.new_game(cw_cfg, 3, 3)
    I_ = sid(cw_cfg, "I")
    game.state.slots[0] = I_
    p = 10
    assert p in placements(game, I_)
    move = Move(kind, 0, p, tuple(line(game, 0)[: game.rules.pl_k[p]]))
    assert not is_legal_turn(game, move)
    with pytest.raises(ValueError):
        play_turn(game, move)
    assert not game.state.tables[0].any()


def test_5_apply_refuses_every_decision_that_is_not_a_legal_move(cw_cfg):
    # the interface's apply (through the protocol) takes only a listed move: in the draft an empty
    # slot, the pass while rulers are left, a number that is no slot; then a placement of another
    # shape, and the forced discard while a placement exists
    game = cw.new_game(cw_cfg, 3, 3)
    I_, O = sid(cw_cfg, "I"), sid(cw_cfg, "O")
    game.state.slots[[0, 1]] = [I_, -1]
    for code in (1, PASS, 20 + 100, -1):
        with pytest.raises(ValueError, match="illegal move"):
            protocol.apply(game, code)
    protocol.apply(game, 0)
    for code in (PLACE0 + placements(game, O)[0], FORCED_DISCARD, 0):
        with pytest.raises(ValueError, match="illegal move"):
            protocol.apply(game, code)
    assert game.S[G_PHASE] != DRAFT and not game.state.tables[0].any()


# --------------------------------------------------------------------------- §5 no legal placement

CORNER, EDGE, INSIDE = 0, 3, 24  # cells (1,1), (1,4), (4,4) of the table


@pytest.mark.parametrize(
    "shape, empty, fits",
    [
        # One empty cell, all others filled. A placement must cover only empty on-table cells and land
        # >= 1 tile, so it must land exactly that cell with the other cells off the table.
        # O (2x2): the three other cells can all be off the table only at a corner.
        ("O", CORNER, True),
        ("O", EDGE, False),
        ("O", INSIDE, False),
        # I, L, T, Z each have an orientation with a single lowest cell (the end of a bar, the end of the
        # L's long arm, the T's stem, the end of an upright Z): put it on a top-edge cell with the rest
        # above the table. Turned, the same works on any edge, so any ring cell fits; an inner cell never.
        ("I", CORNER, True),
        ("I", EDGE, True),
        ("I", INSIDE, False),
        ("L", CORNER, True),
        ("L", EDGE, True),
        ("L", INSIDE, False),
        ("T", CORNER, True),
        ("T", EDGE, True),
        ("T", INSIDE, False),
        ("Z", CORNER, True),
        ("Z", EDGE, True),
        ("Z", INSIDE, False),
        # Five-cell rulers the same way: T5's stem end; P turned over its diagonal ("##", "##", "#." upside
        # down) has a single lowest cell; W's staircase always has a row holding one cell at one end.
        # (The ★ then hangs off the table with the rest: the free pick is lost, still a legal placement.)
        ("T5", EDGE, True),
        ("T5", INSIDE, False),
        ("P", EDGE, True),
        ("P", INSIDE, False),
        ("W", EDGE, True),
        ("W", INSIDE, False),
    ],
)
def test_5_forced_discard_only_when_no_placement_exists(cw_cfg, shape, empty, fits):
    # §5 No legal placement / Q13: discard the ruler and its tiles only when it truly has no legal
    # placement; if one exists it must be made.
    game = cw.new_game(cw_cfg, 3, 9)
    st = game.state
    s = sid(cw_cfg, shape)
    five = shape in cw_cfg.rulers.five_cell
    slot = TL if five else 0
    st.slots[slot] = s
    seat = game.seat_to_move
    fill_all_but(game, seat, [empty])
    forced = Move(FORCED, slot)
    assert is_legal_turn(game, forced) is (not fits)
    slot_moves = [m for m in all_turns(game) if m.slot == slot]
    assert (forced in slot_moves) is (not fits)
    if fits:
        assert slot_moves and all(m.kind == PLACE for m in slot_moves)
        with pytest.raises(ValueError):
            play_turn(game, forced)
        return
    assert slot_moves == [forced]
    before = st.tables[seat].copy()
    play_turn(game, forced)
    # the ruler and all its tiles are discarded: wasted and taken grow by 4 (5 at a corner), the table is
    # unchanged, no tick (forced discards do not count toward achievements), the turn ends
    n = 5 if five else 4
    assert np.array_equal(st.tables[seat], before)
    assert (st.stats[seat, 0], st.stats[seat, 1], st.stats[seat, 2], st.stats[seat, 3], st.stats[seat, 4]) == (
        n,
        1,
        0,
        1,
        n,
    )
    assert not st.ticks[seat].any()
    assert st.slots[slot] == -1
    assert game.seat_to_move == (seat + 1) % 3


def test_5_forced_discard_illegal_on_an_empty_table(cw_cfg):
    game = cw.new_game(cw_cfg, 4, 10)
    for slot in range(20):
        assert not is_legal_turn(game, Move(FORCED, slot))
    with pytest.raises(ValueError):
        play_turn(game, Move(FORCED, 0))


def test_q8_no_passing_a_full_table_still_drafts(cw_cfg):
    # Q8: every turn drafts and resolves one ruler. On a full table every slot offers exactly its
    # forced discard.
    game = cw.new_game(cw_cfg, 3, 12)
    fill_all_but(game, game.seat_to_move, [])
    moves = all_turns(game)
    assert sorted(moves) == sorted(Move(FORCED, s) for s in range(20))


# --------------------------------------------------------------------------- §9.2 discard-for-tile


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_9_2_discard_for_tile_only_two_players_and_corner_slots(cw_cfg, n):
    # §9.2 is a two-player rule (§10.1: solo has no discard-for-tile), for corner rulers only.
    game = cw.new_game(cw_cfg, n, 13)
    fill_all_but(game, game.seat_to_move, [24, 30])  # keeps the list of turns short
    d4t = {m for m in all_turns(game) if m.kind == DISCARD_FOR_TILE}
    for slot in range(20):
        legal = n == 2 and slot >= 16
        for cell in (24, 30):
            for d in (R, C, P, I):
                move = Move(DISCARD_FOR_TILE, slot, cell, (d,))
                assert is_legal_turn(game, move) is legal
                assert (move in d4t) is legal
    assert len(d4t) == (4 * 2 * 4 if n == 2 else 0)


def test_9_2_discard_for_tile_places_one_tile_and_no_tick(cw_cfg):
    # §9.2: 1 tile of any type on any empty cell, no diagonal, no free pick; the ruler leaves the game
    # and does not count toward Versatile or Mastery (Q12).
    game = cw.new_game(cw_cfg, 2, 14)
    st = game.state
    seat = game.seat_to_move
    st.tables[seat][30] = R
    assert not is_legal_turn(game, Move(DISCARD_FOR_TILE, TR, 30, (I,)))  # cell taken
    play_turn(game, Move(DISCARD_FOR_TILE, TR, 31, (I,)))
    assert st.tables[seat][31] == I and int((st.tables[seat] != 0).sum()) == 2
    assert st.slots[TR] == -1 and st.gone[TR] == 1
    assert (st.stats[seat, 0], st.stats[seat, 2], st.stats[seat, 4], st.stats[seat, 5]) == (0, 0, 1, 1)
    assert not st.ticks[seat].any()


def test_9_2_discarded_corner_rulers_never_come_back_and_corners_stay_empty(cw_cfg):
    # §9.2: "The ruler never comes back ... A corner with no ruler to deal stays empty."
    # 2 players, 8 five-cell cards. Round 1: both players discard all 4 corner rulers for tiles (4 gone,
    # 4 left in the deck), then draft 4 edge rulers. Round 2: the 4 remaining five-cell cards are dealt
    # and discarded for tiles too. Round 3: the five-cell deck and its discard pile are empty, so all 4
    # corners stay empty; the four-cell deck (20 cards) is unaffected.
    game = cw.new_game(cw_cfg, 2, 15)
    st = game.state
    gone = Counter()
    for rnd in range(2):
        assert all(st.slots[s] >= 0 for s in range(16, 20))
        for corner in range(16, 20):
            seat = game.seat_to_move
            cell = int(np.flatnonzero(st.tables[seat] == 0)[0])
            gone[int(st.slots[corner])] += 1
            play_turn(game, Move(DISCARD_FOR_TILE, corner, cell, (R,)))
        for _ in range(4):
            slot = int(np.flatnonzero(st.slots[:16] >= 0)[0])
            play_turn(game, first_place_move(game, slot))
        assert st.g[0] == rnd + 1
        # Cleanup: four-cell: 16 to the discard pile, deal 4 left in the draw pile, reshuffle the 16,
        # deal 12 -> draw 4, discard 0. Five-cell: nothing to discard (all 4 left the game); round 1
        # deals the last 4 cards -> draw 0, discard 0; round 2 has nothing to deal.
        assert list(st.pile_n) == [4, 0, 0, 0]
        assert all((st.slots[16:20] >= 0) if rnd == 0 else (st.slots[16:20] == -1))
    assert sum(gone.values()) == 8
    assert list(st.slots[16:20]) == [-1, -1, -1, -1]
    assert st.pile_n[2] == st.pile_n[3] == 0
    assert int(st.pile_n[0] + st.pile_n[1] + (st.dealt[:16] >= 0).sum()) == 20
    assert int(st.stats[:, 5].sum()) == 8


# --------------------------------------------------------------------------- §10.2 the rival apprentice


@pytest.mark.parametrize(
    "slot, opposite",
    [
        # §10.2 "the ruler at the opposite end of the same line": row left <-> right, column top <-> bottom,
        # and the corners sharing a diagonal: top-left <-> bottom-right, top-right <-> bottom-left.
        (0, 4),
        (3, 7),
        (5, 1),
        (8, 12),
        (11, 15),
        (14, 10),
        (TL, BR),
        (BR, TL),
        (TR, BL),
        (BL, TR),
    ],
)
def test_10_2_rival_removes_the_opposite_ruler_after_a_draft(cw_cfg, slot, opposite):
    assert OPPOSITE[slot] == opposite
    game = cw.new_game(cw_cfg, 1, 16)
    st = game.state
    before = st.slots.copy()
    play_turn(game, first_place_move(game, slot))
    assert st.slots[slot] == -1 and st.slots[opposite] == -1
    others = [s for s in range(20) if s not in (slot, opposite)]
    assert np.array_equal(st.slots[others], before[others])


def test_10_2_rival_also_acts_after_a_forced_discard(cw_cfg):
    game = cw.new_game(cw_cfg, 1, 17)
    st = game.state
    fill_all_but(game, 0, [])
    play_turn(game, Move(FORCED, 5))
    assert st.slots[5] == -1 and st.slots[1] == -1
    assert int((st.slots >= 0).sum()) == 18


def test_10_2_rival_skips_an_already_empty_opposite_slot(cw_cfg):
    # "if it is still there": drafting from a line whose other end is already empty removes nothing else.
    game = cw.new_game(cw_cfg, 1, 18)
    st = game.state
    play_turn(game, first_place_move(game, 2))  # removes 2 and 6
    assert int((st.slots >= 0).sum()) == 18
    play_turn(game, first_place_move(game, 10))  # removes 10 and 14
    assert int((st.slots >= 0).sum()) == 16


@pytest.mark.parametrize("n", [2, 3, 4])
def test_10_2_no_rival_with_two_or_more_players(cw_cfg, n):
    game = cw.new_game(cw_cfg, n, 19)
    play_turn(game, first_place_move(game, 0))
    assert game.state.slots[4] >= 0 and int((game.state.slots >= 0).sum()) == 19


# --------------------------------------------------------------------------- §4 rounds and turns


def play_random(game: cw.Game, seed: int, on_move=None) -> None:
    """Play to the end with the random agent, checking each decision is legal; ``on_move(game)`` is
    called at the start of each turn."""
    agent = cw.make_agent(game.cfg, "random")
    rng = np.random.default_rng(seed)
    guard = 0
    while not protocol.is_over(game):
        if game.S[G_PHASE] == DRAFT:
            if on_move:
                on_move(game)
            guard += 1
        move = agent.choose(game, game.seat_to_move, rng)
        assert protocol.is_legal_move(game, move)
        protocol.apply(game, move)
        assert guard <= 4 * 20
    assert guard > 0


@pytest.mark.parametrize(
    "version, n, rounds, turns",
    [
        ("v1.1", 1, 3, 4),  # §10.1 solo: 12 turns over 3 rounds
        ("v1.1", 2, 3, 4),  # §9.1 two players: 3 rounds of 4 turns
        ("v1.1", 3, 4, 3),  # §4.1 everyone takes 12 turns (config: 4 rounds of 3, assumed)
        ("v1.1", 4, 4, 3),
        ("v1.0", 2, 4, 4),  # appendix: two players played 4 rounds of 4 turns (16 turns)
        ("v1.0", 3, 4, 3),
    ],
)
def test_4_rounds_turns_and_start_marker(cw_cfg, cw_cfg_v10, version, n, rounds, turns):
    # §4.2: starting with the start player and going clockwise, one turn each, around and around; after
    # every round but the last the marker passes one seat clockwise; Q14 seats never change.
    cfg = cw_cfg if version == "v1.1" else cw_cfg_v10
    game = cw.new_game(cfg, n, 20 + n)
    log: list[tuple[int, int, int]] = []  # (round, start seat, seat to move) before each move
    play_random(game, 99, lambda g: log.append((int(g.state.g[0]), int(g.state.g[2]), g.seat_to_move)))
    assert len(log) == rounds * turns * n
    for r in range(rounds):
        moves = [x for x in log if x[0] == r]
        assert len(moves) == turns * n
        start = r % n  # seat 1 starts round 1, then one seat clockwise each round
        assert all(x[1] == start for x in moves)
        assert [x[2] for x in moves] == [(start + i) % n for i in range(turns * n)]
    assert list(game.state.stats[:, 3]) == [rounds * turns] * n
    assert protocol.outcome(game).turns == [rounds * turns] * n


def test_9_1_seat_1_starts_two_of_three_rounds(cw_cfg):
    # §9.1 "seat 1 starts two of the three rounds, so seat 2 gets +1"
    game = cw.new_game(cw_cfg, 2, 21)
    starts = []
    play_random(game, 1, lambda g: starts.append(int(g.state.g[2])) if g.state.g[1] == 0 else None)
    assert starts == [0, 1, 0]


def test_q14_a_move_changes_only_the_movers_table(cw_cfg):
    game = cw.new_game(cw_cfg, 4, 22)
    agent = cw.make_agent(cw_cfg, "random")
    rng = np.random.default_rng(0)
    while not protocol.is_over(game):
        seat = game.seat_to_move
        before = game.state.tables.copy()
        protocol.apply(game, agent.choose(game, seat, rng))
        others = [s for s in range(4) if s != seat]
        assert np.array_equal(game.state.tables[others], before[others])


# --------------------------------------------------------------------------- §4.2 cleanup


def deck_total(st, which: int) -> Counter:
    """Cards of the four-cell (0) or five-cell (1) deck in its draw and discard piles and dealt this
    round (taken or not), leaving out rulers discarded for a tile (out of the game)."""
    draw, disc = (0, 1) if which == 0 else (2, 3)
    slots = range(16) if which == 0 else range(16, 20)
    cards = Counter(int(x) for x in st.piles[draw, : st.pile_n[draw]])
    cards += Counter(int(x) for x in st.piles[disc, : st.pile_n[disc]])
    cards += Counter(int(st.dealt[s]) for s in slots if st.dealt[s] >= 0 and not st.gone[s])
    return cards


def test_4_2_cleanup_discards_every_ruler_and_reshuffles_when_a_deck_runs_out(cw_cfg):
    # §4.2 Cleanup: every ruler of the round, taken or not, goes to its deck's discard pile; deal 16 + 4
    # fresh; if a deck runs out while dealing, shuffle its discard pile into a new deck (Q6).
    # 4 players, full deck (35 + 16), 4 rounds. Draw piles (four-cell, five-cell) and discard piles:
    #   setup:       draw 35 - 16 = 19, 16 - 4 = 12; discard 0, 0
    #   cleanup 1:   discard 16, 4; deal 16 and 4 from the draw piles -> draw 3, 8; discard 16, 4
    #   cleanup 2:   discard 32, 8; four-cell: deal 3, draw empty -> reshuffle 32, deal 13 -> draw 19,
    #                discard 0; five-cell: deal 4 -> draw 4, discard 8
    #   cleanup 3:   discard 16, 12; deal 16 -> draw 3, discard 16; deal 4 -> draw 0, discard 12
    expected = {1: (3, 16, 8, 4), 2: (19, 0, 4, 8), 3: (3, 16, 0, 12)}
    game = cw.new_game(cw_cfg, 4, 23)
    st = game.state
    deck4 = Counter(int(x) for x in game.rules.deck4)
    deck5 = Counter(int(x) for x in game.rules.deck5)
    seen = {0: tuple(int(x) for x in st.pile_n)}

    def check(game):
        assert deck_total(st, 0) == deck4 and deck_total(st, 1) == deck5
        if st.g[1] == 0:
            seen[int(st.g[0])] = tuple(int(x) for x in st.pile_n)
            # every slot holds a freshly dealt ruler at the start of a round
            assert all(st.slots[s] >= 0 for s in range(20))
            assert np.array_equal(st.slots, st.dealt)

    play_random(game, 5, check)
    assert seen[0] == (19, 0, 12, 0)
    for rnd, piles in expected.items():
        assert seen[rnd] == piles, rnd


def test_4_2_cleanup_refreshes_the_site_board(cw_cfg):
    game = cw.new_game(cw_cfg, 3, 24)
    boards = []
    play_random(game, 6, lambda g: boards.append(g.state.site.copy()) if g.state.g[1] == 0 else None)
    assert len(boards) == 4
    for b in boards:
        assert sorted(Counter(int(x) for x in b).values()) == [4, 4, 4, 4]
    assert any(not np.array_equal(boards[0], b) for b in boards[1:])


# --------------------------------------------------------------------------- §6.5 seat bonus, §8 ties


def final_game(
    cfg, n: int, tables: dict[int, np.ndarray] | None = None, ticks: dict[int, dict[str, int]] | None = None
):
    """A game set up by hand as finished: the given tables and ticks, everything else empty."""
    game = cw.new_game(cfg, n, 0)
    st = game.state
    st.tables[:] = 0
    for seat, t in (tables or {}).items():
        st.tables[seat][:] = t
    for seat, shapes in (ticks or {}).items():
        for name, k in shapes.items():
            st.ticks[seat, sid(cfg, name)] = k
    st.g[3] = 1
    assert protocol.is_over(game)
    return game


def table_with(cells: dict[int, int]) -> np.ndarray:
    t = np.zeros(49, np.int8)
    for c, d in cells.items():
        t[c] = d
    return t


@pytest.mark.parametrize(
    "version, n, bonus",
    [
        # §6.5 / appendix: 2 players 0 / +1, 3 players +2 / +2 / 0, 4 players +2 / +2 / +1 / 0;
        # §10.1 solo: no seat bonus; v1.0 had none.
        ("v1.1", 1, [0]),
        ("v1.1", 2, [0, 1]),
        ("v1.1", 3, [2, 2, 0]),
        ("v1.1", 4, [2, 2, 1, 0]),
        ("v1.0", 2, [0, 0]),
        ("v1.0", 4, [0, 0, 0, 0]),
    ],
)
def test_6_5_seat_bonus_is_added_to_the_total(cw_cfg, cw_cfg_v10, version, n, bonus):
    cfg = cw_cfg if version == "v1.1" else cw_cfg_v10
    # every seat has the same table: one park in the middle (1 row x 2 + 1 column x 2 = 4 points)
    same = table_with({24: P})
    out = protocol.outcome(final_game(cfg, n, {s: same for s in range(n)}))
    assert out.components["seat_bonus"] == bonus
    assert out.scores == [4 + b for b in bonus]
    for s in range(n):
        assert out.scores[s] == sum(out.components[k][s] for k in out.components)


def test_6_5_two_player_seat_bonus_wins_an_otherwise_equal_game(cw_cfg):
    out = protocol.outcome(final_game(cw_cfg, 2))
    _, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert out.scores == [0, 1] and shares == [0.0, 1.0]


def test_8_tie_breaker_1_fewer_empty_cells(cw_cfg):
    # 3 players: seats 1 and 2 both get +2. Seat 1 has one R (a cluster of 1: 5 x 0 = 0 points) and
    # 48 empty cells, seat 2 an empty table (49): both total 2 -> seat 1 wins on fewer empty cells.
    out = protocol.outcome(final_game(cw_cfg, 3, {0: table_with({24: R})}))
    assert out.scores == [2, 2, 0]
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert shares == [1.0, 0.0, 0.0] and ranks == [1, 2, 3]


def test_8_ties_are_on_the_total_with_seat_bonus_included(cw_cfg):
    # §8 "If players tie on total, seat bonus included": 2 players. Seat 1: two lone R (largest 1 -> 0,
    # second 1 -> 1 point), 47 empty cells; seat 2: empty table, 0 + seat bonus 1. Tied at 1 ->
    # seat 1 wins on fewer empty cells.
    out = protocol.outcome(final_game(cw_cfg, 2, {0: table_with({0: R, 2: R})}))
    assert out.scores == [1, 1]
    _, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert shares == [1.0, 0.0]


def test_8_tie_breaker_2_most_distinct_shapes(cw_cfg):
    # Same tables and bonus for seats 1 and 2 (3 players); seat 2 ticked L and O (2 distinct shapes),
    # seat 1 ticked L three times (1 distinct) -> seat 2 wins.
    t = table_with({0: P})
    out = protocol.outcome(final_game(cw_cfg, 3, {0: t, 1: t}, {0: {"L": 3}, 1: {"L": 1, "O": 1}}))
    assert out.scores[0] == out.scores[1]
    _, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert shares == [0.0, 1.0, 0.0]


def test_8_tie_breaker_3_shared_victory(cw_cfg):
    # 4 players: seats 1 and 2 (+2 each) have identical tables and ticks -> shared victory, 1/2 each.
    t = table_with({0: C, 1: C})
    out = protocol.outcome(final_game(cw_cfg, 4, {0: t, 1: t}, {0: {"W": 1}, 1: {"W": 1}}))
    ranks, shares = ranks_and_win_shares(out.scores, out.tiebreak)
    assert shares == [0.5, 0.5, 0.0, 0.0] and ranks[:2] == [1, 1]


def test_4_2_decks_too_small_for_a_round_lose_turns_not_the_game(cw_cfg):
    # A variant whose decks hold 1 card of each shape (5 four-cell + 4 five-cell = 9 rulers) cannot fill
    # the 12 drafts of a 4-player round (4 players x 3 turns): §4.2 leaves the missing slots empty, and a
    # player who finds every slot empty has nothing to draft, so the turn is lost. The game still ends
    # with 12 turns per player, and at most 9 rulers are used per round (rulers reshuffle each round).
    data = cw_cfg.model_dump()
    for deck in ("four_cell", "five_cell"):
        for shape in data["rulers"][deck].values():
            shape["copies"] = 1
    small = type(cw_cfg).model_validate(data)
    for agent in ("random", "greedy"):
        out = cw.play_game(small, [agent] * 4, 11)
        assert out.turns == [12, 12, 12, 12]
        placed_or_discarded = [out.metrics["rulers_placed"][s] + out.metrics["forced_discards"][s] for s in range(4)]
        assert sum(placed_or_discarded) <= 9 * 4  # 4 rounds of at most 9 rulers


def test_4_2_more_drafts_than_slots_is_refused(cw_cfg):
    # 4 players x 6 turns = 24 drafts in a round, but there are only 20 ruler slots (§2.2).
    data = cw_cfg.model_dump()
    data["rounds"]["4"] = {"rounds": 2, "turns": 6, "assumed": None}
    with pytest.raises(ValueError, match=r"rounds\.4\.turns: .* 24 rulers a round, but the site board has 20"):
        type(cw_cfg).model_validate(data)


# ------------------------------------------------------------------------------ §7 achievements

ROOT_CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "citywright"


def test_achievements_are_off_in_v1_1_and_on_in_achievements_yaml():
    """§2.5, §7: v1.1 is played without achievement cards (achievements.enabled: false, assumed: their
    texts are not printed); achievements.yaml turns on the three the rulebook names, at v1.1's values."""
    from balancer.config import load_config

    v11 = load_config(ROOT_CONFIGS / "v1.1.yaml")
    ach = load_config(ROOT_CONFIGS / "achievements.yaml")
    assert not v11.achievements.enabled and v11.achievements.assumed
    assert ach.achievements.enabled and ach.variant == "v1.1-achievements"
    assert ach.achievements.model_dump(exclude={"enabled", "assumed"}) == v11.achievements.model_dump(
        exclude={"enabled", "assumed"}
    )
    assert ach.model_dump(exclude={"achievements", "variant"}) == v11.model_dump(exclude={"achievements", "variant"})


@pytest.mark.parametrize("name,expected", [("v1.1.yaml", [0, 0, 0]), ("achievements.yaml", [4 + 3, 3 + 3, 0])])
def test_achievement_points_at_the_end_of_the_game(name, expected):
    """§7, scored at the end, each at most once per player. Three players, by hand:
    - seat 1 placed one ruler of each of I, L, T, Z, O, W (6 distinct shapes: Versatile, 4 points) and
      has the highest Park subtotal, 10 (Tree-lined, 3): 7;
    - seat 2 placed 4 I rulers and 1 L (Mastery: 4 of one shape, 3 points; 2 distinct shapes, no
      Versatile) and ties seat 1's Park 10 (Q10: both get Tree-lined, 3): 6;
    - seat 3 placed 3 O rulers and one each of T, Z, P, V (5 distinct, 3 of one shape: neither) and
      has Park 4: 0.
    Without achievements (v1.1) every seat scores 0 in the category."""
    from balancer.config import load_config
    from balancer.games.citywright.rules import final_rows

    cfg = load_config(ROOT_CONFIGS / name)
    game = cw.new_game(cfg, 3, 1)
    st, names = game.state, cfg.rulers.names
    st.ticks[:] = 0
    for shape in ("I", "L", "T", "Z", "O", "W"):
        st.ticks[0, names.index(shape)] = 1
    st.ticks[1, names.index("I")], st.ticks[1, names.index("L")] = 4, 1
    st.ticks[2, names.index("O")] = 3
    for shape in ("T", "Z", "P", "V"):
        st.ticks[2, names.index(shape)] = 1
    pts = np.array([[5, 0, 10, 0], [3, 5, 10, 2], [8, 15, 4, 6]], np.int64)
    rows = final_rows(st, game.rules, pts)
    assert rows[:, 4].tolist() == expected
