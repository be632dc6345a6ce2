"""``mcts`` at every game's table, from the registry (balancer/agents/tables.py).

For every registered game with a compiled interface: the MCTS names pass the game's agent check and
a malformed budget is refused; an all-``mcts`` table and a table mixing ``mcts`` with each of the
game's own agents play whole games through ``play_game`` (same seed, same outcome; every seat
scored); the transcript of such a table replays the same game; and the search cannot see hidden
information: from two positions that the searching seat cannot tell apart (one of them determinized
for that seat), the same generator gives the same search, visit for visit.
Budgets are tiny (8 iterations): this checks the plumbing and the contracts, not the strength.
The checks ship in the package (:mod:`balancer.testing.search`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from balancer.games import GAMES, get_spec
from balancer.testing import search
from balancer.testing.protocol import Game, load_game

ROOT = Path(__file__).resolve().parent.parent


def _games() -> list:
    out = []
    for name in sorted(GAMES):
        spec = get_spec(name)
        marks = [] if "mcts" in spec.extra_agents else [pytest.mark.skip(reason=f"{name} does not seat mcts yet")]
        out.append(pytest.param(name, id=name, marks=marks))
    return out


GAMES_WITH_ENGINE = _games()


def game(name: str) -> Game:
    return load_game(name, ROOT / "configs" / get_spec(name).default_config)


@pytest.mark.parametrize("name", GAMES_WITH_ENGINE)
def test_mcts_names_are_accepted_and_a_bad_budget_refused(name):
    search.mcts_names_are_accepted_and_a_bad_budget_refused(game(name))


@pytest.mark.parametrize("name", GAMES_WITH_ENGINE)
def test_all_mcts_table_plays_deterministically(name):
    search.all_mcts_table_plays_deterministically(game(name))


@pytest.mark.parametrize("name", GAMES_WITH_ENGINE)
def test_mcts_sits_beside_each_of_the_games_agents(name):
    counts = game(name).cfg.player_counts
    if max(2, min(counts)) not in counts:
        pytest.skip(f"{name} has no 2-player table")
    search.mcts_sits_beside_each_of_the_games_agents(game(name))


@pytest.mark.parametrize("name", GAMES_WITH_ENGINE)
def test_search_cannot_see_what_the_seat_cannot(name):
    search.search_cannot_see_what_the_seat_cannot(game(name))
