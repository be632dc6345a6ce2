"""Conformance suite: every game in the registry, at every player count its default config supports.

docs/architecture.md, "Tests": same seed twice gives identical records; every game ends; results match the
schema; win shares of a game sum to 1; a random agent never gets an illegal move (PettingZoo's
``api_test``/``seed_test``, TAG's ``ForwardModelTester``). The cases are generated from
``balancer.games.GAMES`` at collection time, so a new game is checked the day it is registered. The
checks themselves ship in the package (:mod:`balancer.testing.protocol`), where a game outside
balancer runs them from its own tests.

A game's default config is its spec's ``default_config`` (a path relative to the repository's
``configs/``).

Stepping a game by hand mirrors ``citywright.transcript()``: ``new_game(cfg, n, seed)`` takes the
game's own chance from child 0 of :func:`balancer.core.seeding.game_rngs`, the agents share child 1,
and the seat to move is ``state.seat_to_move`` (0-based).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from balancer.games import GAMES, GameSpec, get_spec
from balancer.testing import protocol
from balancer.testing.protocol import Game, load_game

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"


# --------------------------------------------------------------------------------------------------
# the cases: (game, default config, player count), built from the registry


def default_config_path(spec: GameSpec) -> Path:
    """The config a conformance check of a game uses (see the spec docstring)."""
    return CONFIGS / spec.default_config


_LOADED: dict[str, Game] = {}


def loaded(name: str) -> Game:
    """The registered game with its default config (spec, path, validated config), loaded once."""
    if name not in _LOADED:
        _LOADED[name] = load_game(name, default_config_path(get_spec(name)))
    return _LOADED[name]


def _cases() -> list:
    cases = []
    for name in sorted(GAMES):
        for n in loaded(name).cfg.player_counts:
            cases.append(pytest.param(name, n, id=f"{name}-{n}p"))
    return cases


CASES = _cases()
GAME_NAMES = [pytest.param(name, id=name) for name in sorted(GAMES)]


# --------------------------------------------------------------------------------------------------
# per game


@pytest.mark.parametrize("name", GAME_NAMES)
def test_registry_entry(name):
    assert loaded(name).spec.name == name
    protocol.registry_entry(loaded(name))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_unsupported_player_count_raises(name):
    protocol.unsupported_player_count_raises(loaded(name))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_unknown_agent_raises(name):
    protocol.unknown_agent_raises(loaded(name))


# --------------------------------------------------------------------------------------------------
# per game and player count


@pytest.mark.parametrize("name,n", CASES)
def test_same_seed_same_outcome(name, n):
    protocol.same_seed_same_outcome(loaded(name), n)


@pytest.mark.parametrize("name,n", CASES)
def test_stepping_equals_play_game(name, n):
    protocol.stepping_equals_play_game(loaded(name), n)


@pytest.mark.parametrize("name,n", CASES)
def test_games_end_with_a_valid_outcome(name, n):
    protocol.games_end_with_a_valid_outcome(loaded(name), n)


@pytest.mark.parametrize("name,n", CASES)
def test_random_agent_never_moves_illegally(name, n):
    protocol.random_agent_never_moves_illegally(loaded(name), n)


# Games whose agents return moves that are legal but not spelled as legal_moves() spells them
# (each entry marks those cases xfail(strict), so a fix shows up as an unexpected pass).
NONCANONICAL_MOVES: dict[str, str] = {}
CANONICAL_CASES = [
    pytest.param(
        *case.values,
        id=case.id,
        marks=[pytest.mark.xfail(strict=True, raises=AssertionError, reason=NONCANONICAL_MOVES[case.values[0]])]
        if case.values[0] in NONCANONICAL_MOVES
        else [],
    )
    for case in CASES
]


@pytest.mark.parametrize("name,n", CANONICAL_CASES)
def test_chosen_moves_are_in_legal_moves(name, n):
    protocol.chosen_moves_are_in_legal_moves(loaded(name), n)


@pytest.mark.parametrize("name,n", CASES)
def test_every_agent_plays_a_full_game(name, n):
    protocol.every_agent_plays_a_full_game(loaded(name), n)


@pytest.mark.parametrize("name,n", CASES)
def test_runner_writes_the_design_columns(name, n, tmp_path):
    protocol.runner_writes_the_design_columns(loaded(name), n, tmp_path)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_declared_metrics_are_the_outcome_columns(name):
    protocol.declared_metrics_are_the_outcome_columns(loaded(name))
