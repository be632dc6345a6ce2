"""Águeda's assumed rulings that the audit found unmarked (issue 29): named choices of the YAML
(``market.coins_by``, ``shops.spare_markers``). Positions as in test_agueda_rules.py (v1: line 2 is
the 3-space diagonal, cells 0, 4, 8; colours R O Y G B P = 0..5)."""

from __future__ import annotations

from pathlib import Path

from test_agueda_rules import B, R, Y, position

import balancer.games.agueda as ag
from balancer.config import assumed_notes, resolve_yaml

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
    assert 2 not in ag.legal_moves(game)
    game = position(ag_cfg, market=(R, E, E, E, B, E, E, E, E))
    ag.game_state(game).coins[0] = 0
    assert 2 in ag.legal_moves(game)
    ag.apply(game, 2)
    assert ag.game_state(game).coins[0] == 0
