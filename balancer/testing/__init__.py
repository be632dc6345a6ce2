"""The conformance suite, shipped: the checks every game must pass, as functions a game's own tests call.

balancer's own tests run them on its four games (``tests/test_conformance.py``,
``tests/test_kernel_conformance.py``, ``tests/test_mcts_conformance.py``); a game outside balancer
runs the same checks from its own tests (``examples/pig/tests/test_conformance.py``)::

    import pytest
    from balancer.testing import conformance_checks

    @pytest.mark.parametrize("check", conformance_checks("pig", CONFIG), ids=str)
    def test_conformance(check):
        check()

:func:`conformance_checks` lists one :class:`Check` per check and player count of the config:

- the Python protocol and the runner (:mod:`.protocol`): same seed, same game; every game ends with an
  outcome that fits the results schema; win shares sum to 1; no agent moves illegally; ``play_game``
  equals the game stepped move by move; the runner writes the results columns; the declared metrics
  are the ones written (PettingZoo's ``api_test``/``seed_test``, TAG's ``ForwardModelTester``);
- the compiled interface (:mod:`.kernel`, for a game with an ``engine``): the contract of
  :mod:`balancer.core.kernel`;
- every agent the game seats is blind to what its seat cannot see (:mod:`.hidden`, for a game with
  an ``engine``): a position and the same position determinized for the seat to move give the same
  decision;
- ``mcts`` at the game's tables (:mod:`.search`, for a game that seats it).

:func:`check_game` runs them all and raises the first failure (AssertionError). The checks use
``assert``: under pytest, call ``pytest.register_assert_rewrite("balancer.testing")`` in a
``conftest.py`` before importing this package to see the values of a failed comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import hidden, kernel, protocol, search
from .protocol import Game, load_game


@dataclass(frozen=True)
class Check:
    """One conformance check of one game (at one player count): call it to run it."""

    name: str
    run: Callable[..., None]
    args: tuple[Any, ...] = field(default=())

    def __call__(self) -> None:
        self.run(*self.args)

    def __str__(self) -> str:
        return self.name


PER_GAME = (
    protocol.registry_entry,
    protocol.unsupported_player_count_raises,
    protocol.unknown_agent_raises,
    protocol.declared_metrics_are_the_outcome_columns,
)
PER_COUNT = (
    protocol.same_seed_same_outcome,
    protocol.stepping_equals_play_game,
    protocol.games_end_with_a_valid_outcome,
    protocol.random_agent_never_moves_illegally,
    protocol.chosen_moves_are_in_legal_moves,
    protocol.every_agent_plays_a_full_game,
    protocol.runner_writes_the_design_columns,
)
KERNEL_PER_COUNT = (
    kernel.same_seed_same_game,
    kernel.every_legal_move_applies_and_copies_do_not_leak,
    kernel.move_scores_are_finite_and_change_nothing,
    kernel.returns_are_win_shares_agreeing_with_the_outcome,
    kernel.a_game_ended_by_the_rules_is_recorded_so,
    kernel.determinize_keeps_what_the_seat_sees_and_nothing_else,
    kernel.interface_random_games_equal_the_python_protocols,
    kernel.python_protocol_is_derived_from_the_interface,
    hidden.every_agent_is_blind_to_what_its_seat_cannot_see,
)
SEARCH_PER_GAME = (
    search.mcts_names_are_accepted_and_a_bad_budget_refused,
    search.all_mcts_table_plays_deterministically,
    search.mcts_sits_beside_each_of_the_games_agents,
    search.search_cannot_see_what_the_seat_cannot,
)


def conformance_checks(game: str, config: str | Path) -> list[Check]:
    """Every check of the registered game ``game`` under the variant at ``config`` (a YAML path), one
    per check and, where a check is per player count, per count of the variant. The compiled
    interface's checks are left out for a game without an ``engine``, the search's for a game that
    does not seat ``mcts``."""
    g = load_game(game, config)
    checks = [Check(f"{f.__name__}", f, (g,)) for f in PER_GAME]
    per_count = PER_COUNT + (KERNEL_PER_COUNT if g.spec.engine is not None else ())
    checks += [Check(f"{f.__name__}-{n}p", f, (g, n)) for f in per_count for n in g.cfg.player_counts]
    if "mcts" in g.spec.extra_agents:
        checks += [Check(f"{f.__name__}", f, (g,)) for f in SEARCH_PER_GAME]
    return checks


def check_game(game: str, config: str | Path) -> int:
    """Run every check of :func:`conformance_checks`; returns how many ran. AssertionError (naming
    the check) at the first failure."""
    checks = conformance_checks(game, config)
    for check in checks:
        try:
            check()
        except AssertionError as exc:
            raise AssertionError(f"{game}: {check}: {exc}") from exc
    return len(checks)


__all__ = ["Check", "Game", "check_game", "conformance_checks", "hidden", "kernel", "load_game", "protocol", "search"]
