"""The contracts every game shares (DESIGN.md, "Contracts other parts rely on").

A game module (``balancer.games.<name>``) exposes:

- ``NAME: str`` and ``CONFIG_MODEL``: its pydantic config model;
- ``AGENTS: tuple[str, ...]``: the agent names it understands;
- ``new_game(config, n_players, seed) -> State``, ``legal_moves(state)``, ``apply(state, move)``,
  ``is_over(state)`` and ``outcome(state) -> Outcome``: the step-by-step protocol, for tests,
  notebooks and ``balancer play``; the state tells whose turn it is as ``state.seat_to_move``
  (0-based);
- ``play_game(config, agents, seed) -> Outcome``: one whole game at full speed, the runner's entry;
- ``transcript(config, agents, seed) -> str``: a human-readable turn-by-turn log;
- optionally ``check_agent(name, config) -> str | None``: an error message for an agent name the
  game cannot seat under ``config`` (for games whose agent names take parameters, e.g.
  ``greedy+ibex``, which is refused by a variant without the Ibex deck), else None; without it,
  names are checked against ``AGENTS``;
- optionally ``EXTRA_AGENTS: tuple[str, ...]``: names ``check_agent`` accepts that are not in
  ``AGENTS`` (too slow for the conformance suite, which plays every listed agent); ``balancer
  games`` shows them.

Agents implement :class:`Agent`. Nothing here knows a game's rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

import numpy as np


class Agent(Protocol):
    """An AI player: picks one legal move for ``seat`` (0-based) using only ``rng`` for chance."""

    name: str

    def choose(self, state: Any, seat: int, rng: np.random.Generator) -> Any: ...


@dataclass(frozen=True)
class Outcome:
    """The end of one game, per seat (index 0 is seat 1).

    scores: final totals (points), seat bonus included.
    tiebreak: per seat a tuple compared after the score, larger is better (e.g. (-empty cells, distinct shapes)).
    components: score category -> per-seat points; the categories sum to ``scores``.
    metrics: metric name -> per-seat value (tiles, counts...).
    turns: turns taken per seat.
    labels: label name -> per-seat text that groups games in the analysis (an Urgency deck, an
        Águeda shop-card pair); written as ``label_<name>`` string columns of the results.
    """

    scores: list[int]
    tiebreak: list[tuple[int, ...]]
    components: dict[str, list[int]]
    metrics: dict[str, list[float]]
    turns: list[int]
    labels: dict[str, list[str]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def ranks_and_win_shares(scores: Sequence[int], tiebreak: Sequence[tuple[int, ...]]) -> tuple[list[int], list[float]]:
    """Competition ranks (1 best; players equal on score and every tie-breaker share a rank) and
    win shares (1/k for each of k players tied for first after all tie-breakers, else 0).

    >>> ranks_and_win_shares([10, 12, 12], [(0,), (-1,), (-1,)])
    ([3, 1, 1], [0.0, 0.5, 0.5])
    """
    keys = [(s, *t) for s, t in zip(scores, tiebreak, strict=True)]
    ranks = [1 + sum(1 for other in keys if other > key) for key in keys]
    best = max(keys)
    winners = sum(1 for key in keys if key == best)
    shares = [1.0 / winners if key == best else 0.0 for key in keys]
    return ranks, shares
