"""Águeda's assumed rulings that the audit found unmarked (issue 29): named choices of the YAML
(``market.coins_by``, ``shops.spare_markers``). Positions as in test_agueda_rules.py (v1: line 2 is
the 3-space diagonal, cells 0, 4, 8; colours R O Y G B P = 0..5)."""

from __future__ import annotations

from pathlib import Path

from test_agueda_rules import B, R, Y, position, set_row

import balancer.games.agueda as ag
from balancer.config import assumed_notes, resolve_yaml
from balancer.core import protocol

E = -1
V1 = Path(__file__).resolve().parents[3] / "configs" / "agueda" / "v1.yaml"


def test_the_choices_are_named_and_assumed(ag_cfg):
    assert ag_cfg.market.coins_by == "umbrellas_held" and ag_cfg.shops.spare_markers == "unused"
    notes = assumed_notes(resolve_yaml(V1).data)
    assert any(n.startswith("market:") and "coins_by" in n for n in notes)
    assert any(n.startswith("shops: spare_markers") for n in notes)


def test_a_line_costs_by_the_umbrellas_it_holds_not_its_length(ag_cfg):
    """The 3-space diagonal (line 2) with all 3 umbrellas costs 1 coin: with 0 coins it cannot be
    taken. With its last cell empty it holds 2, which are free (coins_by_umbrellas 2: 0): it can be
    taken with 0 coins, and the coins stay 0."""
    game = position(ag_cfg, market=(R, E, E, E, B, E, E, E, Y))
    ag.game_state(game).coins[0] = 0
    assert 2 not in protocol.legal_moves(game)
    game = position(ag_cfg, market=(R, E, E, E, B, E, E, E, E))
    ag.game_state(game).coins[0] = 0
    assert 2 in protocol.legal_moves(game)
    protocol.apply(game, 2)
    assert ag.game_state(game).coins[0] == 0


def test_a_line_costs_by_its_length_under_line_length(ag_cfg):
    """market.coins_by: line_length: the 3-space diagonal (line 2) with its last cell empty holds 2
    umbrellas but costs as a 3-space line, 1 coin (coins_by_umbrellas 3: -1): with 0 coins it cannot
    be taken; with 1 coin it can, and once the turn is played the coin is paid (1 - 1 = 0). The compiled table says the same:
    line 2 costs 1 at every count, while under umbrellas_held 2 umbrellas are free."""
    from balancer.games.agueda.rules import compile_rules

    cfg = ag_cfg.model_copy(update={"market": ag_cfg.market.model_copy(update={"coins_by": "line_length"})})
    game = position(cfg, market=(R, E, E, E, B, E, E, E, E))
    ag.game_state(game).coins[0] = 0
    assert 2 not in protocol.legal_moves(game)
    game = position(cfg, market=(R, E, E, E, B, E, E, E, E))
    ag.game_state(game).coins[0] = 1
    assert 2 in protocol.legal_moves(game)
    protocol.apply(game, 2)
    while game.seat_to_move == 0:  # finish the turn (row, tourists): the coin is paid with the turn
        protocol.apply(game, protocol.legal_moves(game)[0])
    assert ag.game_state(game).coins[0] == 0
    assert compile_rules(cfg, 2).line_coins[2, 1:4].tolist() == [-1, -1, -1]
    assert compile_rules(ag_cfg, 2).line_coins[2, 1:4].tolist() == [1, 0, -1]


def test_spare_shop_markers_are_on_no_card_after_setup(ag_cfg):
    """Setup step 3 with the learning pair (Flora's Fancy Footwear, 1 question mark; Isabella's Ice
    Cream Shop, 2): 1 + 2 = 3 of the 6 markers go on the cards, one colour per marker, so the two
    cards' colour sets are disjoint; the 6 - 3 = 3 others are the spares on the Agueda Souvenirs
    space. ``spare_markers: unused``: the state keeps no other place for them, so they are exactly
    the colours on neither card (bits of 0b111111 outside both masks)."""
    names = [c.name for c in ag_cfg.shops.cards]
    cfg = ag_cfg.model_copy(update={"shops": ag_cfg.shops.model_copy(update={"fixed": [names[0], names[1]]})})
    for seed in range(5):
        st = ag.game_state(ag.SPEC.new_game(cfg, 2, seed))
        assert st.shops.tolist() == [0, 1]
        m0, m1 = int(st.shop_mask[0]), int(st.shop_mask[1])
        assert (bin(m0).count("1"), bin(m1).count("1"), m0 & m1) == (1, 2, 0)
        spares = [c for c in range(6) if not ((m0 | m1) >> c) & 1]
        assert len(spares) == 3


def test_a_spare_marker_colour_scores_nothing_on_a_marked_card(ag_cfg):
    """Hand-set after setup: shop 1 is Shop 10 (umbrellas, 1 marker, 1 point per umbrella of the
    marked colour) with the red marker; shop 2 is Shop 07 (completed rows, no markers); yellow is a
    spare marker on the Agueda Souvenirs space. Seat 0's row 0 holds R Y Y Y: Shop 10 scores
    1 x 1 (the one red) = 1, not 4 as if the spare yellow marker were on the card; Shop 07 scores 0
    (no row is full)."""
    from balancer.games.agueda.scoring import F_SHOP1, F_SHOP2, final_rows

    names = [c.name for c in ag_cfg.shops.cards]
    game = position(ag_cfg)
    st = ag.game_state(game)
    st.shops[:] = [names.index("Shop 10"), names.index("Shop 07")]
    st.shop_mask[:] = [1 << R, 0]
    set_row(game, 0, 0, (R, Y, Y, Y))
    rows = final_rows(st, game.T.rules)
    assert (rows[0, F_SHOP1], rows[0, F_SHOP2]) == (1, 0)
