"""The contracts every game shares (docs/architecture.md, "Contracts other parts rely on").

A game is described by a frozen :class:`balancer.core.registry.GameSpec` (its package's ``SPEC``):
the config model, the agents it seats, and

- the step-by-step protocol ``new_game(config, n_players, seed) -> state``, ``legal_moves(state)``,
  ``apply(state, move)``, ``is_over(state)``, ``outcome(state) -> Outcome`` and
  ``is_legal_move(state, move)``, for tests, notebooks and ``balancer play``; the state tells whose
  turn it is as ``state.seat_to_move`` (0-based). Games with a compiled interface
  (:mod:`balancer.core.kernel`) derive it from that interface (:mod:`balancer.core.protocol`);
- ``play_game(config, agents, seed) -> Outcome``: one whole game at full speed, the runner's entry;
- ``transcript(config, agents, seed) -> str``: a human-readable turn-by-turn log;
- ``check_agent(name, config) -> str | None``: why a name cannot sit at a table of ``config``.

Agents implement :class:`Agent`. Nothing here knows a game's rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

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
    ended_by: how the game ended, one of :data:`balancer.core.kernel.ENDED_BY` ("rules", or the
        safety stop that ended it, e.g. "turn_cap"); the results' ``ended_by`` column.
    standings: the game's trajectory (issue 49), or None when the game records none: per checkpoint
        (the end of each round; the last one is the game's end), per seat, the seat's standing (its
        score where it is public mid-game, else the kernel's ``heuristic``); every seat at every
        checkpoint. The run writes it to ``trajectories.parquet`` (:mod:`balancer.stats.flow`).
    """

    scores: list[int]
    tiebreak: list[tuple[int, ...]]
    components: dict[str, list[int]]
    metrics: dict[str, list[float]]
    turns: list[int]
    labels: dict[str, list[str]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    ended_by: str = "rules"
    standings: list[list[float]] | None = None


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
