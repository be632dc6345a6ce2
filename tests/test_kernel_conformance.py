"""Conformance of every game's compiled interface (balancer/core/kernel.py), from the registry.

For every registered game with an engine and every player count of its default config: same seed,
same game; a copy is independent of its original; legal moves are never empty before the end, are
distinct, and every one applies; the seat to move is a seat; returns are win shares at the end and
agree with the Outcome's ranks; the heuristic stays in [0, 1]; determinize keeps what the seat sees
and depends on nothing else; the interface's random games equal the Python protocol's, move for move.
(PettingZoo's ``api_test``/``seed_test``, TAG's ``ForwardModelTester``.) A game registered without an
engine is reported as skipped, so the gap stays visible.
The checks ship in the package (:mod:`balancer.testing.kernel`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from balancer.config import load_config
from balancer.games import GAMES, get_spec
from balancer.testing import kernel
from balancer.testing.protocol import Game, load_game

ROOT = Path(__file__).resolve().parent.parent


def _cases() -> list:
    cases = []
    for name in sorted(GAMES):
        spec = get_spec(name)
        cfg = load_config(ROOT / "configs" / spec.default_config)
        marks = [] if spec.engine is not None else [pytest.mark.skip(reason=f"{name} has no compiled interface yet")]
        for n in cfg.player_counts:
            cases.append(pytest.param(name, n, id=f"{name}-{n}p", marks=marks))
    return cases


CASES = _cases()
_GAMES: dict[str, Game] = {}


def game(name: str) -> Game:
    """Game ``name`` with its default config, loaded once."""
    if name not in _GAMES:
        _GAMES[name] = load_game(name, ROOT / "configs" / get_spec(name).default_config)
    return _GAMES[name]


@pytest.mark.parametrize("name, n", CASES)
def test_same_seed_same_game(name, n):
    kernel.same_seed_same_game(game(name), n)


@pytest.mark.parametrize("name, n", CASES)
def test_every_legal_move_applies_and_copies_do_not_leak(name, n):
    kernel.every_legal_move_applies_and_copies_do_not_leak(game(name), n)


@pytest.mark.parametrize("name, n", CASES)
def test_move_scores_are_finite_and_change_nothing(name, n):
    kernel.move_scores_are_finite_and_change_nothing(game(name), n)


@pytest.mark.parametrize("name, n", CASES)
def test_returns_are_win_shares_agreeing_with_the_outcome(name, n):
    kernel.returns_are_win_shares_agreeing_with_the_outcome(game(name), n)


@pytest.mark.parametrize("name, n", CASES)
def test_a_game_ended_by_the_rules_is_recorded_so(name, n):
    kernel.a_game_ended_by_the_rules_is_recorded_so(game(name), n)


@pytest.mark.parametrize("name, n", CASES)
def test_determinize_keeps_what_the_seat_sees_and_nothing_else(name, n):
    kernel.determinize_keeps_what_the_seat_sees_and_nothing_else(game(name), n)


@pytest.mark.parametrize("name, n", CASES)
def test_interface_random_games_equal_the_python_protocols(name, n):
    kernel.interface_random_games_equal_the_python_protocols(game(name), n)


@pytest.mark.parametrize("name, n", CASES)
def test_python_protocol_is_derived_from_the_interface(name, n):
    kernel.python_protocol_is_derived_from_the_interface(game(name), n)
