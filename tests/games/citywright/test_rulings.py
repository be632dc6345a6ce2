"""Citywright's assumed rulings that the audit found unmarked (issue 29): named choices of the YAML
(``achievements.tree_lined.all_parks_zero``, ``rulers.no_ruler_left``), tested from hand-set positions."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import balancer.games.citywright as cw
from balancer.config import assumed_notes, load_config, resolve_yaml
from balancer.core import protocol
from balancer.games.citywright.kernel import PASS
from balancer.games.citywright.rules import FINAL_COLUMNS, compile_rules, final_rows

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "citywright"


def test_the_choices_are_named_and_assumed(cw_cfg):
    assert cw_cfg.rulers.no_ruler_left == "turn_lost"
    assert cw_cfg.achievements.tree_lined.all_parks_zero == "every_player"
    notes = assumed_notes(resolve_yaml(CONFIGS / "v1.1.yaml").data)
    assert any(n.startswith("rulers: no_ruler_left") for n in notes)
    assert any(n.startswith("achievements.tree_lined:") and "all_parks_zero" in n for n in notes)


def test_tree_lined_goes_to_every_player_when_all_park_subtotals_are_0():
    """achievements.yaml (Tree-lined 3 points): three players, every district subtotal 0, so each is
    tied for the highest Park subtotal (0) and gets Tree-lined: achievements 3 each (nothing else:
    no ruler ticked, so neither Versatile nor Mastery). With seat 2's Park at 5, only seat 2 gets it."""
    cfg = load_config(CONFIGS / "achievements.yaml")
    rules, _, _ = compile_rules(cfg, 3)
    game = cw.new_game(cfg, 3, 1)
    ach = FINAL_COLUMNS.index("achievements")
    pts = np.zeros((3, 4), np.int64)
    assert final_rows(game.state, rules, pts)[:, ach].tolist() == [3, 3, 3]
    pts[1, 2] = 5
    assert final_rows(game.state, rules, pts)[:, ach].tolist() == [0, 3, 0]


def test_a_turn_with_every_slot_empty_is_lost(cw_cfg):
    """rulers.no_ruler_left: turn_lost: with every slot empty seat 1's only move is to pass; then seat
    2 is to move and seat 1 has had its turn."""
    game = cw.new_game(cw_cfg, 2, 3)
    game.state.slots[:] = -1
    assert protocol.legal_moves(game) == [PASS]
    protocol.apply(game, PASS)
    assert game.seat_to_move == 1


def test_tree_lined_goes_to_no_one_when_all_park_subtotals_are_0_under_no_one():
    """all_parks_zero: no_one (§10.3's 'no table to lead'): three players, every subtotal 0, so nobody
    leads and nobody gets Tree-lined: achievements 0 each. A Park of 5 for seat 2 is a lead again: it
    gets the 3 points, the others 0 (the choice only changes the all-zero case)."""
    cfg = load_config(CONFIGS / "achievements.yaml")
    tree = cfg.achievements.tree_lined.model_copy(update={"all_parks_zero": "no_one"})
    ach_cfg = cfg.achievements.model_copy(update={"tree_lined": tree})
    cfg = cfg.model_copy(update={"achievements": ach_cfg})
    rules, _, _ = compile_rules(cfg, 3)
    assert not rules.tree_zero_all
    game = cw.new_game(cfg, 3, 1)
    ach = FINAL_COLUMNS.index("achievements")
    pts = np.zeros((3, 4), np.int64)
    assert final_rows(game.state, rules, pts)[:, ach].tolist() == [0, 0, 0]
    pts[1, 2] = 5
    assert final_rows(game.state, rules, pts)[:, ach].tolist() == [0, 3, 0]


def test_all_parks_zero_accepts_only_its_choices():
    """The config model names the two readings and rejects anything else."""
    import pytest
    from pydantic import ValidationError

    from balancer.games.citywright.config import TreeLined

    assert TreeLined(points=3, solo_park_at_least=40, all_parks_zero="no_one").all_parks_zero == "no_one"
    with pytest.raises(ValidationError):
        TreeLined(points=3, solo_park_at_least=40, all_parks_zero="leader")  # type: ignore[arg-type]
